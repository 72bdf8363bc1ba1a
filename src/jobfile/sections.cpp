#include "jobfile/sections.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <iterator>

#include "jobfile/values.h"
#include "units/units.h"

namespace ds::jobfile {

namespace {

namespace fs = std::filesystem;

bool blank(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0 ||
           std::iscntrl(static_cast<unsigned char>(c)) != 0;
}

// fio's strip_blank_front and strip_blank_end: leading blanks, then ';' or
// '#' ends the line, then trailing blanks and control characters.
std::string_view strip(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    s = s.substr(0, s.find_first_of(";#"));
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return s;
}

// Bytes a text file has no business holding: NUL and the control
// characters other than tab, line feed, vertical tab, form feed and return.
std::optional<std::size_t> binary_byte(std::string_view line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(line[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r') return i;
    }
    return std::nullopt;
}

// fio_option_dup_subs: ${VAR} becomes the variable's value, empty when unset.
std::string expand_variables(std::string_view s, const Environment& env) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t close = s.substr(i, 2) == "${" ? s.find('}', i + 2) : std::string_view::npos;
        if (close != std::string_view::npos) {
            std::string name(s.substr(i + 2, close - i - 2));
            if (auto v = env.variable ? env.variable(name) : std::nullopt) out += *v;
            i = close + 1;
            continue;
        }
        out += s[i++];
    }
    return out;
}

// fio_keyword_replace: $pagesize, $mb_memory, $ncpus; whether one was
// replaced.  fio searches from the start again after each; a number put in
// cannot make a keyword, so searching on from it finds the same.
bool replace_keywords(std::string& s, const Environment& env) {
    const std::pair<std::string_view, const std::string*> words[] = {
        {"$pagesize", &env.pagesize}, {"$mb_memory", &env.mb_memory}, {"$ncpus", &env.ncpus}};
    bool replaced = false;
    for (const auto& [word, value] : words) {
        for (std::size_t at = s.find(word); at != std::string::npos; at = s.find(word, at)) {
            s.replace(at, word.size(), *value);
            at += value->size();
            replaced = true;
        }
    }
    return replaced;
}

std::string read_whole(std::istream& in, const std::string& name, std::size_t budget) {
    std::string text;
    text.resize(budget + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw JobFileError({name, 0}, "", "cannot be read");
    if (text.size() > budget)
        throw JobFileError(
            {name, 0}, "",
            "the job file and its includes come to over " + units::format_bytes(kMaxInputBytes));
    return text;
}

struct Reader {
    const Environment& env;
    std::vector<Section> sections;
    std::vector<fs::path> reading;  // the include chain, outermost first
    std::size_t budget = kMaxInputBytes;

    void text(std::string_view text, const std::string& name, bool nested);
    void line(std::string_view raw, const Origin& at, bool nested);
    void option(std::string_view line, const Origin& at);
    void include(std::string_view target, const Origin& at);
};

void Reader::text(std::string_view text, const std::string& name, bool nested) {
    budget -= text.size();
    std::size_t number = 0;
    for (std::size_t start = 0; start < text.size();) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        Origin at{name, ++number};
        if (end - start > kMaxLineBytes)
            throw JobFileError(at, "", "a line over " + std::to_string(kMaxLineBytes) + " bytes");
        std::string_view raw = text.substr(start, end - start);
        if (auto i = binary_byte(raw))
            throw JobFileError(at, "",
                               units::printf_string("binary content (byte 0x%02x at column %zu)",
                                                    static_cast<unsigned char>(raw[*i]), *i + 1));
        line(raw, at, nested);
        start = end + 1;
    }
}

void Reader::line(std::string_view raw, const Origin& at, bool nested) {
    std::string_view s = strip(raw);
    if (s.empty()) return;  // blank, or a comment
    if (s.front() == '[') {
        if (nested) throw JobFileError(at, "", "a section in an included file (fio refuses it)");
        if (s.back() != ']' || s.size() < 2)
            throw JobFileError(at, "", "a section header " + quote(s) + " does not end with ']'");
        std::string name(s.substr(1, s.size() - 2));
        if (strip(name).empty()) throw JobFileError(at, "", "a section with no name");
        if (name.size() > 255)
            throw JobFileError(at, "", "a section name over 255 characters (fio cuts it short)");
        sections.push_back(Section{name, name.starts_with("global"), at, {}});
        return;
    }
    if (s.starts_with("include") &&
        (s.size() == 7 || std::isspace(static_cast<unsigned char>(s[7])))) {
        if (sections.empty()) throw JobFileError(at, "include", "outside any [section]");
        include(strip(s.substr(7)), at);
        return;
    }
    option(s, at);
}

void Reader::option(std::string_view line, const Origin& at) {
    std::string s = expand_variables(line, env);
    if (replace_keywords(s, env) && s.find_first_of("+-*/") != std::string::npos)
        throw JobFileError(
            at, "", quote(s) + ": fio 3.33 would work this out with bc; " + "write the number");
    if (s.size() > kMaxLineBytes)
        throw JobFileError(
            at, "",
            "over " + std::to_string(kMaxLineBytes) + " bytes once " + "${VAR} is replaced");
    std::size_t eq = s.find('=');
    std::string key = s.substr(0, eq);
    while (!key.empty() && blank(key.back()))
        key.pop_back();
    if (key.empty()) throw JobFileError(at, "", "an option with no name: " + quote(s));
    if (sections.empty()) throw JobFileError(at, key, "outside any [section]");
    std::optional<std::string> value;
    if (eq != std::string::npos) value = s.substr(eq + 1);
    sections.back().options.push_back(RawOption{key, value, at});
}

void Reader::include(std::string_view target, const Origin& at) {
    if (!env.includes) throw JobFileError(at, "include", "includes are not read here");
    if (target.empty()) throw JobFileError(at, "include", "no file named");
    fs::path path(target);
    if (path.is_relative() && !reading.empty()) path = reading.back().parent_path() / path;
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    if (ec) canonical = path;
    for (const fs::path& p : reading)
        if (p == canonical)
            throw JobFileError(at, "include",
                               quote(path.string()) + " is already being read (an include loop)");
    if (static_cast<int>(reading.size()) > kMaxIncludeDepth)
        throw JobFileError(at, "include",
                           "more than " + std::to_string(kMaxIncludeDepth) + " levels of include");
    if (fs::is_directory(path, ec))
        throw JobFileError(at, "include", path.string() + " is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw JobFileError(at, "include", path.string() + ": " + std::strerror(errno));
    std::string content = read_whole(in, path.string(), budget);
    reading.push_back(canonical);
    text(content, path.string(), true);
    reading.pop_back();
}

std::string cwd_path(const std::string& name) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(name), ec);
    return ec ? name : p.string();
}

}  // namespace

