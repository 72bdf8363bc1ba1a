// The result of --compare-backends: the same workload on each backend
// (run/compare_backends.h makes the runs; report/ renders them).
#pragma once

#include <string>
#include <vector>

#include "model/config.h"
#include "model/results.h"

namespace ds::model {

struct ComparedRun {
    std::string label;  // "io_uring", "sync", "sync qd 1", "io_uring sqpoll"; "atomic", "plain"
    RunConfig config;
    RunResult result;  // the first repeat's
    bool ran = false;
    // --repeat: every repeat's result in run order ([0] is `result`'s copy).
    std::vector<RunResult> repeats;
};

struct BackendComparison {
    // [0] io_uring, [1] sync at the same depth, then the extra rows.
    std::vector<ComparedRun> runs;
    // --repeat: the rows are run this many times, interleaved (A B A B), so
    // that a host's drift falls on every row alike.
    unsigned repeat = 1;
    bool stopped = false;  // a run was interrupted or failed: no more runs
    // --compare-atomic: the rows are "atomic" (every write RWF_ATOMIC) and
    // "plain", on one backend.
    bool atomic = false;
};

// The worst of a row's repeats, of every row's: 2 beats 1 beats a signal beats 0.
ExitStatus exit_status(const ComparedRun& run);
ExitStatus exit_status(const BackendComparison& c);

}  // namespace ds::model
