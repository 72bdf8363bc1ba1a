// SNIA steady state: the window's range and slope against hand computations,
// the limits exactly, and the tracker stopping at the first steady window.
#include "stats/steady_state.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

using ds::stats::evaluate_steady_state;
using ds::stats::SteadyStateRule;
using ds::stats::SteadyStateStatus;
using ds::stats::SteadyStateTracker;

// Hand computations below use W = 5, centred abscissae dx = -2 -1 0 1 2,
// Sxx = sum(dx^2) = 10, slope = sum(dx y) / Sxx, excursion = |slope| x 4.

TEST_CASE("a steady window: the rule's figures against a hand computation") {
    // y = 100 104 98 102 96: sum 500, mean 100; range 104 - 96 = 8 -> 8%.
    // sum(dx y) = -200 - 104 + 0 + 102 + 192 = -10 -> slope -1 per round;
    // excursion 1 x 4 = 4 -> 4%.  The line passes through (index 2, 100), so
    // its value at index 0 is 100 - (-1)(2) = 102.
    std::vector<double> y{100, 104, 98, 102, 96};
    auto w = evaluate_steady_state(y);
    REQUIRE(w.has_value());
    CHECK(w->first == 0);
    CHECK(w->last == 4);
    CHECK(w->mean == 100);
    CHECK(w->min == 96);
    CHECK(w->max == 104);
    CHECK(w->range_pct == doctest::Approx(8).epsilon(1e-12));
    CHECK(w->slope == doctest::Approx(-1).epsilon(1e-12));
    CHECK(w->intercept == doctest::Approx(102).epsilon(1e-12));
    CHECK(w->excursion_pct == doctest::Approx(4).epsilon(1e-12));
    CHECK(w->range_ok);
    CHECK(w->excursion_ok);
    CHECK(w->attained);
}

TEST_CASE("the slope's interval: from the residuals about the line, against a hand computation") {
    // The window above: the line 102 101 100 99 98 leaves residuals
    // -2 3 -2 3 -2, sum of squares 30, s^2 = 30 / 3 = 10, standard error of
    // the slope sqrt(10 / Sxx) = 1, t(95 %, 3 df) = 3.1824: -1 +- 3.18.
    std::vector<double> y{100, 104, 98, 102, 96};
    auto w = evaluate_steady_state(y);
    REQUIRE(w.has_value());
    CHECK(w->trend_judged);
    CHECK(w->slope_low == doctest::Approx(-1 - 3.182446).epsilon(1e-5));
    CHECK(w->slope_high == doctest::Approx(-1 + 3.182446).epsilon(1e-5));
    CHECK(w->trend_within_noise);  // the rounds scatter more than they move

    // The same mean and a steady climb of 2 a round, no scatter: a trend.
    std::vector<double> climb{96, 98, 100, 102, 104};
    auto c = evaluate_steady_state(climb);
    REQUIRE(c.has_value());
    CHECK(c->attained);  // within PTS's limits: 8 % range, 8 % excursion
    CHECK(c->trend_judged);
    CHECK(c->slope_low == doctest::Approx(2));
    CHECK(!c->trend_within_noise);

    // Two rounds leave no residual: no interval.
    SteadyStateRule two;
    two.window_rounds = 2;
    auto t = evaluate_steady_state(std::vector<double>{100, 101}, two);
    REQUIRE(t.has_value());
    CHECK(!t->trend_judged);
    CHECK(!t->trend_within_noise);
}

TEST_CASE("only the last W rounds count, and indices are positions in the whole series") {
    // Same window as above after two warm-up rounds: it spans indices 2..6,
    // its centre is index 4, so the intercept is 100 - (-1)(4) = 104.
    std::vector<double> y{50, 70, 100, 104, 98, 102, 96};
    auto w = evaluate_steady_state(y);
    REQUIRE(w.has_value());
    CHECK(w->first == 2);
    CHECK(w->last == 6);
    CHECK(w->mean == 100);
    CHECK(w->intercept == doctest::Approx(104).epsilon(1e-12));
    CHECK(w->attained);
}

TEST_CASE("fewer rounds than the window: no evaluation") {
    CHECK_FALSE(evaluate_steady_state(std::vector<double>{1, 2, 3, 4}).has_value());
    CHECK_FALSE(evaluate_steady_state(std::vector<double>{}).has_value());
    SteadyStateRule three{.window_rounds = 3};
    CHECK(evaluate_steady_state(std::vector<double>{1, 1, 1}, three).has_value());
}

TEST_CASE("a constant series is steady with zero range and a flat line") {
    std::vector<double> y(5, 250);
    auto w = evaluate_steady_state(y);
    REQUIRE(w.has_value());
    CHECK(w->range_pct == 0);
    CHECK(w->slope == 0);
    CHECK(w->intercept == 250);
    CHECK(w->excursion_pct == 0);
    CHECK(w->attained);
}

