// Saturation ("knee") of a sweep: the point after which more load buys
// little throughput but costs tail latency.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace ds::stats {

// Index of the first point i beyond which no later point adds `min_gain_pct`
// percent of IOPS or more, while p99 rises at the next point
// (p99[i+1] > p99[i]); nullopt when no such point exists ("not reached":
// IOPS still climbing, or too few points).  Looking at all later points, not
// just the next, keeps a noisy dip from being taken for the knee.
std::optional<std::size_t> find_knee(std::span<const double> iops, std::span<const double> p99,
                                     double min_gain_pct);

}  // namespace ds::stats
