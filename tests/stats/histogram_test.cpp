// The latency histogram: buckets tiling the range within 1/128, percentiles
// within 1 %, exact min/max/mean, clamping, merging and counts above a bound.
#include "stats/histogram.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using ds::stats::LatencyHistogram;

namespace {

std::uint64_t exact_percentile(std::vector<std::uint64_t> v, double p) {
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    rank = std::clamp<std::size_t>(rank, 1, v.size());
    return v[rank - 1];
}

void check_percentiles(const std::vector<std::uint64_t>& samples) {
    LatencyHistogram h;
    for (auto s : samples)
        h.record(s);
    for (double p : {0.0, 1.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99, 100.0}) {
        auto exact = static_cast<double>(exact_percentile(samples, p));
        auto got = static_cast<double>(h.value_at_percentile(p));
        CAPTURE(p);
        CAPTURE(exact);
        CAPTURE(got);
        CHECK(std::abs(got - exact) <= exact * 0.01);
        CHECK(std::abs(got - exact) <= exact * LatencyHistogram::kRelativeError + 0.5);
    }
}

}  // namespace

TEST_CASE("buckets tile the range without gaps or overlaps") {
    for (std::size_t i = 0; i + 1 < LatencyHistogram::kBucketCount; ++i) {
        CAPTURE(i);
        REQUIRE(LatencyHistogram::bucket_lower(i) + LatencyHistogram::bucket_width(i) ==
                LatencyHistogram::bucket_lower(i + 1));
        REQUIRE(LatencyHistogram::bucket_of(LatencyHistogram::bucket_lower(i)) == i);
    }
    // Covers 1 ns to at least one hour.
    CHECK(LatencyHistogram::bucket_of(1) == 1);
    std::uint64_t hour = 3600ULL * 1000 * 1000 * 1000;
    CHECK(LatencyHistogram::bucket_of(hour) < LatencyHistogram::kBucketCount - 1);
    CHECK(LatencyHistogram::kRelativeError < 0.01);
}

TEST_CASE("bucket width is at most 1/128 of its lower bound") {
    for (std::size_t i = LatencyHistogram::kSubBuckets; i < LatencyHistogram::kBucketCount; ++i) {
        CHECK(LatencyHistogram::bucket_width(i) * 128 <= LatencyHistogram::bucket_lower(i));
    }
}

TEST_CASE("percentiles are within 1% of the exact nearest-rank values") {
    std::mt19937_64 rng(7);
    SUBCASE("log-uniform from 1 us to 10 s") {
        std::vector<std::uint64_t> v;
        std::uniform_real_distribution<double> d(std::log(1e3), std::log(1e10));
        for (int i = 0; i < 100000; ++i)
            v.push_back(static_cast<std::uint64_t>(std::exp(d(rng))));
        check_percentiles(v);
    }
    SUBCASE("tight cluster around 80 us with a long tail") {
        std::vector<std::uint64_t> v;
        std::normal_distribution<double> d(80000, 3000);
        for (int i = 0; i < 50000; ++i)
            v.push_back(static_cast<std::uint64_t>(std::max(1.0, d(rng))));
        for (int i = 0; i < 50; ++i)
            v.push_back(2'500'000'000ULL + i * 1'000'000ULL);
        check_percentiles(v);
    }
    SUBCASE("small exact values") {
        std::vector<std::uint64_t> v{1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 127};
        check_percentiles(v);
    }
}

TEST_CASE("min, max and mean are exact") {
    LatencyHistogram h;
    CHECK(h.count() == 0);
    CHECK(h.min() == 0);
    CHECK(h.value_at_percentile(99) == 0);
    h.record(123457);
    h.record(999);
    h.record(10'000'000'007ULL);
    CHECK(h.min() == 999);
    CHECK(h.max() == 10'000'000'007ULL);
    CHECK(h.mean() == doctest::Approx((123457.0 + 999.0 + 10'000'000'007.0) / 3));
    CHECK(h.value_at_percentile(100) == 10'000'000'007ULL);
    CHECK(h.value_at_percentile(0) == 999);
}

TEST_CASE("values beyond the top range are clamped into the last bucket, max stays exact") {
    LatencyHistogram h;
    std::uint64_t huge = 1ULL << 50;
    h.record(huge);
    CHECK(h.bucket_count(LatencyHistogram::kBucketCount - 1) == 1);
    CHECK(h.max() == huge);
    CHECK(h.value_at_percentile(50) == huge);
}

TEST_CASE("merge equals recording the union") {
    std::mt19937_64 rng(11);
    std::uniform_int_distribution<std::uint64_t> d(1, 50'000'000);
    LatencyHistogram a, b, both;
    for (int i = 0; i < 20000; ++i) {
        auto x = d(rng);
        (i % 3 ? a : b).record(x);
        both.record(x);
    }
    a.merge(b);
    CHECK(a.count() == both.count());
    CHECK(a.min() == both.min());
    CHECK(a.max() == both.max());
    CHECK(a.mean() == doctest::Approx(both.mean()));
    for (std::size_t i = 0; i < LatencyHistogram::kBucketCount; ++i) {
        REQUIRE(a.bucket_count(i) == both.bucket_count(i));
    }
}

TEST_CASE("count_above counts requests slower than a threshold") {
    LatencyHistogram h;
    std::uint64_t two_s = 2'000'000'000ULL;
    for (int i = 0; i < 90; ++i)
        h.record(1'000'000);
    for (int i = 0; i < 7; ++i)
        h.record(3'000'000'000ULL);
    for (int i = 0; i < 3; ++i)
        h.record(12'000'000'000ULL);
    CHECK(h.count_above(two_s) == 10);
    CHECK(h.count_above(10'000'000'000ULL) == 3);
    CHECK(h.count_above(20'000'000'000ULL) == 0);
}
