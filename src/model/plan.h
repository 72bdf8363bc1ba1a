// What a run does, decided once: the jobs (model/job.h; a plain run's one
// job from the configuration) split into one plan per worker, with every
// rule that bounds a worker applied here and nowhere else: its job, file
// and range, its workload, its depth after every limit and why, its block
// sizes, its share of a rate and of an operation count, and how it waits
// for a due time.  Rules that concern a file (its verification unit, the
// operations in flight on it) see every worker on that file.  The engine executes a worker's
// plan; the coordinator adds only time (deadlines, when a schedule starts);
// the command line and the report ask the plan instead of re-deriving it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/config.h"
#include "model/job.h"
#include "pattern/unit.h"
#include "stats/distribution.h"
#include "units/block_mix.h"

namespace ds::model {

// Sequential phases keep at most this many bytes in flight per worker, so
// `--qd 256 --seq-block 1M` does not need 256 MiB of buffers per worker.
inline constexpr std::uint64_t kSeqInflightBytes = 8ULL << 20;

// The random phase keeps at most half of a file's blocks (of its largest
// operation size) in flight, so that drawing a block not in flight stays
// cheap: the deepest it may run on `file_bytes` with blocks of `block`.
std::uint64_t max_random_depth(std::uint64_t file_bytes, std::uint32_t block);

// What decided a worker's random-phase depth.
enum class DepthRule {
    asked,        // --qd (or the sweep point's), as given
    half_blocks,  // max_random_depth: half of its range's blocks
    // Its share of half of its file's units, split between the workers on
    // the file (a file with several workers only).
    file_share,
};

// What decided how a worker waits for completions (--wait).
enum class WaitRule {
    asked,      // --wait sleep or spin
    spare_cpu,  // auto: depth <= kSpinMaxDepth and a CPU of its own with one to spare: spin
    deep,       // auto: depth above kSpinMaxDepth (completions come often enough): sleep
    no_spare,   // auto: no CPU of its own with one left for the device and kernel: sleep
    open_loop,  // auto: --rate or --replay (its own wait until each due time): sleep
    not_ring,   // auto: --backend sync (blocking calls), nop, --sqpoll or --iopoll: sleep
};
std::string_view to_string(WaitRule r);  // "asked", "spare-cpu", "deep", ...

// At this depth or below a completion is rare enough that a worker which
// sleeps for each one pays a wake-up per operation (on a VM, an idle vCPU's
// exit and entry): auto spins there (docs/performance.md, The engine at QD 1).
inline constexpr unsigned kSpinMaxDepth = 4;

// One worker's part of the run.
struct WorkerPlan {
    unsigned index = 0;   // the worker (a plain run's worker i tests file i)
    unsigned target = 0;  // the target its file belongs to
    unsigned job = 0;     // its job: RunPlan::jobs[job]
    unsigned copy = 0;    // which of the job's copies
    unsigned group = 0;   // the job's group
    unsigned file = 0;    // its file: RunPlan::files[file]
    std::uint64_t file_bytes = 0;
    // The part of the file it works on (a plain run's: the whole file).
    std::uint64_t range_offset = 0;
    std::uint64_t range_bytes = 0;  // 0: to the end of the file
    std::uint64_t range() const { return range_bytes ? range_bytes : file_bytes - range_offset; }
    Access access = Access::random;
    std::int64_t offset_step = 0;  // a stream's step after each operation (JobSpec's)
    std::uint32_t unit = 4096;     // the verification unit (its file's)
    std::uint32_t seq_block = 1U << 20;
    // The random phase's operations: one size (rand_block), or a weighted
    // mix (rand_mix; rand_block is then the unit); its slots hold the
    // largest operation it may issue (a mix's, a replayed trace's).
    std::uint32_t rand_block = 4096;
    std::uint32_t max_rand_block = 4096;
    std::vector<units::BlockShare> rand_mix;
    // Where its operations start, bytes from its range's start (fio's
    // blockalign); 0: each at a multiple of its own size.
    std::uint32_t rand_align = 0;
    // Operations in flight at most, after every rule.
    unsigned seq_depth = 1;
    unsigned rand_depth = 1;
    DepthRule depth_rule = DepthRule::asked;
    unsigned read_pct = 70;
    unsigned trim_pct = 0;
    stats::DistributionSpec distribution;
    pattern::UnitShape shape = pattern::kSectorBytes;  // the units' shape (--compress, --dedupe)
    bool verify = true;
    SyncMethod sync = SyncMethod::none;
    std::uint64_t sync_every = 1;  // writes per flush / per listener call
    unsigned batch = 1;            // SQEs prepared per submission (--batch)
    bool atomic = false;           // --atomic: every write carries RWF_ATOMIC
    // --rand-ops: this worker's share (0: none, or the phase ends by time).
    std::uint64_t op_limit = 0;
    // An open loop (--rate): this worker's share of the rate (ops/s; 0:
    // closed loop), its arrivals, and how far into the run's first interval
    // its schedule starts (fixed arrivals: the workers' interleave into one
    // even stream).
    double rate = 0;
    Arrivals arrivals = Arrivals::fixed;
    std::uint64_t rate_offset_ns = 0;
    // An open loop (--rate, --replay) spins the last stretch before each
    // due time instead of sleeping through it: only when every worker has a
    // CPU of its own and one is left for the device and the kernel.
    bool spin = false;
    // How it waits for a completion on an io_uring: spin this long on the
    // completion ring first (0: sleep at once), and why.
    unsigned wait_spin_us = 0;
    WaitRule wait_rule = WaitRule::asked;
    // Its own end and timing in the workload phase (0: none): the job's
    // runtime, bytes (fio's io_size), passes over its range, how long it
    // waits after the group starts and how long its figures ignore.
    std::uint64_t runtime_ns = 0;
    std::uint64_t byte_limit = 0;
    unsigned loops = 0;
    std::uint64_t startdelay_ns = 0;
    std::uint64_t ramp_ns = 0;
    bool end_fsync = false;
};

// One file of the run, as every worker on it sees it.
struct FilePlan {
    std::string name;  // within its target
    unsigned target = 0;
    std::uint64_t bytes = 0;
    // The largest power of two dividing every operation size and alignment
    // of the jobs on it (or the unit asked for).
    std::uint32_t unit = 4096;
    std::vector<unsigned> workers;  // ascending
    bool shared() const { return workers.size() > 1; }
};

// A sweep point's or a steady-state round's changes (0: as configured).
struct PlanPoint {
    unsigned qd = 0;
    unsigned files = 0;  // the first N workers run
    std::uint32_t rand_block = 0;
    double rate = 0;
};

struct RunPlan {
    std::vector<JobSpec> jobs;        // as given
    std::vector<FilePlan> files;      // in the order the workers first name them
    std::vector<WorkerPlan> workers;  // the workers that run, in order (jobs', copies')
    unsigned asked_qd = 0;            // the depth asked (--qd, or the point's)
    // The most any worker's buffers and slots must hold over the whole run
    // (every sweep point): what the workers are built with.
    unsigned max_seq_depth = 1;
    unsigned max_rand_depth = 1;
    std::uint32_t max_block = 4096;  // the largest random operation

