#include "modes/printable_stream.h"

#include <sys/types.h>

#include <string>
#include <string_view>

#include "units/utf8.h"

namespace ds::modes {

namespace {

// One fprintf on an unbuffered stream is one call here (glibc formats it
// whole first), so a character is never split between two calls.  The
// stream under it is flushed every time: fflush() on this one cannot reach
// it (a cookie has no flush), and a report line left in stdout's buffer is
// lost when the run is killed (burn-in's log read with tail -f, SIGKILL).
ssize_t write_printable(void* cookie, const char* buf, std::size_t size) {
    auto* under = static_cast<std::FILE*>(cookie);
    const std::string text = units::printable(std::string_view(buf, size), true);
    if (std::fwrite(text.data(), 1, text.size(), under) != text.size()) return -1;
    if (std::fflush(under) != 0) return -1;
    return static_cast<ssize_t>(size);
}

}  // namespace

std::FILE* printable_stream(std::FILE* under) {
    cookie_io_functions_t io{};
    io.write = write_printable;
    std::FILE* f = ::fopencookie(under, "w", io);
    if (!f) return under;
    std::setvbuf(f, nullptr, _IONBF, 0);
    return f;
}

}  // namespace ds::modes
