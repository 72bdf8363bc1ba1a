// The stream definition, its scalar reference kernels and the dispatcher.
//
// Seeding.  For key k, let b = splitmix64_mix(k).  The sixteen state words
// are the first sixteen outputs of a splitmix64 generator started at b:
//   lane j:  s0 = splitmix64_mix(b + (2j+1) * gamma)
//            s1 = splitmix64_mix(b + (2j+2) * gamma)
// gamma is odd, so the sixteen inputs are distinct; the mix is a bijection,
// so at most one of the sixteen words is zero and no lane is ever all-zero
// (the one state xorshift128+ cannot leave).  Mixing the key first means keys
// that differ by a multiple of gamma do not share shifted lanes.  Cost: 17
// mixes per key (16 of them as vectors on the SIMD paths), small next to one
// 4 KiB unit.
//
// Step.  Every lane runs standard xorshift128+ (a, b, c = 23, 17, 26) and
// emits s0 + s1 of its state before the update:
//   x = s0; y = s1; out = x + y; s0 = y;
//   x ^= x << 23; s1 = x ^ y ^ (x >> 17) ^ (y >> 26);
// Step t writes lane j's output as 64-bit word 8t + j, little endian.
#include "pattern/generator.h"

#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "pattern/generator_impl.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace ds::pattern {
namespace detail {

static_assert(std::endian::native == std::endian::little,
              "the stream is defined as little-endian 64-bit words");
static_assert(kLanes * sizeof(std::uint64_t) == kStepBytes);

void seed_scalar(LaneState& state, std::uint64_t key) {
    const std::uint64_t base = splitmix64_mix(key);
    for (std::size_t j = 0; j < kLanes; ++j) {
        state.s0[j] = splitmix64_mix(base + kSeedSteps[0][j]);
        state.s1[j] = splitmix64_mix(base + kSeedSteps[1][j]);
    }
}

namespace {

// One xorshift128+ step of all eight lanes; out[j] is lane j's word.
inline void scalar_step(LaneState& state, std::uint64_t (&out)[kLanes]) {
    for (std::size_t j = 0; j < kLanes; ++j) {
        std::uint64_t x = state.s0[j];
        const std::uint64_t y = state.s1[j];
        out[j] = x + y;
        state.s0[j] = y;
        x ^= x << 23;
        state.s1[j] = x ^ y ^ (x >> 17) ^ (y >> 26);
    }
}

}  // namespace

// Both kernels work on a local copy of the state: `dst` / `actual` may alias
// anything, and a copy keeps the compiler from reloading and storing the
// state around every access.
void generate_scalar(LaneState& state, std::byte* dst, std::size_t steps) {
    LaneState s = state;
    for (std::size_t t = 0; t < steps; ++t) {
        std::uint64_t out[kLanes];
        scalar_step(s, out);
        std::memcpy(dst + t * kStepBytes, out, kStepBytes);
    }
    state = s;
}

std::size_t mismatch_scalar(LaneState& state, const std::byte* actual, std::size_t steps) {
    LaneState s = state;
    for (std::size_t t = 0; t < steps; ++t) {
        std::uint64_t out[kLanes];
        scalar_step(s, out);
        std::uint64_t word[kLanes];
        std::memcpy(word, actual + t * kStepBytes, kStepBytes);
        std::uint64_t any = 0;
        for (std::size_t j = 0; j < kLanes; ++j)
            any |= out[j] ^ word[j];
        if (any == 0) continue;
        for (std::size_t j = 0; j < kLanes; ++j) {
            if (const std::uint64_t diff = out[j] ^ word[j]; diff != 0) {
                // Little endian: the lowest set bit is in the first differing byte.
                return t * kStepBytes + j * 8 +
                       static_cast<std::size_t>(std::countr_zero(diff)) / 8;
            }
        }
    }
    state = s;
    return steps * kStepBytes;
}

namespace {

struct Kernels {
    void (*seed)(LaneState&, std::uint64_t);
    void (*generate)(LaneState&, std::byte*, std::size_t);
    void (*stream)(LaneState&, std::byte*, std::size_t);
    std::size_t (*mismatch)(LaneState&, const std::byte*, std::size_t);
};

constexpr std::array<Kernels, 3> kKernels = {{
    {seed_scalar, generate_scalar, generate_scalar, mismatch_scalar},
    {seed_avx2, generate_avx2, stream_avx2, mismatch_avx2},
    {seed_avx512, generate_avx512, stream_avx512, mismatch_avx512},
}};

// The CPU's features, probed once.  libgcc's __builtin_cpu_supports also
// checks that the OS saves the AVX / AVX-512 register state (XCR0).
struct CpuPaths {
    std::array<bool, 3> runnable{};
    SimdPath best = SimdPath::scalar;
    std::array<SimdPath, 3> list{};
    std::size_t count = 0;

