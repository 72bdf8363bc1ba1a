// A confidence interval for the mean rate of a phase from its per-interval
// rates (IOPS or bytes/s of each interval), which are not independent: a
// drive's rate in one second says much about the next (caches, garbage
// collection, queues), so the textbook interval s / sqrt(n) is too narrow.
//
// Method: batch means.  The intervals start as batches of one; while the
// lag-1 autocorrelation of the batch means is above 2 / sqrt(k) for k
// batches (the 95 % band of an uncorrelated series' estimate, whose
// standard error is about 1 / sqrt(k)) and at least 10 batches would
// remain, adjacent batches are merged in pairs (the batch size doubles).
// Intervals that do not fill a whole batch are left out, the oldest first:
// a phase's start is where a transient is likeliest.  The interval is
// Student-t's for the mean of the k batch means (k - 1 degrees of freedom),
// widened by sqrt((1 + r) / (1 - r)), the variance inflation of the mean of
// an AR(1) series with lag-1 correlation r, for whatever correlation the
// final batches keep.  That r is the lag-1 estimate corrected for its bias
// (about (1 + 3 r) / k low) and capped at 0.95; with no positive correlation
// left the factor is 1.  The correction matters: merging stops at 10 to 20
// batches, where a real correlation of 0.3 to 0.4 still passes the 2 /
// sqrt(k) test, and without it an AR(1) series with phi 0.9 over 512
// intervals was covered 87 % of the time instead of 94 % (independent
// intervals: 95 % without, 95 to 96 % with).  When the final batches are
// still significantly correlated (lag-1 above 2 / sqrt(k): a drift or a
// series too short to batch), `correlated` says so: the interval then
// rests mostly on the widening and is a rough one.
//
// Guarantees: low <= mean <= high; a constant series gives low = mean =
// high; fewer than kMinIntervals intervals give usable = false and no
// interval (low = high = mean).  Deterministic: the same series always
// gives the same interval.
#pragma once

#include <cstddef>
#include <span>

#include "stats/estimate.h"

namespace ds::stats {

struct BatchInterval {
    static constexpr std::size_t kMinIntervals = 5;  // fewer: no interval

    std::size_t n_intervals = 0;  // intervals given
    std::size_t batches = 0;      // k, the number of final batches
    std::size_t batch_size = 0;   // intervals per batch; batches x batch_size <= n_intervals
    double mean = 0;              // mean of the batch means
    double low = 0, high = 0;     // the interval of the mean (unusable: both = mean)
    double confidence = 0;        // its nominal coverage, 0..1 (unusable: 0)
    double min = 0, max = 0;      // smallest and largest batch mean
    double lag1 = 0;              // lag-1 autocorrelation of the final batch means
    double widening = 1;          // the factor the t interval was widened by (>= 1)
    bool correlated = false;      // the final batches are still significantly correlated
    bool usable = false;          // at least kMinIntervals intervals

    // Half the interval's width as a percentage of the mean (0 for a zero mean).
    double half_width_pct() const;
};

// The interval of the mean of `per_interval` (in time order; the caller has
// dropped a last partial interval).  Throws std::invalid_argument unless
// 0 < confidence < 1, or on a value that is not finite.
BatchInterval batch_means(std::span<const double> per_interval, double confidence = 0.95);

// The interval as an Estimate, so that compare() can set two phases side by
// side: median = mean, n = batches, min/max = those of the batch means,
// low/high and confidence as they are.  An unusable interval gets n of at
// most 1, so that compare() says "one sample" rather than judging a point.
Estimate to_estimate(const BatchInterval& b);

}  // namespace ds::stats
