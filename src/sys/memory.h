// How much memory the machine can give a run: the ceiling for files on
// tmpfs or ramfs, and for the per-unit maps of a run or a --verify-only.
#pragma once

#include <cstdint>

namespace ds::run {

// MemAvailable + SwapFree from /proc/meminfo, in bytes (0 when unreadable:
// callers treat that as "unknown" and skip the check).
std::uint64_t available_memory_bytes();

}  // namespace ds::run