Environment process_environment() {
    Environment env;
    env.variable = [](const std::string& name) -> std::optional<std::string> {
        const char* v = std::getenv(name.c_str());
        if (v == nullptr) return std::nullopt;
        return std::string(v);
    };
    long page = sysconf(_SC_PAGESIZE);
    long pages = sysconf(_SC_PHYS_PAGES);
    env.pagesize = std::to_string(page);
    env.mb_memory = std::to_string(static_cast<unsigned long long>(pages) *
                                   static_cast<unsigned long long>(page) / (1024 * 1024));
    env.ncpus = std::to_string(sysconf(_SC_NPROCESSORS_CONF));
    return env;
}

std::vector<Section> parse_sections(std::string_view text, const std::string& name,
                                    const Environment& env) {
    if (text.size() > kMaxInputBytes)
        throw JobFileError({name, 0}, "", "over " + units::format_bytes(kMaxInputBytes));
    Reader r{env, {}, {}};
    r.reading.push_back(name == "stdin" ? fs::current_path() / "stdin" : fs::path(cwd_path(name)));
    r.text(text, name, false);
    return std::move(r.sections);
}

std::vector<Section> read_sections(const std::string& path, std::istream& standard_input,
                                   const Environment& env) {
    if (path == "-")
        return parse_sections(read_whole(standard_input, "stdin", kMaxInputBytes), "stdin", env);
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw JobFileError({path, 0}, "", "is a directory");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw JobFileError({path, 0}, "", std::strerror(errno));
    return parse_sections(read_whole(in, path, kMaxInputBytes), path, env);
}

}  // namespace ds::jobfile
