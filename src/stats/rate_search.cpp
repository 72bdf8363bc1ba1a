#include "stats/rate_search.h"

#include <algorithm>

namespace ds::stats {

ProbeVerdict judge_probe(const Estimate& percentile_ns, double bound_ns, bool rate_met) {
    ProbeVerdict v;
    v.percentile_ns = percentile_ns;
    const Estimate& e = v.percentile_ns;
    v.passed = rate_met && e.n > 0 && e.median <= bound_ns;
    v.within_noise = e.n >= 2 && e.confidence > 0 && e.low <= bound_ns && bound_ns < e.high;
    return v;
}

ProbeVerdict judge_probe(std::span<const double> percentile_ns, double bound_ns, bool rate_met) {
    return judge_probe(estimate(percentile_ns), bound_ns, rate_met);
}

RateSearch::RateSearch(double max_rate, double min_rate, unsigned max_probes, double bracket_share)
    : max_(max_rate),
      min_(std::max(1.0, min_rate)),
      max_probes_(max_probes),
      share_(bracket_share) {}

std::optional<double> RateSearch::next() const {
    if (max_ < min_ || probes_ >= max_probes_) return std::nullopt;
    if (probes_ == 0) return max_;
    if (!failing_) return std::nullopt;  // the maximum itself passed
    const double lo = found_.value_or(0);
    const double hi = *failing_;
    if (found_ && hi - lo <= share_ * lo) return std::nullopt;
    const double mid = (lo + hi) / 2;
    if (hi - lo < 1 || mid < min_) return std::nullopt;
    return mid;
}

void RateSearch::record(double rate, bool passed) {
    ++probes_;
    if (passed)
        found_ = std::max(found_.value_or(rate), rate);
    else
        failing_ = std::min(failing_.value_or(rate), rate);
}

}  // namespace ds::stats
