#include "units/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>

namespace ds::units {

namespace {

std::string quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) !=
            std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

}  // namespace

std::uint64_t parse_count(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty()) throw std::invalid_argument("empty number");
    if (s.front() == '-') throw std::invalid_argument(quoted(text) + " is negative");
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range)
        throw std::invalid_argument(quoted(text) + " is too large");
    if (ec != std::errc() || p != s.data() + s.size())
        throw std::invalid_argument(quoted(text) + " is not a whole number");
    return v;
}

double parse_rate(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty()) throw std::invalid_argument("empty rate");
    double scale = 1;
    if (s.back() == 'k' || s.back() == 'K') scale = 1e3;
    if (s.back() == 'M') scale = 1e6;
    if (scale != 1) s.remove_suffix(1);
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !(v > 0))
        throw std::invalid_argument("rate " + quoted(text) +
                                    " is not a number of operations a second above 0 (e.g. "
                                    "5000, 50k, 1.5M)");
    if (!std::isfinite(v * scale) || v * scale > kMaxRate)
        throw std::invalid_argument("rate " + quoted(text) +
                                    " is above 1000M operations a second (1e9, the highest "
                                    "rate scheduled)");
    // Below one a second the schedule's interval outgrows any phase (and,
    // far enough below, a 64-bit count of nanoseconds): nothing to measure.
    if (v * scale < kMinRate)
        throw std::invalid_argument("rate " + quoted(text) +
                                    " is below 1 operation a second (the lowest rate scheduled)");
    return v * scale;
}

std::uint64_t parse_size(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty()) throw std::invalid_argument("empty size");
    if (s.front() == '-') throw std::invalid_argument("size " + quoted(text) + " is negative");
    std::size_t digits = 0;
    while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits])))
        ++digits;
    if (digits == 0)
        throw std::invalid_argument("size " + quoted(text) + " does not start with a number");
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + digits, v);
    if (ec != std::errc()) throw std::invalid_argument("size " + quoted(text) + " is too large");
    (void)p;
    std::string_view suffix = s.substr(digits);
    unsigned shift = 0;
    static constexpr std::string_view kSuffixes[][3] = {{"", "b", ""},
                                                        {"k", "kb", "kib"},
                                                        {"m", "mb", "mib"},
                                                        {"g", "gb", "gib"},
                                                        {"t", "tb", "tib"}};
    bool matched = false;
    for (unsigned i = 0; i < 5 && !matched; ++i)
        for (auto spelled : kSuffixes[i])
            if ((i == 0 && suffix.empty()) || (!spelled.empty() && iequals(suffix, spelled))) {
                shift = 10 * i;
                matched = true;
                break;
            }
    if (!matched)
        throw std::invalid_argument("size " + quoted(text) + " has unknown suffix " +
                                    quoted(suffix) + " (use K, M, G or T)");
    if (shift && v > (UINT64_MAX >> shift))
        throw std::invalid_argument("size " + quoted(text) + " is too large");
    return v << shift;
}

double parse_duration(std::string_view text) {
    std::string_view s = trim(text);
    if (s.empty()) throw std::invalid_argument("empty duration");
    if (s.front() == '-') throw std::invalid_argument("duration " + quoted(text) + " is negative");
    std::size_t n = 0;
    while (n < s.size() && (std::isdigit(static_cast<unsigned char>(s[n])) || s[n] == '.'))
        ++n;
    if (n == 0)
        throw std::invalid_argument("duration " + quoted(text) + " does not start with a number");
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + n, v);
    if (ec != std::errc() || p != s.data() + n)
        throw std::invalid_argument("duration " + quoted(text) + " is not a number");
    std::string_view suffix = s.substr(n);
    double scale;
    if (suffix.empty() || suffix == "s" || suffix == "sec")
        scale = 1;
    else if (suffix == "ms")
        scale = 1e-3;
    else if (suffix == "us")
        scale = 1e-6;
    else if (suffix == "m" || suffix == "min")
        scale = 60;
    else if (suffix == "h")
        scale = 3600;
    else
        throw std::invalid_argument("duration " + quoted(text) + " has unknown suffix " +
                                    quoted(suffix) + " (use us, ms, s, m or h)");
    double seconds = v * scale;
    if (!std::isfinite(seconds) || seconds > 1e9)
        throw std::invalid_argument("duration " + quoted(text) + " is too large");
    return seconds;
}

