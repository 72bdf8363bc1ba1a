// AVX2 kernels: lanes 0..3 and 4..7 each live in one __m256i per state
// word, so a step is two independent xorshift128+ updates of four lanes.
// Compiled with -mavx2; the dispatcher calls it only on CPUs with AVX2.  Uses
// intrinsics and internal-linkage helpers only (see generator_impl.h).
//
// xorshift128+ moves s1 into s0 and computes a new s1 from both.  Instead of
// moving registers, the loops below run steps in pairs and swap the roles of
// the two registers (p, q): step one reads (s0, s1) = (p, q) and overwrites p
// with the new s1; step two reads (q, p) and overwrites q.
#include <immintrin.h>

#include "pattern/generator_impl.h"

namespace ds::pattern::detail {
namespace {

// Steps compared per block before one branch on the accumulated difference
// (even: the block is made of step pairs).
constexpr std::size_t kBlockSteps = 4;

// State of four lanes: p = s0, q = s1 at the start of an even step.
struct Quad {
    __m256i p, q;
};

[[gnu::always_inline]] inline __m256i load_at(const std::uint64_t* words) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(words));
}
[[gnu::always_inline]] inline void store_at(std::uint64_t* words, __m256i v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(words), v);
}
[[gnu::always_inline]] inline __m256i loadu(const std::byte* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
[[gnu::always_inline]] inline void storeu(std::byte* p, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// The new s1 of xorshift128+ from (s0, s1).
[[gnu::always_inline]] inline __m256i next_s1(__m256i s0, __m256i s1) {
    const __m256i x = _mm256_xor_si256(s0, _mm256_slli_epi64(s0, 23));
    return _mm256_xor_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 17)),
                            _mm256_xor_si256(s1, _mm256_srli_epi64(s1, 26)));
}

// One step on a Quad, keeping p = s0, q = s1 (used off the hot loops).
[[gnu::always_inline]] inline __m256i single_step(Quad& s) {
    const __m256i out = _mm256_add_epi64(s.p, s.q);
    const __m256i s1 = next_s1(s.p, s.q);
    s.p = s.q;
    s.q = s1;
    return out;
}

// 64-bit multiply by a constant from 32x32->64 products (AVX2 has no
// vpmullq): a*c = lo(a)lo(c) + ((hi(a)lo(c) + lo(a)hi(c)) << 32).
[[gnu::always_inline]] inline __m256i mul_const(__m256i a, std::uint64_t c) {
    const __m256i c_lo = _mm256_set1_epi64x(static_cast<long long>(c & 0xFFFFFFFFu));
    const __m256i c_hi = _mm256_set1_epi64x(static_cast<long long>(c >> 32));
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), c_lo),
                                           _mm256_mul_epu32(a, c_hi));
    return _mm256_add_epi64(_mm256_mul_epu32(a, c_lo), _mm256_slli_epi64(cross, 32));
}

// splitmix64_mix on four words.
[[gnu::always_inline]] inline __m256i mix(__m256i z) {
    z = mul_const(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), kMixMul1);
    z = mul_const(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), kMixMul2);
    return _mm256_xor_si256(z, _mm256_srli_epi64(z, 31));
}

// Exact scan of `steps` steps: byte index of the first difference, or
// steps * kStepBytes.
[[gnu::always_inline]] inline std::size_t scan_exact(Quad& lo, Quad& hi, const std::byte* actual,
                                                     std::size_t steps) {
    for (std::size_t t = 0; t < steps; ++t) {
        const std::byte* p = actual + t * kStepBytes;
        const __m256i e_lo = single_step(lo);
        const __m256i e_hi = single_step(hi);
        const auto eq_lo =
            static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(e_lo, loadu(p))));
        const auto eq_hi = static_cast<std::uint32_t>(
            _mm256_movemask_epi8(_mm256_cmpeq_epi8(e_hi, loadu(p + 32))));
        // Bit i set when byte i of the step differs.
        const std::uint64_t ne = ~((static_cast<std::uint64_t>(eq_hi) << 32) | eq_lo);
        if (ne != 0) return t * kStepBytes + static_cast<std::size_t>(__builtin_ctzll(ne));
    }
    return steps * kStepBytes;
}

}  // namespace

void seed_avx2(LaneState& state, std::uint64_t key) {
    const __m256i base = _mm256_set1_epi64x(static_cast<long long>(splitmix64_mix(key)));
    store_at(state.s0, mix(_mm256_add_epi64(base, load_at(kSeedSteps[0]))));
    store_at(state.s0 + 4, mix(_mm256_add_epi64(base, load_at(kSeedSteps[0] + 4))));
    store_at(state.s1, mix(_mm256_add_epi64(base, load_at(kSeedSteps[1]))));
    store_at(state.s1 + 4, mix(_mm256_add_epi64(base, load_at(kSeedSteps[1] + 4))));
}

