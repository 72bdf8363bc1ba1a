// The human report: a header with the effective settings, one block per
// iteration as it completes, then a summary; optionally a live status line
// on a terminal.
#pragma once

#include <cstdio>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "model/observer.h"
#include "report/host_info.h"
#include "units/units.h"

namespace ds::report {

class TextReport final : public model::RunObserver {
  public:
    // full: everything.  brief (--brief): only the result block, the figures
    // line and the verdict (and what went wrong).  preset_test: one test of
    // a preset, one line with its label and verdict (none without a label;
    // the preset's table follows); the header only when `header`.
    enum class Layout { full, brief, preset_test };
    void set_layout(Layout layout, std::string label = {}, bool header = false) {
        layout_ = layout;
        label_ = std::move(label);
        header_ = header;
    }
    // --units: throughput in MiB/s (iec) or MB/s (si).
    void set_units(units::ByteUnits u) { units_ = u; }
    // A preset's only test, shown in full (a burn-in: its iterations,
    // bytes verified and drift table); the preset's table and verdict
    // follow, so finish() stops before the figures and result lines.
    void set_whole_preset(bool whole) { whole_preset_ = whole; }
    // The status line shows the last second's rate and p99 beside the average.
    bool wants_intervals() const override { return live_ != nullptr; }
    // `out` gets the report; `live`, when not null, gets the status line
    // (a terminal), refreshed in place.
    TextReport(std::FILE* out, std::FILE* live, HostInfo host);

    void started(const model::RunConfig& cfg, const model::RunResult& r) override;
    void progress(const model::ProgressSnapshot& s) override;
    void phase_done(std::uint64_t iteration, const model::PhaseResult& p) override;
    void iteration_done(const model::IterationResult& it) override;
    void sweep_point_done(const model::RunConfig& cfg, const model::SweepPoint& point) override;
    void steady_state_done(const model::SteadyStateResult& r) override;
    void sustained_write_done(const model::SustainedWriteResult& r) override;
    void phase_health_done(const model::PhaseHealth& h) override;
    // Remembers the last second's p99 and the mismatches so far for the status line.
    void interval_done(std::uint64_t iteration, model::Phase phase, std::uint64_t sweep_value,
                       const model::IntervalStats& s, double interval_s,
                       std::uint64_t mismatches_so_far) override;
    // The summary and the verdict for exit status `code` (the run's own, or 1
    // when its results could not be delivered: `why` says what failed).
    void finish(const model::RunConfig& cfg, const model::RunResult& r, model::ExitStatus code,
                const std::string& why = {});

    // One run of a comparison: its report is a section titled `title`
    // (the backend line under it); with `header`, the host, target,
    // workload and seed lines come first, then `intro`.  finish() then gives
    // the summary without the result line: the comparison has one verdict.
    void set_section(std::string title, bool header, std::string intro = {}) {
        section_ = std::move(title);
        section_header_ = header;
        section_intro_ = std::move(intro);
    }

  private:
    void clear_live();
    struct Rates {
        double bytes_per_sec = 0, ops_per_sec = 0;
    };
    Rates recent_rates(const model::ProgressSnapshot& s);
    void print_target(const model::RunConfig& cfg, const model::RunResult& r);
    void print_workload(const model::RunConfig& cfg, const model::RunResult& r);
    void print_backend(const model::RunConfig& cfg, const model::RunResult& r);

