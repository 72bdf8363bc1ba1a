// The drive-endurance results: --steady-state's rounds and --sustained-write's
// throughput and cliff.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "stats/steady_state.h"
#include "stats/write_cliff.h"

namespace ds::model {

// --steady-state: the random phase of one iteration, in rounds.  Each
// round's value is its IOPS (reads and writes); the rule is judged over the
// last rule.window_rounds of them.
struct SteadyStateResult {
    std::uint64_t iteration = 0;
    double round_s = 0;  // length of a round
    stats::SteadyStateRule rule;
    std::vector<double> round_iops;  // every complete round, in order
    // The last window judged (the attained one when attained); none before
    // window_rounds rounds.
    std::optional<stats::SteadyStateWindow> window;
    stats::SteadyStateStatus status = stats::SteadyStateStatus::measuring;
    // Stopped by a signal or --duration before a verdict: the partial round
    // is in the phase's figures, not among the rounds.
    bool interrupted = false;
};

// --sustained-write: one iteration's seq-write phase, the files written
// passes times over, its throughput per interval and the cliff found in it.
struct SustainedWriteResult {
    std::uint64_t iteration = 0;
    std::uint64_t passes = 0;          // asked for
    std::uint64_t passes_done = 0;     // completed
    std::uint64_t capacity_bytes = 0;  // one pass: every file (region) once
    double interval_s = 0;             // nominal length of an interval
    stats::WriteCliffRule rule;
    std::vector<stats::ThroughputInterval> series;  // every interval, in order
    stats::WriteCliff cliff;
    // --cliff-recovery: the pass written after the idle period, and what it found.
    std::vector<stats::ThroughputInterval> recovery_series;
    std::optional<stats::CliffRecovery> recovery;
    bool interrupted = false;  // a signal or --duration ended it early
};

}  // namespace ds::model
