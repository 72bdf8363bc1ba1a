// Crossover detection on synthetic curves: clean, never, always, noisy.
#include "stats/crossover.h"

#include <doctest/doctest.h>

#include <vector>

using ds::stats::find_crossover;

TEST_CASE("a clean crossover is the first point that leads by the margin") {
    // Depths 1..64: b (sync) flattens, a (io_uring) keeps climbing.
    std::vector<double> a{40, 70, 120, 200, 300, 380, 400};
    std::vector<double> b{50, 80, 115, 150, 160, 165, 160};
    // At index 2, 120 vs 115 is +4%: inside a 5% margin, not yet a lead.
    CHECK(find_crossover(a, b, 5) == 3);
    CHECK(find_crossover(a, b, 1) == 2);
}

TEST_CASE("curves that never cross, or are equal, have no crossover") {
    std::vector<double> a{40, 70, 100, 110};
    std::vector<double> b{50, 80, 120, 130};
    CHECK_FALSE(find_crossover(a, b, 5).has_value());
    CHECK_FALSE(find_crossover(a, a, 5).has_value());  // a tie never pays
}

TEST_CASE("ahead from the first point: the crossover is the first point") {
    std::vector<double> a{60, 120, 240};
    std::vector<double> b{50, 80, 100};
    CHECK(find_crossover(a, b, 5) == 0);
}

TEST_CASE("noise: a dip inside the margin keeps the crossover, a clear loss moves it") {
    std::vector<double> b{100, 100, 100, 100, 100, 100};
    // Leads from index 1; at index 3 it dips to -3% (noise, within 5%).
    std::vector<double> dip{90, 120, 130, 97, 140, 150};
    CHECK(find_crossover(dip, b, 5) == 1);
    // A lead at index 1 lost clearly at index 3 (-20%): it pays from index 4.
    std::vector<double> lost{90, 120, 130, 80, 140, 150};
    CHECK(find_crossover(lost, b, 5) == 4);
    // A lead only at the start, then clearly behind to the end: no crossover.
    std::vector<double> early{150, 120, 80, 70, 60, 50};
    CHECK_FALSE(find_crossover(early, b, 5).has_value());
}

TEST_CASE("degenerate input: empty or mismatched curves") {
    std::vector<double> none;
    std::vector<double> one{1};
    std::vector<double> two{1, 2};
    CHECK_FALSE(find_crossover(none, none, 5).has_value());
    CHECK_FALSE(find_crossover(one, two, 5).has_value());
}

namespace {

std::vector<ds::stats::Estimate> estimates(const std::vector<std::vector<double>>& points) {
    std::vector<ds::stats::Estimate> out;
    for (const auto& p : points)
        out.push_back(ds::stats::estimate(p));
    return out;
}

}  // namespace

TEST_CASE("repeats: a lead outside the noise is a crossover") {
    // Three repeats a point: at the second point a's range lies above b's.
    const auto a = estimates({{100, 104, 98}, {200, 210, 205}, {300, 310, 305}});
    const auto b = estimates({{101, 99, 103}, {150, 155, 152}, {160, 158, 161}});
    const auto x = find_crossover(a, b, 5);
    REQUIRE(x.index.has_value());
    CHECK(*x.index == 1);
    CHECK(x.any_lead);
    CHECK_FALSE(x.any_loss);
    CHECK_FALSE(x.single_sample);
}

TEST_CASE("repeats: medians that lead but ranges that overlap are within noise") {
    // a's median leads by 10 % at every point, but one repeat of b reaches a.
    const auto a = estimates({{110, 100, 115}, {110, 105, 120}});
    const auto b = estimates({{100, 95, 112}, {100, 90, 106}});
    const auto x = find_crossover(a, b, 5);
    CHECK_FALSE(x.index.has_value());
    CHECK_FALSE(x.any_lead);
    CHECK_FALSE(x.any_loss);
}

TEST_CASE("repeats: a lead within the margin is not a crossover even outside the noise") {
    // Tight repeats, 2 % apart: outside the noise, inside a 5 % margin.
    const auto a = estimates({{102, 102.1, 101.9}});
    const auto b = estimates({{100, 100.1, 99.9}});
    CHECK_FALSE(find_crossover(a, b, 5).index.has_value());
    CHECK(find_crossover(a, b, 1).index == 0u);
}

TEST_CASE("repeats: a clear loss after a lead cancels it") {
    const auto a = estimates({{200, 201, 202}, {90, 91, 92}});
    const auto b = estimates({{100, 101, 102}, {150, 151, 152}});
    const auto x = find_crossover(a, b, 5);
    CHECK_FALSE(x.index.has_value());
    CHECK(x.any_lead);
    CHECK(x.any_loss);
}

TEST_CASE("one repeat: nothing is outside the noise") {
    const auto a = estimates({{300}, {400}});
    const auto b = estimates({{100}, {100}});
    const auto x = find_crossover(a, b, 5);
    CHECK_FALSE(x.index.has_value());
    CHECK(x.single_sample);
}
