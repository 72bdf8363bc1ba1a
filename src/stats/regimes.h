// The regimes of a phase: where its per-interval figure (IOPS or bytes/s of
// each interval) changes level and stays there, up or down: a token bucket
// running dry, a throttle changed mid-phase, a cache filling, a drive
// coming back from garbage collection.
//
// Method: write_cliff's binary segmentation (write_cliff.h), for steps in
// either direction.  The series is median-filtered over
// min_level_intervals (a run of fewer outlying intervals is removed, a
// step's edge kept in place), the split that best separates two levels is
// found by least squares and placed exactly by the best split within
// min_level_intervals of it, and it counts only when both hold:
//   - each side lasts at least min_level_intervals;
//   - the medians of the two sides (of the unfiltered series) differ by at
//     least min_change_pct of the higher one (so a step from 4000 to 3000
//     and one from 3000 to 4000 are both 25 %).
// Each side is then searched the same way.  Once all splits are found, a
// split whose final neighbouring regimes no longer differ by
// min_change_pct (a level judged against a wider segment than its final
// neighbour) is dropped, the weakest first, until every one holds.
//
// Guarantees: the regimes are in order, cover every interval once, each
// lasts at least min_level_intervals (unless the whole series is shorter,
// which is then one regime), and neighbouring regimes' medians differ by at
// least min_change_pct.  A dip or spike shorter than min_level_intervals
// never makes a regime.  An empty series gives no regime, a steady one a
// single regime.  Like any binary segmentation it can miss a step hidden
// inside a segment whose best split was rejected; a slow slide is split
// wherever it is steepest, if at all.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "stats/batch_means.h"

namespace ds::stats {

struct RegimeRule {
    std::size_t min_level_intervals = 3;  // a regime lasts at least this many intervals (>= 1)
    double min_change_pct = 25;           // smallest change of level that counts, % (0, 100)
};

// Throws std::invalid_argument with a one-line reason on a rule that cannot
// be applied.
void check_regime_rule(const RegimeRule& rule);

// One level of the series.
struct Regime {
    std::size_t first_interval = 0;  // index of its first interval
    std::size_t intervals = 0;       // how many
    double start_s = 0;              // first_interval x interval_s
    double length_s = 0;             // intervals x interval_s
    double mean = 0;                 // mean of its intervals
    double median = 0;               // median of its intervals: the level splits are judged by
    BatchInterval interval;          // batch_means() of its intervals (usable from 5)
};

using Regimes = std::vector<Regime>;

// The regimes of `per_interval` (in time order, each interval interval_s
// long).  Throws std::invalid_argument on a bad rule, an interval_s that is
// not positive and finite, or a value that is not finite.
Regimes find_regimes(std::span<const double> per_interval, double interval_s,
                     const RegimeRule& rule = {});

}  // namespace ds::stats
