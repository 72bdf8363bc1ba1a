// The kernel's untorn-write interface (Linux 6.11): the RWF_ATOMIC write
// flag and what statx's STATX_WRITE_ATOMIC reports about a file.  Debian
// 12's headers (linux-libc-dev 6.1, glibc 2.36) predate it, so the values
// are the kernel's uapi, defined here once, each only where the system's
// headers do not already: include/uapi/linux/fs.h (RWF_ATOMIC) and
// include/uapi/linux/stat.h (STATX_WRITE_ATOMIC, STATX_ATTR_WRITE_ATOMIC,
// and the struct statx fields at the offsets below).
#pragma once

#include <linux/fs.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#ifndef RWF_ATOMIC
#define RWF_ATOMIC 0x00000040  // per-IO atomic (untorn) write, 6.11
#endif
#ifndef STATX_WRITE_ATOMIC
#define STATX_WRITE_ATOMIC 0x00010000U  // want/got the atomic-write fields, 6.11
#endif
#ifndef STATX_ATTR_WRITE_ATOMIC
#define STATX_ATTR_WRITE_ATOMIC 0x00400000  // the file supports atomic writes, 6.11
#endif

namespace ds::sys {

// The kernel's struct statx is 256 bytes; its atomic-write fields, as byte
// offsets (uapi stat.h: after stx_subvol at 0xa0).  unit_max_opt is 6.16's.
inline constexpr std::size_t kStatxBytes = 256;
inline constexpr std::size_t kStatxMaskOffset = 0x00;        // __u32 stx_mask
inline constexpr std::size_t kStatxAttributesOffset = 0x08;  // __u64 stx_attributes
inline constexpr std::size_t kStatxAtomicUnitMinOffset = 0xa8;
inline constexpr std::size_t kStatxAtomicUnitMaxOffset = 0xac;
inline constexpr std::size_t kStatxAtomicSegmentsMaxOffset = 0xb0;
inline constexpr std::size_t kStatxAtomicUnitMaxOptOffset = 0xb8;

// What statx says about a file's untorn writes, bytes.
struct StatxAtomic {
    bool reported = false;   // STATX_WRITE_ATOMIC in stx_mask: the kernel answered
    bool supported = false;  // STATX_ATTR_WRITE_ATOMIC in stx_attributes
    std::uint32_t unit_min = 0;
    std::uint32_t unit_max = 0;
    std::uint32_t segments_max = 0;  // iovecs one atomic write may have
    // The largest atomic write the device does itself (hardware-optimised);
    // 0 when the kernel fills none (before 6.16, or no such limit).
    std::uint32_t unit_max_opt = 0;
};

// Decodes a struct statx as the kernel filled it.
StatxAtomic parse_statx_atomic(std::span<const std::byte, kStatxBytes> raw);

// statx(fd, "", AT_EMPTY_PATH, STATX_WRITE_ATOMIC): true and `out` filled,
// or false and `error` set to "statx: <errno text>".
bool read_statx_atomic(int fd, StatxAtomic& out, std::string& error);

}  // namespace ds::sys
