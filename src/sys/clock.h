// The monotonic clock in nanoseconds: the engine's due times and waits, the
// ring's wait deadlines and the second signal's window read this one clock.
#pragma once

#include <time.h>

#include <cstdint>

namespace ds::sys {

inline std::uint64_t monotonic_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ULL +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

}  // namespace ds::sys
