#include "sys/atomic_write.h"

#include <fcntl.h>

#include <cstring>

#include "sys/errno_text.h"

namespace ds::sys {

namespace {

template <typename T>
T field(std::span<const std::byte, kStatxBytes> raw, std::size_t offset) {
    T v{};
    std::memcpy(&v, raw.data() + offset, sizeof v);
    return v;
}

}  // namespace

StatxAtomic parse_statx_atomic(std::span<const std::byte, kStatxBytes> raw) {
    StatxAtomic a;
    a.reported = field<std::uint32_t>(raw, kStatxMaskOffset) & STATX_WRITE_ATOMIC;
    if (!a.reported) return a;
    a.supported = field<std::uint64_t>(raw, kStatxAttributesOffset) & STATX_ATTR_WRITE_ATOMIC;
    a.unit_min = field<std::uint32_t>(raw, kStatxAtomicUnitMinOffset);
    a.unit_max = field<std::uint32_t>(raw, kStatxAtomicUnitMaxOffset);
    a.segments_max = field<std::uint32_t>(raw, kStatxAtomicSegmentsMaxOffset);
    a.unit_max_opt = field<std::uint32_t>(raw, kStatxAtomicUnitMaxOptOffset);
    return a;
}

// glibc's struct statx is the kernel's 256 bytes; older headers name the
// atomic fields padding, so they are read by offset from its bytes.
bool read_statx_atomic(int fd, StatxAtomic& out, std::string& error) {
    static_assert(sizeof(struct statx) == kStatxBytes);
    struct statx stx {};
    if (::statx(fd, "", AT_EMPTY_PATH, STATX_WRITE_ATOMIC, &stx) != 0) {
        error = "statx: " + errno_text(errno);
        return false;
    }
    std::byte raw[kStatxBytes];
    std::memcpy(raw, &stx, kStatxBytes);
    out = parse_statx_atomic(std::span<const std::byte, kStatxBytes>(raw));
    return true;
}

}  // namespace ds::sys
