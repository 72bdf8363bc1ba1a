// One phase across the workers, in lockstep: the plan each worker gets, the
// progress and per-second statistics while it runs, what --keep records
// before and after it, and its accounting into one PhaseResult.
#pragma once

#include <cstdint>
#include <functional>

#include "model/config.h"
#include "model/phase_result.h"
#include "model/plan.h"
#include "run/session.h"

namespace ds::run {

// A sweep point's or a steady-state round's changes to the random phase.
struct SweepOverrides {
    model::PlanPoint point;   // depth, workers, block, rate (0: as configured)
    double time_s = 0;        // the phase's length instead of --rand-time
    std::uint64_t round = 0;  // --steady-state round (PhaseOrder::round)
    // Called on the coordinator's thread a few times a second with the
    // bytes the phase has transferred so far (--sustained-write's samples).
    std::function<void(std::uint64_t bytes)> on_progress;
};

// Runs `phase` of iteration `iteration` on the first `over.point.files` workers
// (all when 0) and accounts for it: counters, fatal errors (a full
// filesystem, EINVAL), the run's mismatch totals and records.
model::PhaseResult run_phase(RunSession& s, std::uint64_t iteration, model::Phase phase,
                             const SweepOverrides& over = {});

}  // namespace ds::run
