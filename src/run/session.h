// Everything one run holds from its setup to its end: the target and its
// files, the --keep state file, the workers and their threads, and why the
// run stops.  The iteration loop, the phase runner and the sweep work on it.
//
// Setup happens in the constructor, in an order that matters: everything
// that can refuse the run (target, backend, memory) does so before a file
// exists; files are created, then the state file; workers and their rings
// come last.  Members are destroyed in the reverse order: the threads close
// their rings, then the files go (unless --keep).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "engine/shared_unit_map.h"
#include "engine/worker.h"
#include "engine/worker_pool.h"
#include "io/backend.h"
#include "model/config.h"
#include "model/observer.h"
#include "model/plan.h"
#include "model/results.h"
#include "output/io_log.h"
#include "run/health_monitor.h"
#include "run/replay.h"
#include "run/test_hooks.h"
#include "targets/state_file.h"
#include "targets/target_set.h"

namespace ds::run {

class RunSession {
  public:
    // Checks the target and the machine, creates the files (and the state
    // file); throws SetupError, leaving nothing behind.
    RunSession(model::RunConfig& cfg, model::RunResult& res, model::RunObserver& observer);
    ~RunSession();
    RunSession(const RunSession&) = delete;
    RunSession& operator=(const RunSession&) = delete;

    // Makes the workers, their threads and rings, and tells the observers
    // the run has started.  Throws SetupError (a refused ring, an --iopoll
    // probe, an output file an observer cannot create).
    void start_workers();

    // Turns a signal or the end of --duration into a stop request (workers
    // see signals themselves at once; this records why the run stopped).
    bool check_stop();
    // Runs `task` on every worker's thread, watching signals, the duration
    // and `tick` (progress) meanwhile; rethrows a worker's exception.
    void run_on_workers(engine::WorkerPool::Task task, const std::function<void()>& tick = {});
    // Tells the observers about the run so far (RunObserver::run_so_far);
    // `live` is the phase running, null as an iteration ends, when it is
    // passed on for the first iteration and then at most once per
    // TestHooks::checkpoint_period_s.
    void snapshot(const model::ProgressSnapshot* live);
    // The files anew (--recreate): rings closed first, so the old files'
    // blocks are free when the new ones are allocated.
    void recreate_files();
    // Buffered I/O: files whose write-back failed (a drive error, or a full
    // filesystem).  Counted in `phase` when given, else in the run.
    void writeback_failed(const std::vector<std::pair<std::size_t, int>>& failed,
                          std::uint64_t iteration, model::Phase phase, model::PhaseResult* pr);
    // The end: records, damage, a late signal, acknowledgements that failed.
    void finish();
    double wall_seconds() const;

    model::RunConfig& cfg;
    model::RunResult& res;
    model::RunObserver& observer;
    const TestHooks hooks;
    // --replay: the trace, read through before any target is taken.
    std::unique_ptr<ReplayTrace> replay;
    targets::TargetSet target;  // every target of the run, files numbered across them
    std::unique_ptr<targets::StateFile> state;
    std::atomic<bool> stop{false};
    io::BackendKind kind;
    // What every worker does (model/plan.h), decided here once; a sweep
    // point's plan is made from the same rules (phase_runner.cpp).
    model::RunPlan plan;
    // The files several workers test (jobs sharing one, a job's copies):
    // one generation map each, shared by its workers (by RunPlan::files).
    std::vector<std::unique_ptr<engine::SharedUnitMap>> shared_maps;
    // --io-log: before the workers, so that it outlives their pushes.
    std::unique_ptr<output::IoLog> io_log;
    std::vector<std::unique_ptr<engine::Worker>> workers;
    std::unique_ptr<engine::WorkerPool> pool;
    // One per target (res.targets[t].health), made by start_workers().
    std::vector<HealthMonitor> health;
    std::uint64_t duration_deadline_ns = 0;  // 0: no --duration
    // Monotonic ns when the workers started: the run's clock of its jobs'
    // active intervals (model::JobResult).
    std::uint64_t started_ns = 0;
    std::uint64_t last_snapshot_ns = 0;
    std::atomic<std::uint64_t> state_sync_errors{0};
    // The run's file (target's numbering) worker i tests: a plain run's
    // worker i tests file i; jobs name theirs.
    unsigned file_of(unsigned worker) const { return worker_file_[worker]; }

  private:
    void create_files();
    void describe_targets();
    // res.data: how well the run's units compress, from a sample of them.
    void measure_data();
    std::vector<std::vector<unsigned>> place_workers();
    // --io-log: the log made, and every worker's tap on it.
    void open_io_log();
    void close_io_log();
    // The workers' damage maps, per file (cumulative: replaced whole).
    void collect_damage();
    // The one line on stderr saying the run is stopping, with what is in flight.
    void announce_stop(int sig) const;
    io::UringOptions uring_options() const;

    std::chrono::steady_clock::time_point wall_start_ = std::chrono::steady_clock::now();
    // --keep keeps files only once the run is under way: a setup error
    // before the first phase leaves nothing behind, state file included.
    bool started_ = false;
    std::uint64_t snapshots_ = 0;        // passed on to the observers
    std::vector<unsigned> worker_file_;  // file_of()
};

// Moves the workers' mismatch records into the result, which keeps the
// first RunResult::kMaxRecords by iteration, phase, file and offset.
void collect_records(std::vector<std::unique_ptr<engine::Worker>>& workers, model::RunResult& res);

}  // namespace ds::run
