// Tests of the multi-lane stream: its exact definition, the agreement of
// every SIMD path with the scalar one, and the fused mismatch search.
#include "pattern/generator.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using ds::pattern::kStepBytes;
using ds::pattern::SimdPath;

// Independent, deliberately plain reference of the stream definition in
// generator.cpp: splitmix64 seeding of eight xorshift128+ lanes.
std::uint64_t ref_splitmix64_mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

std::vector<std::uint64_t> ref_words(std::uint64_t key, std::size_t words) {
    constexpr std::uint64_t gamma = 0x9E3779B97F4A7C15ULL;
    std::uint64_t sm = ref_splitmix64_mix(key);  // splitmix64 generator state
    std::uint64_t s[8][2];
    for (auto& lane : s) {
        sm += gamma;
        lane[0] = ref_splitmix64_mix(sm);
        sm += gamma;
        lane[1] = ref_splitmix64_mix(sm);
    }
    std::vector<std::uint64_t> out(words);
    for (std::size_t w = 0; w < words; ++w) {
        auto& lane = s[w % 8];
        std::uint64_t s1 = lane[0];
        const std::uint64_t s0 = lane[1];
        out[w] = s0 + s1;
        lane[0] = s0;
        s1 ^= s1 << 23;
        lane[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    }
    return out;
}

std::vector<std::byte> ref_bytes(std::uint64_t key, std::size_t bytes) {
    const auto words = ref_words(key, (bytes + 7) / 8);
    std::vector<std::byte> out(bytes);
    for (std::size_t i = 0; i < bytes; ++i) {
        out[i] = static_cast<std::byte>(words[i / 8] >> (8 * (i % 8)));  // little endian
    }
    return out;
}

std::vector<std::byte> stream(std::uint64_t key, std::size_t bytes, SimdPath path) {
    std::vector<std::byte> out(bytes);
    ds::pattern::generate(key, out, path);
    return out;
}

std::uint64_t word_at(const std::vector<std::byte>& bytes, std::size_t index) {
    std::uint64_t w;
    std::memcpy(&w, bytes.data() + index * 8, 8);
    return w;
}

bool path_available(SimdPath path) {
    const auto paths = ds::pattern::available_simd_paths();
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

constexpr std::array<std::uint64_t, 6> kKeys = {
    0, 1, 42, 0x9E3779B97F4A7C15ULL * 2, 0xFFFFFFFFFFFFFFFFULL, 0x0123456789ABCDEFULL};

}  // namespace

TEST_CASE("paths: scalar is always available and listed first; the active path is the last") {
    const auto paths = ds::pattern::available_simd_paths();
    REQUIRE(!paths.empty());
    CHECK(paths.front() == SimdPath::scalar);
    CHECK(paths.back() == ds::pattern::active_simd_path());
    CHECK(ds::pattern::to_string(SimdPath::scalar) == "scalar");
    CHECK(ds::pattern::to_string(SimdPath::avx2) == "avx2");
    CHECK(ds::pattern::to_string(SimdPath::avx512) == "avx512");
    MESSAGE("active SIMD path: " << std::string(ds::pattern::to_string(paths.back())));
}

TEST_CASE("paths: asking for a path this CPU lacks throws instead of crashing") {
    std::vector<std::byte> buf(kStepBytes);
    for (const SimdPath path : {SimdPath::avx2, SimdPath::avx512}) {
        if (path_available(path)) continue;
        CHECK_THROWS_AS(ds::pattern::generate(1, buf, path), std::invalid_argument);
        CHECK_THROWS_AS((void)ds::pattern::mismatch(1, buf, path), std::invalid_argument);
    }
}

TEST_CASE("stream: the same key gives the same bytes, different keys different bytes") {
    std::vector<std::byte> a(4096), b(4096), c(4096);
    ds::pattern::generate(7, a);
    ds::pattern::generate(7, b);
    ds::pattern::generate(8, c);
    CHECK(a == b);
    CHECK(a != c);
    // Different keys differ right away, not somewhere late.
    CHECK(ds::pattern::mismatch(8, a) < 8);
    // A longer stream starts with the shorter one.
    std::vector<std::byte> longer(1 << 20);
    ds::pattern::generate(7, longer);
    CHECK(std::equal(a.begin(), a.end(), longer.begin()));
}

TEST_CASE("stream: golden values of the definition (literal and from the reference)") {
    // Literal first words; a change here changes the on-disk format.
    const auto k0 = stream(0, kStepBytes, SimdPath::scalar);
    const auto k42 = stream(42, kStepBytes, SimdPath::scalar);
    const std::array<std::uint64_t, 3> golden0 = {0x509946A41CD733A3ULL, 0xFF5015C0F255C73BULL,
                                                  0x6F052876C6271785ULL};
    const std::array<std::uint64_t, 3> golden42 = {0xC1A8F3D22F771740ULL, 0x36E4770B29033BE3ULL,
                                                   0x37479CCE27F2A36AULL};
    for (std::size_t w = 0; w < 3; ++w) {
        CAPTURE(w);
        CHECK(word_at(k0, w) == golden0[w]);
        CHECK(word_at(k42, w) == golden42[w]);
    }
    // The plain reference, over many steps, for several keys.
    for (const std::uint64_t key : kKeys) {
        CAPTURE(key);
        const std::size_t bytes = 64 * kStepBytes;
        CHECK(stream(key, bytes, SimdPath::scalar) == ref_bytes(key, bytes));
    }
}

TEST_CASE("stream: every available SIMD path produces the scalar bytes") {
    const std::array<std::size_t, 10> lengths = {64,     128,  192,  256,   320,
                                                 64 * 7, 4096, 4160, 65536, 1 << 20};
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        for (const std::uint64_t key : kKeys) {
            for (const std::size_t len : lengths) {
                CAPTURE(ds::pattern::to_string(path));
                CAPTURE(key);
                CAPTURE(len);
                const auto want = stream(key, len, SimdPath::scalar);
                CHECK(stream(key, len, path) == want);
                // Unaligned destination.
                std::vector<std::byte> buf(len + 1);
                ds::pattern::generate(key, std::span(buf).subspan(1), path);
                CHECK(std::equal(want.begin(), want.end(), buf.begin() + 1));
            }
        }
    }
    CHECK(stream(42, 4096, ds::pattern::active_simd_path()) == ref_bytes(42, 4096));
}

