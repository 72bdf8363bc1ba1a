// --compare-backends: the same workload (one seed, so the same data) on
// io_uring and then on sync with as many operations in flight (--qd
// threads per worker), then any --compare-extra rows; --compare-atomic: the
// workload with every write RWF_ATOMIC, then plain.  A run starts only
// when the one before it was neither interrupted nor failed to start.  Each
// run creates and removes its own files.
#pragma once

#include "model/comparison.h"
#include "model/config.h"
#include "model/observer.h"

namespace ds::run {

// The runs comparing `cfg` makes, in order, not run yet (the seed chosen;
// --repeat moves from the runs to the comparison: each run is made once per
// repeat, the rows interleaved).
model::BackendComparison comparison_plan(model::RunConfig cfg);
// Makes run i once more (watched by `observer`, null: nobody) unless a run
// before it was interrupted or failed; whether it ran.
bool compare_run(model::BackendComparison& c, std::size_t i, model::RunObserver* observer);

}  // namespace ds::run