namespace {

// One 32-byte store: cached, or non-temporal (`dst` 32-byte aligned).
template <bool Stream>
[[gnu::always_inline]] inline void put(std::byte* dst, __m256i v) {
    if constexpr (Stream) {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(dst), v);
    } else {
        storeu(dst, v);
    }
}

template <bool Stream>
[[gnu::always_inline]] inline void generate_steps(LaneState& state, std::byte* dst,
                                                  std::size_t steps) {
    Quad lo{load_at(state.s0), load_at(state.s1)};
    Quad hi{load_at(state.s0 + 4), load_at(state.s1 + 4)};
    std::size_t t = 0;
    for (; t + 2 <= steps; t += 2) {
        std::byte* out = dst + t * kStepBytes;
        put<Stream>(out, _mm256_add_epi64(lo.p, lo.q));
        put<Stream>(out + 32, _mm256_add_epi64(hi.p, hi.q));
        lo.p = next_s1(lo.p, lo.q);
        hi.p = next_s1(hi.p, hi.q);
        put<Stream>(out + 64, _mm256_add_epi64(lo.q, lo.p));
        put<Stream>(out + 96, _mm256_add_epi64(hi.q, hi.p));
        lo.q = next_s1(lo.q, lo.p);
        hi.q = next_s1(hi.q, hi.p);
    }
    if (t < steps) {
        put<Stream>(dst + t * kStepBytes, single_step(lo));
        put<Stream>(dst + t * kStepBytes + 32, single_step(hi));
    }
    store_at(state.s0, lo.p);
    store_at(state.s0 + 4, hi.p);
    store_at(state.s1, lo.q);
    store_at(state.s1 + 4, hi.q);
}

}  // namespace

void generate_avx2(LaneState& state, std::byte* dst, std::size_t steps) {
    generate_steps<false>(state, dst, steps);
}

void stream_avx2(LaneState& state, std::byte* dst, std::size_t steps) {
    generate_steps<true>(state, dst, steps);
}

// Fused compare: per block of kBlockSteps steps the XOR of expected and
// actual is OR-ed into one register, tested once; only a block that differs
// is replayed from its saved state with byte-exact compares.  The expected
// stream never leaves the registers.
std::size_t mismatch_avx2(LaneState& state, const std::byte* actual, std::size_t steps) {
    Quad lo{load_at(state.s0), load_at(state.s1)};
    Quad hi{load_at(state.s0 + 4), load_at(state.s1 + 4)};
    std::size_t t = 0;
    for (; t + kBlockSteps <= steps; t += kBlockSteps) {
        const Quad saved_lo = lo;
        const Quad saved_hi = hi;
        const std::byte* block = actual + t * kStepBytes;
        __m256i acc = _mm256_setzero_si256();
#pragma GCC unroll 2
        for (std::size_t i = 0; i < kBlockSteps; i += 2) {
            const std::byte* p = block + i * kStepBytes;
            const __m256i d0 = _mm256_xor_si256(_mm256_add_epi64(lo.p, lo.q), loadu(p));
            const __m256i d1 = _mm256_xor_si256(_mm256_add_epi64(hi.p, hi.q), loadu(p + 32));
            lo.p = next_s1(lo.p, lo.q);
            hi.p = next_s1(hi.p, hi.q);
            const __m256i d2 = _mm256_xor_si256(_mm256_add_epi64(lo.q, lo.p), loadu(p + 64));
            const __m256i d3 = _mm256_xor_si256(_mm256_add_epi64(hi.q, hi.p), loadu(p + 96));
            lo.q = next_s1(lo.q, lo.p);
            hi.q = next_s1(hi.q, hi.p);
            acc = _mm256_or_si256(
                acc, _mm256_or_si256(_mm256_or_si256(d0, d1), _mm256_or_si256(d2, d3)));
        }
        if (!_mm256_testz_si256(acc, acc)) {
            lo = saved_lo;
            hi = saved_hi;
            return t * kStepBytes + scan_exact(lo, hi, block, kBlockSteps);
        }
    }
    const std::size_t at = scan_exact(lo, hi, actual + t * kStepBytes, steps - t);
    store_at(state.s0, lo.p);
    store_at(state.s0 + 4, hi.p);
    store_at(state.s1, lo.q);
    store_at(state.s1 + 4, hi.q);
    return t * kStepBytes + at;
}

}  // namespace ds::pattern::detail
