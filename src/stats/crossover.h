// Crossover of two curves over the same points (a sweep's depths): from
// which point on one backend pays over the other.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

namespace ds::stats {

// Index of the first point i where `a` beats `b` by at least `margin_pct`
// percent (a[i] >= b[i] * (1 + margin)) and after which `a` never clearly
// loses (a[j] >= b[j] * (1 - margin) for every later j); nullopt when there
// is none, or the curves differ in length or are empty.  A dip within the
// margin after the crossover is noise and does not move it; a lead that is
// lost again later is not a crossover.
std::optional<std::size_t> find_crossover(std::span<const double> a, std::span<const double> b,
                                          double margin_pct);

}  // namespace ds::stats
