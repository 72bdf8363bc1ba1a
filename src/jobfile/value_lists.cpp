#include "jobfile/value_lists.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <stdexcept>

namespace ds::jobfile {

namespace {

constexpr std::size_t kMaxSplit = 64;   // fio's BSSPLIT_MAX
constexpr std::size_t kMaxZones = 256;  // fio's ZONESPLIT_MAX
constexpr unsigned kMaxCpus = 1024;     // fio's FIO_MAX_CPUS on Linux (CPU_SETSIZE)
constexpr unsigned kMissing = ~0U;      // a per cent left for fio to fill in

[[noreturn]] void bad(const std::string& why) {
    throw std::invalid_argument(why);
}

// Items between `sep`; an empty item is refused (fio stops reading at one).
std::vector<std::string_view> items(std::string_view text, char sep, const char* what) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        std::size_t end = text.find(sep, start);
        std::string_view item = text.substr(start, end - start);
        if (item.empty()) bad(quote(text) + ": an empty " + what + " (fio stops reading there)");
        out.push_back(item);
        if (end == std::string_view::npos) return out;
        start = end + 1;
    }
}

unsigned whole(std::string_view text, unsigned max, const char* what) {
    unsigned v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v > max)
        bad(quote(text) + " is not " + what);
    return v;
}

// fio's relative per cent (atoi): 0 or none leaves it to be filled in.
unsigned percent_or_missing(std::string_view text) {
    if (text.empty()) return kMissing;
    unsigned v = whole(text, 100, "a per cent from 0 to 100");
    return v == 0 ? kMissing : v;
}

// Missing per cents share what the others leave (fio's integer division;
// parse_bssplit_direction gives the remainder to the last size).
void fill_missing(std::vector<unsigned*> shares, std::string_view text, bool must_be_100) {
    unsigned sum = 0, missing = 0;
    for (unsigned* s : shares)
        *s == kMissing ? ++missing : sum += *s;
    if (sum > 100) bad(quote(text) + ": the per cents add to " + std::to_string(sum));
    if (missing == 0 && must_be_100 && sum != 100)
        bad(quote(text) + ": the per cents add to " + std::to_string(sum) + ", not 100");
    for (unsigned* s : shares)
        if (*s == kMissing) *s = (100 - sum) / missing;
}

const std::array<std::string_view, 11> kRwWords{
    "read", "write",     "trim",   "randread",  "randwrite",    "randtrim",
    "rw",   "readwrite", "randrw", "trimwrite", "randtrimwrite"};
const Rw kRwValues[] = {Rw::read,      Rw::write,     Rw::trim,         Rw::randread,
                        Rw::randwrite, Rw::randtrim,  Rw::readwrite,    Rw::readwrite,
                        Rw::randrw,    Rw::trimwrite, Rw::randtrimwrite};

std::string list_of(std::span<const std::string_view> words) {
    std::string s;
    for (std::string_view w : words)
        s += (s.empty() ? "" : ", ") + std::string(w);
    return s;
}

// The text after a matched word: nothing, or ':' and fio's postfix.
std::optional<std::string_view> postfix(std::string_view text, std::string_view rest) {
    if (rest.empty()) return std::nullopt;
    if (rest.front() != ':') bad(quote(text) + ": fio would ignore " + quote(rest));
    return strip_blanks(rest.substr(1));
}

std::vector<Zone> zones(std::string_view text, bool absolute, unsigned kb_base) {
    std::vector<Zone> out;
    for (std::string_view item : items(text, ':', "zone")) {
        std::size_t slash = item.find('/');
        Zone z;
        z.access_percent = whole(item.substr(0, slash), 100, "an access per cent (0 to 100)");
        std::string_view size = slash == std::string_view::npos ? "" : item.substr(slash + 1);
        if (absolute)
            z.size_bytes = size.empty() ? 0 : parse_size(size, kb_base);
        else
            z.size_percent = percent_or_missing(size);
        out.push_back(z);
    }
    if (out.size() > kMaxZones) bad(quote(text) + ": more than 256 zones");
    unsigned access = 0;
    for (const Zone& z : out)
        access += z.access_percent;
    if (access != 100)
        bad(quote(text) + ": the access per cents add to " + std::to_string(access) + ", not 100");
    if (!absolute) {
        std::vector<unsigned*> sizes;
        for (Zone& z : out)
            sizes.push_back(&z.size_percent);
        fill_missing(sizes, text, false);
    }
    return out;
}

