#include "units/utf8.h"

#include <cstdint>
#include <cstdio>

namespace ds::units {

std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    const std::size_t n = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (n == 0 || c > 0xf4 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && byte(i + 1) < 0xa0) return 0;   // overlong
    if (c == 0xed && byte(i + 1) >= 0xa0) return 0;  // surrogate
    if (c == 0xf0 && byte(i + 1) < 0x90) return 0;   // overlong
    if (c == 0xf4 && byte(i + 1) >= 0x90) return 0;  // above U+10FFFF
    return n;
}

namespace {

// The code point of the valid n-byte sequence at s[i].
std::uint32_t decode(std::string_view s, std::size_t i, std::size_t n) {
    static constexpr unsigned char kLead[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
    std::uint32_t cp = static_cast<unsigned char>(s[i]) & kLead[n];
    for (std::size_t k = 1; k < n; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    return cp;
}

// Characters that change how a terminal shows what follows them.
bool unsafe(std::uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) ||      // C1 controls (CSI, OSC, ...)
           cp == 0x061c ||                    // Arabic letter mark
           cp == 0x200e || cp == 0x200f ||    // left-to-right, right-to-left marks
           (cp >= 0x2028 && cp <= 0x202e) ||  // line/paragraph separators, embeddings, overrides
           (cp >= 0x2066 && cp <= 0x2069);    // isolates
}

}  // namespace

std::string printable(std::string_view text, bool keep_lines) {
    std::string out;
    out.reserve(text.size());
    char esc[16];
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t n = utf8_length(text, i);
        if (n == 1 && c >= 0x20 && c != 0x7f) {
            out += static_cast<char>(c);
        } else if (n == 1 && keep_lines && (c == '\n' || c == '\t')) {
            out += static_cast<char>(c);
        } else if (n == 1 && c == '\n') {
            out += "\\n";
        } else if (n == 0 || n == 1) {
            std::snprintf(esc, sizeof esc, "\\x%02x", c);
            out += esc;
        } else if (const std::uint32_t cp = decode(text, i, n); unsafe(cp)) {
            std::snprintf(esc, sizeof esc, "\\u{%04x}", static_cast<unsigned>(cp));
            out += esc;
        } else {
            out.append(text, i, n);
        }
        i += n ? n : 1;
    }
    return out;
}

}  // namespace ds::units
