// A percentile's interval from the histogram: its bounds' ranks, its coverage,
// and the percentiles too few samples cannot place.
#include "stats/quantile_interval.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/histogram.h"

using ds::stats::LatencyHistogram;
using ds::stats::quantile_interval;
using ds::stats::QuantileInterval;

namespace {

// Exponential latencies of the given mean, by inversion on mt19937_64's raw
// bits, so the samples are the same with any standard library.
class Exponential {
  public:
    Exponential(std::uint64_t seed, double mean_ns) : rng_(seed), mean_(mean_ns) {}
    std::uint64_t operator()() {
        const double u = static_cast<double>(rng_() >> 11) * 0x1p-53;  // [0, 1)
        return static_cast<std::uint64_t>(std::llround(-mean_ * std::log1p(-u)));
    }

  private:
    std::mt19937_64 rng_;
    double mean_;
};

constexpr double kMeanNs = 200000;  // 200 us
// The true p-th quantile of that exponential.
double true_quantile(double p) {
    return -kMeanNs * std::log1p(-p);
}

// Contains `truth` up to the histogram's own resolution.
bool contains(const QuantileInterval& q, double truth) {
    const double e = LatencyHistogram::kRelativeError;
    return static_cast<double>(q.low) * (1 - e) <= truth &&
           truth <= static_cast<double>(q.high) * (1 + e);
}

}  // namespace

TEST_CASE("a million samples: the p99 interval holds the true p99 and is narrow") {
    Exponential draw(42, kMeanNs);
    LatencyHistogram h;
    for (int i = 0; i < 1000000; ++i)
        h.record(draw());
    const QuantileInterval q = quantile_interval(h, 99);
    REQUIRE(q.usable);
    CHECK(q.n == 1000000);
    CHECK(q.value == h.value_at_percentile(99));
    CHECK(q.confidence == 0.95);
    // n p = 990000, z sqrt(n p (1 - p)) = 1.96 x 99.5 = 195.0.
    CHECK(q.rank_low == 989804);
    CHECK(q.rank_high == 990197);
    CHECK(contains(q, true_quantile(0.99)));
    const double width_pct = 100.0 * static_cast<double>(q.high - q.low) / q.value;
    MESSAGE("p99 ", q.value, " ns in [", q.low, ", ", q.high, "]: ", width_pct, " % wide");
    CHECK(width_pct < 2);
}

TEST_CASE("the p99 interval covers the true p99 about 95 % of the time") {
    Exponential draw(7, kMeanNs);
    int covered = 0;
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
        LatencyHistogram h;
        for (int i = 0; i < 10000; ++i)
            h.record(draw());
        const QuantileInterval q = quantile_interval(h, 99);
        REQUIRE(q.usable);
        covered += contains(q, true_quantile(0.99));
    }
    MESSAGE("covered ", covered, " of ", trials);
    CHECK(covered >= trials * 90 / 100);
}

TEST_CASE("the ranks of the bounds, on exact values") {
    // 1..100 ns: below 128 ns every value has its own bucket, so the value of
    // rank r is r.  Median: n p = 50, z sqrt(25) = 9.80, ranks 40 and 61.
    LatencyHistogram h;
    for (std::uint64_t v = 1; v <= 100; ++v)
        h.record(v);
    const QuantileInterval q = quantile_interval(h, 50);
    REQUIRE(q.usable);
    CHECK(q.value == 50);
    CHECK(q.rank_low == 40);
    CHECK(q.rank_high == 61);
    CHECK(q.low == 40);
    CHECK(q.high == 61);
    // At 99 % z = 2.576: 12.88 either side, ranks 37 and 64.
    const QuantileInterval wide = quantile_interval(h, 50, 0.99);
    CHECK(wide.low == 37);
    CHECK(wide.high == 64);
}

TEST_CASE("100 samples cannot place p99.9: unusable, [min, max] with its coverage") {
    Exponential draw(3, kMeanNs);
    LatencyHistogram h;
    for (int i = 0; i < 100; ++i)
        h.record(draw());
    const QuantileInterval q = quantile_interval(h, 99.9);
    CHECK_FALSE(q.usable);
    CHECK(q.low == h.min());
    CHECK(q.high == h.max());
    CHECK(q.value == h.value_at_percentile(99.9));
    CHECK(q.confidence == doctest::Approx(1 - std::pow(0.999, 100) - std::pow(0.001, 100)));
    CHECK(q.confidence < 0.1);
}

TEST_CASE("low <= value <= high within [min, max], whatever the count and percentile") {
    Exponential draw(11, kMeanNs);
    for (const int n : {1, 2, 5, 37, 1000, 20000}) {
        LatencyHistogram h;
        for (int i = 0; i < n; ++i)
            h.record(draw());
        for (const double pct : {0.0, 1.0, 10.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
            const QuantileInterval q = quantile_interval(h, pct);
            CAPTURE(n);
            CAPTURE(pct);
            CHECK(h.min() <= q.low);
            CHECK(q.low <= q.value);
            CHECK(q.value <= q.high);
            CHECK(q.high <= h.max());
            CHECK(q.rank_low <= q.rank_high);
        }
    }
}

TEST_CASE("no samples, and bad arguments") {
    const LatencyHistogram empty;
    const QuantileInterval q = quantile_interval(empty, 99);
    CHECK(q.n == 0);
    CHECK_FALSE(q.usable);
    CHECK(q.value == 0);
    CHECK(q.low == 0);
    CHECK(q.high == 0);
    CHECK_THROWS_AS(quantile_interval(empty, -1), std::invalid_argument);
    CHECK_THROWS_AS(quantile_interval(empty, 100.5), std::invalid_argument);
    CHECK_THROWS_AS(quantile_interval(empty, 50, 1), std::invalid_argument);
}
