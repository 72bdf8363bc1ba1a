// AVX-512 kernels: all eight lanes of each state word live in one __m512i,
// so a step is one xorshift128+ update and one 64-byte store or compare.
// Compiled with -mavx512f -mavx512bw; the dispatcher calls it only on CPUs
// with both.  Uses intrinsics and internal-linkage helpers only (see
// generator_impl.h).  Steps run in pairs that swap the roles of the two state
// registers instead of moving them, as in generator_avx2.cpp.
#include <immintrin.h>

#include "pattern/generator_impl.h"

// GCC 12's AVX-512 shift intrinsics start from _mm512_undefined_epi32(), a
// deliberate self-initialisation that -W(maybe-)uninitialized reports once
// inlined (GCC bug 105593, fixed in GCC 13).  Nothing here reads undefined
// lanes.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ds::pattern::detail {
namespace {

// Steps compared per block before one branch on the accumulated difference
// (even: the block is made of step pairs).
constexpr std::size_t kBlockSteps = 4;

// vpternlogq truth tables over (a, b, c) = (0xF0, 0xCC, 0xAA).
constexpr int kXor3 = 0x96;     // a ^ b ^ c
constexpr int kOrOfXor = 0xF6;  // a | (b ^ c)

// State of the eight lanes: p = s0, q = s1 at the start of an even step.
struct Octet {
    __m512i p, q;
};

// The new s1 of xorshift128+ from (s0, s1).
[[gnu::always_inline]] inline __m512i next_s1(__m512i s0, __m512i s1) {
    const __m512i x = _mm512_xor_si512(s0, _mm512_slli_epi64(s0, 23));
    const __m512i t = _mm512_ternarylogic_epi64(x, s1, _mm512_srli_epi64(x, 17), kXor3);
    return _mm512_xor_si512(t, _mm512_srli_epi64(s1, 26));
}

// One step keeping p = s0, q = s1 (used off the hot loops).
[[gnu::always_inline]] inline __m512i single_step(Octet& s) {
    const __m512i out = _mm512_add_epi64(s.p, s.q);
    const __m512i s1 = next_s1(s.p, s.q);
    s.p = s.q;
    s.q = s1;
    return out;
}

// 64-bit multiply by a constant from 32x32->64 products (vpmullq needs
// AVX512DQ, which is not required): a*c = lo(a)lo(c) + ((hi(a)lo(c) +
// lo(a)hi(c)) << 32).
[[gnu::always_inline]] inline __m512i mul_const(__m512i a, std::uint64_t c) {
    const __m512i c_lo = _mm512_set1_epi64(static_cast<long long>(c & 0xFFFFFFFFu));
    const __m512i c_hi = _mm512_set1_epi64(static_cast<long long>(c >> 32));
    const __m512i cross = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), c_lo),
                                           _mm512_mul_epu32(a, c_hi));
    return _mm512_add_epi64(_mm512_mul_epu32(a, c_lo), _mm512_slli_epi64(cross, 32));
}

// splitmix64_mix on eight words.
[[gnu::always_inline]] inline __m512i mix(__m512i z) {
    z = mul_const(_mm512_xor_si512(z, _mm512_srli_epi64(z, 30)), kMixMul1);
    z = mul_const(_mm512_xor_si512(z, _mm512_srli_epi64(z, 27)), kMixMul2);
    return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

// Exact scan of `steps` steps: byte index of the first difference, or
// steps * kStepBytes.
[[gnu::always_inline]] inline std::size_t scan_exact(Octet& s, const std::byte* actual,
                                                     std::size_t steps) {
    for (std::size_t t = 0; t < steps; ++t) {
        const __m512i expected = single_step(s);
        const __m512i got = _mm512_loadu_si512(actual + t * kStepBytes);
        const __mmask64 ne = _mm512_cmpneq_epi8_mask(expected, got);  // bit i: byte i differs
        if (ne != 0) {
            return t * kStepBytes + static_cast<std::size_t>(__builtin_ctzll(ne));
        }
    }
    return steps * kStepBytes;
}

}  // namespace

void seed_avx512(LaneState& state, std::uint64_t key) {
    const __m512i base = _mm512_set1_epi64(static_cast<long long>(splitmix64_mix(key)));
    _mm512_store_si512(state.s0, mix(_mm512_add_epi64(base, _mm512_load_si512(kSeedSteps[0]))));
    _mm512_store_si512(state.s1, mix(_mm512_add_epi64(base, _mm512_load_si512(kSeedSteps[1]))));
}

namespace {

// One 64-byte store: cached, or non-temporal (`dst` 64-byte aligned).
template <bool Stream>
[[gnu::always_inline]] inline void put(std::byte* dst, __m512i v) {
    if constexpr (Stream) {
        _mm512_stream_si512(reinterpret_cast<__m512i*>(dst), v);
    } else {
        _mm512_storeu_si512(dst, v);
    }
}

template <bool Stream>
[[gnu::always_inline]] inline void generate_steps(LaneState& state, std::byte* dst,
                                                  std::size_t steps) {
    Octet s{_mm512_load_si512(state.s0), _mm512_load_si512(state.s1)};
    std::size_t t = 0;
    for (; t + 2 <= steps; t += 2) {
        std::byte* out = dst + t * kStepBytes;
        put<Stream>(out, _mm512_add_epi64(s.p, s.q));
        s.p = next_s1(s.p, s.q);
        put<Stream>(out + kStepBytes, _mm512_add_epi64(s.q, s.p));
        s.q = next_s1(s.q, s.p);
    }
    if (t < steps) put<Stream>(dst + t * kStepBytes, single_step(s));
    _mm512_store_si512(state.s0, s.p);
    _mm512_store_si512(state.s1, s.q);
}

}  // namespace

void generate_avx512(LaneState& state, std::byte* dst, std::size_t steps) {
    generate_steps<false>(state, dst, steps);
}

void stream_avx512(LaneState& state, std::byte* dst, std::size_t steps) {
    generate_steps<true>(state, dst, steps);
}

// Fused compare, as in the AVX2 kernel: OR the XOR of expected and actual
// over a block, test once, replay only a block that differs.
std::size_t mismatch_avx512(LaneState& state, const std::byte* actual, std::size_t steps) {
    Octet s{_mm512_load_si512(state.s0), _mm512_load_si512(state.s1)};
    std::size_t t = 0;
    for (; t + kBlockSteps <= steps; t += kBlockSteps) {
        const Octet saved = s;
        const std::byte* block = actual + t * kStepBytes;
        __m512i acc = _mm512_setzero_si512();
#pragma GCC unroll 2
        for (std::size_t i = 0; i < kBlockSteps; i += 2) {
            const std::byte* p = block + i * kStepBytes;
            acc = _mm512_ternarylogic_epi64(acc, _mm512_add_epi64(s.p, s.q), _mm512_loadu_si512(p),
                                            kOrOfXor);
            s.p = next_s1(s.p, s.q);
            acc = _mm512_ternarylogic_epi64(acc, _mm512_add_epi64(s.q, s.p),
                                            _mm512_loadu_si512(p + kStepBytes), kOrOfXor);
            s.q = next_s1(s.q, s.p);
        }
        if (_mm512_test_epi64_mask(acc, acc) != 0) {
            s = saved;
            return t * kStepBytes + scan_exact(s, block, kBlockSteps);
        }
    }
    const std::size_t at = scan_exact(s, actual + t * kStepBytes, steps - t);
    _mm512_store_si512(state.s0, s.p);
    _mm512_store_si512(state.s1, s.q);
    return t * kStepBytes + at;
}

}  // namespace ds::pattern::detail
