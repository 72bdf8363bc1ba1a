#include "stats/histogram.h"

#include <algorithm>
#include <cmath>

namespace ds::stats {

std::uint64_t LatencyHistogram::bucket_lower(std::size_t i) {
    if (i < kSubBuckets) return i;
    std::size_t octave = (i - kSubBuckets) / kSubBuckets;  // 0 for [128, 256)
    std::uint64_t sub = (i - kSubBuckets) % kSubBuckets;
    return (kSubBuckets + sub) << octave;
}

std::uint64_t LatencyHistogram::bucket_width(std::size_t i) {
    if (i < kSubBuckets) return 1;
    return 1ULL << ((i - kSubBuckets) / kSubBuckets);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
    for (std::size_t i = 0; i < kBucketCount; ++i)
        counts_[i] += other.counts_[i];
    count_ += other.count_;
    sum_ += other.sum_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

std::uint64_t LatencyHistogram::value_at_percentile(double p) const {
    if (count_ == 0) return 0;
    p = std::clamp(p, 0.0, 100.0);
    auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBucketCount; ++i) {
        seen += counts_[i];
        if (seen >= rank) {
            std::uint64_t mid = bucket_lower(i) + bucket_width(i) / 2;
            return std::clamp(mid, min_, max_);
        }
    }
    return max_;
}

std::uint64_t LatencyHistogram::count_above(std::uint64_t ns) const {
    if (count_ == 0 || ns >= max_) return 0;
    std::uint64_t above = 0;
    for (std::size_t i = bucket_of(ns) + 1; i < kBucketCount; ++i)
        above += counts_[i];
    return above;
}

}  // namespace ds::stats
