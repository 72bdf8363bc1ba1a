// --compare-backends: the same workload (one seed, so the same data) on
// io_uring and then on sync with as many operations in flight (--qd
// threads per worker), then any --compare-extra rows.  A run starts only
// when the one before it was neither interrupted nor failed to start.  Each
// run creates and removes its own files.
#pragma once

#include <string>
#include <vector>

#include "run/config.h"
#include "run/observer.h"
#include "run/results.h"

namespace ds::run {

struct ComparedRun {
    std::string label;  // "io_uring", "sync", "sync qd 1", "io_uring sqpoll"
    RunConfig config;
    RunResult result;
    bool ran = false;
};

struct BackendComparison {
    // [0] io_uring, [1] sync at the same depth, then the extra rows.
    std::vector<ComparedRun> runs;
};

// The runs comparing `cfg` makes, in order, not run yet (the seed chosen).
BackendComparison comparison_plan(RunConfig cfg);
// Makes run i (watched by `observer`, null: nobody) unless the run before
// it was interrupted or failed; whether it ran.
bool compare_run(BackendComparison& c, std::size_t i, RunObserver* observer);
// The worst of the runs made: 2 beats 1 beats a signal beats 0.
int exit_status(const BackendComparison& c);

}  // namespace ds::run
