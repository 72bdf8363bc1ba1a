// How well the data written compresses, estimated here rather than asked of
// a compressor library: a greedy LZ77 parse costed as the lz4 block format
// costs it (a token, literal and match length bytes, a 2-byte offset).  The
// report quotes it beside --compress, so what the run wrote is stated, not
// only what was asked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "pattern/unit.h"

namespace ds::pattern {

// The block an estimate compresses independently: zram's page.
inline constexpr std::size_t kCompressBlockBytes = 4096;

// Bytes a greedy lz4-style parse of `data` takes (one block: no match
// reaches before data's start).
std::size_t lz_compressed_bytes(std::span<const std::byte> data);

// Original over compressed bytes, `data` taken kCompressBlockBytes at a time.
double lz_ratio(std::span<const std::byte> data);

struct CompressEstimate {
    double ratio = 1;         // original / compressed, over the sampled units
    std::uint32_t units = 0;  // units sampled
};

// The estimate over `samples` units (first generation) spread evenly over
// `files` files of `file_bytes`; `base` gives the run, data and shape.
CompressEstimate estimate_units(const UnitIdentity& base, std::uint64_t file_bytes, unsigned files,
                                unsigned samples);

}  // namespace ds::pattern
