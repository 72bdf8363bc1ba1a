// Identify Controller and Identify Namespace data structures (4 KiB each)
// of a drive with namespace atomic-write fields, laid out byte by byte per
// the NVMe Base Specification 2.0 and the NVM Command Set Specification,
// for the atomic-write parsing tests.  Every field read holds a distinct
// value so that a field read at the wrong offset shows; the bytes around
// them hold 0xEE so that reading one shows too.  Multi-byte fields are
// little-endian: bytes are listed lowest address first.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>

namespace fixture {

using Identify = std::array<std::byte, 4096>;

inline void put(Identify& p, std::size_t offset, std::initializer_list<int> bytes) {
    for (int b : bytes)
        p.at(offset++) = static_cast<std::byte>(b);
}

// Identify Controller (CNS 01h).
inline Identify atomic_controller() {
    Identify p;
    p.fill(std::byte{0xEE});
    // 526..527: AWUN 0x00FF, 256 blocks; 528..529: AWUPF 0x0001, 2 blocks.
    put(p, 526, {0xFF, 0x00, 0x01, 0x00});
    return p;
}

// Identify Namespace (CNS 00h): 4 KiB blocks, NSABP set.
inline Identify atomic_namespace() {
    Identify p;
    p.fill(std::byte{0xEE});
    // 24: NSFEAT, bit 1 NSABP (namespace atomic fields apply); 25: NLBAF,
    // 2 formats (0's based: 1); 26: FLBAS, format 1.
    put(p, 24, {0x02, 0x01, 0x01});
    // 34..35 NAWUN 0x0007 (8 blocks), 36..37 NAWUPF 0x0003 (4 blocks),
    // 38..39 NACWU 0, 40..41 NABSN 0x001F (32 blocks), 42..43 NABO 0x0010
    // (LBA 16), 44..45 NABSPF 0x000F (16 blocks).
    put(p, 34, {0x07, 0x00, 0x03, 0x00, 0x00, 0x00, 0x1F, 0x00, 0x10, 0x00, 0x0F, 0x00});
    // 128..131: LBA format 0: no metadata, LBADS 9 (512 bytes), best
    // performance; 132..135: format 1: LBADS 12 (4096 bytes).
    put(p, 128, {0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x0C, 0x00});
    return p;
}

}  // namespace fixture
