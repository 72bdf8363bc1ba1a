// --find-rate's search: the maximum probed first, the bracket narrowed to 5 %,
// the stops, and how a probe passes or fails against the bound.
#include "stats/rate_search.h"

#include <doctest/doctest.h>

#include <vector>

using ds::stats::judge_probe;
using ds::stats::RateSearch;

namespace {

// Runs the search against a fake drive: every rate up to `capacity` passes.
std::vector<double> search(RateSearch& s, double capacity) {
    std::vector<double> probed;
    while (auto rate = s.next()) {
        probed.push_back(*rate);
        s.record(*rate, *rate <= capacity);
    }
    return probed;
}

}  // namespace

TEST_CASE("the maximum is probed first; when it passes the search ends there") {
    RateSearch s(1000);
    const auto probed = search(s, 2000);
    REQUIRE(probed.size() == 1);
    CHECK(probed[0] == 1000);
    CHECK(s.found() == 1000);
    CHECK(!s.lowest_failing());
}

TEST_CASE("a capacity just below the maximum is bracketed within 5 %") {
    RateSearch s(1000);
    const auto probed = search(s, 990);
    // 1000, 500, 750, 875, 937.5, 968.75: the bracket 968.75..1000 is 3.2 %.
    CHECK(probed.size() == 6);
    CHECK(s.found() == doctest::Approx(968.75));
    CHECK(s.lowest_failing() == 1000);
    CHECK(*s.lowest_failing() - *s.found() <= RateSearch::kBracketShare * *s.found());
}

TEST_CASE("the found rate is the highest that passed, the failing one the lowest that failed") {
    RateSearch s(1000);
    search(s, 420);
    REQUIRE(s.found());
    REQUIRE(s.lowest_failing());
    CHECK(*s.found() <= 420);
    CHECK(*s.lowest_failing() > 420);
    CHECK(s.probes() <= RateSearch::kMaxProbes);
}

TEST_CASE("nothing passes: the search halves down and stops after its probes") {
    RateSearch s(1000);
    const auto probed = search(s, 0);
    CHECK(probed.size() == RateSearch::kMaxProbes);
    CHECK(!s.found());
    CHECK(s.lowest_failing() == doctest::Approx(1000.0 / 128));
}

TEST_CASE("no maximum measured: nothing to search") {
    RateSearch s(0);
    CHECK(!s.next());
    RateSearch tiny(0.5);
    CHECK(!tiny.next());
}

TEST_CASE("the search stops before a rate too low to measure") {
    RateSearch s(1000, 100);
    const auto probed = search(s, 0);
    // 1000, 500, 250, 125; 62.5 would be below the minimum.
    CHECK(probed.size() == 4);
    CHECK(probed.back() == 125);
    CHECK(s.lowest_failing() == 125);
    RateSearch low(80, 100);  // the maximum itself too low to measure
    CHECK(!low.next());
}

TEST_CASE("the search stops when the rates left are below one operation a second") {
    RateSearch s(3, 0, 20);
    const auto probed = search(s, 0);
    CHECK(probed.back() >= 0.5);
    CHECK(probed.size() < 20);
}

TEST_CASE("a probe passes on the median of its repeats, and says when the bound is in the noise") {
    const std::vector<double> one{4e6};
    CHECK(judge_probe(one, 5e6, true).passed);
    CHECK(!judge_probe(one, 3e6, true).passed);
    CHECK(!judge_probe(one, 3e6, true).within_noise);  // one sample: no interval

    const std::vector<double> five{4e6, 4.5e6, 4.8e6, 5.5e6, 6e6};
    const auto straddles = judge_probe(five, 5e6, true);
    CHECK(straddles.passed);  // median 4.8 ms <= 5 ms
    CHECK(straddles.within_noise);
    CHECK(straddles.percentile_ns.median == doctest::Approx(4.8e6));
    const auto clear = judge_probe(five, 7e6, true);
    CHECK(clear.passed);
    CHECK(!clear.within_noise);
    CHECK(!judge_probe(five, 3e6, true).passed);
    CHECK(!judge_probe(five, 3e6, true).within_noise);
}

TEST_CASE("one run: the percentile's own interval decides whether the bound is in the noise") {
    // An order-statistic interval (quantile_interval.h) of one run's latencies.
    ds::stats::Estimate e{.n = 20000,
                          .median = 4.6e6,
                          .min = 4.2e6,
                          .max = 5.3e6,
                          .low = 4.2e6,
                          .high = 5.3e6,
                          .confidence = 0.95};
    CHECK(judge_probe(e, 5e6, true).passed);
    CHECK(judge_probe(e, 5e6, true).within_noise);
    CHECK(!judge_probe(e, 4e6, true).within_noise);  // wholly above: a clear fail
    CHECK(!judge_probe(e, 4e6, true).passed);
    CHECK(!judge_probe(e, 6e6, true).within_noise);  // wholly below: a clear pass
    // Too few samples beyond the percentile: no interval, nothing within noise.
    e.n = 1;
    e.confidence = 0;
    CHECK(!judge_probe(e, 5e6, true).within_noise);
}

TEST_CASE("a rate not met fails whatever its latency") {
    const std::vector<double> one{1e3};
    CHECK(!judge_probe(one, 5e6, false).passed);
}
