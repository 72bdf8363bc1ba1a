// What one phase measured and found: its counters, per-interval figures,
// repeats and the result the reports render (model/results.h holds a run's).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/backend.h"
#include "model/config.h"
#include "model/throughput_series.h"
#include "pattern/unit.h"
#include "stats/batch_means.h"
#include "stats/cpu_time.h"
#include "stats/distribution.h"
#include "stats/estimate.h"
#include "stats/histogram.h"
#include "stats/regimes.h"
#include "sys/host_load.h"

namespace ds::model {

// One detected mismatch (a unit read back wrong, or an operation that failed).
struct MismatchRecord {
    std::uint64_t iteration = 0;
    Phase phase = Phase::seq_read;
    unsigned file_index = 0;
    std::string path;
    std::string job;                // the job of the worker that found it (model/job.h)
    std::uint64_t offset = 0;       // absolute byte offset of the first bad byte
    std::uint64_t unit_offset = 0;  // offset of the unit (or of the failed I/O)
    std::uint32_t length = 0;       // unit size, or the failed I/O's length
    pattern::MismatchClass cls = pattern::MismatchClass::corrupt;
    std::uint64_t bad_bytes = 0;
    int error = 0;  // errno for io-error
    unsigned expected_generation = 0;
    std::optional<pattern::ParsedHeader> found;  // what the unit's header says
    io::OpKind op = io::OpKind::read;
};

using ClassCounts = std::array<std::uint64_t, pattern::kMismatchClassCount>;

// One operation size of a --rand-block mix: its part of the random phase.
struct SizeCounters {
    std::uint32_t bytes = 0;
    std::uint64_t read_ops = 0, write_ops = 0;
    stats::LatencyHistogram read_latency, write_latency;

    void merge(const SizeCounters& o);
    // Reads and writes together.
    stats::LatencyHistogram latency() const;
};

// Counters one worker keeps for one phase; merged across workers.
struct PhaseCounters {
    std::uint64_t read_ops = 0, write_ops = 0;
    std::uint64_t atomic_writes = 0;  // of write_ops, those that carried RWF_ATOMIC (--atomic)
    std::uint64_t read_bytes = 0, write_bytes = 0;
    std::uint64_t verified_bytes = 0;
    std::uint64_t unverified_units = 0;  // content unknown after a failed write
    std::uint64_t retries = 0;           // -EAGAIN resubmissions and short-transfer resumes
    std::uint64_t cancelled_ops = 0;     // cancelled by a stop request (neither done nor failed)
    ClassCounts mismatches{};
    stats::LatencyHistogram read_latency;
    stats::LatencyHistogram write_latency;
    // --sync fsync/fdatasync: flushes completed and their latency (submission
    // to completion), apart from the writes they cover.
    std::uint64_t flush_ops = 0;
    stats::LatencyHistogram flush_latency;
    // Writes that failed (io-error, or the filesystem full), for the write
    // summary's error count.
    std::uint64_t write_errors = 0;
    // System calls that moved data (Backend::system_calls) during the phase.
    std::uint64_t system_calls = 0;
    // --rate (open loop): response time, completion minus the time the
    // schedule said the operation was due (reads and writes together; the
    // read/write histograms above stay service time, submission to
    // completion).  Of the operations issued on time, how late the engine
    // issued them (the schedule's issue error); of those due while every
    // slot was busy (late), how many and the largest lateness.
    stats::LatencyHistogram response_latency;
    // The same response times by direction (kResponseRead, kResponseWrite,
    // kResponseTrim): what --fio-json's per-direction lat_ns is.  Sized by
    // keep_response_by_direction() when a scheduled phase starts (never on
    // the hot path); empty in a closed loop, whose response time is its
    // service time.
    static constexpr std::size_t kResponseRead = 0, kResponseWrite = 1, kResponseTrim = 2;
    std::vector<stats::LatencyHistogram> response_by_direction;
    void keep_response_by_direction() {
        if (response_by_direction.empty()) response_by_direction.resize(3);
    }
    stats::LatencyHistogram issue_error;
    std::uint64_t late_ops = 0;
    std::uint64_t max_lateness_ns = 0;
    // Of the late operations, those issued more than lateness_tolerance_ns
    // after they were due: what rate_met() judges by.
    std::uint64_t late_beyond_tolerance_ops = 0;
    // The random phase under a --rand-block mix: each size's operations and
    // latencies (ascending sizes; empty with one size).  Adds up to the
    // read and write figures above.
    std::vector<SizeCounters> sizes;
    // --trim-pct: trims completed, the bytes they dropped and their latency
    // (apart from reads and writes: not in the IOPS figure); trimmed units
    // read back and checked against the target's promise (pattern/trim.h),
    // and of them those that still held their old data where the target
    // promises zeros or 0xFF (trim-not-honoured: a warning, not a
    // mismatch), the first one's offset in its file.
    std::uint64_t trim_ops = 0, trim_bytes = 0;
    stats::LatencyHistogram trim_latency;
    std::uint64_t trimmed_units_read = 0;
    std::uint64_t trim_not_honoured = 0;
    std::uint64_t first_not_honoured = 0;  // in its worker's file (region)