    // The random phase's depth per worker, the same for every worker
    // (every file is the same size): that of worker 0.
    unsigned rand_depth() const { return workers.empty() ? 0 : workers.front().rand_depth; }
    unsigned seq_depth() const { return workers.empty() ? 0 : workers.front().seq_depth; }
    // Whether a rule kept some worker below the depth asked.
    bool depth_limited() const;
    // The buffer bytes one worker holds: its slots at the deepest phase.
    std::uint64_t worker_buffer_bytes(std::uint32_t seq_block) const;
};

// The facts of the machine the plan depends on.
struct PlanHost {
    unsigned usable_cpus = 1;          // the CPUs the process may run on
    std::uint32_t direct_align = 512;  // the O_DIRECT alignment: no unit below it
};

// The plain run's plan, or a sweep point's (`at`): every worker's, from
// jobs_from_config(cfg) with the point's changes.
RunPlan make_run_plan(const RunConfig& cfg, const PlanHost& host, const PlanPoint& at = {});

// The plan of `jobs` (cfg gives what is the run's: the sequential block,
// --cpus).  Throws SetupError naming what it refuses: more than kMaxWorkers
// workers, a range outside its file, a file whose sizes have no common unit
// of at least 512 bytes and the O_DIRECT alignment, or sizes that are not
// multiples of the unit asked for.
RunPlan make_run_plan(const RunConfig& cfg, std::vector<JobSpec> jobs, const PlanHost& host);

std::string_view to_string(DepthRule r);  // "asked", "half-blocks", "file-share"

}  // namespace ds::model
