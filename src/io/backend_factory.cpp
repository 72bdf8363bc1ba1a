#include "io/backend_factory.h"

#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"

namespace ds::io {

BackendSelection select_backend(std::optional<BackendKind> requested, bool needs_uring) {
    BackendSelection s;
    if (requested == BackendKind::sync) {
        s.used = BackendKind::sync;
        return s;
    }
    const UringProbe probe = probe_io_uring();
    if (probe.usable) return s;
    if (requested || needs_uring) {
        s.refusal = "io_uring is not usable here: " + probe.reason;
        return s;
    }
    s.used = BackendKind::sync;
    s.fallback_reason = probe.reason;
    return s;
}

std::unique_ptr<Backend> make_backend(BackendKind kind, int fd, unsigned depth,
                                      std::span<std::byte> buffers, const UringOptions& uring,
                                      std::uint64_t base) {
    if (kind == BackendKind::sync) {
        // Depth 1 is the single-threaded baseline: no pool, no hand-over.
        if (depth <= 1) return std::make_unique<SyncBackend>(fd, base);
        return std::make_unique<ThreadedSyncBackend>(fd, depth, base);
    }
    return std::make_unique<UringBackend>(fd, depth, buffers, uring, base);
}

}  // namespace ds::io
