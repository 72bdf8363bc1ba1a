#include "units/utf8.h"

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

}  // namespace ds::units
