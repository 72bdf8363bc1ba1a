// The coordinator: checks the target, picks the backend, creates the files,
// starts one thread per worker and drives the phases in lockstep, stopping
// cleanly on --duration or a signal.  Returns what was measured; printing
// is the report layer's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "run/config.h"
#include "run/results.h"

namespace ds::run {

// Called a few times a second while a phase runs (for a live status line).
struct ProgressSnapshot {
    std::uint64_t iteration;
    Phase phase;
    double fraction_done;  // 0..1, or -1 when unknown
    double elapsed_s;
    std::uint64_t bytes;
    std::uint64_t ops;
};

// What the coordinator tells whoever shows the run, as it happens.  Called
// on the coordinator thread only.
class RunObserver {
  public:
    virtual ~RunObserver() = default;
    // Files exist, backends are open: the effective settings are known.
    virtual void started(const RunConfig&, const RunResult&) {}
    // A few times a second while a phase runs.
    virtual void progress(const ProgressSnapshot&) {}
    virtual void phase_done(std::uint64_t /*iteration*/, const PhaseResult&) {}
    virtual void iteration_done(const IterationResult&) {}
    virtual void sweep_point_done(const RunConfig&, const SweepPoint&) {}
};

// Test hooks, read from the environment so the product's command line stays
// clean.  DRIVESTRESS_TEST_STOP=PHASE[:N] stops the whole process (SIGSTOP)
// before PHASE starts, or once worker 0 has completed N operations in it, so
// a test can damage a file or send a signal at a known point and then SIGCONT.
struct TestHooks {
    std::optional<Phase> stop_phase;
    std::uint64_t stop_after_ops = 0;
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
