// Saturation ("knee") of a sweep: the point after which more load buys
// little throughput but costs tail latency.  Found and described here once;
// the text report, the JSON document and the plots only render it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace ds::stats {

// Index of the first point i beyond which no later point adds `min_gain_pct`
// percent of throughput or more, while p99 rises at the next point
// (p99[i+1] > p99[i]); nullopt when no such point exists ("not reached":
// throughput still climbing, or too few points).  Looking at all later
// points, not just the next, keeps a noisy dip from being taken for the knee.
std::optional<std::size_t> find_knee(std::span<const double> throughput,
                                     std::span<const double> p99, double min_gain_pct);

// What "throughput" is for a sweep.  IOPS for queue depth and workers;
// bandwidth for block sizes, where IOPS always fall as blocks grow (the knee
// would land on the smallest block while MiB/s triples).
enum class KneeAxis { iops, bandwidth };
std::string_view to_string(KneeAxis a);  // "iops", "bandwidth"

// One sweep point's figures.
struct SweepFigures {
    double iops = 0;
    double bytes_per_sec = 0;
    double p99_ns = 0;
};

// The saturation point and the step after it.
struct Knee {
    std::size_t index = 0;  // in the points; never the last
    KneeAxis axis = KneeAxis::iops;
    SweepFigures at;                     // the knee's figures
    double next_iops_gain_pct = 0;       // to the next point, percent (may be negative)
    double next_bandwidth_gain_pct = 0;  // idem
    double next_p99_change_pct = 0;      // idem
    double next_gain_pct() const {       // on the axis the knee was chosen by
        return axis == KneeAxis::bandwidth ? next_bandwidth_gain_pct : next_iops_gain_pct;
    }
};

// The knee of `points` on `axis`, or nullopt ("not reached").
std::optional<Knee> find_knee(std::span<const SweepFigures> points, KneeAxis axis,
                              double min_gain_pct);
// The knee at a known index (< points.size() - 1): its figures and the step after it.
Knee knee_at(std::span<const SweepFigures> points, std::size_t index, KneeAxis axis);

}  // namespace ds::stats
