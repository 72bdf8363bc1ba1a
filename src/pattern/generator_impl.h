// Internal interface between the generator's dispatcher (generator.cpp), its
// SIMD variants (generator_avx2.cpp, generator_avx512.cpp) and unit.cpp.
//
// The SIMD variants are compiled with -mavx2 / -mavx512f -mavx512bw.  Any
// inline function or template they instantiate could be emitted as a weak
// (COMDAT) symbol built for that instruction set and then picked by the
// linker for every other caller, crashing CPUs without it.  So this header
// declares only plain data and out-of-line functions, and the SIMD files use
// nothing but intrinsics, raw pointers and their own internal-linkage code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "pattern/generator.h"

namespace ds::pattern::detail {

inline constexpr std::size_t kLanes = 8;

// splitmix64 (Steele, Lea, Flood 2014): its increment, the golden ratio in
// 64-bit fixed point (odd), and the two multipliers of its output function.
inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ULL;
inline constexpr std::uint64_t kMixMul1 = 0xBF58476D1CE4E5B9ULL;
inline constexpr std::uint64_t kMixMul2 = 0x94D049BB133111EBULL;

// splitmix64's output function: a bijection of 64-bit words with full
// avalanche.  `static`, so every file gets its own copy built for its own
// instruction set (see above).
static constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * kMixMul1;
    z = (z ^ (z >> 27)) * kMixMul2;
    return z ^ (z >> 31);
}

// Seeding (see generator.cpp): with base = splitmix64_mix(key), lane j's
// s0 = splitmix64_mix(base + kSeedSteps[0][j]) and
// s1 = splitmix64_mix(base + kSeedSteps[1][j]): splitmix64 outputs 2j+1 and
// 2j+2 from state base.  A plain array so the SIMD files load it as vectors.
alignas(64) inline constexpr std::uint64_t kSeedSteps[2][kLanes] = {
    {1 * kGoldenGamma, 3 * kGoldenGamma, 5 * kGoldenGamma, 7 * kGoldenGamma, 9 * kGoldenGamma,
     11 * kGoldenGamma, 13 * kGoldenGamma, 15 * kGoldenGamma},
    {2 * kGoldenGamma, 4 * kGoldenGamma, 6 * kGoldenGamma, 8 * kGoldenGamma, 10 * kGoldenGamma,
     12 * kGoldenGamma, 14 * kGoldenGamma, 16 * kGoldenGamma},
};

// The state of the eight xorshift128+ lanes: s0[j], s1[j] are lane j's two
// state words.  Halves are contiguous and 64-byte aligned so that each is one
// AVX-512 register or two AVX2 registers.
struct alignas(64) LaneState {
    std::uint64_t s0[kLanes];
    std::uint64_t s1[kLanes];
};

// Seeds the lanes for `key` (see generator.cpp for the exact rule) on the
// active path.
LaneState seed_lanes(std::uint64_t key);

// Per-path kernels.  seed_* writes the lanes' initial state for `key`; every
// path writes the same state, vector stores on the SIMD paths so the kernels'
// vector loads of it are store-forwarded.  The others continue the stream
// from `state`:
// generate_* writes `steps` * kStepBytes bytes and leaves `state` advanced by
// `steps`; stream_* does the same with non-temporal stores into a 64-byte
// aligned `dst` (the scalar path has none: it is generate_scalar);
// mismatch_* compares that many bytes of `actual` and returns the index of
// the first differing byte, or steps * kStepBytes when equal (the state is
// then unspecified: a caller stops at the first difference).
void seed_scalar(LaneState& state, std::uint64_t key);
void seed_avx2(LaneState& state, std::uint64_t key);
void seed_avx512(LaneState& state, std::uint64_t key);
void generate_scalar(LaneState& state, std::byte* dst, std::size_t steps);
std::size_t mismatch_scalar(LaneState& state, const std::byte* actual, std::size_t steps);
void generate_avx2(LaneState& state, std::byte* dst, std::size_t steps);
void stream_avx2(LaneState& state, std::byte* dst, std::size_t steps);
std::size_t mismatch_avx2(LaneState& state, const std::byte* actual, std::size_t steps);
void generate_avx512(LaneState& state, std::byte* dst, std::size_t steps);
void stream_avx512(LaneState& state, std::byte* dst, std::size_t steps);
std::size_t mismatch_avx512(LaneState& state, const std::byte* actual, std::size_t steps);

// Dispatching forms of the above, on the active path; sizes are multiples of
// kStepBytes.  unit.cpp uses them to continue a stream after its first step.
void generate(LaneState& state, std::span<std::byte> dst);
// As generate, with non-temporal stores where dst is 64-byte aligned (see
// pattern::stream); the caller fences (pattern::stream_fence).
void stream(LaneState& state, std::span<std::byte> dst);
std::size_t mismatch(LaneState& state, std::span<const std::byte> actual);

}  // namespace ds::pattern::detail
