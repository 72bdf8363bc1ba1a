// Normal and Student's t quantiles against tables, their monotony, and the
// arguments refused.
#include "stats/t_quantile.h"

#include <doctest/doctest.h>

#include <cstddef>
#include <stdexcept>

using ds::stats::normal_quantile;
using ds::stats::t_quantile;

TEST_CASE("normal quantiles against tables") {
    CHECK(normal_quantile(0.5) == doctest::Approx(0).epsilon(1e-12));
    CHECK(normal_quantile(0.975) == doctest::Approx(1.959963985).epsilon(1e-9));
    CHECK(normal_quantile(0.025) == doctest::Approx(-1.959963985).epsilon(1e-9));
    CHECK(normal_quantile(0.995) == doctest::Approx(2.575829304).epsilon(1e-9));
    CHECK(normal_quantile(0.9) == doctest::Approx(1.281551566).epsilon(1e-9));
    CHECK(normal_quantile(1e-6) == doctest::Approx(-4.753424309).epsilon(1e-9));
}

TEST_CASE("two-sided t quantiles at 95 % against tables") {
    const auto t95 = [](std::size_t df) { return t_quantile(0.95, df); };
    CHECK(t95(1) == doctest::Approx(12.706).epsilon(1e-4));
    CHECK(t95(2) == doctest::Approx(4.303).epsilon(1e-4));
    CHECK(t95(3) == doctest::Approx(3.182).epsilon(1e-3));
    CHECK(t95(4) == doctest::Approx(2.776).epsilon(1e-3));
    CHECK(t95(5) == doctest::Approx(2.571).epsilon(1e-3));
    CHECK(t95(9) == doctest::Approx(2.262).epsilon(1e-3));
    CHECK(t95(19) == doctest::Approx(2.093).epsilon(1e-3));
    CHECK(t95(30) == doctest::Approx(2.042).epsilon(1e-3));
    CHECK(t95(120) == doctest::Approx(1.980).epsilon(1e-3));
    CHECK(t95(1000000) == doctest::Approx(1.960).epsilon(1e-3));
}

TEST_CASE("two-sided t quantiles at other confidences against tables") {
    CHECK(t_quantile(0.90, 1) == doctest::Approx(6.314).epsilon(1e-3));
    CHECK(t_quantile(0.90, 10) == doctest::Approx(1.812).epsilon(1e-3));
    CHECK(t_quantile(0.99, 3) == doctest::Approx(5.841).epsilon(1e-3));
    CHECK(t_quantile(0.99, 10) == doctest::Approx(3.169).epsilon(1e-3));
    CHECK(t_quantile(0.99, 30) == doctest::Approx(2.750).epsilon(1e-3));
    CHECK(t_quantile(0.999, 5) == doctest::Approx(6.869).epsilon(1e-3));
    CHECK(t_quantile(0.80, 4) == doctest::Approx(1.533).epsilon(1e-3));
}

TEST_CASE("quantiles grow with confidence and shrink with degrees of freedom") {
    for (std::size_t df = 1; df < 200; ++df) {
        CHECK(t_quantile(0.95, df + 1) < t_quantile(0.95, df));
        CHECK(t_quantile(0.99, df) > t_quantile(0.95, df));
        CHECK(t_quantile(0.95, df) > normal_quantile(0.975));
    }
}

TEST_CASE("out-of-range arguments are refused") {
    CHECK_THROWS_AS(normal_quantile(0), std::invalid_argument);
    CHECK_THROWS_AS(normal_quantile(1), std::invalid_argument);
    CHECK_THROWS_AS(t_quantile(0.95, 0), std::invalid_argument);
    CHECK_THROWS_AS(t_quantile(1.0, 5), std::invalid_argument);
    CHECK_THROWS_AS(t_quantile(0.0, 5), std::invalid_argument);
}
