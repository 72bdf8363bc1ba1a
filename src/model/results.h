// What a run measured and found: plain data that the report layer renders.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/backend.h"
#include "model/config.h"
#include "model/damage.h"
#include "model/drift.h"
#include "model/drive_health.h"
#include "model/exit_status.h"
#include "model/verdict.h"
#include "pattern/unit.h"
#include "stats/cpu_time.h"
#include "stats/estimate.h"
#include "stats/histogram.h"
#include "stats/knee.h"
#include "stats/rate_search.h"
#include "stats/steady_state.h"
#include "stats/write_cliff.h"
#include "sys/host_load.h"

namespace ds::model {

struct TargetInfo {
    std::string path;        // absolute: the directory, a --path prefix, or the raw device
    bool prefix = false;     // files are named <path><n>.dat (--path PREFIX)
    std::string directory;   // where the files are (absolute, symlinks resolved)
    std::string filesystem;  // e.g. "ext4", "tmpfs"
    std::string device;      // source of the mount, e.g. "/dev/vda"
    bool in_memory = false;  // tmpfs or ramfs: free space is capped by the machine's memory
    std::uint64_t free_bytes = 0;
    std::uint64_t reclaimable_bytes = 0;  // held by our leftovers, freed when replaced
    // --raw-device: what the device held before the run overwrote it, as
    // wipefs would list it (target/device_signature.h); empty: nothing known.
    std::vector<std::string> previous_contents;
};

// One detected mismatch (a unit read back wrong, or an operation that failed).
struct MismatchRecord {
    std::uint64_t iteration = 0;
    Phase phase = Phase::seq_read;
    unsigned file_index = 0;
    std::string path;
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

// The damage one file (raw device: one worker's region) took over the run.
struct FileDamage {
    unsigned file_index = 0;
    std::string path;
    std::uint64_t expected_bytes = 0;
    // Set when the file was found shorter than it should be.
    std::optional<std::uint64_t> truncated_to_bytes;
    std::uint64_t distinct_units = 0;
    std::vector<DamageExtent> extents;  // by offset
    // Observations not kept as extents (DamageMap::kMaxExtents reached).
    std::uint64_t unmerged_observations = 0;
};

// Counters one worker keeps for one phase; merged across workers.
struct PhaseCounters {
    std::uint64_t read_ops = 0, write_ops = 0;
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
    stats::LatencyHistogram issue_error;
    std::uint64_t late_ops = 0;
    std::uint64_t max_lateness_ns = 0;
    // Of the late operations, those issued more than lateness_tolerance_ns
    // after they were due: what rate_met() judges by.
    std::uint64_t late_beyond_tolerance_ops = 0;

    void merge(const PhaseCounters& o);
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

struct PhaseResult {
    Phase phase = Phase::seq_write;
    unsigned workers = 0;      // workers that took part
    bool interrupted = false;  // stopped early by a signal or --duration
    double seconds = 0;
    stats::CpuTime cpu;
    sys::HostLoad host;  // what else the host did meanwhile (steal, other processes)
    PhaseCounters counters;
    // --rate: the operations a second asked for over all workers (0: closed
    // loop); rate_met() says whether the phase achieved it.
    double requested_rate = 0;
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

    static PhaseFigures of(const PhaseResult& p);
    std::string too_short() const;  // see PhaseResult::too_short
    double iops() const;
    double bytes_per_sec() const;
};

// What a run keeps of every iteration.
struct IterationResult {
    std::uint64_t index = 0;  // 1-based
    std::vector<PhaseFigures> phases;
};

// An iteration's phases in full (histograms included): kept only for the
// last --iteration-detail iterations.
struct IterationDetail {
    std::uint64_t index = 0;
    std::vector<PhaseResult> phases;
};

struct SweepPoint {
    std::uint64_t value = 0;  // qd, workers or random block bytes
    PhaseResult random;       // the random phase run at this value
};

struct SweepResult {
    SweepParam param = SweepParam::qd;
    std::vector<SweepPoint> points;
    std::optional<std::size_t> knee;  // index of the saturation point (stats::find_knee)
    // --repeat: the point the medians would make the knee, when the p99 rise
    // after it is within the noise of the repeats (then `knee` is not set).
    std::optional<std::size_t> knee_in_noise;
    // --sweep rate=PCT%: the closed-loop IOPS the percentages are of.
    double closed_loop_iops = 0;
    // --sweep rate: the first point whose response p99 turned up (see
    // kTurnUpFactor), or whose rate was not met: the load the drive takes
    // before its tail grows.
    std::optional<std::size_t> turn_up;
    static constexpr double kTurnUpFactor = 2.0;
    // Response p99 of each point (--sweep rate).
    std::vector<std::uint64_t> response_p99_ns() const;
    void find_turn_up();

