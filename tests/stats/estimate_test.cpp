// A figure over repeats: its median, its interval from order statistics with
// their coverage, and when a difference is named.
#include "stats/estimate.h"

#include <doctest/doctest.h>

#include <vector>

using ds::stats::Difference;
using ds::stats::Estimate;
using ds::stats::estimate;

TEST_CASE("one sample: its value, no interval") {
    const std::vector<double> s{42};
    const Estimate e = estimate(s);
    CHECK(e.n == 1);
    CHECK(e.median == 42);
    CHECK(e.low == 42);
    CHECK(e.high == 42);
    CHECK(e.confidence == 0);
    CHECK(e.half_width_pct() == 0);
}

TEST_CASE("no samples: all zero") {
    const Estimate e = estimate(std::span<const double>{});
    CHECK(e.n == 0);
    CHECK(e.median == 0);
    CHECK(e.spread_pct() == 0);
}

TEST_CASE("median of an even count is the mean of the middle two, in any order") {
    const std::vector<double> s{4, 1, 3, 2};
    const Estimate e = estimate(s);
    CHECK(e.median == doctest::Approx(2.5));
    CHECK(e.min == 1);
    CHECK(e.max == 4);
}

TEST_CASE("below six samples the interval is [min, max] with its lower coverage") {
    const std::vector<double> five{100, 104, 98, 101, 97};
    const Estimate e = estimate(five);
    CHECK(e.median == 100);
    CHECK(e.low == 97);
    CHECK(e.high == 104);
    CHECK(e.confidence == doctest::Approx(0.9375));  // 1 - 2/32
    CHECK(e.half_width_pct() == doctest::Approx(3.5));
    CHECK(e.spread_pct() == doctest::Approx(7));
    const std::vector<double> three{1, 2, 3};
    CHECK(estimate(three).confidence == doctest::Approx(0.75));
}

TEST_CASE("with more samples the interval narrows to inner order statistics, >= 95 %") {
    // n = 17: k = 5 covers 1 - 2 P(B < 5) = 0.951; k = 6 would be 0.857.
    std::vector<double> s;
    for (int i = 1; i <= 17; ++i)
        s.push_back(i);
    const Estimate e = estimate(s);
    CHECK(e.median == 9);
    CHECK(e.low == 5);
    CHECK(e.high == 13);
    CHECK(e.confidence == doctest::Approx(0.9510).epsilon(0.001));
    CHECK(e.confidence >= 0.95);
    // n = 6: k = 1, 1 - 2/64.
    const std::vector<double> six{1, 2, 3, 4, 5, 6};
    CHECK(estimate(six).low == 1);
    CHECK(estimate(six).confidence == doctest::Approx(0.96875));
}

TEST_CASE("a difference is named only when the intervals do not overlap") {
    const std::vector<double> a{100, 101, 102, 103, 104};
    const std::vector<double> b{110, 111, 112, 113, 114};
    const std::vector<double> c{103, 105, 107, 109, 111};
    CHECK(compare(estimate(b), estimate(a)) == Difference::higher);
    CHECK(compare(estimate(a), estimate(b)) == Difference::lower);
    CHECK(compare(estimate(a), estimate(c)) == Difference::within_noise);
    const std::vector<double> one{500};
    CHECK(compare(estimate(one), estimate(a)) == Difference::single_sample);
    CHECK(to_string(Difference::within_noise) == "within noise");
}

TEST_CASE("entirely below: every sample under every other, five or more a side") {
    const std::vector<double> low{1, 2, 3, 4, 5};
    const std::vector<double> stepped{50, 50, 50, 900, 900, 900};  // its interval spans both levels
    REQUIRE(estimate(stepped).low <= 50);
    CHECK(entirely_below(estimate(low), estimate(stepped)));
    CHECK_FALSE(entirely_below(estimate(stepped), estimate(low)));
    const std::vector<double> touching{5, 60, 70, 80, 90};
    CHECK_FALSE(entirely_below(estimate(low), estimate(touching)));  // 5 is not below 5
    const std::vector<double> four{1, 2, 3, 4};
    CHECK_FALSE(entirely_below(estimate(four), estimate(stepped)));  // 1 in 70 by chance
}
