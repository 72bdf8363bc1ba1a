// The coordinator: checks the target, picks the backend, creates the files,
// starts one thread per worker and drives the phases in lockstep, stopping
// cleanly on --duration or a signal.  Returns what was measured; printing
// is the report layer's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/config.h"
#include "run/observer.h"
#include "run/results.h"

namespace ds::run {

// Test hooks, read from the environment so the product's command line stays
// clean.  DRIVESTRESS_TEST_STOP=PHASE[:N] stops the whole process (SIGSTOP)
// before PHASE starts, or once worker 0 has completed N operations in it, so
// a test can damage a file or send a signal at a known point and then SIGCONT.
// DRIVESTRESS_TEST_STOP_ON_SIGNAL=1 stops it when it notices the first stop
// signal, so a test can send a second one later (not the same keypress).
// DRIVESTRESS_TEST_STOP=create stops it after the target was checked and
// before the files are created (a test plants something at their names).
//
// DRIVESTRESS_TEST_SNAPSHOT_S=SECONDS replaces the period of the snapshots
// taken while an iteration runs (RunObserver::run_so_far), so a test need not
// wait minutes for one.
struct TestHooks {
    bool stop_on_signal = false;
    bool stop_before_create = false;
    std::optional<Phase> stop_phase;
    std::uint64_t stop_after_ops = 0;
    // Snapshots of the run so far while an iteration runs: a long iteration
    // (a large drive) still leaves its finished phases on disk every minute.
    double snapshot_period_s = 60;
    static TestHooks from_environment();
};

// A sweep point's changes to the random phase (0 = the configured value).
struct SweepOverrides {
    unsigned qd = 0;
    unsigned files = 0;
    std::uint32_t rand_block = 0;
};

// Decides which backend to use; throws SetupError when --backend io_uring
// was asked for and io_uring does not work here.
BackendInfo choose_backend(const RunConfig& cfg);

class Runner {
  public:
    explicit Runner(RunConfig cfg, RunObserver* observer = nullptr);
    // Throws SetupError (or std::system_error) for setup failures; files it
    // created are removed on every path out.
    RunResult run();

  private:
    RunConfig cfg_;
    RunObserver* observer_;
};

// --compare-backends: the same workload (one seed, so the same data) on
// io_uring and then, unless the first run was interrupted or failed to
// start, on sync.  Each run creates and removes its own files.
struct BackendComparison {
    RunConfig uring_config, sync_config;
    RunResult uring, sync;
    bool sync_ran = false;
};
BackendComparison compare_backends(RunConfig cfg, RunObserver* uring_observer,
                                   RunObserver* sync_observer);
// The worst of both runs: 2 beats 1 beats a signal beats 0.
int exit_status(const BackendComparison& c);
// The more severe of two exit statuses, in that order.
int worse_exit_status(int a, int b);

}  // namespace ds::run
