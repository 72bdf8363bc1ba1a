// --compare-backends: the same workload (one seed, so the same data) on
// io_uring and then, unless the first run was interrupted or failed to
// start, on sync.  Each run creates and removes its own files.
#pragma once

#include "run/config.h"
#include "run/observer.h"
#include "run/results.h"

namespace ds::run {

struct BackendComparison {
    RunConfig uring_config, sync_config;
    RunResult uring, sync;
    bool sync_ran = false;
};
BackendComparison compare_backends(RunConfig cfg, RunObserver* uring_observer,
                                   RunObserver* sync_observer);
// The worst of both runs: 2 beats 1 beats a signal beats 0.
int exit_status(const BackendComparison& c);

}  // namespace ds::run
