// The text report's stream: names from the outside (a target directory
// called "e\e[2Jz", a device model, a file path) reach a person's terminal
// with their control and bidirectional characters spelled out
// (units::printable), whatever line of the report prints them.
#pragma once

#include <cstdio>

namespace ds::modes {

// A stream that escapes what it is given and writes it to `under`
// unchanged otherwise (newlines and tabs kept, no buffer of its own, so it
// keeps its place among direct writes to `under`, e.g. the status line).
// A failed write to `under` is a failed write here, and sets `under`'s
// error flag as before.  Lives until the process ends; `under` itself if
// the stream cannot be made.
std::FILE* printable_stream(std::FILE* under);

}  // namespace ds::modes
