#include "units/diag.h"

#include <unistd.h>

#include "units/utf8.h"

namespace ds::units {

std::string diag_line(Severity s, std::string_view what) {
    std::string line(kProgramPrefix);
    if (s == Severity::error) line += "error: ";
    if (s == Severity::warning) line += "warning: ";
    return line + printable(what);
}

void say(Severity s, std::string_view what, std::FILE* to) {
    // Over a live status line on a terminal (report/text_report.cpp redraws it).
    if (to == stderr && ::isatty(STDERR_FILENO)) std::fputs("\r\033[K", to);
    std::fprintf(to, "%s\n", diag_line(s, what).c_str());
    std::fflush(to);
}

}  // namespace ds::units
