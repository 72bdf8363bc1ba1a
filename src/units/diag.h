// The one voice on standard error, as ninja speaks: every line a person
// reads there starts with the program's name, then the severity (none for
// news the run reports about itself), on one line, escaped for a terminal.
//
//   drivestress: error: --size: bad size 'x'       the run did not do its job (exit 1)
//   drivestress: warning: /mnt/t/x.dat: cannot remove: Read-only file system
//   drivestress: stopping (SIGINT): 8 operations in flight, cancelling
//
// Nothing else in src/ writes to stderr (tests/house_test.py holds that);
// the report's own lines (the text report, the live status) go to stdout
// or the status stream.  How each layer hands a problem up to here is
// model/errors.h.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace ds::units {

inline constexpr std::string_view kProgramPrefix = "drivestress: ";

enum class Severity { info, warning, error };

// The line as it is printed, without its newline: prefix, severity,
// `what` with line breaks and terminal controls escaped (units::printable).
std::string diag_line(Severity s, std::string_view what);

// Prints diag_line and a newline to `to` (stderr unless a test gives its
// own stream), over a live status line on a terminal, and flushes.
void say(Severity s, std::string_view what, std::FILE* to = stderr);
inline void error(std::string_view what, std::FILE* to = stderr) {
    say(Severity::error, what, to);
}
inline void warning(std::string_view what, std::FILE* to = stderr) {
    say(Severity::warning, what, to);
}
inline void info(std::string_view what, std::FILE* to = stderr) {
    say(Severity::info, what, to);
}

}  // namespace ds::units
