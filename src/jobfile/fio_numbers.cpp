#include "jobfile/fio_numbers.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ds::jobfile::detail {

namespace {

bool is_digit(char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_alpha(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// strtoll as str_to_decimal calls it: base 16 when "0x" appears anywhere.
std::optional<long long> fio_strtoll(const std::string& s) {
    int base = (s.find("0x") != std::string::npos || s.find("0X") != std::string::npos) ? 16 : 10;
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(s.c_str(), &end, base);
    if (v == 0 && end == s.c_str()) return std::nullopt;
    if (v == LLONG_MAX && errno == ERANGE) return std::nullopt;
    return v;
}

// get_mult_bytes: the suffix starts after the leading digits (and signs
// before the first digit); anything but a letter or '%' there means none.
std::uint64_t size_multiplier(const std::string& s, unsigned kb_base, bool& percent) {
    if (s.size() < 2) return 1;  // one character that strtoll took: a digit
    std::size_t p = 0;
    bool digit_seen = false;
    while (p < s.size()) {
        char c = s[p];
        if (!is_digit(c) && ((c != '+' && c != '-') || digit_seen)) break;
        digit_seen |= is_digit(c);
        ++p;
    }
    if (p >= s.size() || (!is_alpha(s[p]) && s[p] != '%')) return 1;
    std::uint64_t m = fio_size_multiplier(std::string_view(s).substr(p), kb_base);
    if (m == 0) percent = true;
    return m == 0 ? 1 : m;
}

// get_mult_time: after the digits and signs a letter names the unit, by
// prefix for us/ms and exactly for s, m, h, d; any other letters are 1 us.
std::uint64_t time_multiplier(const std::string& s, bool bare_is_seconds) {
    std::size_t p = 0;
    while (p < s.size() && (is_digit(s[p]) || s[p] == '+' || s[p] == '-'))
        ++p;
    if (p >= s.size() || !is_alpha(s[p])) return bare_is_seconds ? 1000000 : 1;
    std::string c = lower(std::string_view(s).substr(p));
    if (c.starts_with("us")) return 1;
    if (c.starts_with("ms")) return 1000;
    if (c == "s") return 1000000;
    if (c == "m") return 60ULL * 1000000;
    if (c == "h") return 3600ULL * 1000000;
    if (c == "d") return 86400ULL * 1000000;
    return 1;
}

}  // namespace

std::uint64_t fio_size_multiplier(std::string_view suffix, unsigned kb_base) {
    std::string c = lower(suffix);
    std::size_t cut = c.find_first_of(":-,/");
    if (cut != std::string::npos) c.resize(cut);
    // kb_base 1024: "kib" and friends are powers of 1000, and the other way round.
    const std::uint64_t other = kb_base == 1000 ? 1024 : 1000;
    const char* units = "kmgtp";
    for (int pow = 5; pow >= 1; --pow) {
        std::string iec = std::string(1, units[pow - 1]) + "ib";
        if (c.starts_with(iec)) {
            std::uint64_t m = 1;
            for (int i = 0; i < pow; ++i)
                m *= other;
            return m;
        }
    }
    for (int pow = 5; pow >= 1; --pow) {
        if (!c.empty() && c[0] == units[pow - 1]) {
            std::uint64_t m = 1;
            for (int i = 0; i < pow; ++i)
                m *= kb_base;
            return m;
        }
    }
    return c.starts_with("%") ? 0 : 1;
}

std::optional<FioReading> fio_size_reading(std::string_view text, unsigned kb_base) {
    std::string s(text);
    if (s.empty()) return std::nullopt;
    auto v = fio_strtoll(s);
    if (!v) return std::nullopt;
    FioReading r;
    std::uint64_t m = size_multiplier(s, kb_base, r.percent);
    r.value = static_cast<std::uint64_t>(*v) * (r.percent ? 1 : m);
    return r;
}

std::optional<FioReading> fio_time_reading(std::string_view text, bool bare_is_seconds) {
    std::string s(text);
    if (s.empty()) return std::nullopt;
    auto v = fio_strtoll(s);
    if (!v) return std::nullopt;
    return FioReading{static_cast<std::uint64_t>(*v) * time_multiplier(s, bare_is_seconds), false};
}

}  // namespace ds::jobfile::detail