    CpuPaths() {
        __builtin_cpu_init();
        runnable[0] = true;
        runnable[1] = __builtin_cpu_supports("avx2") != 0;
        runnable[2] =
            __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512bw") != 0;
        for (std::size_t i = 0; i < runnable.size(); ++i) {
            if (runnable[i]) {
                list[count++] = static_cast<SimdPath>(i);
                best = static_cast<SimdPath>(i);
            }
        }
    }
};

const CpuPaths& cpu_paths() {
    static const CpuPaths paths;
    return paths;
}

const Kernels& active_kernels() {
    static const Kernels& kernels = kKernels[static_cast<std::size_t>(cpu_paths().best)];
    return kernels;
}

const Kernels& kernels_for(SimdPath path) {
    const auto index = static_cast<std::size_t>(path);
    if (index >= kKernels.size() || !cpu_paths().runnable[index]) {
        throw std::invalid_argument("SIMD path not supported by this CPU: " +
                                    std::string(to_string(path)));
    }
    return kKernels[index];
}

// Whole steps through the kernel, then any partial last step through a
// 64-byte scratch copy, so sizes that are not multiples of kStepBytes still
// get the stream's bytes.
void generate_with(const Kernels& k, LaneState& state, std::span<std::byte> dst) {
    const std::size_t steps = dst.size() / kStepBytes;
    k.generate(state, dst.data(), steps);
    if (const std::size_t tail = dst.size() % kStepBytes; tail != 0) {
        alignas(64) std::byte last[kStepBytes];
        k.generate(state, last, 1);
        std::memcpy(dst.data() + steps * kStepBytes, last, tail);
    }
}

// Non-temporal stores need 64-byte alignment; anything else (and any
// partial last step) takes the cached stores of generate_with.
void stream_with(const Kernels& k, LaneState& state, std::span<std::byte> dst) {
    if (reinterpret_cast<std::uintptr_t>(dst.data()) % kStepBytes != 0) {
        generate_with(k, state, dst);
        return;
    }
    const std::size_t whole = dst.size() / kStepBytes * kStepBytes;
    k.stream(state, dst.data(), whole / kStepBytes);
    if (whole != dst.size()) generate_with(k, state, dst.subspan(whole));
}

std::size_t mismatch_with(const Kernels& k, LaneState& state, std::span<const std::byte> actual) {
    const std::size_t steps = actual.size() / kStepBytes;
    const std::size_t at = k.mismatch(state, actual.data(), steps);
    if (at != steps * kStepBytes) return at;
    const std::size_t tail = actual.size() % kStepBytes;
    if (tail == 0) return at;
    alignas(64) std::byte last[kStepBytes];
    k.generate(state, last, 1);
    for (std::size_t i = 0; i < tail; ++i) {
        if (actual[at + i] != last[i]) return at + i;
    }
    return actual.size();
}

}  // namespace

LaneState seed_lanes(std::uint64_t key) {
    LaneState state;
    active_kernels().seed(state, key);
    return state;
}

void generate(LaneState& state, std::span<std::byte> dst) {
    generate_with(active_kernels(), state, dst);
}

void stream(LaneState& state, std::span<std::byte> dst) {
    stream_with(active_kernels(), state, dst);
}

std::size_t mismatch(LaneState& state, std::span<const std::byte> actual) {
    return mismatch_with(active_kernels(), state, actual);
}

}  // namespace detail

std::string_view to_string(SimdPath path) {
    switch (path) {
        case SimdPath::scalar:
            return "scalar";
        case SimdPath::avx2:
            return "avx2";
        case SimdPath::avx512:
            return "avx512";
    }
    return "unknown";
}

SimdPath active_simd_path() {
    return detail::cpu_paths().best;
}

std::span<const SimdPath> available_simd_paths() {
    const auto& paths = detail::cpu_paths();
    return {paths.list.data(), paths.count};
}

void generate(std::uint64_t key, std::span<std::byte> dst) {
    detail::LaneState state = detail::seed_lanes(key);
    detail::generate(state, dst);
}

void generate(std::uint64_t key, std::span<std::byte> dst, SimdPath path) {
    const auto& kernels = detail::kernels_for(path);
    detail::LaneState state;
    kernels.seed(state, key);
    detail::generate_with(kernels, state, dst);
}

void stream(std::uint64_t key, std::span<std::byte> dst) {
    detail::LaneState state = detail::seed_lanes(key);
    detail::stream(state, dst);
}

void stream(std::uint64_t key, std::span<std::byte> dst, SimdPath path) {
    const auto& kernels = detail::kernels_for(path);
    detail::LaneState state;
    kernels.seed(state, key);
    detail::stream_with(kernels, state, dst);
}

void stream_fence() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_sfence();
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

std::size_t mismatch(std::uint64_t key, std::span<const std::byte> actual) {
    detail::LaneState state = detail::seed_lanes(key);
    return detail::mismatch(state, actual);
}

std::size_t mismatch(std::uint64_t key, std::span<const std::byte> actual, SimdPath path) {
    const auto& kernels = detail::kernels_for(path);
    detail::LaneState state;
    kernels.seed(state, key);
    return detail::mismatch_with(kernels, state, actual);
}

}  // namespace ds::pattern
