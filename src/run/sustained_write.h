// --sustained-write: the seq-write phase writing the files N times over, its
// throughput taken per interval by the coordinator, and the write cliff
// found in that series (stats/write_cliff.h); optionally, after an idle
// period, one more pass to see how much came back.
#pragma once

#include <cstdint>
#include <vector>

#include "model/endurance_result.h"
#include "model/phase_result.h"
#include "run/session.h"
#include "stats/write_cliff.h"

namespace ds::run {

// Bytes written per interval, from running totals sampled a few times a
// second: an interval closes at the first sample at least interval_s after
// it opened, so each is interval_s long give or take a sample period (the
// cliff rule works on rates, not on equal lengths).
class ThroughputSampler {
  public:
    ThroughputSampler(double interval_s, std::uint64_t start_ns);
    // `total_bytes` written since the start, at `now_ns`.
    void sample(std::uint64_t total_bytes, std::uint64_t now_ns);
    // The series, the last interval closed at `now_ns`; a last interval
    // shorter than half of interval_s is merged into the one before (its
    // rate over a few milliseconds would be noise).
    std::vector<stats::ThroughputInterval> finish(std::uint64_t total_bytes, std::uint64_t now_ns);

  private:
    std::uint64_t interval_ns_;
    std::uint64_t opened_ns_;
    std::uint64_t opened_bytes_ = 0;
    std::vector<stats::ThroughputInterval> series_;
};

// Runs iteration `iteration`'s seq-write phase as cfg.sustained_passes
// passes, records a SustainedWriteResult in the run's result and returns
// the passes merged as one phase.
model::PhaseResult run_sustained_write(RunSession& s, std::uint64_t iteration);

}  // namespace ds::run
