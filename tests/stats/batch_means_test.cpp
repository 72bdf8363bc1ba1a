// Batch means: the interval of a mean of correlated intervals, its coverage on
// independent and AR(1) series, drift called correlated, and compare().
#include "stats/batch_means.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

#include "stats/estimate.h"
#include "stats/t_quantile.h"

using ds::stats::batch_means;
using ds::stats::BatchInterval;
using ds::stats::compare;
using ds::stats::Difference;
using ds::stats::to_estimate;

namespace {

// Standard normal draws by Box-Muller on mt19937_64's raw bits, so the
// series are the same with any standard library.
class Normal {
  public:
    explicit Normal(std::uint64_t seed) : rng_(seed) {}
    double operator()() {
        const double u1 = 1 - uniform(), u2 = uniform();  // u1 in (0, 1]
        return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
    }

  private:
    double uniform() { return static_cast<double>(rng_() >> 11) * 0x1p-53; }  // [0, 1)
    std::mt19937_64 rng_;
};

std::vector<double> iid(Normal& z, std::size_t n, double mean, double sd) {
    std::vector<double> v(n);
    for (double& x : v)
        x = mean + sd * z();
    return v;
}

// x_t = mean + phi (x_t-1 - mean) + e_t, started in its stationary law.
std::vector<double> ar1(Normal& z, std::size_t n, double mean, double phi, double sd) {
    std::vector<double> v(n);
    double dev = sd / std::sqrt(1 - phi * phi) * z();
    for (double& x : v) {
        x = mean + dev;
        dev = phi * dev + sd * z();
    }
    return v;
}

bool covers(const BatchInterval& b, double truth) {
    return b.low <= truth && truth <= b.high;
}

}  // namespace

TEST_CASE("independent intervals: the interval covers the true mean about 95 % of the time") {
    Normal z(20240601);
    int covered = 0;
    for (int trial = 0; trial < 1000; ++trial) {
        const BatchInterval b = batch_means(iid(z, 60, 1000, 100));
        REQUIRE(b.usable);
        CHECK(b.low <= b.mean);
        CHECK(b.mean <= b.high);
        covered += covers(b, 1000);
    }
    CHECK(covered >= 900);
    CHECK(covered <= 980);
}

TEST_CASE("independent intervals stay batches of one, with the t interval of the mean") {
    Normal z(7);
    const std::vector<double> v = iid(z, 30, 500, 50);
    const BatchInterval b = batch_means(v);
    REQUIRE(b.batch_size == 1);
    REQUIRE_FALSE(b.correlated);
    // Widened for the lag-1 estimate corrected for its bias, when positive.
    const double rho = b.lag1 + (1 + 3 * b.lag1) / 30;
    CHECK(b.widening == doctest::Approx(rho > 0 ? std::sqrt((1 + rho) / (1 - rho)) : 1));
    CHECK(b.widening < 1.3);
    CHECK(b.n_intervals == 30);
    CHECK(b.batches == 30);
    double sum = 0, ss = 0;
    for (const double x : v)
        sum += x;
    const double mean = sum / 30;
    for (const double x : v)
        ss += (x - mean) * (x - mean);
    const double half = 2.045 * std::sqrt(ss / 29 / 30) * b.widening;  // t(0.975, 29) = 2.045
    CHECK(b.mean == doctest::Approx(mean));
    CHECK(b.high - b.mean == doctest::Approx(half).epsilon(1e-3));
    CHECK(b.mean - b.low == doctest::Approx(half).epsilon(1e-3));
    CHECK(b.confidence == 0.95);
}

TEST_CASE("an AR(1) series with phi 0.9: batches grow and the interval keeps its coverage") {
    Normal z(99);
    int covered = 0, naive_covered = 0;
    const int trials = 300;
    for (int trial = 0; trial < trials; ++trial) {
        const std::vector<double> v = ar1(z, 512, 1000, 0.9, 20);
        const BatchInterval b = batch_means(v);
        CHECK(b.batch_size >= 8);
        CHECK(b.batches * b.batch_size <= 512);
        covered += covers(b, 1000);
        // The textbook interval, as if the intervals were independent.
        double ss = 0;
        for (const double x : v)
            ss += (x - b.mean) * (x - b.mean);
        const double half = 1.965 * std::sqrt(ss / 511 / 512);
        naive_covered += b.mean - half <= 1000 && 1000 <= b.mean + half;
    }
    MESSAGE("batch means covered ", covered, ", the naive interval ", naive_covered, " of ",
            trials);
    CHECK(covered >= trials * 90 / 100);
    CHECK(naive_covered < trials * 60 / 100);
}

