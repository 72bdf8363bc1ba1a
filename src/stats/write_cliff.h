// The write cliff of a sustained sequential write: where a drive's fast
// write cache (SLC, DRAM) fills and throughput falls to what the media
// sustains, and how much comes back after the drive has been left idle.
//
// Method (details in write_cliff.cpp): the per-interval throughput is
// median-filtered, the split that best separates a higher level before from
// a lower level after is found by least squares (binary segmentation, so a
// second step is found inside a segment the same way) and placed exactly by
// the best split near it, and a split counts as a cliff only when both hold:
//   - sustained: the median of the whole level after is at least
//     min_drop_pct below the median of the whole level before, each level
//     lasting at least min_level_intervals;
//   - sudden: the median of the min_level_intervals just after the split is
//     also min_drop_pct below that of the min_level_intervals just before,
//     so a slow slide (an HDD moving inwards) is not called a cliff.
// A dip or spike shorter than min_level_intervals moves neither median, so
// it is never a cliff.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ds::stats {

// What was written during one interval of the time series.
struct ThroughputInterval {
    double seconds = 0;       // length of the interval (> 0; the last may be short)
    std::uint64_t bytes = 0;  // bytes completed in it
};

struct WriteCliffRule {
    std::size_t min_level_intervals = 5;  // a level must last this many intervals (>= 1)
    double min_drop_pct = 25;             // smallest drop that counts, percent (0, 100)
};

// Throws std::invalid_argument with a one-line reason on a rule that cannot
// be applied.
void check_write_cliff_rule(const WriteCliffRule& rule);

// One step down.  Levels are medians of the per-interval throughput.
struct CliffStep {
    std::size_t interval = 0;        // index of the first interval at the lower level
    std::uint64_t bytes_before = 0;  // bytes written before that interval
    double seconds_before = 0;       // time from the start of the series to it
    double before_bytes_per_s = 0;   // level from the previous step (or the start) to here
    double after_bytes_per_s = 0;    // level from here to the next step (or the end)
    double drop_pct = 0;             // 100 x (1 - after / before)
};

struct WriteCliff {
    std::size_t intervals = 0;      // intervals analysed
    std::uint64_t total_bytes = 0;  // bytes they wrote: "no cliff within total_bytes"
    double total_seconds = 0;
    bool long_enough = false;      // at least 2 x min_level_intervals intervals to judge by
    std::vector<CliffStep> steps;  // in order; empty: no cliff.  steps[0] is the cliff,
                                   // steps[1] a second step where there is one
};

// Finds the write cliff in `series`.  Throws std::invalid_argument on a bad
// rule or an interval whose length is not positive and finite.
WriteCliff find_write_cliff(std::span<const ThroughputInterval> series,
                            const WriteCliffRule& rule = {});

// How far throughput came back after an idle period that followed a cliff.
struct CliffRecovery {
    double idle_seconds = 0;
    double bytes_per_s = 0;           // median of the first min_level_intervals after the idle
    double recovered_pct = 0;         // 100 x (bytes_per_s - floor) / (peak - floor); peak =
                                      // level before the first step, floor = after the last
    std::uint64_t segment_bytes = 0;  // bytes written after the idle
    std::optional<std::uint64_t> bytes_to_cliff;  // where the cliff came back within the
                                                  // segment (the cache refilled); nullopt:
                                                  // it did not within segment_bytes
};

// nullopt when `cliff` has no step or `after_idle` is empty.  Throws like
// find_write_cliff.
std::optional<CliffRecovery> measure_cliff_recovery(const WriteCliff& cliff,
                                                    std::span<const ThroughputInterval> after_idle,
                                                    double idle_seconds,
                                                    const WriteCliffRule& rule = {});

}  // namespace ds::stats
