// libFuzzer target for the quantity parsers of src/units: the first input
// byte picks the parser, the rest is the text it parses.  A parser may return
// or throw std::invalid_argument; any other exception, a crash, a sanitizer
// report or a broken post-condition (checked below) is a finding.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "units/units.h"

namespace {

std::string_view g_text;  // the input being parsed, for the finding message

[[noreturn]] void finding(const char* what) {
    std::fprintf(stderr, "fuzz_units: %s; input text (%zu bytes): '%.*s'\n", what, g_text.size(),
                 static_cast<int>(g_text.size()), g_text.data());
    std::abort();
}

bool is_space(char c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
}

// A parsed size spelled back as an option parses to the same number.
void check_size(std::string_view text) {
    std::uint64_t v = ds::units::parse_size(text);
    if (ds::units::parse_size(ds::units::format_size_option(v)) != v)
        finding("parse_size(format_size_option(v)) != v");
    (void)ds::units::format_bytes(v);
}

// A duration is finite, not negative and at most 1e9 s (the parser's bound).
void check_duration(std::string_view text) {
    double s = ds::units::parse_duration(text);
    if (!std::isfinite(s) || s < 0 || s > 1e9) finding("parse_duration out of [0, 1e9]");
    (void)ds::units::format_seconds(s);
}

// A count is the plain decimal number it spells.
void check_count(std::string_view text) {
    std::uint64_t v = ds::units::parse_count(text);
    if (ds::units::parse_count(std::to_string(v)) != v) finding("parse_count round trip");
}

// Items: one more than the commas, each non-empty, comma-free and trimmed.
void check_list(std::string_view text) {
    auto items = ds::units::split_list(text);
    std::size_t commas = 0;
    for (char c : text)
        commas += c == ',';
    if (items.size() != commas + 1) finding("split_list: item count != commas + 1");
    for (const auto& item : items) {
        if (item.empty()) finding("split_list: empty item");
        if (item.find(',') != std::string::npos) finding("split_list: item with a comma");
        if (is_space(item.front()) || is_space(item.back())) finding("split_list: untrimmed item");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    g_text = std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1);
    // A copy of exactly the input bytes: ASan sees any read past the end.
    std::string owned(g_text);
    std::string_view text(owned);
    try {
        switch (data[0] % 4) {
            case 0:
                check_size(text);
                break;
            case 1:
                check_duration(text);
                break;
            case 2:
                check_count(text);
                break;
            case 3:
                check_list(text);
                break;
        }
    } catch (const std::invalid_argument&) {
        // The documented refusal.
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_units: unexpected exception: %s\n", e.what());
        finding("exception other than std::invalid_argument");
    } catch (...) {
        finding("non-standard exception");
    }
    return 0;
}