TEST_CASE("a zero mean is never steady and has no percentages") {
    std::vector<double> y(5, 0);
    auto w = evaluate_steady_state(y);
    REQUIRE(w.has_value());
    CHECK(w->mean == 0);
    CHECK(std::isnan(w->range_pct));
    CHECK(std::isnan(w->excursion_pct));
    CHECK_FALSE(w->range_ok);
    CHECK_FALSE(w->excursion_ok);
    CHECK_FALSE(w->attained);
}

TEST_CASE("exactly at the 20% range limit passes, just above fails") {
    // y = 90 110 100 100 100: mean 100, range 20 -> exactly 20%.
    // sum(dx y) = -180 - 110 + 0 + 100 + 200 = 10 -> slope 1, excursion 4%.
    auto at = evaluate_steady_state(std::vector<double>{90, 110, 100, 100, 100});
    REQUIRE(at.has_value());
    CHECK(at->range_pct == 20);
    CHECK(at->range_ok);
    CHECK(at->attained);
    // y = 90 111 100 100 99: sum 500, mean 100, range 21 -> 21%.
    auto above = evaluate_steady_state(std::vector<double>{90, 111, 100, 100, 99});
    REQUIRE(above.has_value());
    CHECK(above->range_pct == doctest::Approx(21).epsilon(1e-12));
    CHECK_FALSE(above->range_ok);
    CHECK_FALSE(above->attained);
}

TEST_CASE("exactly at the 10% excursion limit passes, just above fails") {
    // y = 95 97.5 100 102.5 105: mean 100, range 10%.
    // sum(dx y) = -190 - 97.5 + 0 + 102.5 + 210 = 25 -> slope 2.5;
    // excursion 2.5 x 4 = 10 -> exactly 10%.
    auto at = evaluate_steady_state(std::vector<double>{95, 97.5, 100, 102.5, 105});
    REQUIRE(at.has_value());
    CHECK(at->slope == 2.5);
    CHECK(at->excursion_pct == 10);
    CHECK(at->excursion_ok);
    CHECK(at->attained);
    // y = 94.8 97.4 100 102.6 105.2: slope 2.6, excursion 10.4%.
    auto above = evaluate_steady_state(std::vector<double>{94.8, 97.4, 100, 102.6, 105.2});
    REQUIRE(above.has_value());
    CHECK(above->slope == doctest::Approx(2.6).epsilon(1e-12));
    CHECK(above->excursion_pct == doctest::Approx(10.4).epsilon(1e-12));
    CHECK(above->range_ok);
    CHECK_FALSE(above->excursion_ok);
    CHECK_FALSE(above->attained);
}

TEST_CASE("a rising series inside the range limit fails on its slope") {
    // y = 90 95 100 105 110: mean 100, range 20 -> 20% (passes, at the limit).
    // sum(dx y) = -180 - 95 + 0 + 105 + 220 = 50 -> slope 5; excursion 20 -> 20%.
    auto w = evaluate_steady_state(std::vector<double>{90, 95, 100, 105, 110});
    REQUIRE(w.has_value());
    CHECK(w->range_pct == 20);
    CHECK(w->range_ok);
    CHECK(w->slope == 5);
    CHECK(w->excursion_pct == 20);
    CHECK_FALSE(w->excursion_ok);
    CHECK_FALSE(w->attained);
}

TEST_CASE("a flat but scattered series passes on its slope and fails on its range") {
    // y = 100 70 130 130 70: mean 100, range 60 -> 60%.
    // sum(dx y) = -200 - 70 + 0 + 130 + 140 = 0 -> slope 0, excursion 0%.
    auto w = evaluate_steady_state(std::vector<double>{100, 70, 130, 130, 70});
    REQUIRE(w.has_value());
    CHECK(w->range_pct == 60);
    CHECK_FALSE(w->range_ok);
    CHECK(w->slope == 0);
    CHECK(w->excursion_ok);
    CHECK_FALSE(w->attained);
}

TEST_CASE("a falling series fails on the magnitude of its slope") {
    // y = 110 105 100 95 90: the mirror of the rising case, slope -5, 20%.
    auto w = evaluate_steady_state(std::vector<double>{110, 105, 100, 95, 90});
    REQUIRE(w.has_value());
    CHECK(w->slope == -5);
    CHECK(w->excursion_pct == 20);
    CHECK_FALSE(w->excursion_ok);
}