void center_and_parameter(Distribution& d, std::string_view text, std::string_view post) {
    std::size_t colon = post.find(':');
    d.parameter = parse_real(post.substr(0, colon));
    if (colon != std::string_view::npos) {
        d.center = parse_real(post.substr(colon + 1));
        if (*d.center < 0 || *d.center > 1) bad(quote(text) + ": the center is from 0 to 1");
    }
    if (d.kind == DistributionKind::zipf && d.parameter == 1.0)
        bad(quote(text) + ": zipf's theta must not be 1");
    if (d.kind == DistributionKind::pareto && (d.parameter <= 0 || d.parameter >= 1))
        bad(quote(text) + ": pareto's power is between 0 and 1");
    if (d.kind == DistributionKind::normal && (d.parameter < 0 || d.parameter >= 100))
        bad(quote(text) + ": normal's deviation is from 0 to under 100");
}

}  // namespace

std::string_view strip_blanks(std::string_view s) {
    auto blank = [](char c) {
        return std::isspace(static_cast<unsigned char>(c)) ||
               std::iscntrl(static_cast<unsigned char>(c));
    };
    while (!s.empty() && blank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && blank(s.back()))
        s.remove_suffix(1);
    return s;
}

RwValue parse_rw(std::string_view text, unsigned kb_base) {
    auto m = match_choice(text, kRwWords);
    if (!m) bad(quote(text) + " is not one of " + list_of(kRwWords));
    RwValue v{kRwValues[m->index], 0, 1};
    auto post = postfix(text, m->rest);
    if (!post) return v;
    if (is_random(v.rw)) {
        v.random_run = whole(*post, 1u << 30, "a count of I/Os");
        if (v.random_run == 0) bad(quote(text) + ": at least one I/O per offset");
    } else {
        v.offset_step = parse_signed_size(*post, kb_base);
    }
    return v;
}

SizeRange parse_size_range(std::string_view text, unsigned kb_base) {
    std::size_t sep = text.find('-');
    if (sep == std::string_view::npos) sep = text.find(':');
    if (sep == std::string_view::npos) bad(quote(text) + " is not a range (LOW-HIGH)");
    SizeRange r{parse_size(text.substr(0, sep), kb_base),
                parse_size(text.substr(sep + 1), kb_base)};
    if (r.min > r.max) std::swap(r.min, r.max);
    return r;
}

std::vector<BlockShare> parse_bssplit_direction(std::string_view text, unsigned kb_base) {
    std::vector<BlockShare> out;
    for (std::string_view item : items(text, ':', "size")) {
        std::size_t slash = item.find('/');
        std::string_view share = slash == std::string_view::npos ? "" : item.substr(slash + 1);
        out.push_back(
            BlockShare{parse_size(item.substr(0, slash), kb_base), percent_or_missing(share)});
    }
    if (out.size() > kMaxSplit) bad(quote(text) + ": more than 64 sizes");
    std::vector<unsigned*> shares;
    for (BlockShare& b : out)
        shares.push_back(&b.percent);
    fill_missing(shares, text, true);
    std::stable_sort(out.begin(), out.end(), [](const BlockShare& a, const BlockShare& b) {
        return a.percent < b.percent;
    });
    unsigned sum = 0;
    for (const BlockShare& b : out)
        sum += b.percent;
    out.back().percent += 100 - sum;
    std::erase_if(out, [](const BlockShare& b) { return b.percent == 0; });
    return out;
}