    void merge(const PhaseCounters& o);
    // A completed read or write of `bytes` (a size of `sizes`), when there are sizes.
    // `sizes` are ascending (a mix's order): a binary search finds it.
    void record_size(std::uint32_t bytes, bool read, std::uint64_t latency_ns) {
        const auto s =
            std::lower_bound(sizes.begin(), sizes.end(), bytes,
                             [](const SizeCounters& c, std::uint32_t b) { return c.bytes < b; });
        if (s == sizes.end() || s->bytes != bytes) return;
        ++(read ? s->read_ops : s->write_ops);
        (read ? s->read_latency : s->write_latency).record(latency_ns);
    }
    std::uint64_t mismatch_total() const;
};

// How late an operation may be issued and still count as on schedule when
// rate_met() judges a phase: max(1 ms, 10 schedule intervals of its
// worker).  A rate the device sustains still sees every slot busy now and
// then (a burst of slow completions, the host descheduling the worker for
// a few ms on a VM); the operations due meanwhile are issued a little late
// and the backlog drains at once.  One the device cannot sustain builds a
// backlog that grows with the phase, far past ten intervals.  Ten
// intervals lets a burst of ten operations queue up; 1 ms covers scheduler
// jitter at high rates, where ten intervals is a few microseconds.
// `worker_ops_per_sec`: one worker's share of the rate (> 0).
inline constexpr std::uint64_t kLatenessToleranceMinNs = 1'000'000;
inline constexpr double kLatenessToleranceIntervals = 10;
std::uint64_t lateness_tolerance_ns(double worker_ops_per_sec);

// One second of one phase (summed over workers), for --timeseries, the
// status line and the live --prom textfile.  Reads and writes keep their
// latency apart and mismatches their class, so a live histogram per
// operation and a live count per class add up to the phase's totals.
struct IntervalStats {
    std::uint64_t index = 0;  // whole intervals (--interval) since the phase started
    std::uint64_t read_ops = 0, write_ops = 0;
    std::uint64_t read_bytes = 0, write_bytes = 0;
    std::uint64_t mismatches = 0;  // all classes
    ClassCounts mismatches_by_class{};
    // Operations completed in this second.
    stats::LatencyHistogram read_latency, write_latency;
    // --rate: their response time (completion minus due), and how many of
    // them were late (due while every slot was busy).
    stats::LatencyHistogram response_latency;
    std::uint64_t late_ops = 0;
    // NVMe targets: the controller's temperature when the second was
    // passed on, degrees Celsius (hwmon); none elsewhere.
    std::optional<double> temperature_c;
    // A run of several targets: each target's share of the interval (its
    // own workers'), by target; empty for one target.
    struct TargetShare {
        std::uint64_t read_ops = 0, write_ops = 0;
        std::uint64_t read_bytes = 0, write_bytes = 0;
        std::uint64_t mismatches = 0;
        std::optional<double> temperature_c;  // its drive's, as temperature_c
    };
    std::vector<TargetShare> targets;

    void merge(const IntervalStats& o);
    // Reads and writes together.
    stats::LatencyHistogram latency() const;
};

// One repeat's figures (--repeat): what its estimates are made of.
struct RepeatFigures {
    double iops = 0;
    double bytes_per_sec = 0;
    double p99_ns = 0;
};

// A phase's figures over its repeats: median, spread and interval of each.
struct RepeatEstimates {
    stats::Estimate iops, bytes_per_sec, p99_ns;
};

// A phase is too short to measure below either minimum: its rate is then
// mostly the start and the end of the phase (the queue filling, the last
// operations draining, the clock's own cost), and a p99 of fewer than 200
// operations is one of its two slowest.  Such a phase is marked in the text
// report and the JSON, and --brief and the preset table quote no figure of
// it (docs/results.md, "Too short to measure").
inline constexpr double kMinMeasuredSeconds = 1.0;
inline constexpr std::uint64_t kMinMeasuredOps = 200;

// Why a phase of `seconds` and `ops` operations is too short to measure
// ("0.04 s, 32 operations"), or empty when it is long enough.
std::string too_short_reason(double seconds, std::uint64_t ops);

// The random phase under a skewed --distribution: where its operations
// landed (the tally of every worker), beside what the distribution
// predicts for the same number of blocks.
struct SkewResult {
    explicit SkewResult(std::uint64_t per_file) : tally(per_file), blocks(per_file) {}
    std::string distribution;  // its canonical text ("zipf:1.2")
    stats::SkewTally tally;
    // The distribution's own share on the hottest SkewTally::kHotFractions.
    std::array<double, 3> predicted{};
    // Ranks are per file (each worker draws over its own file): the hot
    // shares and `predicted` are of each file's hottest blocks, while
    // `blocks` and the blocks touched count every worker's file.
    std::uint64_t blocks = 0;  // every worker's file: what the draws could reach
    std::uint64_t files = 1;   // the files `blocks` spans
    // Draws that found their block busy and were drawn again (a write has
    // its block alone; reads share one): why the hottest blocks can fall
    // short of the prediction at a high queue depth with writes in the mix.
    std::uint64_t busy_redraws = 0;

