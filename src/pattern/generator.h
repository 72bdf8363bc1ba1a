// Multi-lane pseudorandom byte stream: the payload source of every unit.
//
// The stream for a 64-bit key is eight independent xorshift128+ lanes, each
// seeded from the key with splitmix64; step t emits one 64-bit word from
// every lane (lane j at word 8*t + j, little endian).  Eight independent
// lanes mean no single dependency chain, so the same definition runs as
// scalar code, as two AVX2 registers or as one AVX-512 register, and every
// path produces identical bytes.  Which path runs is chosen once at start-up
// from the CPU's features (see `active_simd_path`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace ds::pattern {

// Bytes emitted per generator step (eight 64-bit lanes); stream lengths are
// multiples of this.
inline constexpr std::size_t kStepBytes = 64;

enum class SimdPath { scalar, avx2, avx512 };

std::string_view to_string(SimdPath path);

// The fastest path this CPU supports (the one `generate` and `mismatch` use).
SimdPath active_simd_path();

// Paths runnable on this CPU, scalar first (tests compare them all).
std::span<const SimdPath> available_simd_paths();

// Writes the first dst.size() bytes of the stream of `key`.
// dst.size() must be a multiple of kStepBytes.
void generate(std::uint64_t key, std::span<std::byte> dst);
void generate(std::uint64_t key, std::span<std::byte> dst, SimdPath path);

// As generate, with non-temporal (streaming) stores: the bytes go to memory
// without first pulling each cache line into this core's cache.  For a buffer
// written here and read by someone else (the kernel, a device, another
// core's thread) before this core reads it again, whose lines the reader
// would otherwise take back from this core's cache (bench/pattern_bench,
// "handed over").  Falls back to cached stores when dst is
// not 64-byte aligned.  Call stream_fence() before handing dst over:
// streaming stores are not ordered with later stores such as a ring's tail.
// measured: docs/performance.md, Performance against fio ("Write buffers filled")
void stream(std::uint64_t key, std::span<std::byte> dst);
void stream(std::uint64_t key, std::span<std::byte> dst, SimdPath path);

// Orders every earlier streaming store before any later store (sfence).
void stream_fence();

// Compares `actual` with the first actual.size() bytes of the stream of
// `key` without materialising the stream; returns the index of the first
// differing byte, or actual.size() when they are equal.  actual.size() must
// be a multiple of kStepBytes.
std::size_t mismatch(std::uint64_t key, std::span<const std::byte> actual);
std::size_t mismatch(std::uint64_t key, std::span<const std::byte> actual, SimdPath path);

}  // namespace ds::pattern
