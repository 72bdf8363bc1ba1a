#include "jobfile/values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "jobfile/fio_numbers.h"

namespace ds::jobfile {

namespace {

using detail::FioReading;

// A whole number as the strict grammar has it: decimal digits, or 0x and
// hexadecimal digits, then the rest of the text (the suffix).
struct Number {
    std::uint64_t value = 0;
    bool hex = false;
    std::string suffix;  // lower case
};

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<Number> leading_number(std::string_view s) {
    Number n;
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
        n.hex = true;
    }
    if (s.empty() || !std::isxdigit(static_cast<unsigned char>(s.front()))) return std::nullopt;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n.value, base);
    if (ec == std::errc::invalid_argument) return std::nullopt;
    if (ec == std::errc::result_out_of_range)
        throw std::invalid_argument(quote(s) + " is too large");
    n.suffix = lower(std::string_view(end, s.data() + s.size() - end));
    return n;
}

std::string fio_would(const std::optional<FioReading>& fio, const char* unit) {
    if (!fio) return "";
    if (fio->percent) return ": fio 3.33 would read " + std::to_string(fio->value) + "%";
    return ": fio 3.33 would read " + std::to_string(fio->value) + " " + unit;
}

[[noreturn]] void refuse(std::string_view text, const char* what,
                         const std::optional<FioReading>& fio, const char* unit) {
    std::string m = quote(text) + " is not " + what;
    if (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        m += " (fio keeps a space after '=')";
    throw std::invalid_argument(m + fio_would(fio, unit));
}

void refuse_arithmetic(std::string_view text) {
    if (!text.empty() && text.front() == '(')
        throw std::invalid_argument(quote(text) +
                                    ": fio 3.33 as Debian builds it has no arithmetic");
}

bool size_suffix(std::string_view s) {
    if (s.empty() || s == "b") return true;
    if (std::strchr("kmgtp", s.front()) == nullptr) return false;
    s.remove_prefix(1);
    return s.empty() || s == "b" || s == "i" || s == "ib";
}

std::uint64_t times(std::uint64_t a, std::uint64_t b, std::string_view text) {
    if (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b)
        throw std::invalid_argument(quote(text) + " is too large");
    return a * b;
}

// parse_size and parse_amount: a size, or (percent_ok) a percentage.
Amount size_or_percent(std::string_view text, unsigned kb_base, bool percent_ok) {
    if (text.empty()) throw std::invalid_argument("an empty value is not a size");
    refuse_arithmetic(text);
    auto fio = detail::fio_size_reading(text, kb_base);
    auto n = leading_number(text);
    if (!n || (n->hex && !n->suffix.empty())) refuse(text, "a size", fio, "bytes");
    if (n->suffix == "%") {
        if (!percent_ok) throw std::invalid_argument(quote(text) + ": a percentage is not a size");
        if (n->hex || n->value < 1 || n->value > 100)
            throw std::invalid_argument(quote(text) + ": a percentage is from 1% to 100%");
        return Amount{0, static_cast<unsigned>(n->value)};
    }
    if (!size_suffix(n->suffix)) refuse(text, "a size", fio, "bytes");
    std::uint64_t v = times(n->value, detail::fio_size_multiplier(n->suffix, kb_base), text);
    if (!fio || fio->percent || fio->value != v) refuse(text, "a size", fio, "bytes");
    return Amount{v, std::nullopt};
}

std::uint64_t time_multiplier(std::string_view suffix, BareUnit bare) {
    if (suffix.empty()) return bare == BareUnit::seconds ? 1000000 : 1;
    if (suffix == "us" || suffix == "usec") return 1;
    if (suffix == "ms" || suffix == "msec") return 1000;
    if (suffix == "s") return 1000000;
    if (suffix == "m") return 60ULL * 1000000;
    if (suffix == "h") return 3600ULL * 1000000;
    if (suffix == "d") return 86400ULL * 1000000;
    return 0;
}

// A whole number without suffix (fio's check_int: bool and set options).
std::uint64_t plain_number(std::string_view text, const char* what) {
    auto n = leading_number(text);
    if (!n || !n->suffix.empty()) throw std::invalid_argument(quote(text) + " is not " + what);
    return n->value;
}

}  // namespace

