#include "sys/full_io.h"

#include <unistd.h>

#include <cerrno>

namespace ds::sys {

std::int64_t pread_full(int fd, void* buf, std::size_t len, std::uint64_t offset) {
    auto* p = static_cast<char*>(buf);
    std::size_t done = 0;
    while (done < len) {
        ssize_t n = ::pread(fd, p + done, len - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -errno;
        if (n == 0) break;
        done += static_cast<std::size_t>(n);
    }
    return static_cast<std::int64_t>(done);
}

bool pwrite_full(int fd, const void* buf, std::size_t len, std::uint64_t offset) {
    const auto* p = static_cast<const char*>(buf);
    while (len) {
        ssize_t n = ::pwrite(fd, p, len, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) {
            errno = EIO;
            return false;
        }
        p += n;
        len -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return true;
}

bool write_full(int fd, std::string_view data, std::size_t* done, OnSignal on_signal) {
    std::size_t written = 0;
    bool ok = true;
    while (written < data.size()) {
        ssize_t n = ::write(fd, data.data() + written, data.size() - written);
        if (n < 0 && errno == EINTR && on_signal == OnSignal::retry) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            ok = false;
            break;
        }
        written += static_cast<std::size_t>(n);
    }
    if (done) *done = written;
    return ok;
}

}  // namespace ds::sys
