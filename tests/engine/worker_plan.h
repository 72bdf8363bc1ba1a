// Worker plans for the engine's tests: a one-worker run plan around a
// WorkerPlan, and a plan's depths bounded for the backend a test gives the
// worker (as model/plan.h bounds them for the run's).
#pragma once

#include <algorithm>
#include <cstdint>

#include "model/plan.h"

namespace ds::test {

// A run of one worker planned as `w`, its buffers sized for w's depths.
inline model::RunPlan one_worker_plan(const model::WorkerPlan& w) {
    model::RunPlan plan;
    plan.workers = {w};
    plan.asked_qd = w.rand_depth;
    plan.max_seq_depth = w.seq_depth;
    plan.max_rand_depth = w.rand_depth;
    plan.max_block = w.max_rand_block;
    return plan;
}

// `w` with at most `backend_depth` in flight (a single-threaded sync
// backend takes one), and at most half of its file's largest blocks.
inline model::WorkerPlan fitted(model::WorkerPlan w, unsigned backend_depth) {
    w.seq_depth = std::min(w.seq_depth, backend_depth);
    w.rand_depth = static_cast<unsigned>(std::min<std::uint64_t>(
        {w.rand_depth, model::max_random_depth(w.file_bytes, w.max_rand_block), backend_depth}));
    return w;
}

}  // namespace ds::test
