// A confidence interval for a latency percentile (p99 and the like) read
// from a LatencyHistogram, holding whatever the latency distribution is.
//
// Method: the distribution-free order-statistic interval (Le Boudec,
// "Performance Evaluation of Computer and Communication Systems", 2.4.2;
// Lancet, USENIX ATC '19).  Of n samples, the number below the true
// p-quantile is Binomial(n, p); by its normal approximation the sorted
// samples of ranks
//     l = floor(n p - z sqrt(n p (1 - p)))
//     u = ceil(n p + z sqrt(n p (1 - p))) + 1,   both clamped to [1, n],
// bracket the quantile with the confidence asked for (z its two-sided
// normal quantile, 1.96 at 95 %).  Each bound is read from the histogram
// as value_at_percentile() reads a rank: the midpoint of the bucket holding
// it, clamped to [min, max], so it carries the histogram's own relative
// error (LatencyHistogram::kRelativeError, 1/256) on top of the interval.
//
// The normal approximation is honest only while n p (1 - p) >= 5 (about
// five samples expected beyond the percentile, which at p99.9 takes 5000
// samples).  Below, `usable` is false and the interval is [min, max] of the
// data with its own, exact coverage 1 - p^n - (1 - p)^n in `confidence`:
// it says only that the percentile is somewhere in what was seen.
//
// Guarantees: low <= value <= high, all within [min, max] of the data;
// value is exactly h.value_at_percentile(pct).
#pragma once

#include <cstdint>

#include "stats/estimate.h"
#include "stats/histogram.h"

namespace ds::stats {

struct QuantileInterval {
    static constexpr double kMinExpectedBeyond = 5;  // n p (1 - p) needed for an interval

    double pct = 0;           // the percentile asked for, 0..100
    std::uint64_t n = 0;      // samples in the histogram
    std::uint64_t value = 0;  // the percentile, ns (value_at_percentile)
    std::uint64_t low = 0;    // the interval, ns (unusable: min and max)
    std::uint64_t high = 0;
    std::uint64_t rank_low = 0;  // 1-based ranks of the bounds (0 for no samples)
    std::uint64_t rank_high = 0;
    double confidence = 0;  // coverage: as asked, or [min, max]'s (unusable)
    bool usable = false;    // n p (1 - p) >= kMinExpectedBeyond
};

// The interval of the pct-th percentile of `h`.  No samples: all zero,
// unusable.  Throws std::invalid_argument unless 0 <= pct <= 100 and
// 0 < confidence < 1.
QuantileInterval quantile_interval(const LatencyHistogram& h, double pct, double confidence = 0.95);

// The same as an Estimate, as verdicts compare them: median = the
// percentile, low/high = the interval, n = the samples (usable) or at most
// 1 (unusable: no interval, confidence 0).
Estimate percentile_estimate(const LatencyHistogram& h, double pct);

}  // namespace ds::stats
