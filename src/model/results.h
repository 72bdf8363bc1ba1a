// What a run measured and found: plain data that the report layer renders.
// A phase's own results are model/phase_result.h; a sweep's, the endurance
// modes' and --sync-compare's have headers of their own, for the files that
// need only those.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/backend.h"
#include "model/atomic_writes.h"
#include "model/config.h"
#include "model/damage.h"
#include "model/drift.h"
#include "model/drive_health.h"
#include "model/endurance_result.h"
#include "model/exit_status.h"
#include "model/job.h"
#include "model/phase_result.h"
#include "model/plan.h"
#include "model/sweep_result.h"
#include "model/sync_compare_result.h"
#include "model/verdict.h"
#include "pattern/trim.h"
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
    // wipefs would list it (targets/device_signature.h); empty: nothing known.
    std::vector<std::string> previous_contents;
};

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
    // Two like targets: the other one's name (median is its figure, and
    // the two figures' intervals are apart); empty with three or more.
    std::string compared_to;
};

// One target of a run with several (TARGET... and each --raw-device): what
// its own workers measured and found.  A single-target run has one.
struct TargetResult {
    std::string name;  // "loop3" for a raw device, else the directory
    bool raw = false;
    TargetInfo info;
    std::string device_kind;  // "loop", "nvme", "sd"... (the device's name without digits)
    // --trim-pct: what a trimmed unit must read back as (run/trim_promise.h),
    // and where that comes from, in words; empty in a run that does not trim.
    pattern::TrimPromise trim_promise = pattern::TrimPromise::zeros;
    std::string trims;
    // What it promises of atomic writes (statx, its queue, NVMe Identify),
    // read whether or not the run asks for them (--atomic).
    AtomicPromise atomic;
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

// --replay: the trace, as read through before the run (every line checked),
// and where its operations land.
struct ReplayInfo {
    std::string source;        // the path, or "standard input"
    std::string format;        // trace::to_string: "fio iolog v3", "tracefs block events", ...
    std::uint64_t events = 0;  // reads, writes, trims, flushes and syncs
    std::uint64_t reads = 0, writes = 0, trims = 0, flushes = 0;
    std::uint64_t read_bytes = 0, write_bytes = 0, trim_bytes = 0;
    std::uint64_t min_bytes = 0, max_bytes = 0;  // of its reads and writes
    std::uint64_t fua_writes = 0;
    double span_s = 0;                   // first event to last, in the trace's time
    std::vector<std::string> devices;    // as the trace names them
    std::vector<std::uint64_t> extents;  // each device's highest byte + 1
    std::uint64_t widened = 0;           // events rounded out to whole units
    std::uint64_t reordered = 0;         // put back in time order within the window
    std::uint64_t skipped = 0;           // lines of other kinds (blkparse's completions, ...)
    std::uint64_t lost_events = 0;       // tracefs "[LOST N EVENTS]": events the capture lost
    std::uint64_t other_phases = 0;      // io-log records of phases other than random, left out
    std::string placement;  // "offsets as they are", "mapped onto 4 files in order", ...
    double speed = 1;
    std::uint64_t loops = 1;
    bool wrap = false;
};

// --io-log: where the run's operations were logged, and how many.
struct IoLogResult {
    std::string path;
    output::IoLogFormat format = output::IoLogFormat::ndjson;
    std::uint64_t lines = 0;    // operations written (not counting fio's header lines)
    std::uint64_t dropped = 0;  // operations the writer could not keep up with
    std::string error;          // "" or the one line naming what failed (a full disk)
};

// The written data's compressibility: asked (--compress) and measured by
// pattern::estimate_units over a sample of the run's units; and its
// duplication: asked (--dedupe) and counted by pattern::count_duplicates.
struct DataCompressibility {
    double asked = 1;
    double measured = 1;  // original / compressed bytes (lz4-costed LZ77, 4 KiB blocks)
    std::uint32_t sampled_units = 0;
    double dedupe_pct = 0;              // --dedupe: share of units asked to be duplicates
    std::uint64_t counted_units = 0;    // units whose identity was counted (all, up to 2^22)
    std::uint64_t duplicate_units = 0;  // of them, copies of a source
    unsigned dedupe_sources = 0;        // distinct sources among them
    double dedupe_ratio = 1;            // counted units over their distinct contents
};

// One job of the run (model/job.h) as it ran: what it was asked, and its
// figures over its workers in the workload phase (every iteration merged;
// operations completing in its ramp are not in them).  A plain run has one.
struct JobResult {
    std::string name;
    unsigned group = 0;
    unsigned copies = 1;
    Access access = Access::random;
    unsigned read_pct = 70;
    unsigned trim_pct = 0;
    std::vector<std::uint32_t> sizes;    // its operations' sizes, ascending
    std::vector<units::BlockShare> mix;  // a size mix (empty: one size)
    unsigned depth = 1;                  // its first copy's, after every rule (model/plan.h)
    // Its copies' counters merged, its seconds those of its measured time:
    // from its first copy's start (after its ramp) to its last copy's end.
    PhaseResult workload;
    // When it was active on the run's clock (ns since the workers started),
    // its copies' first start to their last end, in the last iteration:
    // two jobs ran at once where these overlap.
    std::uint64_t start_ns = 0, end_ns = 0;
};

// The plan's jobs as the run starts (model/job.cpp): what each was asked (its depth its
// first worker's), no figures yet.
std::vector<JobResult> job_results(const RunPlan& plan);

struct RunResult {
    std::uint64_t seed = 0;
    std::uint64_t run_id = 0;  // in every unit header: random per run, never from the seed
    BackendInfo backend;
    // What each worker was planned to do (model/plan.h): the run's plan;
    // a sweep point's is made from the same rules at its value.
    RunPlan plan;
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
    std::optional<DataCompressibility> data;            // measured before the first write
    std::optional<ReplayInfo> replay;                   // --replay
    std::optional<IoLogResult> io_log;                  // --io-log
    std::vector<MismatchRecord> mismatch_records;       // the first kMaxRecords
    // Per damaged file: merged extents, distinct units, truncation.  What a
    // person judges a drive by; the counts above are observations (a unit
    // read by two phases counts twice).
    std::vector<FileDamage> damage;
    ClassCounts mismatch_totals{};
    std::vector<TargetResult> targets;  // one per target, in the order given
    std::vector<JobResult> jobs;        // one per job, in the plan's order
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
