// A phase's completions slice by slice (model/throughput_series.h).
#include "model/throughput_series.h"

#include <doctest/doctest.h>

#include <numeric>

using ds::model::ThroughputSeries;

namespace {

constexpr std::uint64_t kSlice = ThroughputSeries::kFirstSliceNs;

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
    return std::accumulate(v.begin(), v.end(), std::uint64_t{0});
}

}  // namespace

TEST_CASE("whole slices only; completions land in the slice that ended first") {
    ThroughputSeries s;
    s.start(1000);
    s.tick(1000 + kSlice / 2, 5, 5 * 4096);  // within the first slice: nothing yet
    CHECK(s.ops.empty());
    s.tick(1000 + kSlice, 10, 10 * 4096);  // the first slice ended
    REQUIRE(s.ops.size() == 1);
    CHECK(s.ops[0] == 10);
    CHECK(s.bytes[0] == 10 * 4096);
    s.tick(1000 + 3 * kSlice + 1, 40, 40 * 4096);  // two more ended with no tick between
    CHECK(s.ops == std::vector<std::uint64_t>{10, 30, 0});
    CHECK(s.ops_per_second() == std::vector<double>{100, 300, 0});
}

TEST_CASE("a start of 0 keeps it off") {
    ThroughputSeries s;
    s.start(0);
    s.tick(UINT64_MAX - 1, 10, 10);
    CHECK(s.ops.empty());
}

TEST_CASE("a long phase keeps at most kMaxSlices: the slices double, nothing is lost") {
    ThroughputSeries s;
    s.start(kSlice);
    std::uint64_t ops = 0;
    const std::size_t slices = 5 * ThroughputSeries::kMaxSlices + 3;
    for (std::size_t i = 1; i <= slices; ++i) {
        ops += 7;
        s.tick(kSlice + i * kSlice, ops, ops * 512);
    }
    CHECK(s.ops.size() <= ThroughputSeries::kMaxSlices);
    // Halved at 2048, 4096 and 8192 first slices: 10243 of them are 1280
    // slices of eight, each holding 56 operations.
    CHECK(s.slice_ns == 8 * kSlice);
    CHECK(s.ops.size() == 1280);
    for (std::uint64_t n : s.ops)
        CHECK(n == 56);
    CHECK(sum(s.ops) <= ops);
    CHECK(sum(s.ops) + 8 * 7 > ops);  // at most the slice in progress is left out
}

TEST_CASE("workers add up slice by slice, at the longer slice; later runs follow") {
    ThroughputSeries a, b;
    a.ops = {1, 2, 3, 4};
    a.bytes = {1, 2, 3, 4};
    b.ops = {10, 20, 30};
    b.bytes = {10, 20, 30};
    b.slice_ns = 2 * kSlice;
    ThroughputSeries sum_ab = a;
    sum_ab.merge(b);
    CHECK(sum_ab.slice_ns == 2 * kSlice);
    CHECK(sum_ab.ops == std::vector<std::uint64_t>{13, 27, 30});
    ThroughputSeries joined = a;
    joined.append(b);
    CHECK(joined.ops == std::vector<std::uint64_t>{3, 7, 10, 20, 30});
    ThroughputSeries empty;
    empty.merge(a);
    CHECK(empty.ops == a.ops);
}
