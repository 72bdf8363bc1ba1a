// The knee of a sweep: the last point before the figure flattens while p99
// climbs, none on steady growth or noise, and bandwidth for block sizes.
#include "stats/knee.h"

#include <doctest/doctest.h>

#include <vector>

using ds::stats::find_knee;

TEST_CASE("a clear knee is the last point before IOPS flattens while p99 climbs") {
    //                     qd 1     2      4      8      16     32     64     128
    std::vector<double> iops{10e3, 19e3, 37e3, 70e3, 120e3, 180e3, 186e3, 188e3};
    std::vector<double> p99{0.1, 0.11, 0.12, 0.14, 0.17, 0.25, 0.48, 0.95};
    auto k = find_knee(iops, p99, 5);
    REQUIRE(k.has_value());
    CHECK(*k == 5);  // qd 32: the step to 64 adds 3.3% IOPS and doubles p99
}

TEST_CASE("no knee while IOPS keeps climbing") {
    std::vector<double> iops{10e3, 20e3, 40e3, 80e3};
    std::vector<double> p99{0.1, 0.1, 0.11, 0.12};
    CHECK_FALSE(find_knee(iops, p99, 5).has_value());
}

TEST_CASE("a noisy plateau: a flat step with falling p99 is not the knee") {
    std::vector<double> iops{50e3, 100e3, 102e3, 101e3, 103e3};
    std::vector<double> p99{0.2, 0.3, 0.25, 0.6, 1.2};
    auto k = find_knee(iops, p99, 5);
    REQUIRE(k.has_value());
    CHECK(*k == 2);  // 100k -> 102k has p99 falling; 102k -> 101k has it rising
}

TEST_CASE("the threshold is configurable, and short series have no knee") {
    std::vector<double> iops{100e3, 108e3, 109e3};
    std::vector<double> p99{1, 2, 3};
    CHECK(*find_knee(iops, p99, 10) == 0);
    CHECK(*find_knee(iops, p99, 5) == 1);
    CHECK_FALSE(find_knee(std::vector<double>{1e3}, std::vector<double>{1}, 5).has_value());
    CHECK_FALSE(find_knee(std::vector<double>{}, std::vector<double>{}, 5).has_value());
}

TEST_CASE("a dip followed by more growth is not the knee") {
    std::vector<double> iops{110e3, 105e3, 126e3, 142e3, 165e3, 188e3, 197e3};
    std::vector<double> p99{0.021, 0.047, 0.071, 0.117, 0.205, 0.325, 0.551};
    auto k = find_knee(iops, p99, 5);
    REQUIRE(k.has_value());
    CHECK(*k == 5);  // 188k: the only later point adds 4.8%
}

TEST_CASE("a block-size sweep is judged by bandwidth: falling IOPS are no knee") {
    using ds::stats::KneeAxis;
    using ds::stats::SweepFigures;
    // rand-block 4K, 8K, 16K, 32K, 64K as measured on a loop device: IOPS
    // fall at every step while MiB/s more than quintuples.
    std::vector<SweepFigures> pts{{132.7e3, 518.2 * 1048576, 3.1e6},
                                  {101.0e3, 788.9 * 1048576, 3.2e6},
                                  {83.8e3, 1309.9 * 1048576, 4.6e6},
                                  {56.9e3, 1779.7 * 1048576, 5.1e6},
                                  {43.9e3, 2746.7 * 1048576, 6.2e6}};
    auto by_iops = find_knee(pts, KneeAxis::iops, 5);
    REQUIRE(by_iops.has_value());
    CHECK(by_iops->index == 0);  // the fake knee the issue saw
    CHECK_FALSE(find_knee(pts, KneeAxis::bandwidth, 5).has_value());
    // Bandwidth that stops growing at 32K: the knee is there, on bandwidth.
    pts[4].bytes_per_sec = 1790.0 * 1048576;
    auto k = find_knee(pts, KneeAxis::bandwidth, 5);
    REQUIRE(k.has_value());
    CHECK(k->index == 3);
    CHECK(k->axis == KneeAxis::bandwidth);
    CHECK(k->at.iops == doctest::Approx(56.9e3));
    CHECK(k->next_bandwidth_gain_pct == doctest::Approx((1790.0 / 1779.7 - 1) * 100));
    CHECK(k->next_gain_pct() == doctest::Approx(k->next_bandwidth_gain_pct));
    CHECK(k->next_iops_gain_pct == doctest::Approx((43.9 / 56.9 - 1) * 100));
    CHECK(k->next_p99_change_pct == doctest::Approx((6.2 / 5.1 - 1) * 100));
    CHECK(ds::stats::to_string(k->axis) == "bandwidth");
}
