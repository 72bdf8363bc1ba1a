// Is io_uring usable here?  Answered with a real ring and a real read, since
// a container's seccomp filter or kernel.io_uring_disabled can refuse any of
// setup, enter or the operation itself.
#pragma once

#include <string>

namespace ds::io {

struct UringProbe {
    bool usable = false;
    std::string reason;  // one line, when not usable: the call and what it answered
};

UringProbe probe_io_uring();

}  // namespace ds::io