TEST_CASE("streaming stores: the bytes of generate on every path, aligned or not") {
    // Lengths with odd step counts (the kernels' single trailing step) and a
    // partial last step (cached stores after the streamed whole steps).
    const std::array<std::size_t, 8> lengths = {64,   192,        64 * 7,  4096,
                                                4100, 65536 + 64, 1 << 20, (1 << 20) + 63};
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        for (const std::uint64_t key : kKeys) {
            for (const std::size_t len : lengths) {
                CAPTURE(ds::pattern::to_string(path));
                CAPTURE(key);
                CAPTURE(len);
                const auto want = ref_bytes(key, len);
                for (const std::size_t misalign : {0, 8, 32, 63}) {
                    CAPTURE(misalign);
                    // 64-byte aligned storage, then `misalign` bytes in:
                    // the aligned case streams, the others fall back.
                    std::vector<std::byte> storage(len + 128, std::byte{0xEE});
                    const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
                    const std::size_t skip = (64 - base % 64) % 64 + misalign;
                    const std::span<std::byte> dst(storage.data() + skip, len);
                    ds::pattern::stream(key, dst, path);
                    ds::pattern::stream_fence();
                    CHECK(std::equal(want.begin(), want.end(), dst.begin()));
                    // Nothing past the end is touched.
                    CHECK(storage[skip + len] == std::byte{0xEE});
                }
            }
        }
    }
    std::vector<std::byte> buf(8192 + 64);
    ds::pattern::stream(9, buf, ds::pattern::active_simd_path());
    std::vector<std::byte> active(buf.size());
    ds::pattern::stream(9, active);
    CHECK(active == buf);
}

TEST_CASE("stream: a length that is not a multiple of the step gets the stream's prefix") {
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        CAPTURE(ds::pattern::to_string(path));
        const auto full = ref_bytes(5, 1024);
        for (const std::size_t len :
             {std::size_t{1}, std::size_t{63}, std::size_t{65}, std::size_t{1000}}) {
            CAPTURE(len);
            std::vector<std::byte> buf(len);
            ds::pattern::generate(5, buf, path);
            CHECK(std::equal(buf.begin(), buf.end(), full.begin()));
            CHECK(ds::pattern::mismatch(5, buf, path) == len);
            buf[len - 1] ^= std::byte{0x10};
            CHECK(ds::pattern::mismatch(5, buf, path) == len - 1);
        }
    }
}

