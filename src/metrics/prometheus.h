// Prometheus text exposition (format 0.0.4) of a run, for node_exporter's
// textfile collector, named by prometheus.io's practices: base units
// (seconds, bytes), counters typed counter and named *_total, latency as
// classic histograms on one fixed bucket set, an _info metric, state gauges,
// and labels of low cardinality (no iteration, no file; the target as an
// absolute path).  metrics/prom_textfile.h keeps the file up to date while a
// run goes on; this file knows what the metrics are and how they are spelled.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/phase_result.h"
#include "nvme/health_log.h"
#include "report/host_info.h"
#include "stats/histogram.h"

namespace ds::metrics {

// ---------------------------------------------------------------- buckets
// Latency buckets of every drivestress histogram: four per power of two from
// 2^10 ns (1.024 us) to 2^36 ns (68.7 s); see prometheus.cpp for why.
inline constexpr std::size_t kPromLatencyBounds = 105;
// The upper bounds, nanoseconds, ascending (the +Inf bucket comes after).
const std::array<std::uint64_t, kPromLatencyBounds>& prom_latency_bounds_ns();
// Largest relative error of histogram_quantile() over these buckets, for a
// quantile between the first and the last bound: 181/152 - 1 = 19.08%.
inline constexpr double kPromQuantileRelativeError = 181.0 / 152.0 - 1.0;
// Nanoseconds as exact decimal seconds: 1024 -> "0.000001024", the `le`
// label value.  Plain digits, so every host and version spells it alike.
std::string prom_seconds_text(std::uint64_t ns);

// A latency distribution in those buckets.  Exact: every bound is a bucket
// boundary of stats::LatencyHistogram, so a count is the number of
// operations faster than the bound, not an estimate.  Memory: 109 counters
// of 8 bytes (872 bytes), against 37 KiB for a LatencyHistogram.
struct PromHistogram {
    // [i]: operations below bound i (and not below bound i-1); the last
    // element: operations at or above the top bound.
    std::array<std::uint64_t, kPromLatencyBounds + 1> buckets{};
    std::uint64_t count = 0;
    std::uint64_t sum_ns = 0;
    std::uint64_t max_ns = 0;

    void add(const stats::LatencyHistogram& h);
    void add(const PromHistogram& o);
};

// ---------------------------------------------------------------- counters
enum class PromOp { read, write, flush };
std::string_view to_string(PromOp op);  // "read", "write", "flush"

// What one run (one test of a preset) has measured so far; every member
// only grows while the run goes on.
struct PromTotals {
    // Per phase and operation: latency (its count is the operation count)
    // and bytes transferred (none for flushes).
    struct OpSeries {
        PromHistogram latency;
        std::uint64_t bytes = 0;
    };
    std::map<std::pair<model::Phase, PromOp>, OpSeries> ops;
    std::map<model::Phase, double> phase_seconds;
    std::map<model::Phase, std::uint64_t> verified_bytes;
    model::ClassCounts mismatches{};
    std::uint64_t write_errors = 0;
    double cpu_user_s = 0, cpu_system_s = 0;
    std::uint64_t iterations = 0;
    // --rate: response time (completion minus due) per phase, reads and
    // writes together, and the operations that were late; empty without it.
    std::map<model::Phase, PromHistogram> response;
    std::map<model::Phase, std::uint64_t> late_ops;
    // A --rand-block mix: latency per phase, operation and size (bytes), at
    // each phase's end (the live figures above are not split by size).
    std::map<std::tuple<model::Phase, PromOp, std::uint32_t>, PromHistogram> sized;
    // A skewed --distribution: where the finished phases' operations
    // landed (their tallies merged, as JSON's merged_phases).
    std::map<model::Phase, model::SkewResult> skew;
    // The figures report/figures.h describes with a Prometheus counter, by
    // metric name and phase.
    std::map<std::pair<std::string_view, model::Phase>, double> described;
    // --repeat: the figures of each repeat of the finished phases (a phase
    // and its later iterations' runs, as JSON's merged_phases), by phase and
    // sweep point ("qd=32"; "" outside a sweep), up to
    // model::PhaseResult::kMaxRepeats each: the estimates' gauges.
    std::map<std::pair<model::Phase, std::string>, std::vector<model::RepeatFigures>> repeats;
    // --find-rate, once the search is done: its bound and the rate found
    // (0: no rate probed met it).
    struct FindRate {
        double percentile = 0;
        double bound_s = 0;
        double iops = 0;
    };
    std::optional<FindRate> find_rate;

