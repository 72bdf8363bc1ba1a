// --find-rate: the highest rate whose response-time percentile meets a
// bound, found by bisection between 0 and the closed-loop maximum.  Pure
// logic, so that a test drives it with a fake measurement.
#pragma once

#include <optional>
#include <span>

#include "stats/estimate.h"

namespace ds::stats {

// What one probed rate measured, judged against the bound.
struct ProbeVerdict {
    bool passed = false;        // rate met and the percentile's median within the bound
    bool within_noise = false;  // the percentile's interval straddles the bound
    Estimate percentile_ns;     // the response percentile (and its interval)
};

// `percentile_ns`: the response percentile with its interval, over the
// repeats (--repeat) or from one run's latencies (quantile_interval.h's
// percentile_estimate); with no interval (confidence 0) nothing is within
// noise.  `rate_met`: the phase achieved its rate (a rate not met fails
// whatever its latency).
ProbeVerdict judge_probe(const Estimate& percentile_ns, double bound_ns, bool rate_met);
// The same over the percentile of each repeat (one repeat: no interval).
ProbeVerdict judge_probe(std::span<const double> percentile_ns, double bound_ns, bool rate_met);

// The bisection.  The first probe is the maximum itself; after it every
// probe halves the bracket [highest passing (0 before any), lowest failing
// (the maximum before any)].  It ends when the bracket is within
// kBracketShare of its low end, after max_probes probes, or when the next
// rate would be below `min_rate` (a rate whose phase is too short to
// measure, or under one operation a second).
class RateSearch {
  public:
    static constexpr unsigned kMaxProbes = 8;
    static constexpr double kBracketShare = 0.05;

    explicit RateSearch(double max_rate, double min_rate = 1, unsigned max_probes = kMaxProbes,
                        double bracket_share = kBracketShare);

    // The next rate to probe (operations a second), or none: the search is done.
    std::optional<double> next() const;
    // The result of probing `rate` (the one next() gave).
    void record(double rate, bool passed);

    // The highest rate that passed and the lowest that failed (none yet: nullopt).
    std::optional<double> found() const { return found_; }
    std::optional<double> lowest_failing() const { return failing_; }
    unsigned probes() const { return probes_; }

  private:
    double max_;
    double min_;
    unsigned max_probes_;
    double share_;
    unsigned probes_ = 0;
    std::optional<double> found_, failing_;
};

}  // namespace ds::stats
