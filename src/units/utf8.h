// UTF-8 as text output needs it: the JSON document and the Prometheus
// labels write valid UTF-8 whatever bytes a path holds, and the text a
// person reads on a terminal shows every name inertly.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ds::units {

// Length of the UTF-8 sequence at s[i], or 0 when it is not one (overlong
// forms, surrogates and code points above U+10FFFF included).
std::size_t utf8_length(std::string_view s, std::size_t i);

// `text` safe to write to a terminal: what could move the cursor, clear
// the screen, retitle the window or reorder what follows is spelled out
// instead of sent.  Escaped: ASCII controls and DEL as \xNN (newline and
// tab kept when `keep_lines`, else newline as \n), bytes that are not
// UTF-8 as \xNN, and C1 controls, bidirectional overrides/isolates/marks
// and line/paragraph separators as \u{XXXX}.  Everything else, including
// any other non-ASCII character, is kept as it is.
std::string printable(std::string_view text, bool keep_lines = false);

}  // namespace ds::units
