// Crossover of two curves over the same points (a sweep's depths): from
// which point on one backend pays over the other.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "stats/estimate.h"

namespace ds::stats {

// Index of the first point i where `a` beats `b` by at least `margin_pct`
// percent (a[i] >= b[i] * (1 + margin)) and after which `a` never clearly
// loses (a[j] >= b[j] * (1 - margin) for every later j); nullopt when there
// is none, or the curves differ in length or are empty.  A dip within the
// margin after the crossover is noise and does not move it; a lead that is
// lost again later is not a crossover.
std::optional<std::size_t> find_crossover(std::span<const double> a, std::span<const double> b,
                                          double margin_pct);

// The crossover of two curves measured several times (--repeat): each
// point an estimate.  A lead counts only when a's interval lies wholly above
// b's and its median leads by the margin; a loss only when a's interval lies
// wholly below b's and its median trails by the margin.  Overlapping
// intervals are noise: they neither make a crossover nor break one.
struct NoisyCrossover {
    std::optional<std::size_t> index;  // the first point of a lead never clearly lost
    bool any_lead = false;             // some point is a lead outside the noise
    bool any_loss = false;             // some point is a loss outside the noise
    bool single_sample = false;        // a point had one sample: nothing is outside the noise
};
NoisyCrossover find_crossover(std::span<const Estimate> a, std::span<const Estimate> b,
                              double margin_pct);

}  // namespace ds::stats
