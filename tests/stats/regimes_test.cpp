// The regimes of a phase: level changes found (a token bucket running dry),
// noise, single-interval dips and small steps not split.
#include "stats/regimes.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

using ds::stats::find_regimes;
using ds::stats::Regime;
using ds::stats::RegimeRule;
using ds::stats::Regimes;

namespace {

constexpr double kInterval = 0.25;  // seconds

// A per-interval series built level by level, each value times a uniform
// factor in [1 - noise, 1 + noise] from mt19937_64's raw bits (the same
// with any standard library).
struct Series {
    std::vector<double> values;
    std::mt19937_64 rng{12345};

    Series& level(double seconds, double rate, double noise = 0.05) {
        const auto count = static_cast<std::size_t>(seconds / kInterval);
        for (std::size_t i = 0; i < count; ++i) {
            const double u = static_cast<double>(rng() >> 11) * 0x1p-53;  // [0, 1)
            values.push_back(rate * (1 + noise * (2 * u - 1)));
        }
        return *this;
    }
};

void check_cover(const Regimes& r, std::size_t n) {
    std::size_t next = 0;
    for (const Regime& g : r) {
        CHECK(g.first_interval == next);
        CHECK(g.start_s == doctest::Approx(static_cast<double>(next) * kInterval));
        CHECK(g.length_s == doctest::Approx(static_cast<double>(g.intervals) * kInterval));
        next += g.intervals;
    }
    CHECK(next == n);
}

}  // namespace

TEST_CASE("a token bucket running dry: 5000 for 3 s, then 500 for 5 s") {
    Series s;
    s.level(3, 5000).level(5, 500);
    const Regimes r = find_regimes(s.values, kInterval);
    REQUIRE(r.size() == 2);
    check_cover(r, s.values.size());
    CHECK(std::abs(r[1].start_s - 3) <= 1);
    CHECK(r[1].start_s == doctest::Approx(3));  // least squares places a clean step exactly
    CHECK(r[0].mean == doctest::Approx(5000).epsilon(0.05));
    CHECK(r[1].mean == doctest::Approx(500).epsilon(0.05));
    CHECK(r[0].length_s == doctest::Approx(3));
    CHECK(r[1].length_s == doctest::Approx(5));
    // Each regime carries its own batch-means interval.
    CHECK(r[0].interval.usable);
    CHECK(r[0].interval.n_intervals == 12);
    CHECK(r[0].interval.low <= 5000);
    CHECK(r[0].interval.high >= 5000);
    CHECK(r[1].interval.n_intervals == 20);
    CHECK(r[1].interval.mean == doctest::Approx(r[1].mean));
}

TEST_CASE("a steady series with +-10 % noise is one regime") {
    Series s;
    s.level(15, 2000, 0.10);
    const Regimes r = find_regimes(s.values, kInterval);
    REQUIRE(r.size() == 1);
    check_cover(r, s.values.size());
    CHECK(r[0].mean == doctest::Approx(2000).epsilon(0.05));
    CHECK(r[0].length_s == doctest::Approx(15));
}

TEST_CASE("a single-interval dip, or a spike, does not split") {
    Series s;
    s.level(4, 3000).level(kInterval, 300).level(4, 3000);
    CHECK(find_regimes(s.values, kInterval).size() == 1);
    Series t;
    t.level(4, 3000).level(kInterval, 30000).level(4, 3000);
    CHECK(find_regimes(t.values, kInterval).size() == 1);
    // Two intervals are still shorter than a level of 3.
    Series u;
    u.level(4, 3000).level(2 * kInterval, 300).level(4, 3000);
    CHECK(find_regimes(u.values, kInterval).size() == 1);
}

TEST_CASE("three levels, up then down, give three regimes") {
    Series s;
    s.level(3, 1000).level(3, 3000).level(3, 1200);
    const Regimes r = find_regimes(s.values, kInterval);
    REQUIRE(r.size() == 3);
    check_cover(r, s.values.size());
    CHECK(r[1].start_s == doctest::Approx(3));
    CHECK(r[2].start_s == doctest::Approx(6));
    CHECK(r[0].mean == doctest::Approx(1000).epsilon(0.05));
    CHECK(r[1].mean == doctest::Approx(3000).epsilon(0.05));
    CHECK(r[2].mean == doctest::Approx(1200).epsilon(0.05));
}

TEST_CASE("a step smaller than min_change_pct is not a regime; a lower threshold finds it") {
    Series s;
    s.level(4, 1000, 0.02).level(4, 850, 0.02);  // 15 % down
    CHECK(find_regimes(s.values, kInterval).size() == 1);
    const Regimes r = find_regimes(s.values, kInterval, RegimeRule{3, 10});
    REQUIRE(r.size() == 2);
    CHECK(r[1].start_s == doctest::Approx(4));
}

TEST_CASE("neighbouring regimes always differ by min_change_pct") {
    // A staircase 600 -> 800 -> 1000.  The first split (before the 1000s)
    // passes, 700 vs 1000; inside, 600 vs 800 passes at exactly 25 %; but
    // then the 800s and the 1000s are neighbours only 20 % apart, so that
    // split goes again: two regimes, 600 and the rest (median 1000).
    Series s;
    s.level(2.25, 600, 0).level(1.5, 800, 0).level(2.75, 1000, 0);
    const Regimes r = find_regimes(s.values, kInterval);
    for (std::size_t j = 1; j < r.size(); ++j) {
        const double hi = std::max(r[j - 1].median, r[j].median);
        const double lo = std::min(r[j - 1].median, r[j].median);
        CHECK((hi - lo) / hi >= 0.25);
    }
    check_cover(r, s.values.size());
    REQUIRE(r.size() == 2);
    CHECK(r[1].start_s == doctest::Approx(2.25));
    CHECK(r[1].median == 1000);
}

TEST_CASE("empty and short series: no regime, or one, and no crash") {
    CHECK(find_regimes(std::span<const double>{}, kInterval).empty());
    for (std::size_t n = 1; n < 6; ++n) {
        const std::vector<double> v(n, 100);
        const Regimes r = find_regimes(v, kInterval);
        REQUIRE(r.size() == 1);
        CHECK(r[0].intervals == n);
        CHECK(r[0].mean == 100);
        CHECK(r[0].interval.usable == (n >= 5));
    }
    // Too short for two levels of 3, however different.
    const std::vector<double> step{5000, 5000, 5000, 500, 500};
    CHECK(find_regimes(step, kInterval).size() == 1);
    const std::vector<double> zeros(12, 0);
    CHECK(find_regimes(zeros, kInterval).size() == 1);
}

TEST_CASE("bad arguments are refused") {
    const std::vector<double> v{1, 2, 3};
    CHECK_THROWS_AS(find_regimes(v, 0), std::invalid_argument);
    CHECK_THROWS_AS(find_regimes(v, -1), std::invalid_argument);
    CHECK_THROWS_AS(find_regimes(v, kInterval, RegimeRule{0, 25}), std::invalid_argument);
    CHECK_THROWS_AS(find_regimes(v, kInterval, RegimeRule{3, 0}), std::invalid_argument);
    CHECK_THROWS_AS(find_regimes(v, kInterval, RegimeRule{3, 100}), std::invalid_argument);
    const std::vector<double> inf{1, 2, std::numeric_limits<double>::infinity()};
    CHECK_THROWS_AS(find_regimes(inf, kInterval), std::invalid_argument);
}
