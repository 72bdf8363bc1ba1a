// Latency histogram, log-linear (HdrHistogram-style), mergeable.
//
// Values are nanoseconds.  Below 2^kSubBucketBits ns every value has its own
// bucket (exact).  Above, each power-of-two range [2^e, 2^(e+1)) is split
// into 2^kSubBucketBits equal buckets, so a bucket is at most 1/128 of its
// lower bound wide: reporting a bucket's midpoint is within 1/256 (0.39%) of
// any value in it, which is the histogram's stated relative error (< 1%).
// The top range ends at 2^kMaxExponent ns (about 2.4 hours); larger values
// land in the last bucket, and min/max are kept exactly beside the buckets.
// Memory: kBucketCount counters of 8 bytes = 37 KiB per histogram.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace ds::stats {

class LatencyHistogram {
  public:
    static constexpr unsigned kSubBucketBits = 7;
    static constexpr std::uint64_t kSubBuckets = 1ULL << kSubBucketBits;  // 128
    static constexpr unsigned kMaxExponent = 43;                          // 2^43 ns = 8796 s
    static constexpr std::size_t kBucketCount =
        kSubBuckets + (kMaxExponent - kSubBucketBits) * kSubBuckets;  // 4736
    // Worst-case relative error of value_at_percentile() against the exact
    // sample it stands for.
    static constexpr double kRelativeError = 1.0 / (2.0 * kSubBuckets);

    void record(std::uint64_t ns) {
        ++counts_[bucket_of(ns)];
        ++count_;
        sum_ += ns;
        if (ns < min_) min_ = ns;
        if (ns > max_) max_ = ns;
    }
    void merge(const LatencyHistogram& other);
    void reset() { *this = LatencyHistogram{}; }

    std::uint64_t count() const { return count_; }
    std::uint64_t min() const { return count_ ? min_ : 0; }
    std::uint64_t max() const { return max_; }
    double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }
    // Sum of every recorded value, ns: exact, so sums of parts add up to the whole.
    std::uint64_t sum() const { return sum_; }
    // Nearest-rank percentile (p in [0, 100]): the bucket holding the sample
    // of rank ceil(p/100 * count), as its midpoint clamped to [min, max].
    std::uint64_t value_at_percentile(double p) const;
    // Number of recorded values strictly greater than `ns` (exact when ns+1 is
    // a bucket boundary, otherwise counts the bucket holding ns as not above).
    std::uint64_t count_above(std::uint64_t ns) const;

    static std::size_t bucket_of(std::uint64_t ns) {
        if (ns < kSubBuckets) return static_cast<std::size_t>(ns);
        unsigned e = 63u - static_cast<unsigned>(__builtin_clzll(ns));  // floor(log2 ns) >= 7
        if (e >= kMaxExponent) return kBucketCount - 1;
        std::uint64_t sub = (ns >> (e - kSubBucketBits)) - kSubBuckets;  // 0..127
        return static_cast<std::size_t>(kSubBuckets + (e - kSubBucketBits) * kSubBuckets + sub);
    }
    // Smallest value that maps to bucket i, and the bucket's width.
    static std::uint64_t bucket_lower(std::size_t i);
    static std::uint64_t bucket_width(std::size_t i);

    std::uint64_t bucket_count(std::size_t i) const { return counts_[i]; }

  private:
    std::array<std::uint64_t, kBucketCount> counts_{};
    std::uint64_t count_ = 0;
    std::uint64_t sum_ = 0;
    std::uint64_t min_ = std::numeric_limits<std::uint64_t>::max();
    std::uint64_t max_ = 0;
};

}  // namespace ds::stats