TEST_CASE("mismatch: size on equal data, the exact index of a flipped byte on every path") {
    const std::array<std::size_t, 5> lengths = {64, 64 * 3, 64 * 7, 4096, 1 << 20};
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        for (const std::size_t len : lengths) {
            CAPTURE(ds::pattern::to_string(path));
            CAPTURE(len);
            const std::uint64_t key = 0xC0FFEE ^ len;
            auto data = stream(key, len, SimdPath::scalar);
            CHECK(ds::pattern::mismatch(key, data, path) == len);

            // First byte, last byte, the middle, and one byte in every lane of
            // the first, a middle and the last step, at varying byte offsets
            // within the lane word.
            std::vector<std::size_t> positions = {0, len - 1, len / 2, len / 2 - 1};
            const std::size_t steps = len / kStepBytes;
            for (const std::size_t step : {std::size_t{0}, steps / 2, steps - 1}) {
                for (std::size_t lane = 0; lane < 8; ++lane) {
                    positions.push_back(step * kStepBytes + lane * 8 + (lane + step) % 8);
                }
            }
            for (const std::size_t pos : positions) {
                CAPTURE(pos);
                for (const std::byte flip : {std::byte{0x01}, std::byte{0x80}, std::byte{0xFF}}) {
                    data[pos] ^= flip;
                    CHECK(ds::pattern::mismatch(key, data, path) == pos);
                    data[pos] ^= flip;
                }
            }
            // Two differences: the first one is reported.
            data[len - 1] ^= std::byte{4};
            data[len / 3] ^= std::byte{4};
            CHECK(ds::pattern::mismatch(key, data, path) == len / 3);
            data[len - 1] ^= std::byte{4};
            data[len / 3] ^= std::byte{4};
            CHECK(ds::pattern::mismatch(key, data, path) == len);
            // Another key's stream differs in its first word.
            CHECK(ds::pattern::mismatch(key + 1, data, path) < 8);
        }
    }
}

TEST_CASE("mismatch: every byte position of a 12-step buffer is found on every path") {
    // 12 steps cover three full compare blocks of the SIMD kernels and the
    // scalar remainder loop when run on 11, 10 or 9 steps.
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        for (const std::size_t steps :
             {std::size_t{9}, std::size_t{10}, std::size_t{11}, std::size_t{12}}) {
            const std::size_t len = steps * kStepBytes;
            auto data = stream(99, len, SimdPath::scalar);
            std::size_t wrong = 0;
            for (std::size_t pos = 0; pos < len; ++pos) {
                data[pos] ^= std::byte{0x40};
                wrong += ds::pattern::mismatch(99, data, path) != pos ? 1 : 0;
                data[pos] ^= std::byte{0x40};
            }
            CAPTURE(ds::pattern::to_string(path));
            CAPTURE(steps);
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("mismatch: unaligned input and an empty buffer") {
    for (const SimdPath path : ds::pattern::available_simd_paths()) {
        CAPTURE(ds::pattern::to_string(path));
        const auto want = stream(3, 4096, SimdPath::scalar);
        std::vector<std::byte> buf(4096 + 3);
        std::copy(want.begin(), want.end(), buf.begin() + 3);
        const auto view = std::span<const std::byte>(buf).subspan(3);
        CHECK(ds::pattern::mismatch(3, view, path) == 4096);
        buf[3 + 1234] ^= std::byte{1};
        CHECK(ds::pattern::mismatch(3, view, path) == 1234);
        CHECK(ds::pattern::mismatch(3, std::span<const std::byte>{}, path) == 0);
    }
}

TEST_CASE("avx512: byte-identical to scalar (skipped on CPUs without AVX-512F/BW)") {
    if (!path_available(SimdPath::avx512)) {
        MESSAGE("skipped: this CPU has no AVX-512F/BW");
        return;
    }
    const auto want = stream(42, 1 << 16, SimdPath::scalar);
    CHECK(stream(42, 1 << 16, SimdPath::avx512) == want);
    CHECK(ds::pattern::mismatch(42, want, SimdPath::avx512) == want.size());
}

TEST_CASE("stream: incompressible-looking output") {
    const std::size_t len = 1 << 20;
    const auto data = stream(2024, len, ds::pattern::active_simd_path());

    // Byte histogram: each of 256 counts is ~Binomial(2^20, 1/256): mean
    // 4096, sigma ~64.  Allow 6 sigma.
    std::array<std::size_t, 256> hist{};
    for (const std::byte b : data)
        ++hist[static_cast<unsigned char>(b)];
    const auto [lo, hi] = std::minmax_element(hist.begin(), hist.end());
    CHECK(*lo > 4096 - 6 * 64);
    CHECK(*hi < 4096 + 6 * 64);

    // Chi-square with 255 degrees of freedom: mean 255, sd ~22.6.
    double chi2 = 0;
    for (const std::size_t count : hist) {
        const double d = static_cast<double>(count) - 4096.0;
        chi2 += d * d / 4096.0;
    }
    CHECK(chi2 < 255 + 6 * 22.6);

    // No two 64-byte steps are equal (a dedup engine finds nothing).
    std::set<std::string> steps;
    for (std::size_t at = 0; at < len; at += kStepBytes) {
        steps.emplace(reinterpret_cast<const char*>(data.data() + at), kStepBytes);
    }
    CHECK(steps.size() == len / kStepBytes);

    // Half of all bits are set (mean 2^22, sigma 2^10.5 ~ 1448).
    std::size_t ones = 0;
    for (std::size_t w = 0; w < len / 8; ++w)
        ones += std::popcount(word_at(data, w));
    CHECK(std::llabs(static_cast<long long>(ones) - (1LL << 22)) < 6 * 1448);
}
