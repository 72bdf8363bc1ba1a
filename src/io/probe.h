// Is io_uring usable here?  Answered with a real ring and a real read, since
// a container's seccomp filter or kernel.io_uring_disabled can refuse any of
// setup, enter or the operation itself.
#pragma once

#include <cstdint>
#include <string>

namespace ds::io {

struct UringProbe {
    bool usable = false;
    std::string reason;  // one line, when not usable: the call and what it answered
};

UringProbe probe_io_uring();

class Backend;
// An IOPOLL ring sets up fine on any file; a device without poll queues
// refuses each I/O as it completes, with EOPNOTSUPP.  So one real write of
// `length` zero bytes from `buf` at offset 0, then a read of it back, tells.
// Only for a file whose content does not matter yet.  Returns "" when both
// completed, else why, one line.
std::string probe_polled_io(Backend& backend, std::byte* buf, std::uint32_t length);

}  // namespace ds::io
