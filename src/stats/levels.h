// What the write cliff (write_cliff.h) and a phase's regimes (regimes.h)
// both judge levels by: medians of a series' stretches, and a running
// median that removes short outliers while keeping a step's edge in place.
#pragma once

#include <cstddef>
#include <vector>

namespace ds::stats {

// Median of v[lo, hi) (non-empty); the mean of the two middle values for an
// even count.
double median(const std::vector<double>& v, std::size_t lo, std::size_t hi);

// Running median over 2 x half + 1 values (narrower at the ends): removes
// runs of up to `half` outlying values while keeping a step's edge in place.
std::vector<double> median_filtered(const std::vector<double>& r, std::size_t half);

}  // namespace ds::stats
