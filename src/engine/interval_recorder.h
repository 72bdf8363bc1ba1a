// Per-interval statistics of one worker's phase (--timeseries with
// --interval, a second by default; the status line's p99): the counters and
// the latencies of each whole interval since the phase began, published when
// a completion lands in a later interval.  The coordinator takes them while the phase runs; the
// lock is taken once a second per worker, so it is never contended in the loop.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "model/phase_result.h"

namespace ds::engine {

class IntervalRecorder {
  public:
    // Intervals of `interval_ns` count from `phase_start_ns`; a start of 0
    // turns the recorder off.
    void start(std::uint64_t phase_start_ns, std::uint64_t interval_ns = 1'000'000'000ULL);
    bool on() const { return start_ns_ != 0; }
    void record_read(std::uint64_t ns) { current_.read_latency.record(ns); }
    void record_write(std::uint64_t ns) { current_.write_latency.record(ns); }
    // --rate: one operation's response time (completion minus due).
    void record_response(std::uint64_t ns) { current_.response_latency.record(ns); }
    // At each wait: publishes the second in progress when `now_ns` is past it.
    void tick(std::uint64_t now_ns, const model::PhaseCounters& c) {
        if (now_ns >= next_boundary_ns_) roll(now_ns, c);
    }
    // The worker's counters start again from none (a ramp ended), after it
    // counted the operations of `dropped` (what it keeps, mismatches, it
    // keeps counting): the interval in progress still counts its own.
    void rebase(const model::PhaseCounters& dropped);
    // The phase is over: publishes the last (partial) second.
    void finish(const model::PhaseCounters& c);
    // What was published so far (the coordinator's side).
    std::vector<model::IntervalStats> take();

  private:
    void publish(const model::PhaseCounters& c);
    void roll(std::uint64_t now_ns, const model::PhaseCounters& c);

    std::uint64_t start_ns_ = 0;
    std::uint64_t interval_ns_ = 1'000'000'000ULL;
    std::uint64_t next_boundary_ns_ = UINT64_MAX;
    model::IntervalStats current_;
    model::PhaseCounters at_start_;  // counters when the current second began
    std::mutex mutex_;
    std::vector<model::IntervalStats> published_;
};

}  // namespace ds::engine
