// The effective run configuration: plain values, already validated by the
// command-line layer.  Nothing here knows how it was spelled.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/io_log_record.h"
#include "pattern/unit.h"
#include "stats/distribution.h"
#include "stats/steady_state.h"
#include "stats/write_cliff.h"
#include "units/block_mix.h"

namespace ds::model {

enum class Phase { seq_write, seq_read, random, reverify };
struct JobSpec;  // model/job.h
// The io-log's records carry the phase by this number (output/io_log_record.h).
static_assert(static_cast<int>(Phase::seq_write) ==
                  static_cast<int>(output::IoLogPhase::seq_write) &&
              static_cast<int>(Phase::seq_read) == static_cast<int>(output::IoLogPhase::seq_read) &&
              static_cast<int>(Phase::random) == static_cast<int>(output::IoLogPhase::random) &&
              static_cast<int>(Phase::reverify) == static_cast<int>(output::IoLogPhase::reverify));
// --compress's largest ratio (pattern/unit.h says why).
inline constexpr double kMaxCompress = pattern::kMaxCompressRatio;
// --dedupe's share is kept in tenths of a percent: 1000 is 100 %.
inline constexpr std::uint32_t kDedupeScale = pattern::kDedupeScale;

inline constexpr Phase kAllPhases[] = {Phase::seq_write, Phase::seq_read, Phase::random,
                                       Phase::reverify};
// "seq-write", "seq-read", "random", "reverify"
std::string_view to_string(Phase p);
std::optional<Phase> phase_from_string(std::string_view s);

enum class BackendChoice { automatic, io_uring, sync };
std::string_view to_string(BackendChoice b);

// --wait: how an io_uring worker waits for completions (automatic: the plan
// chooses per worker).  A spin reads the completion ring for up to its
// microseconds before sleeping in the kernel.
enum class CompletionWait { automatic, sleep, spin };
inline constexpr unsigned kDefaultSpinUs = 50;
inline constexpr unsigned kMaxSpinUs = 10'000;

// A sweep runs the random phase once per value of one parameter, on files
// written and verified once.
// rate: --rate per point (open loop), in IOPS, or with `percent` in
// percent of the closed-loop IOPS measured first.
enum class SweepParam { qd, files, rand_block, rate };
std::string_view to_string(SweepParam p);  // "qd", "files", "rand-block", "rate"
struct Sweep {
    SweepParam param = SweepParam::qd;
    std::vector<std::uint64_t> values;  // in the order given
    bool percent = false;               // rate: values are % of the closed-loop maximum
};

// --find-rate pNN<=DURATION: the highest rate whose response-time
// percentile meets the bound.  The run is then a rate sweep (sweep set,
// param rate, no values) whose points the search chooses.
struct FindRate {
    double percentile = 99;  // 0 < percentile < 100
    double bound_s = 0;      // > 0
};

// How writes are made durable (--sync).
//  osync/dsync: every write carries RWF_SYNC/RWF_DSYNC (durable on completion).
//  fsync/fdatasync: after every sync_every writes, the worker waits for them
//  and issues that flush (IORING_OP_FSYNC on io_uring).
enum class SyncMethod { none, osync, dsync, fsync, fdatasync };
inline constexpr SyncMethod kAllSyncMethods[] = {SyncMethod::none, SyncMethod::osync,
                                                 SyncMethod::dsync, SyncMethod::fsync,
                                                 SyncMethod::fdatasync};
std::string_view to_string(SyncMethod m);  // "none", "osync", "dsync", "fsync", "fdatasync"
std::optional<SyncMethod> sync_method_from_string(std::string_view s);

// --arrivals: how a --rate schedule spaces operations: evenly, or as a
// Poisson process (exponential gaps) with the same mean rate.
enum class Arrivals { fixed, poisson };
std::string_view to_string(Arrivals a);  // "fixed", "poisson"
std::optional<Arrivals> arrivals_from_string(std::string_view s);

// Durations given in seconds, as whole nanoseconds (rounded: 100us is
// 100000 ns, not 99999).
std::uint64_t seconds_to_ns(double s);

struct RunConfig {
    std::string target = ".";
    // --path: TARGET may be a file-name prefix (files <prefix><n>.dat); a
    // positional TARGET must be an existing directory.
    bool target_may_be_prefix = false;
    // --raw-device: a whole block device instead of files (then target holds
    // the same path and file_bytes each worker's region of it).
    std::string raw_device;
    std::string raw_device_confirm;  // --destroy-data: the same device again
    // Several targets in one run (TARGET... and each --raw-device): the
    // first is held in the fields above, the others here.  --files, --size
    // and --qd apply per target; worker i tests target i / files.
    struct TargetSpec {
        std::string target;
        std::string raw_device;  // empty: a directory
        std::string raw_device_confirm;
    };
    std::vector<TargetSpec> more_targets;
    // Per file (raw device: per region; 0 there until it is derived from the
    // device's size before the run, modes/environment.h).
    std::uint64_t file_bytes = 256ULL << 20;
    unsigned files = 4;
    unsigned qd = 32;
    BackendChoice backend = BackendChoice::automatic;
    std::uint32_t seq_block = 1U << 20;
    std::uint32_t rand_block = 4096;  // also the verification unit
    // --rand-block with several sizes (units/block_mix.h): each random
    // operation's size, drawn by weight; rand_block is then the smallest
    // (the unit).  Empty: every random operation is rand_block.
    std::vector<units::BlockShare> rand_mix;
    unsigned read_pct = 70;
    // --trim-pct: the random phase's share of trims (reads + writes + trims
    // = 100), sized like writes.
    unsigned trim_pct = 0;
    // --distribution: where the random phase's blocks land (uniform: as ever).
    stats::DistributionSpec distribution;
    // --compress: the ratio a compressor reaches on the written data, 1 to 8
    // (1: incompressible, as ever); pattern::sector_random_bytes shapes it.
    double compress = 1;
    // --dedupe: the share of units that copy one of a few sources, in
    // tenths of a percent (0 to 1000; 0: every unit its own, as ever).
    std::uint32_t dedupe = 0;
    double dedupe_pct() const { return dedupe / 10.0; }
    // The units' shape word (pattern::UnitShape) of --compress and --dedupe.
    pattern::UnitShape unit_shape() const {
        return pattern::make_shape(pattern::sector_random_bytes(compress), dedupe);
    }
    // --replay: the trace the random phase replays instead of drawing ("":
    // none, "-": standard input), --replay-speed (2: twice as fast; 0: as
    // fast as the queue allows), --replay-loops, --replay-wrap (offsets
    // beyond the target wrap round instead of refusing the run).
    std::string replay;
    // --job-file: the file's jobs (model/job.h), their files the run's
    // drivestress-N.dat in the one target; null: the options' one job.
    std::shared_ptr<const std::vector<JobSpec>> jobs;
    std::string job_file;              // as given, for the report ("-": standard input)
    std::vector<std::string> job_set;  // --job-set KEY=VALUE, in order
    double replay_speed = 1;
    std::uint64_t replay_loops = 1;
    bool replay_wrap = false;
    // --replay-max-bytes: the most of standard input --replay - holds in
    // memory (it is read twice); past it the run is refused.
    std::uint64_t replay_max_bytes = std::uint64_t{1} << 30;
    // Set by the run from the trace before its workers exist (run/replay.h):
    // its largest read or write in whole units, and whether it trims.
    std::uint32_t replay_block = 0;
    bool replay_trims = false;
    // Trims in the random phase: --trim-pct, or a replayed trace's discards.
    bool trims() const { return trim_pct > 0 || replay_trims; }
    // --io-log: a file of one line per operation of every phase ("": none),
    // in --io-log-format.
    std::string io_log;
    output::IoLogFormat io_log_format = output::IoLogFormat::ndjson;
    double rand_time_s = 10;                // 0 disables the random phase
    std::optional<std::uint64_t> rand_ops;  // total across workers; replaces rand_time
    // --seq-time: each sequential phase covers the files once, then goes on
    // pass after pass until this many seconds have passed (0: one pass).
    double seq_time_s = 0;
    // Without --seq-time (and --keep): each sequential phase goes on pass
    // after pass until its figure can be quoted (kMinMeasuredSeconds and
    // kMinMeasuredOps), so a default run's sequential figures are measured.
    bool seq_until_measured = false;
    std::uint64_t iterations = 1;  // 0 = until interrupted or duration
    std::optional<double> duration_s;
    std::vector<Phase> phases{std::begin(kAllPhases), std::end(kAllPhases)};
    std::uint64_t seed = 0;
    bool seed_given = false;
    bool recreate = false;
    bool buffered = false;
    bool verify = true;
    // --cpus: worker i runs on cpus[i % cpus.size()] only; empty: anywhere.
    std::vector<unsigned> cpus;
    bool sqpoll = false;  // io_uring: a kernel thread polls the submission queue
    // --wait: how an io_uring worker waits for a completion.  automatic: the
    // plan decides per worker (model/plan.h decide_wait); sleep: in the
    // kernel; spin: up to spin_us on the completion ring, then sleep.
    CompletionWait completion_wait = CompletionWait::automatic;
    unsigned spin_us = kDefaultSpinUs;
    bool iopoll = false;  // io_uring: completions polled from the device (O_DIRECT)
    // --backend nop: io_uring with every operation an IORING_OP_NOP (backend
    // is then io_uring, verify false): the engine without the device.
    bool nop = false;
    // Files the program writes besides the run's own (results), as
    // (what names it, path): the target refuses to take one of them for a
    // test or state file.
    std::vector<std::pair<std::string, std::string>> reserved_paths;
    // --iteration-detail: the last N iterations keep their phases in full
    // (histograms: 3 x 37 KiB per phase); the others keep figures only.
    std::uint64_t iteration_detail = 0;
    // With a sweep, qd and files hold the largest value swept and rand_block
    // (the verification unit) the smallest; each point overrides them.
    std::optional<Sweep> sweep;
    // Length of one per-interval record (--timeseries, the live --prom
    // figures, the status line's p99), seconds: 0.1 to 60.
    double interval_s = 1;
    // --repeat: the measured work (the random phase, each sweep point, each
    // compared row) is run this many times; figures are medians with an
    // interval (stats/estimate.h).
    unsigned repeat = 1;
    double knee_gain_pct = 5;  // saturation: next point adds less IOPS than this
    std::vector<double> latency_thresholds_s{1e-3, 1e-2, 1e-1};  // see seconds_to_ns
    bool compare_backends = false;
    // --interference: each job of the job file alone, then each group's
    // jobs together (model/interference.h).
    bool interference = false;
    // --compare-atomic: the workload with every write RWF_ATOMIC, then
    // without, same seed, depth and sizes (run/compare_backends.h's rows).
    bool compare_atomic = false;
    // --compare-extra: rows added to --compare-backends beside io_uring and
    // sync at the same depth: the single-threaded sync baseline (--qd 1),
    // and io_uring with --sqpoll.
    bool compare_sync_qd1 = false;
    bool compare_sqpoll = false;
    // --steady-state: the random phase runs in rounds of steady_round_s
    // until the rule holds over its window or max_rounds are done.
    std::optional<stats::SteadyStateRule> steady_state;
    double steady_round_s = 60;
    // --sustained-write N: the seq-write phase writes the files N times over
    // (0: once, as usual), its throughput taken every cliff_interval_s, and
    // the write cliff looked for (stats/write_cliff.h).
    std::uint64_t sustained_passes = 0;
    double cliff_interval_s = 1;
    double cliff_idle_s = 0;  // --cliff-recovery: idle, then one more pass measured (0: none)
    stats::WriteCliffRule cliff_rule;
    // --keep: leave the files and a state file for --verify-only after a
    // power cut (targets/state_file.h).
    bool keep = false;
    SyncMethod sync = SyncMethod::none;
    std::uint64_t sync_every = 1;  // writes per flush (fsync/fdatasync), per listener call
    // --atomic: every write carries RWF_ATOMIC (untorn), or the run is
    // refused before any I/O (model/atomic_writes.h says when).
    bool atomic = false;
    unsigned batch = 1;  // SQEs prepared before each submission (--batch)
    // --rate: the random phase is open-loop, this many operations a second
    // over all workers (split evenly), each issued when it is due; 0: closed loop.
    double rate = 0;
    Arrivals arrivals = Arrivals::fixed;
    std::optional<FindRate> find_rate;
    // --sync-compare: the pg_test_fsync-style table instead of the phases;
    // each row lasts sync_compare_row_s, or sync_compare_row_ops writes when set.
    bool sync_compare = false;
    double sync_compare_row_s = 2;
    std::optional<std::uint64_t> sync_compare_row_ops;

    // Largest random block of the run (the sweep's, the mix's, or rand_block).
    std::uint32_t max_rand_block() const;
    // Smallest random operation: the mix's smallest size (the only one with
    // --unit below it), or rand_block.
    std::uint32_t min_rand_block() const {
        return rand_mix.empty() ? rand_block : rand_mix.front().bytes;
    }
    // The random operations' size as --rand-block takes it: "4K", or the
    // mix "4K:60,16K:20,128K:20".
    std::string rand_block_text() const;

    bool has_phase(Phase p) const;
    // The random phase runs on a schedule: --rate, a rate sweep, or
    // --find-rate (a rate sweep whose points the search chooses).
    bool open_loop() const { return rate > 0 || (sweep && sweep->param == SweepParam::rate); }

    std::size_t target_count() const { return 1 + more_targets.size(); }
    // Workers over every target: --files per target.
    unsigned workers() const { return files * static_cast<unsigned>(target_count()); }
    // Target t (< target_count()) alone, as a one-target configuration.
    RunConfig for_target(std::size_t t) const;
};

}  // namespace ds::model
