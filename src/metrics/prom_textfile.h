// --prom PATH: the run's metrics (metrics/prometheus.h) in a file for
// node_exporter's textfile collector, kept up to date while the run goes
// on, so a burn-in shows on a dashboard as it runs.  Written when the run
// has started, then at most every --prom-interval (checked at every event of
// the run, about ten times a second while a phase runs), and a last time
// with the verdict.  Every write replaces the file atomically
// (output::write_file_atomically: never through a link, never half-written); the
// collector reads it at each scrape.
//
// Counters only grow from one write to the next: the phase in progress is
// counted from its per-second statistics, which add up exactly to the
// phase's own totals once it ends (model/results.h, IntervalStats).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "metrics/prometheus.h"
#include "model/observer.h"
#include "report/host_info.h"

namespace ds::metrics {

class PromTextfile final : public model::RunObserver {
  public:
    // Counts the phase in progress from its seconds.
    bool wants_intervals() const override { return true; }
    struct Settings {
        std::string path;
        PromLabels labels;  // the user's --prom-label, after the target
        double interval_s = 5;
        std::string preset;  // --preset NAME: series carry preset and test labels
    };
    PromTextfile(Settings settings, report::HostInfo host);
    PromTextfile(const PromTextfile&) = delete;
    PromTextfile& operator=(const PromTextfile&) = delete;

    // --preset: the next run is the test `label`.
    void begin_test(const std::string& label);

    // The first write: throws model::SetupError naming --prom when the file
    // cannot be written, so the run is refused before any phase.
    void started(const model::RunConfig& cfg, const model::RunResult& r) override;
    void progress(const model::ProgressSnapshot& s) override;
    void interval_done(std::uint64_t iteration, model::Phase phase, std::uint64_t sweep_value,
                       const model::IntervalStats& s, double interval_s,
                       std::uint64_t mismatches_so_far) override;
    void phase_done(std::uint64_t iteration, const model::PhaseResult& p) override;
    void iteration_done(const model::IterationResult& it) override;
    void sweep_point_done(const model::RunConfig& cfg, const model::SweepPoint& point) override;
    // Several targets: each one's counts as its phases end.
    void run_so_far(const model::RunResult& r, const model::ProgressSnapshot* live) override;
    // NVMe targets: the reading after the phase, for the drive's gauges.
    void phase_health_done(const model::PhaseHealth& h) override;

    // Whether started() has written the file (a refused run has none).
    bool written() const { return writes_ > 0; }
    // A run (a preset's test) has ended: counts the phases do not hold (a
    // write-back that failed between phases) come from its result.
    void run_ended(const model::RunResult& r);
    // The last write, with the verdict of `exit_code` ("no-verdict" for a
    // clean exit that verified nothing).  Returns "" or the failure as one
    // line naming --prom and the path.
    std::string finish(int exit_code, bool nothing_verified = false);
    // The first live rewrite that failed ("" when none did) and how many did.
    const std::string& live_error() const { return live_error_; }
    unsigned live_failures() const { return live_failures_; }

    // The file's text as it would be written now (also used by tests).
    std::string text() const;

  private:
    void maybe_write();
    void write_now();
    void phase_seen(std::uint64_t iteration, model::Phase phase);

    Settings settings_;
    report::HostInfo host_;
    PromState state_;
    std::vector<PromSeriesSet> runs_;  // one per run (preset test); the last is current
    PromTotals in_progress_;           // the phase running, from its seconds
    std::chrono::steady_clock::time_point last_write_{};
    unsigned writes_ = 0;
    std::string pending_test_;
    // Per target: the NVMe controller whose log it reads ("" elsewhere).
    std::vector<std::string> health_controllers_;
    std::string live_error_;
    unsigned live_failures_ = 0;
};

}  // namespace ds::metrics