    // Puts in, at zero, every series a run of `cfg` can have, so that none
    // appears halfway through (rate() would miss its first increase).
    void expect(const model::RunConfig& cfg);
    // A finished phase, or a sweep point's random phase (`point`: "qd=32").
    void add_phase(const model::PhaseResult& p, const std::string& point = {});
    // One second of the phase in progress.
    void add_interval(model::Phase phase, const model::IntervalStats& s);
    void add(const PromTotals& o);
    std::uint64_t mismatch_total() const;
};

// ---------------------------------------------------------------- the text
using PromLabels = std::vector<std::pair<std::string, std::string>>;

// One run's counters and the labels that tell them apart from another's
// in the same file (--preset: preset and test).
struct PromSeriesSet {
    PromLabels labels;
    PromTotals totals;
};

// What the process is doing: the info and state gauges.
struct PromState {
    PromLabels labels;  // on every sample: target, then the user's --prom-label
    std::string version;
    std::string backend;
    std::string kernel;
    report::DriveInfo drive;
    bool running = true;
    std::optional<model::Phase> phase;  // running, or the last that ran
    std::uint64_t iteration = 0;        // 0 before the first
    std::string verdict = "running";    // running, passed, failed, error, interrupted
    std::optional<int> exit_status;     // once the run has ended
    double start_time_s = 0;            // Unix time
    double now_s = 0;                   // Unix time of this rendering
    // A run of several targets: each one's counts so far, as series of
    // their own (labels target and device); none for a single target.
    struct Target {
        std::string target;  // the directory, or the raw device
        std::string device;  // the device under it (a raw device: itself)
        std::uint64_t read_ops = 0, write_ops = 0;
        std::uint64_t read_bytes = 0, write_bytes = 0;
        std::uint64_t verified_bytes = 0;
        std::uint64_t mismatches = 0;
        bool slow = false;
    };
    std::vector<Target> targets;
    // A run of several jobs (model::JobResult): each one's figures in the
    // workload phases finished so far, as series labelled `workload`
    // (Prometheus keeps `job` for itself); none for a run of one job.
    struct Workload {
        std::string name;
        std::uint64_t read_ops = 0, write_ops = 0, trim_ops = 0;
        std::uint64_t read_bytes = 0, write_bytes = 0;
        std::uint64_t verified_bytes = 0;
        std::uint64_t mismatches = 0;
        double seconds = 0;     // its measured time
        PromHistogram latency;  // reads and writes
    };
    std::vector<Workload> workloads;
    // NVMe targets: each drive's health log as last read (after a phase),
    // and whether any phase's change was damage, by controller (targets on
    // one drive share it); none elsewhere.
    struct Health {
        std::string controller;  // "nvme0"
        nvme::HealthLog last;
        bool damaged = false;
    };
    std::vector<Health> health;
};

std::string prometheus_text(const PromState& state, const std::vector<PromSeriesSet>& runs);

// A label value escaped per the exposition format: \ -> \\, " -> \",
// newline -> \n; bytes that are not UTF-8 become U+FFFD (a path may hold
// any byte, the format only UTF-8).
std::string prometheus_escape_label(std::string_view value);

// Why `name` cannot be a --prom-label name, "" when it can: the format's
// [a-zA-Z_][a-zA-Z0-9_]*, not __-prefixed (Prometheus's own), not a label
// these metrics use themselves.
std::string prom_label_name_problem(std::string_view name);
// Why `value` cannot be a label value, "" when it can: empty (Prometheus
// takes that for no label at all) or not UTF-8.
std::string prom_label_value_problem(std::string_view value);

}  // namespace ds::metrics
