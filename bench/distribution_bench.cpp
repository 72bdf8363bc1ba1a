// Cost of one random-I/O offset draw per access distribution, ns, on one
// core.  Prints figures only; it never asserts on time (the goal is at most
// 50 ns a draw).  Each figure is the fastest of several passes of 2^16
// draws, so a machine shared with other work still shows what one core can
// do.  The generator is the random phase's (xorshift128+).
//
//   rank:       draw_rank() alone
//   unit:       draw(), the rank through the seed's permutation
//   tallied:    draw_rank(), unit_of() and SkewTally::add(), as a worker
//               that reports its skew would
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>

#include "stats/distribution.h"

namespace {

using Clock = std::chrono::steady_clock;

struct XorShift128Plus {
    std::uint64_t s0 = 0x9E3779B97F4A7C15ULL, s1 = 0xD1B54A32D192ED03ULL;
    std::uint64_t operator()() {
        std::uint64_t a = s0;
        const std::uint64_t b = s1;
        s0 = b;
        a ^= a << 23;
        s1 = a ^ b ^ (a >> 17) ^ (b >> 26);
        return s1 + b;
    }
};

volatile std::uint64_t g_sink = 0;  // keeps every draw

// ns per draw of the fastest pass of kDraws draws; at least 20 passes and
// 0.3 s.  A pass takes a few milliseconds, shorter than most time slices.
double ns_per_draw(const std::function<std::uint64_t(std::uint64_t)>& pass) {
    constexpr std::uint64_t kDraws = 1 << 16;
    double best = 1e30, total = 0;
    for (int n = 0; total < 0.3 || n < 20; ++n) {
        const auto start = Clock::now();
        g_sink = g_sink + pass(kDraws);
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
        best = std::min(best, seconds);
        total += seconds;
    }
    return best * 1e9 / kDraws;
}

void row(const char* text, std::uint64_t units) {
    const ds::stats::Distribution d(ds::stats::parse_distribution(text), units, 1);
    XorShift128Plus rng;
    const double rank = ns_per_draw([&](std::uint64_t n) {
        std::uint64_t sum = 0;
        for (std::uint64_t i = 0; i < n; ++i)
            sum += d.draw_rank(rng);
        return sum;
    });
    const double unit = ns_per_draw([&](std::uint64_t n) {
        std::uint64_t sum = 0;
        for (std::uint64_t i = 0; i < n; ++i)
            sum += d.draw(rng);
        return sum;
    });
    ds::stats::SkewTally tally(units);
    const double tallied = ns_per_draw([&](std::uint64_t n) {
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::uint64_t r = d.draw_rank(rng);
            tally.add(r, d.unit_of(r));
        }
        return tally.ops();
    });
    std::printf("  %-26s %8.1f %8.1f %8.1f\n", text, rank, unit, tallied);
}

}  // namespace

int main() {
    std::printf("access distribution draws, ns per draw (fastest pass of 2^16 draws)\n");
    for (const std::uint64_t units : {std::uint64_t{1} << 20, std::uint64_t{1} << 40}) {
        std::printf("%llu units\n", static_cast<unsigned long long>(units));
        std::printf("  %-26s %8s %8s %8s\n", "", "rank", "unit", "tallied");
        for (const char* text : {"uniform", "zipf:0.8", "zipf:1.2", "pareto:0.3", "normal:5%",
                                 "zoned:60/10,30/20,10/70"})
            row(text, units);
    }
    return 0;
}