std::vector<std::string> split_list(std::string_view text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        auto comma = text.find(',', start);
        std::string_view item =
            trim(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
        if (item.empty())
            throw std::invalid_argument("list " + quoted(text) + " has an empty item");
        items.emplace_back(item);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return items;
}

namespace {

// What format_bytes shows: a value in the unit 1024^power.
struct ShownBytes {
    double value = 0;
    unsigned power = 0;
};

ShownBytes shown_bytes(std::uint64_t bytes) {
    ShownBytes s{static_cast<double>(bytes), 0};
    // Step up while the value would print as 1024.0 or more.
    while (s.power < 6 && std::round(s.value * 10) / 10 >= 1024) {
        s.value /= 1024;
        ++s.power;
    }
    return s;
}

// The amount a reader takes from format_bytes's text, in bytes.
double read_back(const ShownBytes& s) {
    const double shown = s.power == 0 || s.value == std::floor(s.value)
                             ? std::round(s.value)
                             : std::round(s.value * 10) / 10;
    return std::ldexp(shown, 10 * static_cast<int>(s.power));
}

}  // namespace

std::string format_bytes(std::uint64_t bytes) {
    // EiB too: 2^64 - 1 bytes is "16 EiB", never "16384.0 PiB".
    static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const ShownBytes s = shown_bytes(bytes);
    char buf[48];
    if (s.power == 0 || s.value == std::floor(s.value))
        std::snprintf(buf, sizeof buf, "%.0f %s", s.value, kNames[s.power]);
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", s.value, kNames[s.power]);
    return buf;
}

std::string format_bytes_against(std::uint64_t bytes, std::uint64_t other) {
    const double a = read_back(shown_bytes(bytes)), b = read_back(shown_bytes(other));
    // Shown as they compare (both equal, or apart in the same order): enough.
    if (bytes == other ? a == b : (bytes < other ? a < b : a > b)) return format_bytes(bytes);
    return format_bytes(bytes) + " (" + std::to_string(bytes) + " bytes)";
}

std::string format_size_option(std::uint64_t bytes) {
    static const char kSuffix[] = {'K', 'M', 'G', 'T'};
    int i = -1;
    while (i < 3 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++i;
    }
    return std::to_string(bytes) + (i >= 0 ? std::string(1, kSuffix[i]) : std::string());
}

std::string format_seconds(double s) {
    char buf[32];
    // Thresholds on the rounded value, so 0.9999 ms prints as "1.00 ms".
    if (std::round(s * 1e6) < 1000)
        std::snprintf(buf, sizeof buf, "%.0f us", s * 1e6);
    else if (std::round(s * 1e5) < 100000)
        std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.2f s", s);
    return buf;
}

std::string format_iops(double iops) {
    if (iops >= 1e6) return printf_string("%.2fM", iops / 1e6);
    if (iops >= 1e3) return printf_string("%.1fk", iops / 1e3);
    return printf_string("%.0f", iops);
}

std::string format_percentile(double percentile) {
    char buf[64];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, percentile);
    if (ec != std::errc()) return printf_string("p%.17g", percentile);
    std::string out = "p";
    out.append(buf, end);
    return out;
}

std::string format_bandwidth(double bytes_per_sec, ByteUnits u) {
    const RateUnit unit = rate_unit(u);
    return printf_string("%.1f %s", unit.of(bytes_per_sec), unit.name);
}

std::string printf_string(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list again;
    va_copy(again, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string out(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(out.data(), out.size() + 1, fmt, again);
    va_end(again);
    return out;
}

}  // namespace ds::units
