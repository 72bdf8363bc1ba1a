// What the coordinator tells whoever shows a run (the text report, the time
// series, result files), as it happens: the report layer's only view of a
// run in progress.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/results.h"

namespace ds::model {

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
    // Whether interval_done() is wanted: per-second statistics cost one more
    // histogram record per operation, so they are kept only when someone
    // reads them (--timeseries, --prom, a live status line).
    virtual bool wants_intervals() const { return false; }
    // Files exist, backends are open: the effective settings are known.
    virtual void started(const RunConfig&, const RunResult&) {}
    // A few times a second while a phase runs.
    virtual void progress(const ProgressSnapshot&) {}
    virtual void phase_done(std::uint64_t /*iteration*/, const PhaseResult&) {}
    virtual void iteration_done(const IterationResult&) {}
    virtual void sweep_point_done(const RunConfig&, const SweepPoint&) {}
    // --steady-state: the verdict on an iteration's random phase, right
    // after its phase_done().
    virtual void steady_state_done(const SteadyStateResult&) {}
    // --sustained-write: the cliff found in an iteration's seq-write phase,
    // right after its phase_done().
    virtual void sustained_write_done(const SustainedWriteResult&) {}
    // NVMe targets: a phase's health-log readings and verdicts, after its
    // phase_done() (and the lines above).
    virtual void phase_health_done(const PhaseHealth&) {}
    // --timeseries: one second of a phase, summed over workers; seconds
    // come in order, none skipped.  `interval_s` is 1 but for the last,
    // partial second; `sweep_value` is the point's value in a sweep (0
    // otherwise); `mismatches_so_far` counts the whole run up to its end.
    virtual void interval_done(std::uint64_t /*iteration*/, Phase, std::uint64_t /*sweep_value*/,
                               const IntervalStats&, double /*interval_s*/,
                               std::uint64_t /*mismatches_so_far*/) {}
    // The run so far, for result files rewritten while it goes on (--json):
    // as iterations end (`live` null: the first, then at most once per
    // TestHooks::checkpoint_period_s), and while an iteration runs every
    // TestHooks::snapshot_period_s without one (`live`: the phase running).
    // `so_far` holds every finished phase and mismatch record; wall_seconds
    // is the time so far.
    virtual void run_so_far(const RunResult& /*so_far*/, const ProgressSnapshot* /*live*/) {}
};

// Passes every event on to several observers, in order.
class ObserverList final : public RunObserver {
  public:
    explicit ObserverList(std::vector<RunObserver*> list) : list_(std::move(list)) {}
    bool wants_intervals() const override {
        for (auto* o : list_)
            if (o->wants_intervals()) return true;
        return false;
    }
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
    void steady_state_done(const SteadyStateResult& r) override {
        for (auto* o : list_)
            o->steady_state_done(r);
    }
    void phase_health_done(const PhaseHealth& h) override {
        for (auto* o : list_)
            o->phase_health_done(h);
    }
    void sustained_write_done(const SustainedWriteResult& r) override {
        for (auto* o : list_)
            o->sustained_write_done(r);
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

}  // namespace ds::model