    // Another run over the same blocks (a later iteration, a repeat): its draws.
    void add_run(const SkewResult& o);
    // Another worker's: its draws, and its own file's blocks.
    void add_worker(const SkewResult& o);
};

struct PhaseResult {
    Phase phase = Phase::seq_write;
    unsigned workers = 0;      // workers that took part
    bool interrupted = false;  // stopped early by a signal or --duration
    double seconds = 0;
    stats::CpuTime cpu;
    sys::HostLoad host;  // what else the host did meanwhile (steal, other processes)
    PhaseCounters counters;
    // Completions over time (0.1 s slices at first): the interval of the
    // figure and the regimes of one run come from it.  `series_joined`: it
    // holds several runs of the phase (iterations) one after the other.
    ThroughputSeries series;
    bool series_joined = false;
    std::optional<SkewResult> skew;  // --distribution other than uniform
    // --trim-pct: where the first trim-not-honoured unit is ("PATH offset
    // N", absolute on a raw device); empty when none.
    std::string trim_not_honoured_at;
    // --rate: the operations a second asked for over all workers (0: closed
    // loop); rate_met() says whether the phase achieved it.
    double requested_rate = 0;
    // --replay at a speed: how long the trace's events take at it (the
    // trace's span x loops / speed); 0: no replay, or as fast as possible.
    double replay_seconds = 0;
    // --repeat: each repeat's figures in run order (a phase run once: empty).
    // Merged phases hold those of every iteration, up to kMaxRepeats.
    std::vector<RepeatFigures> repeats;
    static constexpr std::size_t kMaxRepeats = 1000;  // 24 KB

    double iops() const;
    double bytes_per_sec() const;
    // --rate: achieved at least kRateMetShare of the requested rate, with at
    // most kRateMetLateShare of the operations late by more than
    // lateness_tolerance_ns() (every late one is still counted: late_ops).
    static constexpr double kRateMetShare = 0.95;
    static constexpr double kRateMetLateShare = 0.01;
    bool rate_met() const;
    // --rate: the tolerance of one worker's schedule (its even share of
    // requested_rate); 0 for a closed-loop phase.
    std::uint64_t lateness_tolerance_ns() const;
    // Reads and writes together.
    stats::LatencyHistogram latency() const;
    // See kMinMeasuredSeconds: empty when the phase is long enough.
    std::string too_short() const;
    // Adds another run of the same phase (a later iteration, or a repeat):
    // counts, times and histograms add up, repeats are appended; interrupted
    // if either was.
    void merge(const PhaseResult& o);
    // This run's own figures, as one repeat.
    RepeatFigures figures() const;
    // The estimates over `repeats` (n = 0 when there are none).
    RepeatEstimates estimates() const;
    // This run's IOPS (or bandwidth) with its 95 % interval from `series`
    // (stats/batch_means.h), centred on the phase's own figure: n is the
    // batches, n <= 1 when under 5 slices (no interval).
    stats::BatchInterval series_interval(bool iops_figure) const;
    stats::Estimate series_estimate(bool iops_figure) const;
    // The figure a verdict judges by (IOPS of the random phase, else
    // bandwidth): over the repeats with two or more, else this run's own
    // interval.
    bool iops_figure() const { return phase == Phase::random; }
    stats::Estimate figure_estimate() const;
    // Its p99 (reads and writes): over the repeats with two or more, else
    // with this run's order-statistic interval (stats/quantile_interval.h);
    // n <= 1 when too few samples lie beyond it for one.
    stats::Estimate p99_estimate() const;
    // Where the figure changes level inside the phase (stats/regimes.h),
    // over slices of at least kRegimeSliceNs (0.1 s doubled twice): one regime for a steady
    // phase; none for several runs one after the other or too few slices.
    static constexpr std::uint64_t kRegimeSliceNs = 400'000'000;
    stats::Regimes regimes() const;
};

// A phase's figures without its histograms: what a run keeps of every
// iteration (about 100 bytes a phase), so that its memory does not grow with
// the histograms' 3 x 37 KiB per phase and iteration.  Latency is of reads
// and writes together.
struct PhaseFigures {
    Phase phase = Phase::seq_write;
    bool interrupted = false;
    double seconds = 0;
    stats::CpuTime cpu;
    std::uint64_t read_ops = 0, write_ops = 0;
    std::uint64_t read_bytes = 0, write_bytes = 0;
    std::uint64_t verified_bytes = 0;
    std::uint64_t mismatches = 0;  // every class
    std::uint64_t p50_ns = 0, p99_ns = 0, max_ns = 0;
    // This run's intervals of its bandwidth and IOPS (low == high == 0:
    // none; PhaseResult::series_estimate), for the drift of too few runs.
    // Floats: an interval needs no more, and a run keeps one of these per
    // phase and iteration.
    float bandwidth_low = 0, bandwidth_high = 0;
    float iops_low = 0, iops_high = 0;

    static PhaseFigures of(const PhaseResult& p);
    std::string too_short() const;  // see PhaseResult::too_short
    double iops() const;
    double bytes_per_sec() const;
};

}  // namespace ds::model