    // The figure the knee is chosen by: bandwidth for block sizes, else IOPS.
    stats::KneeAxis axis() const;
    // Each point's IOPS, bandwidth and p99 (--repeat: their medians).
    std::vector<stats::SweepFigures> figures() const;
    // Repeats per point (the fewest of any point; 0 without points).
    std::size_t repeats() const;
    // The saturation point described (nullopt when `knee` is not set).
    std::optional<stats::Knee> described_knee() const;
};

// --find-rate: the search over rates (stats/rate_search.h).  Its probes are
// the run's sweep points, in the order probed.
struct FindRateProbe {
    double requested_iops = 0;
    bool rate_met = false;
    stats::ProbeVerdict verdict;  // the response percentile against the bound
};

struct FindRateResult {
    FindRate bound;
    double closed_loop_iops = 0;  // the maximum the search starts from (0: none measured)
    std::vector<FindRateProbe> probes;
    // The highest rate that passed and the lowest that failed (IOPS
    // requested), as indices into `probes`; the answer lies between them.
    std::optional<std::size_t> found, failing;
    bool interrupted = false;  // a signal or --duration ended the search early
};

// --steady-state: the random phase of one iteration, in rounds.  Each
// round's value is its IOPS (reads and writes); the rule is judged over the
// last rule.window_rounds of them.
struct SteadyStateResult {
    std::uint64_t iteration = 0;
    double round_s = 0;  // length of a round
    stats::SteadyStateRule rule;
    std::vector<double> round_iops;  // every complete round, in order
    // The last window judged (the attained one when attained); none before
    // window_rounds rounds.
    std::optional<stats::SteadyStateWindow> window;
    stats::SteadyStateStatus status = stats::SteadyStateStatus::measuring;
    // Stopped by a signal or --duration before a verdict: the partial round
    // is in the phase's figures, not among the rounds.
    bool interrupted = false;
};

// --sustained-write: one iteration's seq-write phase, the files written
// passes times over, its throughput per interval and the cliff found in it.
struct SustainedWriteResult {
    std::uint64_t iteration = 0;
    std::uint64_t passes = 0;          // asked for
    std::uint64_t passes_done = 0;     // completed
    std::uint64_t capacity_bytes = 0;  // one pass: every file (region) once
    double interval_s = 0;             // nominal length of an interval
    stats::WriteCliffRule rule;
    std::vector<stats::ThroughputInterval> series;  // every interval, in order
    stats::WriteCliff cliff;
    // --cliff-recovery: the pass written after the idle period, and what it found.
    std::vector<stats::ThroughputInterval> recovery_series;
    std::optional<stats::CliffRecovery> recovery;
    bool interrupted = false;  // a signal or --duration ended it early
};

// One row of --sync-compare.
struct SyncCompareRow {
    SyncMethod method = SyncMethod::none;  // osync/dsync: the file opened O_SYNC/O_DSYNC
    std::uint32_t write_bytes = 4096;      // bytes per write
    unsigned writes_per_op = 1;            // >1: one durable operation is that many writes
    bool group = false;     // one of the O_SYNC rows writing 16K per operation (1x16K, 2x8K, 4x4K)
    bool available = true;  // false: the filesystem refused the method
    std::string reason;     // why not available (one line)
    std::uint64_t ops = 0;  // durable operations completed
    double seconds = 0;
    stats::LatencyHistogram latency;  // per durable operation: its writes and its flush
    std::uint64_t verified_bytes = 0;
    std::uint64_t mismatches = 0;  // read back wrong, or a write or flush failed

    double ops_per_sec() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0.0; }
};

struct SyncCompareResult {
    double row_s = 0;           // time per row (when row_ops is 0)
    std::uint64_t row_ops = 0;  // durable operations per row (0: by time)
    bool direct_io = true;
    std::vector<SyncCompareRow> rows;
    bool interrupted = false;
};

// How the run ended.
enum class StopReason { completed, duration, signal, error };

struct BackendInfo {
    BackendChoice requested = BackendChoice::automatic;
    io::BackendKind used{};       // the first kind (io_uring) until the run picks one
    std::string fallback_reason;  // why auto fell back to sync
    io::UringFeatures uring;      // features of worker 0's ring
    unsigned effective_qd = 1;    // random-phase depth per worker
    unsigned seq_qd = 1;          // sequential-phase depth per worker
    unsigned sync_threads = 0;    // sync: pool threads per worker (0: single-threaded)
};

// A target whose figure is far below the median of the targets like it
// (same kind of device, same size): the slow drive of a burn-in.
struct SlowTarget {
    Phase phase = Phase::random;  // whose figure: IOPS (random), else bandwidth
    double value = 0;             // the target's figure
    double median = 0;            // of the like targets, this one included
    double below_pct = 0;         // how far below the median, percent
    std::size_t like_targets = 0;
};

// One target of a run with several (TARGET... and each --raw-device): what
// its own workers measured and found.  A single-target run has one.
struct TargetResult {
    std::string name;  // "loop3" for a raw device, else the directory
    bool raw = false;
    TargetInfo info;
    std::string device_kind;  // "loop", "nvme", "sd"... (the device's name without digits)
    unsigned first_file = 0;  // its workers: files [first_file, first_file + files)
    unsigned files = 0;
    std::uint64_t capacity_bytes = 0;  // files x file size
    bool direct_io = true;
    // Where its workers ran: "numa node 1 (cpus 8-15)", "--cpus 0,2", "any
    // cpu"; the device's node when sysfs says; the CPUs its workers were
    // given (none: any).
    std::string placement;
    std::optional<int> numa_node;
    std::vector<unsigned> cpus;
    // Each phase over every iteration, in run order; seconds are the
    // target's own (its slowest worker), CPU is the process's and not here.
    std::vector<PhaseResult> merged_phases;
    std::optional<SlowTarget> slow;
    DriveHealth health;  // NVMe: its drive's health log around each phase

