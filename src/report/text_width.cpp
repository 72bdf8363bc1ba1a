#include "report/text_width.h"

#include <cstdarg>
#include <string_view>
#include <vector>

namespace ds::report {

namespace {

std::size_t g_width = kTextWidth;

// A line's fields: the text between field breaks ("  " or " | "), each with
// the break before it as it was (the first one with the line's indent).
struct Field {
    std::string lead;
    std::string text;
};

std::vector<Field> fields_of(const std::string& line) {
    std::vector<Field> out;
    std::size_t i = 0;
    while (i < line.size()) {
        const std::size_t start = i;
        while (i < line.size() && line[i] == ' ')
            ++i;
        if (i < line.size() && line.compare(i, 2, "| ") == 0 && i > start && !out.empty()) {
            i += 2;
            while (i < line.size() && line[i] == ' ')
                ++i;
        }
        std::string lead = line.substr(start, i - start);
        std::size_t end = i;
        // A field ends before two spaces, or before " | ".
        while (end < line.size() && !(line.compare(end, 2, "  ") == 0) &&
               !(line.compare(end, 3, " | ") == 0))
            ++end;
        out.push_back({std::move(lead), line.substr(i, end - i)});
        i = end;
    }
    return out;
}

// A number as the report prints one: digits (a decimal point, a k or M
// after them), perhaps after an opening bracket or a sign.
bool is_number(std::string_view w) {
    while (!w.empty() && std::string_view("([~+-").find(w.front()) != std::string_view::npos)
        w.remove_prefix(1);
    if (w.empty() || w.front() < '0' || w.front() > '9') return false;
    if (w.back() == 'k' || w.back() == 'M') w.remove_suffix(1);
    return w.find_first_not_of("0123456789.") == std::string_view::npos;
}

// A unit a number is printed with, perhaps before closing punctuation.
bool is_unit(std::string_view w) {
    while (!w.empty() && std::string_view("),;:.]").find(w.back()) != std::string_view::npos)
        w.remove_suffix(1);
    static constexpr std::string_view kUnits[] = {
        "B",  "KiB", "MiB",   "GiB",   "TiB",   "PiB",  "EiB",  "kB", "MB", "GB",
        "TB", "B/s", "KiB/s", "MiB/s", "GiB/s", "MB/s", "GB/s", "%",  "s",  "ms",
        "us", "ns",  "IOPS",  "byte",  "bytes", "ops",  "min",  "h"};
    for (std::string_view u : kUnits)
        if (w == u) return true;
    return false;
}

// Where the word starting at `i` ends: at the next space, or, for a number
// followed by its unit, after the unit ("2.6 MiB)" is never split).
std::size_t word_end(const std::string& field, std::size_t i) {
    std::size_t end = field.find(' ', i);
    if (end == std::string::npos) return field.size();
    std::size_t after = field.find(' ', end + 1);
    if (after == std::string::npos) after = field.size();
    const std::string_view text(field);
    if (is_number(text.substr(i, end - i)) && is_unit(text.substr(end + 1, after - end - 1)))
        return after;
    return end;
}

// A field word by word, after `sep` (what separates it from the line so
// far; empty at the start of a line): a word that would pass the width
// starts a continuation line.  A number and its unit are one word here.
void fold_words(const std::string& field, std::string_view sep, std::size_t indent,
                std::size_t width, std::string& out, std::size_t& used) {
    std::size_t i = 0;
    while (i < field.size()) {
        const std::size_t next = word_end(field, i);
        const std::size_t w = columns_of(field.substr(i, next - i));
        if (used > indent && used + sep.size() + w > width) {
            out.append("\n").append(indent, ' ');
            used = indent;
            sep = {};
        }
        out.append(sep).append(field, i, next - i);
        used += sep.size() + w;  // separators are spaces
        sep = " ";
        i = next + 1;
    }
}

std::string fit_line(const std::string& line, std::size_t indent, std::size_t width) {
    if (width == 0 || columns_of(line) <= width) return line;
    std::string out;
    std::size_t used = 0;
    for (const Field& f : fields_of(line)) {
        const std::size_t lead = columns_of(f.lead);
        const std::size_t w = columns_of(f.text);
        if (used + lead + w <= width) {  // fits where it is
            out.append(f.lead).append(f.text);
            used += lead + w;
        } else if (used > indent && indent + w <= width) {  // fits on a line of its own
            out.append("\n").append(indent, ' ').append(f.text);
            used = indent + w;
        } else {  // longer than a line: word by word from here
            fold_words(f.text, used > indent ? std::string_view(" ") : std::string_view(f.lead),
                       indent, width, out, used);
        }
    }
    return out;
}

}  // namespace

void set_text_width(std::size_t columns) {
    g_width = columns;
}

std::size_t text_width() {
    return g_width;
}

std::size_t columns_of(const std::string& line) {
    std::size_t n = 0;
    for (unsigned char c : line)
        if ((c & 0xC0) != 0x80) ++n;
    return n;
}

std::string fit(const std::string& text, std::size_t indent) {
    std::string out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string::npos) nl = text.size();
        out += fit_line(text.substr(start, nl - start), indent, g_width);
        if (nl == text.size()) break;
        out += '\n';
        start = nl + 1;
    }
    return out;
}

std::string clauses(const std::string& line, std::size_t indent) {
    if (g_width == 0) return line;
    std::string out;
    std::size_t start = 0;
    for (std::size_t bar; (bar = line.find(" | ", start)) != std::string::npos; start = bar + 3)
        out.append(line, start, bar - start).append("\n").append(indent, ' ');
    out.append(line, start, std::string::npos);
    return fit(out, indent);
}

void printf_fit(std::FILE* out, std::size_t indent, const char* format, ...) {
    std::va_list args;
    va_start(args, format);
    std::va_list again;
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    const std::string fitted = fit(text, indent);
    std::fwrite(fitted.data(), 1, fitted.size(), out);
}

}  // namespace ds::report
