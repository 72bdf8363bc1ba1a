// Quantiles of the normal and Student-t distributions, for confidence
// intervals of means (batch_means.h) and ranks (quantile_interval.h).
//
// Method: the normal quantile is Wichura's AS241 (PPND16, Applied
// Statistics 1988), rational approximations good to about 1e-16, cheap
// enough for every draw of a normal access distribution (distribution.h).  The t quantile is exact
// in closed form for 1 and 2 degrees of freedom and Hill's approximation (CACM algorithm 396, 1970,
// the starting point of R's qt()) above; against tables it is within 1e-3 for every df at the usual
// confidences (0.8 to 0.999), which is far below the noise of any interval built on it.  Pure
// functions, no state.
#pragma once

#include <cstddef>

namespace ds::stats {

// The x with P(Z <= x) = p for a standard normal Z.  Throws
// std::invalid_argument unless 0 < p < 1.
double normal_quantile(double p);

// The two-sided Student-t quantile: the t with P(|T| <= t) = confidence for
// T with `df` degrees of freedom (confidence 0.95, df 9: 2.262).  Throws
// std::invalid_argument unless 0 < confidence < 1 and df >= 1.
double t_quantile(double confidence, std::size_t df);

}  // namespace ds::stats
