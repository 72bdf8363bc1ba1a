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
    // --timeseries: one second of a phase, summed over workers; seconds
    // come in order, none skipped.  `interval_s` is 1 but for the last,
    // partial second; `sweep_value` is the point's value in a sweep (0
    // otherwise); `mismatches_so_far` counts the whole run up to its end.
    virtual void interval_done(std::uint64_t /*iteration*/, Phase, std::uint64_t /*sweep_value*/,
                               const IntervalStats&, double /*interval_s*/,
                               std::uint64_t /*mismatches_so_far*/) {}
    // The run so far, for result files rewritten while it goes on (--json):
    // after every iteration (`live` null), and while an iteration runs every
    // TestHooks::snapshot_period_s without one (`live`: the phase running).
    // `so_far` holds every finished phase and mismatch record; wall_seconds
    // is the time so far.
    virtual void run_so_far(const RunResult& /*so_far*/, const ProgressSnapshot* /*live*/) {}
};

// Passes every event on to several observers, in order.
class ObserverList final : public RunObserver {
  public:
    explicit ObserverList(std::vector<RunObserver*> list) : list_(std::move(list)) {}
    void started(const RunConfig& c, const RunResult& r) override {
        for (auto* o : list_)
            o->started(c, r);
    }
    void progress(const ProgressSnapshot& s) override {
        for (auto* o : list_)
            o->progress(s);
    }
    void phase_done(std::uint64_t it, const PhaseResult& p) override {
        for (auto* o : list_)
            o->phase_done(it, p);
    }
    void iteration_done(const IterationResult& it) override {
        for (auto* o : list_)
            o->iteration_done(it);
    }
    void sweep_point_done(const RunConfig& c, const SweepPoint& p) override {
        for (auto* o : list_)
            o->sweep_point_done(c, p);
    }
    void interval_done(std::uint64_t it, Phase p, std::uint64_t v, const IntervalStats& s,
                       double interval_s, std::uint64_t m) override {
        for (auto* o : list_)
            o->interval_done(it, p, v, s, interval_s, m);
    }
    void run_so_far(const RunResult& r, const ProgressSnapshot* live) override {
        for (auto* o : list_)
            o->run_so_far(r, live);
    }

  private:
    std::vector<RunObserver*> list_;
};

// Test hooks, read from the environment so the product's command line stays
// clean.  DRIVESTRESS_TEST_STOP=PHASE[:N] stops the whole process (SIGSTOP)
// before PHASE starts, or once worker 0 has completed N operations in it, so
// a test can damage a file or send a signal at a known point and then SIGCONT.
//
// DRIVESTRESS_TEST_SNAPSHOT_S=SECONDS replaces the period of the snapshots
// taken while an iteration runs (RunObserver::run_so_far), so a test need not
// wait minutes for one.
struct TestHooks {
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
