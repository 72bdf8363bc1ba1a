// What statx's STATX_WRITE_ATOMIC says, decoded from the kernel's struct
// statx by offset (the headers here predate the fields), and the flag values
// defined where the headers lack them.
#include "sys/atomic_write.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using Raw = std::array<std::byte, ds::sys::kStatxBytes>;

template <typename T>
void put(Raw& raw, std::size_t offset, T v) {
    std::memcpy(raw.data() + offset, &v, sizeof v);
}

// XFS on a loop device (Linux 6.18): 4 KiB to 1 MiB, one segment, no
// hardware-optimised limit.  The bytes around each field hold 0xEE, so a
// field read at the wrong offset shows.
Raw xfs_on_loop() {
    Raw raw;
    raw.fill(std::byte{0xEE});
    put<std::uint32_t>(raw, 0x00, 0x1373f | STATX_WRITE_ATOMIC);  // stx_mask
    put<std::uint64_t>(raw, 0x08, STATX_ATTR_WRITE_ATOMIC);       // stx_attributes
    put<std::uint32_t>(raw, 0xa8, 4096);                          // unit_min
    put<std::uint32_t>(raw, 0xac, 1 << 20);                       // unit_max
    put<std::uint32_t>(raw, 0xb0, 1);                             // segments_max
    put<std::uint32_t>(raw, 0xb4, 512);                           // dio_read_offset_align
    put<std::uint32_t>(raw, 0xb8, 0);                             // unit_max_opt
    return raw;
}

}  // namespace

TEST_CASE("the flags are the kernel's uapi values") {
    CHECK(RWF_ATOMIC == 0x40);
    CHECK(STATX_WRITE_ATOMIC == 0x10000U);
    CHECK(STATX_ATTR_WRITE_ATOMIC == 0x400000);
}

TEST_CASE("statx's atomic-write fields are read at their offsets") {
    const ds::sys::StatxAtomic a = ds::sys::parse_statx_atomic(xfs_on_loop());
    CHECK(a.reported);
    CHECK(a.supported);
    CHECK(a.unit_min == 4096);
    CHECK(a.unit_max == 1048576);
    CHECK(a.segments_max == 1);
    CHECK(a.unit_max_opt == 0);
}

TEST_CASE("a hardware-optimised limit is unit_max_opt") {
    Raw raw = xfs_on_loop();
    put<std::uint32_t>(raw, 0xb8, 65536);
    CHECK(ds::sys::parse_statx_atomic(raw).unit_max_opt == 65536);
}

TEST_CASE("ext4 on a device without atomic writes: reported, not supported") {
    Raw raw = xfs_on_loop();
    put<std::uint64_t>(raw, 0x08, 0);  // no STATX_ATTR_WRITE_ATOMIC
    put<std::uint32_t>(raw, 0xa8, 0);
    put<std::uint32_t>(raw, 0xac, 0);
    put<std::uint32_t>(raw, 0xb0, 0);
    const ds::sys::StatxAtomic a = ds::sys::parse_statx_atomic(raw);
    CHECK(a.reported);
    CHECK_FALSE(a.supported);
    CHECK(a.unit_max == 0);
}

TEST_CASE("a kernel that does not know the mask bit answered nothing") {
    Raw raw = xfs_on_loop();
    put<std::uint32_t>(raw, 0x00, 0x7ff);  // STATX_BASIC_STATS only
    const ds::sys::StatxAtomic a = ds::sys::parse_statx_atomic(raw);
    CHECK_FALSE(a.reported);
    CHECK_FALSE(a.supported);
    CHECK(a.unit_min == 0);  // the bytes there are not the fields
    CHECK(a.unit_max == 0);
}

TEST_CASE("statx of an open file answers; of a closed descriptor, names the call") {
    char path[] = "/tmp/drivestress-statx-XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::unlink(path);
    ds::sys::StatxAtomic a;
    std::string error;
    CHECK(ds::sys::read_statx_atomic(fd, a, error));
    CHECK(error.empty());
    ::close(fd);
    CHECK_FALSE(ds::sys::read_statx_atomic(fd, a, error));
    CHECK(error.rfind("statx: ", 0) == 0);
}
