#include "io/sync_backend.h"

#include <unistd.h>

#include <cerrno>

namespace ds::io {

std::size_t SyncBackend::reap(std::span<Completion> out, unsigned /*min_complete*/) {
    if (!queued_ || out.empty()) return 0;
    Request* r = queued_;
    queued_ = nullptr;
    ssize_t ret;
    do {
        ret = r->kind == OpKind::read
                  ? ::pread(fd_, r->buf, r->length, static_cast<off_t>(r->offset + base_))
                  : ::pwrite(fd_, r->buf, r->length, static_cast<off_t>(r->offset + base_));
    } while (ret < 0 && errno == EINTR);
    out[0] = {r, ret < 0 ? -errno : static_cast<std::int32_t>(ret)};
    return 1;
}

}  // namespace ds::io
