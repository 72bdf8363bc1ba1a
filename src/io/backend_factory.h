// The one place backends are chosen and made, so a run, a --sync-compare row
// and a test ask for "io_uring at depth 32 on this fd" the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "io/backend.h"

namespace ds::io {

// Which backend a run uses.  `requested` empty means automatic: io_uring
// when the probe says it works here, else sync with the probe's one-line
// reason.  `refusal` is set (and `used` meaningless) when io_uring was asked
// for, or needed by `needs_uring` (a ring mode), and does not work.
struct BackendSelection {
    BackendKind used = BackendKind::io_uring;
    std::string fallback_reason;
    std::string refusal;
};
BackendSelection select_backend(std::optional<BackendKind> requested, bool needs_uring);

// A backend for `fd` keeping up to `depth` operations in flight, whose
// requests' buffers all lie in `buffers` (registered with the kernel where
// it allows), adding `base` to every offset (a raw-device region).  Throws
// std::system_error naming the call that failed.
std::unique_ptr<Backend> make_backend(BackendKind kind, int fd, unsigned depth,
                                      std::span<std::byte> buffers, const UringOptions& uring = {},
                                      std::uint64_t base = 0);

}  // namespace ds::io
