#include "stats/quantile_interval.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "stats/t_quantile.h"

namespace ds::stats {

namespace {

// The value of the sample of 1-based `rank`, read as value_at_percentile()
// reads it: its bucket's midpoint clamped to [min, max].
std::uint64_t value_at_rank(const LatencyHistogram& h, std::uint64_t rank) {
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < LatencyHistogram::kBucketCount; ++i) {
        seen += h.bucket_count(i);
        if (seen >= rank) {
            const std::uint64_t mid =
                LatencyHistogram::bucket_lower(i) + LatencyHistogram::bucket_width(i) / 2;
            return std::clamp(mid, h.min(), h.max());
        }
    }
    return h.max();
}

// A rank from a real number, clamped to [1, n].
std::uint64_t clamped_rank(double r, std::uint64_t n) {
    if (!(r >= 1)) return 1;
    if (r >= static_cast<double>(n)) return n;
    return static_cast<std::uint64_t>(r);
}

}  // namespace

QuantileInterval quantile_interval(const LatencyHistogram& h, double pct, double confidence) {
    if (!(pct >= 0 && pct <= 100))
        throw std::invalid_argument("percentile must be between 0 and 100, not " +
                                    std::to_string(pct));
    if (!(confidence > 0 && confidence < 1))
        throw std::invalid_argument("confidence must be between 0 and 1, not " +
                                    std::to_string(confidence));
    QuantileInterval q;
    q.pct = pct;
    q.n = h.count();
    if (q.n == 0) return q;
    q.value = h.value_at_percentile(pct);
    const double n = static_cast<double>(q.n), p = pct / 100;
    const double var = n * p * (1 - p);
    q.usable = var >= QuantileInterval::kMinExpectedBeyond;
    if (!q.usable) {
        q.rank_low = 1;
        q.rank_high = q.n;
        q.low = h.min();
        q.high = h.max();
        q.confidence = 1 - std::pow(p, n) - std::pow(1 - p, n);
        return q;
    }
    const double reach = normal_quantile((1 + confidence) / 2) * std::sqrt(var);
    q.rank_low = clamped_rank(std::floor(n * p - reach), q.n);
    q.rank_high = clamped_rank(std::ceil(n * p + reach) + 1, q.n);
    q.low = value_at_rank(h, q.rank_low);
    q.high = value_at_rank(h, q.rank_high);
    q.confidence = confidence;
    return q;
}

Estimate percentile_estimate(const LatencyHistogram& h, double pct) {
    const QuantileInterval q = quantile_interval(h, pct);
    Estimate e;
    e.n = q.usable ? q.n : std::min<std::uint64_t>(q.n, 1);
    e.median = static_cast<double>(q.value);
    e.low = e.min = static_cast<double>(q.low);
    e.high = e.max = static_cast<double>(q.high);
    e.confidence = q.usable ? q.confidence : 0;
    return e;
}

}  // namespace ds::stats