Distribution parse_distribution(std::string_view text, unsigned kb_base) {
    static constexpr std::string_view kWords[] = {"random", "zipf",  "pareto",
                                                  "normal", "zoned", "zoned_abs"};
    auto m = match_choice(text, kWords);
    if (!m && text.starts_with("zoned") && text.find(',') != std::string_view::npos)
        bad(quote(text) + ": fio 3.33 refuses zones per direction (its match stops at ',')");
    if (!m) bad(quote(text) + " is not one of " + list_of(kWords));
    Distribution d;
    d.kind = static_cast<DistributionKind>(m->index);
    auto post = postfix(text, m->rest);
    if (d.kind == DistributionKind::random) {
        if (post) bad(quote(text) + ": random takes no value");
    } else if (d.kind == DistributionKind::zoned || d.kind == DistributionKind::zoned_abs) {
        if (!post) bad(quote(text) + ": zones are ACCESS/SIZE:... after the ':'");
        auto z = zones(*post, d.kind == DistributionKind::zoned_abs, kb_base);
        d.zones = {z, z, z};
    } else {
        d.parameter = d.kind == DistributionKind::zipf     ? 1.1
                      : d.kind == DistributionKind::pareto ? 0.2
                                                           : 0;
        if (post) center_and_parameter(d, text, *post);
    }
    return d;
}

SteadyValue parse_steadystate(std::string_view text, unsigned kb_base) {
    static constexpr std::string_view kWords[] = {"iops", "iops_slope", "bw", "bw_slope"};
    auto m = match_choice(text, kWords);
    if (!m) bad(quote(text) + " is not one of " + list_of(kWords));
    SteadyValue v{static_cast<SteadyKind>(m->index), 0, false};
    auto post = postfix(text, m->rest);
    if (!post) bad(quote(text) + ": a limit is needed after ':' (iops:10%)");
    if (post->ends_with('%')) {
        v.percent = true;
        v.limit = parse_real(strip_blanks(post->substr(0, post->size() - 1)));
    } else if (v.kind == SteadyKind::iops || v.kind == SteadyKind::iops_slope) {
        v.limit = parse_real(*post);
    } else {
        v.limit = static_cast<double>(parse_size(*post, kb_base));
    }
    if (v.limit < 0) bad(quote(text) + ": the limit is negative");
    return v;
}

std::vector<unsigned> parse_cpu_list(std::string_view text) {
    std::vector<unsigned> cpus;
    for (std::string_view item : items(strip_blanks(text), ',', "item")) {
        std::size_t dash = item.find('-');
        unsigned lo = whole(item.substr(0, dash), kMaxCpus - 1, "a CPU number (0 to 1023)");
        unsigned hi = dash == std::string_view::npos
                          ? lo
                          : whole(item.substr(dash + 1), kMaxCpus - 1, "a CPU number (0 to 1023)");
        if (hi < lo) bad(quote(item) + ": a range goes from low to high");
        for (unsigned c = lo; c <= hi; ++c)
            cpus.push_back(c);
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

std::vector<unsigned> parse_node_list(std::string_view text) {
    std::string_view s = strip_blanks(text);
    if (s == "all") return {};
    if (!s.empty() && (s.front() == '!' || s.front() == '+'))
        bad(quote(text) + ": libnuma's '!' and '+' forms are not taken");
    return parse_cpu_list(s);
}

std::vector<std::string> split_names(std::string_view text) {
    std::vector<std::string> names;
    std::string name;
    std::string_view s = strip_blanks(text);
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == ':') {
            name += ':';
            ++i;
        } else if (s[i] == ':') {
            if (!name.empty()) names.push_back(name);  // fio skips an empty name
            name.clear();
        } else {
            name += s[i];
        }
    }
    if (!name.empty()) names.push_back(name);
    if (names.empty()) bad(quote(text) + ": no name");
    return names;
}

}  // namespace ds::jobfile
