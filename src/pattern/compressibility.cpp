#include "pattern/compressibility.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace ds::pattern {
namespace {

constexpr unsigned kHashBits = 12;
constexpr std::size_t kMinMatch = 4;        // lz4's shortest match
constexpr std::size_t kMaxOffset = 65535;   // lz4's 2-byte offset
constexpr std::size_t kLengthInToken = 15;  // lengths past it take extra bytes

// Extra bytes lz4 spends on a length beyond the token's four bits.
std::size_t length_bytes(std::size_t len) {
    return len >= kLengthInToken ? 1 + (len - kLengthInToken) / 255 : 0;
}

std::uint32_t load32(const std::byte* p) {
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::size_t hash4(std::uint32_t v) {
    return (v * 2654435761U) >> (32 - kHashBits);
}

}  // namespace

// Greedy: at each position the last earlier position with the same hash is
// the only candidate; a match of 4 bytes or more is taken whole.  Runs of
// one byte match themselves at offset 1, as lz4's do.
std::size_t lz_compressed_bytes(std::span<const std::byte> data) {
    std::array<std::int64_t, std::size_t{1} << kHashBits> last;
    last.fill(-1);
    const std::byte* p = data.data();
    const std::size_t n = data.size();
    std::size_t out = 0;
    std::size_t anchor = 0;  // first byte not yet emitted
    std::size_t i = 0;
    while (i + kMinMatch <= n) {
        const std::uint32_t v = load32(p + i);
        const std::size_t h = hash4(v);
        const std::int64_t cand = last[h];
        last[h] = static_cast<std::int64_t>(i);
        const auto c = static_cast<std::size_t>(cand);
        if (cand < 0 || i - c > kMaxOffset || load32(p + c) != v) {
            ++i;
            continue;
        }
        std::size_t len = kMinMatch;
        while (i + len < n && p[c + len] == p[i + len])
            ++len;
        const std::size_t literals = i - anchor;
        out += 1 + length_bytes(literals) + literals + 2 + length_bytes(len - kMinMatch);
        i += len;
        anchor = i;
    }
    const std::size_t literals = n - anchor;
    return out + 1 + length_bytes(literals) + literals;
}

double lz_ratio(std::span<const std::byte> data) {
    std::size_t compressed = 0;
    for (std::size_t at = 0; at < data.size(); at += kCompressBlockBytes)
        compressed +=
            lz_compressed_bytes(data.subspan(at, std::min(kCompressBlockBytes, data.size() - at)));
    return compressed ? static_cast<double>(data.size()) / static_cast<double>(compressed) : 1;
}

// Every sampled unit is generated as the run writes it (verification holds
// the drive to exactly these bytes), generation 1 as the sequential write
// leaves it: the shape does not depend on the generation.
CompressEstimate estimate_units(const UnitIdentity& base, std::uint64_t file_bytes, unsigned files,
                                unsigned samples) {
    CompressEstimate e;
    const std::uint64_t units = base.unit_bytes ? file_bytes / base.unit_bytes : 0;
    if (units == 0 || files == 0 || samples == 0) return e;
    const std::uint64_t total = units * files;
    const std::uint64_t n = std::min<std::uint64_t>(samples, total);
    std::vector<std::byte> unit(base.unit_bytes);
    double original = 0;
    double compressed = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
        const std::uint64_t pick = k * total / n;
        UnitIdentity id = base;
        id.file_index = static_cast<std::uint32_t>(pick / units);
        id.offset = pick % units * base.unit_bytes;
        id.generation = 1;
        fill_unit(unit, id);
        original += static_cast<double>(unit.size());
        compressed += static_cast<double>(unit.size()) / lz_ratio(unit);
    }
    e.ratio = original / compressed;
    e.units = static_cast<std::uint32_t>(n);
    return e;
}

}  // namespace ds::pattern
