#include "report/progress_line.h"

#include <sys/ioctl.h>

#include <algorithm>
#include <cstdlib>

namespace ds::report {

namespace {

std::string join(const std::vector<ProgressField>& fields, int max_rank) {
    std::string line;
    for (const auto& f : fields) {
        if (f.text.empty() || f.drop_rank > max_rank) continue;
        if (!line.empty()) line += "  ";
        line += f.text;
    }
    return line;
}

}  // namespace

std::string fit_progress_line(const std::vector<ProgressField>& fields, std::size_t width) {
    int max_rank = 0;
    for (const auto& f : fields)
        max_rank = std::max(max_rank, f.drop_rank);
    std::string line = join(fields, max_rank);
    while (width && line.size() > width && max_rank > 0)
        line = join(fields, --max_rank);
    if (width && line.size() > width) line.resize(width);
    return line;
}

std::size_t terminal_columns(int fd) {
    struct winsize ws {};
    if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    if (const char* c = std::getenv("COLUMNS")) {
        char* end = nullptr;
        const long n = std::strtol(c, &end, 10);
        if (end != c && *end == '\0' && n > 0 && n < 10000) return static_cast<std::size_t>(n);
    }
    return 0;
}

}  // namespace ds::report
