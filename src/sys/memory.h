// How much memory the machine can give a run: the ceiling for files on
// tmpfs or ramfs, and for the per-unit maps of a run or a --verify-only.
#pragma once

#include <cstdint>
#include <string>

namespace ds::sys {

// MemAvailable + SwapFree from /proc/meminfo, in bytes (0 when unreadable:
// callers treat that as "unknown" and skip the check).
std::uint64_t available_memory_bytes();

// Stack a run's threads need: a phase's results are about 110 KiB and sit
// on the stack of the main thread (twice in an iteration) and of every
// worker; --sync-compare's frame is about 350 KiB (objdump of the release
// build): under `ulimit -s 256` a run would die of SIGSEGV.
inline constexpr std::uint64_t kStackWantedBytes = 8 * 1024 * 1024;
inline constexpr std::uint64_t kStackNeededBytes = 1024 * 1024;

// Raises RLIMIT_STACK's soft limit towards kStackWantedBytes (up to the hard
// limit) and makes it the stack of every thread created afterwards.  ""
// when the stack is large enough, else one line saying why it is not.
std::string ensure_stack();

}  // namespace ds::sys