std::string quote(std::string_view text) {
    constexpr std::size_t kShown = 60;
    std::string out = "'";
    for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    }
    return out + (text.size() > kShown ? "...'" : "'");
}

std::uint64_t parse_size(std::string_view text, unsigned kb_base) {
    return size_or_percent(text, kb_base, false).bytes;
}

std::int64_t parse_signed_size(std::string_view text, unsigned kb_base) {
    bool negative = !text.empty() && text.front() == '-';
    std::uint64_t v = parse_size(negative ? text.substr(1) : text, kb_base);
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        throw std::invalid_argument(quote(text) + " is too large");
    return negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
}

Amount parse_amount(std::string_view text, unsigned kb_base) {
    return size_or_percent(text, kb_base, true);
}

std::uint64_t parse_integer(std::string_view text, unsigned kb_base, std::uint64_t min,
                            std::uint64_t max) {
    if (!text.empty() && text.front() == '-')
        throw std::invalid_argument(quote(text) + " is negative");
    std::uint64_t v = parse_size(text, kb_base);
    if (v < min) throw std::invalid_argument(quote(text) + " is less than " + std::to_string(min));
    if (v > max) throw std::invalid_argument(quote(text) + " is more than " + std::to_string(max));
    return v;
}

std::uint64_t parse_time_us(std::string_view text, BareUnit bare) {
    if (text.empty()) throw std::invalid_argument("an empty value is not a time");
    refuse_arithmetic(text);
    auto fio = detail::fio_time_reading(text, bare == BareUnit::seconds);
    auto n = leading_number(text);
    if (!n || n->hex) refuse(text, "a time", fio, "us");
    std::uint64_t m = time_multiplier(n->suffix, bare);
    if (m == 0) refuse(text, "a time (us, ms, s, m, h or d)", fio, "us");
    std::uint64_t v = times(n->value, m, text);
    if (!fio || fio->value != v) refuse(text, "a time", fio, "us");
    return v;
}

bool parse_bool(std::string_view text) {
    std::uint64_t v = plain_number(text, "0 or 1");
    if (v > 1) throw std::invalid_argument(quote(text) + " is not 0 or 1");
    return v == 1;
}

bool parse_set(std::string_view text) {
    return plain_number(text, "a whole number (0 or 1)") != 0;
}

double parse_real(std::string_view text) {
    double v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
        throw std::invalid_argument(quote(text) + " is not a number");
    return v;
}

Directions split_directions(std::string_view text) {
    std::vector<std::string_view> items;
    for (std::size_t start = 0;;) {
        std::size_t comma = text.find(',', start);
        items.push_back(text.substr(start, comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (items.size() == 4 && items.back().empty()) items.pop_back();
    if (items.size() > 3)
        throw std::invalid_argument(quote(text) + ": at most three values (reads,writes,trims)");
    Directions d;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].empty()) continue;
        d[i] = std::string(items[i]);
        if (i + 1 == items.size())
            for (std::size_t j = i + 1; j < d.size(); ++j)
                d[j] = std::string(items[i]);
    }
    return d;
}

std::optional<Choice> match_choice(std::string_view text, std::span<const std::string_view> words) {
    // opt_len: up to the first ',' if there is one, else the first ':'.
    std::size_t opt_len = text.find(',');
    if (opt_len == std::string_view::npos) opt_len = text.find(':');
    if (opt_len == std::string_view::npos) opt_len = text.size();
    std::vector<std::size_t> order(words.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return words[a].size() > words[b].size();
    });
    std::string padded(text);  // strncmp stops at the terminator, as in fio
    for (std::size_t i : order) {
        std::string word(words[i]);
        if (std::strncmp(word.c_str(), padded.c_str(), std::max(word.size(), opt_len)) == 0)
            return Choice{i, text.substr(std::min(word.size(), text.size()))};
    }
    return std::nullopt;
}

}  // namespace ds::jobfile
