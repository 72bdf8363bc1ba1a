// The words of an errno value ("No space left on device"), the one spelling
// of a system error in every one-line message.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>

namespace ds::sys {

// strerror_r (GNU): safe from any thread, unlike strerror for unknown values.
inline std::string errno_text(int err = errno) {
    char buf[128];
    return ::strerror_r(err, buf, sizeof buf);
}

}  // namespace ds::sys
