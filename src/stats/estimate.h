// A figure measured several times (--repeat N): its median, its spread and
// an interval for the median that holds whatever the figure's distribution.
//
// The interval is the distribution-free one for a median: with the n
// samples sorted, [x(k), x(n-k+1)] covers the true median with probability
// 1 - 2 * P(Binomial(n, 1/2) < k).  k is the largest that keeps that at
// 95 % or more; below n = 6 no k does, and the interval is [min, max] with
// its own, lower coverage (n = 5: 93.75 %, n = 3: 75 %), which `confidence`
// states.  No resampling, so the same samples always give the same interval.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace ds::stats {

struct Estimate {
    std::size_t n = 0;
    double median = 0;
    double min = 0, max = 0;
    double low = 0, high = 0;  // the interval of the median (n = 1: the sample itself)
    double confidence = 0;     // its coverage, 0..1 (n = 1: 0, no interval)

    // Half the interval's width as a percentage of the median: the "±4 %"
    // of "148.3k IOPS (±4 %, n=5)"; 0 for one sample or a zero median.
    double half_width_pct() const;
    // (max - min) as a percentage of the median.
    double spread_pct() const;
};

// The estimate of `samples` (any order; empty: n = 0 and all zero).
Estimate estimate(std::span<const double> samples);

// How two estimates of the same figure compare.  A difference is named only
// when the intervals do not overlap; one sample on either side is no basis
// for a verdict.
enum class Difference {
    single_sample,  // n < 2 on a side: nothing can be said
    within_noise,   // the intervals overlap
    higher,         // a's interval lies wholly above b's
    lower,          // a's interval lies wholly below b's
};
Difference compare(const Estimate& a, const Estimate& b);
// "one sample", "within noise", "higher", "lower"
std::string_view to_string(Difference d);

// Every sample of `a` below every sample of `b`, with at least five on each
// side: samples alike would fall so by chance 1 time in C(10, 5) = 252 or
// less.  It tells two figures apart when one of them moved between levels
// inside its phase: the step widens its interval, not the gap.
bool entirely_below(const Estimate& a, const Estimate& b);

}  // namespace ds::stats
