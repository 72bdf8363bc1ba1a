// What the write cliff (write_cliff.h) and a phase's regimes (regimes.h)
// both judge levels by: medians of a series' stretches, a running median
// that removes short outliers while keeping a step's edge in place, and the
// least-squares split of a stretch into two levels.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace ds::stats {

// Median of v[lo, hi) (non-empty); the mean of the two middle values for an
// even count.
double median(const std::vector<double>& v, std::size_t lo, std::size_t hi);

// Running median over 2 x half + 1 values (narrower at the ends): removes
// runs of up to `half` outlying values while keeping a step's edge in place.
std::vector<double> median_filtered(const std::vector<double>& r, std::size_t half);

// The split k of [lo, hi), both sides at least m long, whose two constant
// levels fit `prefix`'s series best in the least-squares sense: the one
// maximising nl nr / n x (mean_l - mean_r)^2, the reduction of the squared
// error from one level to two.  With `descending_only`, only splits where
// the level falls (higher before, lower after).  None when none qualifies.
std::optional<std::size_t> best_split(const std::vector<double>& prefix, std::size_t lo,
                                      std::size_t hi, std::size_t m, bool descending_only = false);

}  // namespace ds::stats
