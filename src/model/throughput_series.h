// A phase's completions over time, slice by slice: what the interval of its
// figure is estimated from (stats/batch_means.h) and its regimes are found
// in (stats/regimes.h), with one repeat as with many.  Every worker keeps
// one from its phase's start; the coordinator adds them up.
//
// Bounded: slices start at kFirstSliceNs, and past kMaxSlices adjacent
// slices merge in pairs and the slice doubles, so a phase of any length
// keeps at most kMaxSlices (48 KiB).  The slice in progress when the phase
// ends is left out: a figure's interval is made of whole slices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ds::model {

struct ThroughputSeries {
    static constexpr std::uint64_t kFirstSliceNs = 100'000'000;  // 0.1 s
    static constexpr std::size_t kMaxSlices = 2048;

    std::uint64_t slice_ns = kFirstSliceNs;
    std::vector<std::uint64_t> ops, bytes;  // completed in each whole slice

    // Slices count from `start_ns` (0: off, tick() does nothing).
    void start(std::uint64_t start_ns);
    // At each reap: the worker's totals so far.  Cheap until a slice ends.
    void tick(std::uint64_t now_ns, std::uint64_t ops_total, std::uint64_t bytes_total) {
        if (now_ns >= next_ns_) roll(now_ns, ops_total, bytes_total);
    }
    // Adds another worker's series slice by slice (the longer slice wins:
    // the shorter one's slices merge first); a slice only one has counts
    // that one alone.
    void merge(const ThroughputSeries& o);
    // Another run of the same phase after this one (a later iteration):
    // its slices follow these, at the longer slice, within kMaxSlices.
    void append(const ThroughputSeries& o);
    double slice_seconds() const { return static_cast<double>(slice_ns) / 1e9; }
    // Operations (or bytes) a second in each slice.
    std::vector<double> ops_per_second() const;
    std::vector<double> bytes_per_second() const;
    // The same series with slices of at least `ns` (merged in pairs).
    ThroughputSeries coarsened_to(std::uint64_t ns) const;

  private:
    void roll(std::uint64_t now_ns, std::uint64_t ops_total, std::uint64_t bytes_total);
    void halve();  // merge slices in pairs, double the slice

    std::uint64_t next_ns_ = UINT64_MAX;       // end of the slice in progress
    std::uint64_t ops_at_ = 0, bytes_at_ = 0;  // totals when it began
};

}  // namespace ds::model
