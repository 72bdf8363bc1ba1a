// One phase across the workers, in lockstep (the workload phase group by
// group, a group's workers at once): the plan each worker gets, the
// progress and per-second statistics while it runs, what --keep records
// before and after it, and its accounting into one PhaseResult.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

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

// A worker's times in the workload phase (the random phase: its job's
// workload), monotonic ns, 0: none.
struct WorkloadTimes {
    std::uint64_t start_ns = 0;       // its loop starts: its group's start + startdelay
    std::uint64_t rate_start_ns = 0;  // an open loop's first due time
    std::uint64_t deadline_ns = 0;    // it issues nothing after it
};

// Worker `w`'s times in a group started at `group_start_ns`: it starts
// startdelay after the group, its schedule 1 ms later (so that every thread
// is in its loop) plus its offset (the workers' fixed arrivals interleave);
// it ends by its own runtime counted after its ramp; else, with none of its
// own limits (operations, bytes, passes) and no trace (`replay`: the trace
// ends it), `span_ns` after the group's start (--rand-time, a point's
// time); never after --duration's deadline.  A plain run's one group
// starting at the phase's start gets the times the phase always had.
WorkloadTimes workload_times(const model::WorkerPlan& w, std::uint64_t group_start_ns,
                             std::uint64_t span_ns, std::uint64_t duration_deadline_ns,
                             bool replay);

// The plan's workers by group, in the order the groups run (a group's
// workers run at once; the next group starts when every one has ended).
std::vector<std::vector<unsigned>> workload_groups(const model::RunPlan& plan);

// Runs `phase` of iteration `iteration` on the first `over.point.files` workers
// (all when 0) and accounts for it: counters, fatal errors (a full
// filesystem, EINVAL), the run's mismatch totals and records.
model::PhaseResult run_phase(RunSession& s, std::uint64_t iteration, model::Phase phase,
                             const SweepOverrides& over = {});

}  // namespace ds::run