TEST_CASE("a drift that batching cannot absorb is called correlated, and widened") {
    std::vector<double> ramp;
    for (int i = 0; i < 40; ++i)
        ramp.push_back(100 + i);
    const BatchInterval b = batch_means(ramp);
    REQUIRE(b.usable);
    CHECK(b.batch_size == 4);  // 40 -> 20 -> 10; 5 would be too few
    CHECK(b.batches == 10);
    CHECK(b.lag1 == doctest::Approx(0.7));  // a straight line of 10 points
    CHECK(b.correlated);
    // Batch means 101.5, 105.5, ..., 137.5: sd 4 x sqrt(55/6), t(0.975, 9) = 2.262;
    // 0.7 corrected for its bias, 0.7 + 3.1 / 10, is capped at 0.95: widened by
    // sqrt(1.95 / 0.05).
    CHECK(b.widening == doctest::Approx(std::sqrt(39.0)));
    const double half = 2.262 * 4 * std::sqrt(55.0 / 6) / std::sqrt(10.0) * std::sqrt(39.0);
    CHECK(b.mean == doctest::Approx(119.5));
    CHECK(b.high - b.mean == doctest::Approx(half).epsilon(1e-3));
}

TEST_CASE("a constant series: an interval of zero width") {
    const std::vector<double> v(20, 1234.5);
    const BatchInterval b = batch_means(v);
    CHECK(b.usable);
    CHECK(b.mean == 1234.5);
    CHECK(b.low == 1234.5);
    CHECK(b.high == 1234.5);
    CHECK(b.lag1 == 0);
    CHECK_FALSE(b.correlated);
    CHECK(b.half_width_pct() == 0);
}

TEST_CASE("fewer than 5 intervals: no interval, and compare() makes no verdict") {
    const std::vector<double> four{100, 110, 90, 105};
    const BatchInterval b = batch_means(four);
    CHECK_FALSE(b.usable);
    CHECK(b.n_intervals == 4);
    CHECK(b.mean == doctest::Approx(101.25));
    CHECK(b.low == b.mean);
    CHECK(b.high == b.mean);
    CHECK(b.confidence == 0);
    CHECK(to_estimate(b).n <= 1);
    const std::vector<double> far{1000, 1000, 1000, 1000};
    CHECK(compare(to_estimate(batch_means(far)), to_estimate(b)) == Difference::single_sample);
    const BatchInterval none = batch_means(std::span<const double>{});
    CHECK_FALSE(none.usable);
    CHECK(none.n_intervals == 0);
    CHECK(none.mean == 0);
}

TEST_CASE("to_estimate carries the interval for compare()") {
    Normal z(3);
    const BatchInterval b = batch_means(iid(z, 30, 1000, 100));
    const auto e = to_estimate(b);
    CHECK(e.n == b.batches);
    CHECK(e.median == b.mean);
    CHECK(e.low == b.low);
    CHECK(e.high == b.high);
    CHECK(e.confidence == b.confidence);
    CHECK(e.min <= e.low);
    CHECK(e.max >= e.high);
}

TEST_CASE("equal means overlap; means 20 % apart with 10 % noise are told apart") {
    Normal z(11);
    const BatchInterval a = batch_means(iid(z, 30, 1000, 100));
    const BatchInterval same = batch_means(iid(z, 30, 1000, 100));
    const BatchInterval faster = batch_means(iid(z, 30, 1200, 120));
    CHECK(compare(to_estimate(a), to_estimate(same)) == Difference::within_noise);
    CHECK(compare(to_estimate(faster), to_estimate(a)) == Difference::higher);
    CHECK(compare(to_estimate(a), to_estimate(faster)) == Difference::lower);
}

TEST_CASE("bad arguments are refused") {
    const std::vector<double> v{1, 2, 3, 4, 5};
    CHECK_THROWS_AS(batch_means(v, 0), std::invalid_argument);
    CHECK_THROWS_AS(batch_means(v, 1), std::invalid_argument);
    const std::vector<double> nan{1, 2, std::nan(""), 4, 5};
    CHECK_THROWS_AS(batch_means(nan), std::invalid_argument);
}