TEST_CASE("other window sizes: W = 4 uses its own least-squares line") {
    // y = 100 102 98 104, W = 4: dx = -1.5 -0.5 0.5 1.5, Sxx = 5.
    // sum(dx y) = -150 - 51 + 49 + 156 = 4 -> slope 0.8; excursion 0.8 x 3 = 2.4;
    // mean 101 -> 2.376%; range 6 -> 5.94%.
    SteadyStateRule rule{.window_rounds = 4};
    auto w = evaluate_steady_state(std::vector<double>{100, 102, 98, 104}, rule);
    REQUIRE(w.has_value());
    CHECK(w->mean == 101);
    CHECK(w->slope == doctest::Approx(0.8).epsilon(1e-12));
    CHECK(w->excursion_pct == doctest::Approx(240.0 / 101).epsilon(1e-12));
    CHECK(w->range_pct == doctest::Approx(600.0 / 101).epsilon(1e-12));
    CHECK(w->attained);
    // Tighter limits make the same window fail.
    rule.max_excursion_pct = 2;
    CHECK_FALSE(evaluate_steady_state(std::vector<double>{100, 102, 98, 104}, rule)->attained);
}

TEST_CASE("a rule that cannot be evaluated is refused with a reason") {
    CHECK_THROWS_WITH_AS(evaluate_steady_state(std::vector<double>{1, 2}, {.window_rounds = 1}),
                         "steady-state window must be at least 2 rounds, not 1",
                         std::invalid_argument);
    CHECK_THROWS_WITH_AS(SteadyStateTracker({.window_rounds = 5, .max_rounds = 4}),
                         "steady-state maximum of 4 rounds is shorter than its window of 5",
                         std::invalid_argument);
    CHECK_THROWS_AS(SteadyStateTracker({.max_range_pct = -1}), std::invalid_argument);
}

TEST_CASE("the tracker stops at the first steady window") {
    // Round values of a drive settling after its fresh-out-of-box burst.
    // Round 7 (indices 2..6) = 120 105 100 101 99: mean 105, range 21 -> 20%
    //   exactly, but sum(dx y) = -240 - 105 + 0 + 101 + 198 = -46 -> slope -4.6,
    //   excursion 18.4 -> 17.5%: not yet.
    // Round 8 (indices 3..7) = 105 100 101 99 100: sum 505, mean 101, range 6;
    //   sum(dx y) = -210 - 100 + 0 + 99 + 200 = -11 -> slope -1.1,
    //   excursion 4.4 -> 4.36%: steady; intercept 101 - (-1.1)(5) = 106.5.
    std::vector<double> y{200, 150, 120, 105, 100, 101, 99, 100, 100};
    SteadyStateTracker t;
    std::vector<SteadyStateStatus> seen;
    for (double v : y)
        seen.push_back(t.add_round(v));
    for (std::size_t i = 0; i < 7; ++i)
        CHECK(seen[i] == SteadyStateStatus::measuring);
    CHECK(seen[7] == SteadyStateStatus::attained);
    CHECK(seen[8] == SteadyStateStatus::attained);
    CHECK(t.rounds().size() == 8);  // the ninth round came after the end
    REQUIRE(t.window().has_value());
    CHECK(t.window()->first == 3);
    CHECK(t.window()->last == 7);
    CHECK(t.window()->mean == 101);
    CHECK(t.window()->slope == doctest::Approx(-1.1).epsilon(1e-12));
    CHECK(t.window()->intercept == doctest::Approx(106.5).epsilon(1e-12));
    CHECK(t.window()->excursion_pct == doctest::Approx(440.0 / 101).epsilon(1e-12));
}

TEST_CASE("the tracker has no window before W rounds") {
    SteadyStateTracker t;
    for (int i = 0; i < 4; ++i)
        CHECK(t.add_round(100) == SteadyStateStatus::measuring);
    CHECK_FALSE(t.window().has_value());
    CHECK(t.add_round(100) == SteadyStateStatus::attained);
    CHECK(t.window()->first == 0);
}

TEST_CASE("the tracker gives up after the maximum number of rounds") {
    // Doubling every round never settles; PTS's 25 rounds, then the last
    // window (indices 20..24) is what the report shows.
    SteadyStateTracker t;
    double v = 1;
    for (int i = 0; i < 24; ++i, v *= 2)
        CHECK(t.add_round(v) == SteadyStateStatus::measuring);
    CHECK(t.add_round(v) == SteadyStateStatus::max_rounds_reached);
    CHECK(t.add_round(1) == SteadyStateStatus::max_rounds_reached);
    CHECK(t.rounds().size() == 25);
    REQUIRE(t.window().has_value());
    CHECK(t.window()->first == 20);
    CHECK(t.window()->last == 24);
    CHECK_FALSE(t.window()->attained);
}

TEST_CASE("steady state on the very last allowed round counts as attained") {
    SteadyStateTracker t({.window_rounds = 5, .max_rounds = 6});
    CHECK(t.add_round(500) == SteadyStateStatus::measuring);
    for (int i = 0; i < 4; ++i)
        CHECK(t.add_round(100) == SteadyStateStatus::measuring);
    CHECK(t.add_round(100) == SteadyStateStatus::attained);
}