    std::FILE* out_;
    std::FILE* live_;
    HostInfo host_;
    bool live_shown_ = false;
    std::deque<model::ProgressSnapshot> recent_;  // the status line's last second
    model::Phase recent_phase_ = model::Phase::seq_write;
    std::uint64_t recent_iteration_ = 0;
    Layout layout_ = Layout::full;
    bool whole_preset_ = false;
    units::ByteUnits units_ = units::ByteUnits::iec;
    std::string label_;
    bool header_ = false;
    bool verify_ = true;
    bool nop_ = false;       // --backend nop: why nothing is verified
    bool job_file_ = false;  // --job-file: no option advice for a short phase
    double interval_s_ = 1;  // --interval
    bool several_targets_ = false;
    std::uint64_t header_iteration_ = 0;
    std::uint64_t mismatches_seen_ = 0;
    std::size_t sweep_rows_ = 0;
    std::uint64_t last_second_p99_ns_ = 0;  // 0: no full second yet in this phase
    std::uint64_t live_mismatches_ = 0;
    std::vector<double> thresholds_s_;
    std::string section_;  // empty: a run of its own
    bool section_header_ = false;
    std::string section_intro_;
};

// One line per phase, e.g. "seq-write  1234.5 MiB/s  ..." (also used by tests).
// `advise`: a phase too short to measure says which option makes it longer
// (not in a run of a job file, whose jobs say how long they run).
std::string phase_line(const model::PhaseResult& p, const std::vector<double>& thresholds_s = {},
                       units::ByteUnits u = units::ByteUnits::iec, bool advise = true);
// "  host busy: 12 % steal, 31 % other processes during random; figures may
// not repeat": printed under a phase whose host load passed sys::busy().
std::string host_busy_line(const model::PhaseResult& p);
// aio_test's figures for a random phase that wrote: "writes:  N done, E errors
// (F failed, 0 outstanding)  time ms min .. avg .. max ..  total .. s  .. MiB ..".
std::string writes_line(const model::PhaseResult& p, units::ByteUnits u = units::ByteUnits::iec);
// --rate: the schedule's figures under a random phase's line: requested and
// achieved rate (and "RATE NOT MET"), late operations and the largest
// lateness, the response-time percentiles and the schedule's issue error.
std::string rate_line(const model::PhaseResult& p);
std::string replay_line(const model::PhaseResult& p);
// A phase whose figure changed level partway (model::PhaseResult::regimes):
// "  regimes:   ...  0.0-3.0 s 5.0k IOPS ±1.2 %  3.0-8.0 s 500 IOPS ±2.0 %";
// empty for a steady phase.
std::string regimes_line(const model::PhaseResult& p, units::ByteUnits u = units::ByteUnits::iec);
// --distribution: the skew the random phase achieved, beside the prediction.
std::string skew_line(const model::SkewResult& s);
// A --rand-block mix: each size's share, IOPS, bandwidth and latency, a line each.
std::string sizes_line(const model::PhaseResult& p, units::ByteUnits u = units::ByteUnits::iec);
// --sync: "  flushes:   2025 (405/s)  lat ms p50 .. p99 .. max ..", the figures
// a phase line carries among its own, as a line of their own (a preset's).
std::string flushes_line(const model::PhaseResult& p);
// --trim-pct: "  trims:     2.1k done (1.0k/s), 8.3 MiB dropped  lat ms p50 ..
// p99 .. max .." under a random phase that trimmed, and for any phase that
// read trimmed units back "  trimmed:   312 reads of trimmed units, each as
// the target promises"
// (or how many still held their old data: trim-not-honoured); empty when
// the phase neither trimmed nor read a trimmed unit.
std::string trims_line(const model::PhaseResult& p);
// A figure over its repeats, compactly: "148.3k IOPS (±4.0 %, n=5)" (`text`
// formats the number, `unit` follows it); one sample: number and unit alone.
std::string estimate_text(const stats::Estimate& e, std::string (*text)(double),
                          const std::string& unit);
// --repeat: "  repeats:   n=5, medians; ..." then the IOPS and p99 medians,
// ranges (min-max) and intervals of a phase run several times.
std::string repeats_line(const model::PhaseResult& p);
// The --sync-compare table, one row per method and write size.
std::string sync_compare_table(const model::SyncCompareResult& sc);
// "saturation: by IOPS, qd 32 — 241k IOPS, p99 0.410 ms (next step +3% IOPS,
// +92% p99)", "saturation: by MiB/s, not reached (MiB/s still climbing at
// rand-block 64K)": block-size sweeps are judged by bandwidth.  --repeat:
// on the medians, "saturation: within noise ..." when the p99 rise after the
// knee is inside the noise; one repeat says it had one.
std::string knee_line(const model::SweepResult& sweep, units::ByteUnits u = units::ByteUnits::iec);
// "find-rate: 812 IOPS meets p99 <= 5.00 ms (bracket 812..859 IOPS, 7 points;
// p99 4.10 ms at 812)", or "find-rate: no rate probed meets ...".
std::string find_rate_line(const model::FindRateResult& fr);
// "steady state: attained at round 7 of 60 s (rounds 3-7): mean 41234 IOPS,
// range 8.1 % (max 20), slope excursion 3.2 % (max 10)", or "not attained in
// 25 rounds ..." with the last window's figures.
std::string steady_state_line(const model::SteadyStateResult& r);
// "write cliff after 23.4 GiB: 3100 -> 850 MiB/s (-73%)" (and a second step,
// and the recovery after --cliff-recovery, on lines of their own), "no cliff
// within 64 GiB", or why there is no verdict.
std::string write_cliff_lines(const model::SustainedWriteResult& r,
                              units::ByteUnits u = units::ByteUnits::iec);
// "  health: media-errors 0 -> 3 (DAMAGE); thermal throttling: 3100 -> 850
// MiB/s  (12.3 MB written per the drive)", "  health: no change (...)";
// "  health target 2: ..." in a run of several targets.
std::string phase_health_line(const model::PhaseHealth& h,
                              units::ByteUnits u = units::ByteUnits::iec,
                              bool several_targets = false);
// For runs of two iterations or more: each phase's first, best, worst and
// last bandwidth (IOPS for the random phase) and p99, with the iteration
// each comes from; "" otherwise.
// "result   PASS (exit 0)" and the other verdicts (worded by
// model/verdict.h), with a newline.
std::string verdict_line(const model::RunEvidence& e);
std::string drift_table(const std::vector<model::IterationResult>& iterations,
                        units::ByteUnits u = units::ByteUnits::iec);
// The same from a run's running drift (RunResult::drift) over `iterations`
// iterations, the summarised ones included.
std::string drift_table(const std::vector<model::PhaseDrift>& drift, std::uint64_t iterations,
                        units::ByteUnits u = units::ByteUnits::iec);

}  // namespace ds::report
