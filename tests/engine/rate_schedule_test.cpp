// The --rate schedule: fixed arrivals exactly 1/rate apart from the start
// (no drift), Poisson arrivals with the requested mean and a reproducible
// sequence per seed.
#include "engine/rate_schedule.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using ds::engine::RateSchedule;
using ds::model::Arrivals;

TEST_CASE("fixed arrivals are 1/rate apart, counted from the start plus the worker's phase") {
    RateSchedule s(4000, Arrivals::fixed, 1'000'000, 125'000, 7);
    CHECK(s.next() == 1'125'000);
    CHECK(s.next() == 1'375'000);  // 250 us later
    CHECK(s.next() == 1'625'000);
}

TEST_CASE("fixed arrivals do not drift over millions of operations") {
    // 3 ops/s: 333333333.33 ns apart; adding a rounded gap would lose a
    // third of a nanosecond per operation.
    RateSchedule s(3, Arrivals::fixed, 0, 0, 1);
    std::uint64_t last = 0;
    for (int i = 0; i <= 3'000'000; ++i)
        last = s.next();
    CHECK(last == 1'000'000'000'000'000ULL);  // 3 million ops at 3/s: exactly 1e6 s
}

TEST_CASE("poisson arrivals have the requested mean rate and exponential gaps") {
    RateSchedule s(10'000, Arrivals::poisson, 0, 0, 42);
    const int n = 200'000;
    std::vector<double> gaps;
    std::uint64_t prev = s.next();
    CHECK(prev == 0);  // the first at the start
    for (int i = 0; i < n; ++i) {
        const std::uint64_t t = s.next();
        REQUIRE(t >= prev);
        gaps.push_back(static_cast<double>(t - prev));
        prev = t;
    }
    double mean = 0;
    for (double g : gaps)
        mean += g / n;
    CHECK(mean == doctest::Approx(100'000).epsilon(0.01));  // 100 us
    // Exponential: the share of gaps above the mean is 1/e.
    int above = 0;
    for (double g : gaps)
        above += g > mean;
    CHECK(static_cast<double>(above) / n == doctest::Approx(std::exp(-1.0)).epsilon(0.02));
}

TEST_CASE("a poisson schedule is the same for the same seed, another for another seed") {
    RateSchedule a(1000, Arrivals::poisson, 5, 0, 9), b(1000, Arrivals::poisson, 5, 0, 9),
        c(1000, Arrivals::poisson, 5, 0, 10);
    bool differs = false;
    for (int i = 0; i < 100; ++i) {
        const std::uint64_t x = a.next();
        CHECK(x == b.next());
        differs = differs || x != c.next();
    }
    CHECK(differs);
}
