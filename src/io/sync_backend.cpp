#include "io/sync_backend.h"

#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>

namespace ds::io {

std::size_t SyncBackend::reap(std::span<Completion> out, unsigned /*min_complete*/) {
    if (!queued_ || out.empty()) return 0;
    Request* r = queued_;
    queued_ = nullptr;
    ssize_t ret;
    do {
        switch (r->kind) {
            case OpKind::read:
                ret = ::pread(fd_, r->buf, r->length, static_cast<off_t>(r->offset + base_));
                break;
            case OpKind::write:
                if (r->rw_flags) {  // per-write O_SYNC/O_DSYNC
                    iovec iov{r->buf, r->length};
                    ret = ::pwritev2(fd_, &iov, 1, static_cast<off_t>(r->offset + base_),
                                     r->rw_flags);
                } else {
                    ret = ::pwrite(fd_, r->buf, r->length, static_cast<off_t>(r->offset + base_));
                }
                break;
            case OpKind::fsync:
                ret = ::fsync(fd_);
                break;
            case OpKind::fdatasync:
                ret = ::fdatasync(fd_);
                break;
            default:
                ret = -1;
                errno = EINVAL;
        }
    } while (ret < 0 && errno == EINTR);
    out[0] = {r, ret < 0 ? -errno : static_cast<std::int32_t>(ret)};
    return 1;
}

}  // namespace ds::io