    void add_phase(const PhaseResult& p);
    std::uint64_t mismatch_count() const;
    std::uint64_t verified_bytes() const;
    // The figure targets are compared by: random IOPS, else seq-write, else
    // seq-read bandwidth (nullopt: none measured).
    std::optional<std::pair<Phase, double>> figure() const;
};

// Flags every target whose figure is more than `threshold_pct` below the
// median of its like targets (at least three of them).
void flag_slow_targets(std::vector<TargetResult>& targets, double threshold_pct = 25);

// The current time as ISO 8601 UTC ("2026-11-30T04:33:23Z"), for started_at.
std::string utc_now_iso8601();

struct RunResult {
    std::uint64_t seed = 0;
    std::uint64_t run_id = 0;  // in every unit header: random per run, never from the seed
    BackendInfo backend;
    TargetInfo target;
    bool direct_io = true;
    std::string direct_io_note;
    std::vector<std::string> file_paths;
    std::string state_path;  // --keep: the state file for --verify-only (else empty)
    // The last kIterationWindow iterations, figures only (the one running
    // included); each phase merged over every iteration (in run order), with
    // its drift as running figures; the last --iteration-detail iterations
    // in full.  What a run holds is bounded, however long it runs: the
    // iterations before the window are summarised by merged_phases, drift
    // and iterations_run.
    std::deque<IterationResult> iterations;
    std::uint64_t iterations_run = 0;  // begun, the one running included
    std::vector<PhaseResult> merged_phases;
    std::vector<PhaseDrift> drift;
    std::deque<IterationDetail> iteration_detail;
    SweepResult sweep;                                  // points empty unless --sweep
    std::optional<FindRateResult> find_rate;            // --find-rate (its probes: sweep)
    std::vector<SteadyStateResult> steady_state;        // per iteration, with --steady-state
    std::vector<SustainedWriteResult> sustained_write;  // per iteration, --sustained-write
    std::optional<SyncCompareResult> sync_compare;      // --sync-compare
    std::vector<MismatchRecord> mismatch_records;       // the first kMaxRecords
    // Per damaged file: merged extents, distinct units, truncation.  What a
    // person judges a drive by; the counts above are observations (a unit
    // read by two phases counts twice).
    std::vector<FileDamage> damage;
    ClassCounts mismatch_totals{};
    std::vector<TargetResult> targets;  // one per target, in the order given
    // A phase changed a target's health log in a way that is damage.
    bool health_damaged() const;
    StopReason stop = StopReason::completed;
    // A problem that ended the run early without being the drive's fault
    // (the filesystem filled up): one line, exit 1.
    std::string fatal_error;
    int stop_signal = 0;
    double wall_seconds = 0;
    std::string started_at;  // ISO 8601 UTC
    // Random, made once per run: its documents' run_id, the same in every
    // rewrite (run_id above is the units', also random but never printed).
    std::string document_id;

    static constexpr std::size_t kMaxRecords = 100;
    // Iterations listed with their figures: about 0.5 KiB of memory and 1 KB
    // of --json each (four phases), so at most 0.5 MiB and 1 MB however
    // long the run.
    static constexpr std::size_t kIterationWindow = 1000;
    // Iterations begun that `iterations` no longer lists.
    std::uint64_t iterations_summarised() const { return iterations_run - iterations.size(); }
    std::uint64_t mismatch_count() const;
    // Distinct units damaged, over every file.
    std::uint64_t damaged_units() const;

    // Iteration `index` starts; `detail`: how many iterations to keep in full.
    void begin_iteration(std::uint64_t index, std::uint64_t detail);
    // A phase of the iteration begun last finished: its figures, the merged
    // phases and (when kept) the detail take it in.
    void add_phase(const PhaseResult& p);

    // Bytes over every phase of every iteration (merged_phases) and every
    // sweep point.
    struct Totals {
        std::uint64_t written = 0, read = 0, verified = 0;
    };
    Totals totals() const;
};

}  // namespace ds::model

namespace ds::model {
// The process exit status a run maps to: mismatch on any mismatch or I/O
// error (it wins), else error after a fatal setup problem, else 128+signal
// when interrupted, else success.
ExitStatus exit_status(const RunResult& r);
// What its verdict is worded from (model/verdict.h); `status` may be worse
// than the run's own (a result file that could not be delivered).
RunEvidence run_evidence(const RunConfig& cfg, const RunResult& r, ExitStatus status,
                         const std::string& why = {});
// Target t's own: its mismatches are its own, any other problem (a signal,
// an error) is the run's `status`, a mismatch on another target is not.
RunEvidence target_evidence(const RunConfig& cfg, const RunResult& r, std::size_t t,
                            ExitStatus status);
}  // namespace ds::model
