// UTF-8 as text output needs it: the JSON document and the Prometheus
// labels write valid UTF-8 whatever bytes a path holds.
#pragma once

#include <cstddef>
#include <string_view>

namespace ds::units {

// Length of the UTF-8 sequence at s[i], or 0 when it is not one (overlong
// forms, surrogates and code points above U+10FFFF included).
std::size_t utf8_length(std::string_view s, std::size_t i);

}  // namespace ds::units
