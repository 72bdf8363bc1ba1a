// A job: one workload (fio's job section) with its own workers, files and
// figures.  A run is one or more jobs; jobs of one group run at once, groups
// one after another.  Today's options are the one-job run
// (jobs_from_config); a job file (jobfile/) is mapped onto the same
// vocabulary.  make_run_plan (model/plan.h) turns the jobs into one plan
// per worker, applying every rule per file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"
#include "pattern/unit.h"
#include "stats/distribution.h"
#include "units/block_mix.h"

namespace ds::model {

// How a job's worker walks its range: blocks drawn at random, or in order
// from the range's start, wrapping at its end (fio's rw=read/write/trim).
enum class Access { random, sequential };
std::string_view to_string(Access a);  // "random", "sequential"

// At most this many workers in a run, every job's copies counted.
inline constexpr unsigned kMaxWorkers = 4096;

// A file a job works on: its name within its target and its size.  Jobs
// naming the same (target, name) share the file and its generation map.
struct FileSpec {
    std::string name;
    std::uint64_t bytes = 0;
    unsigned target = 0;
    bool operator==(const FileSpec&) const = default;
};

struct JobSpec {
    std::string name = "random";
    unsigned group = 0;   // groups run in order; a group's jobs at once
    unsigned copies = 1;  // workers running the job (fio's numjobs)
    // Where: copy c works on files[c % files.size()], in the range
    // [offset + c * offset_increment, + range_bytes) of it (range_bytes 0:
    // to the end of the file).
    std::vector<FileSpec> files;
    std::uint64_t offset = 0;
    std::uint64_t offset_increment = 0;
    std::uint64_t range_bytes = 0;
    // What: the access, the shares of reads and trims (the rest writes),
    // the operations' sizes (block, or a weighted mix whose sizes may be any
    // multiple of the unit), where they are aligned (blockalign, 0: each
    // operation to its own size) and where they land.
    Access access = Access::random;
    // A sequential stream's step after each operation (fio's rw=read:-8k;
    // negative: backwards), a multiple of its block; 0: block after block.
    std::int64_t offset_step = 0;
    unsigned read_pct = 70;
    unsigned trim_pct = 0;
    std::uint32_t block = 4096;
    std::vector<units::BlockShare> mix;  // empty: every operation is `block`
    std::uint32_t blockalign = 0;
    // The largest operation its buffers must hold when that is more than
    // its sizes (a sweep's largest block, a replayed trace's); 0: none.
    std::uint32_t slot_block = 0;
    // The verification unit asked for (--unit, the plain run's
    // rand_block); 0: derived from the sizes of the jobs on each file.
    std::uint32_t unit = 0;
    stats::DistributionSpec distribution;
    unsigned depth = 1;  // operations in flight per copy, asked
    unsigned batch = 1;
    double rate = 0;  // operations a second over all copies (0: closed loop)
    Arrivals arrivals = Arrivals::fixed;
    pattern::UnitShape shape = pattern::kSectorBytes;  // --compress, --dedupe
    bool verify = true;
    bool atomic = false;
    SyncMethod sync = SyncMethod::none;
    std::uint64_t sync_every = 1;
    bool end_fsync = false;
    // How long (0: no such limit).  `ops` is over all copies, split between
    // them (the first ones taking the rest: the plain run's --rand-ops;
    // fio's number_ios x numjobs); io_bytes and loops are each copy's.
    // With none of these the group's time (runtime, or the run's) ends it.
    double runtime_s = 0;
    std::uint64_t ops = 0;
    std::uint64_t io_bytes = 0;
    unsigned loops = 0;
    double ramp_s = 0;           // operations completing this early are not in its figures
    double startdelay_s = 0;     // its copies start this long after the group
    std::vector<unsigned> cpus;  // empty: where the run places workers

    // The sizes its operations take, ascending (the mix's, or the block).
    std::vector<std::uint32_t> sizes() const;
    // The largest operation it may issue (slot_block included).
    std::uint32_t largest_block() const;
};

// The plain run as its one job: "random", the random phase's workload,
// cfg.workers() copies, copy i on the run's file i (named as the target
// names it without a --path prefix: "drivestress-N.dat", N from 0 in each
// target), group 0; --rand-ops is its `ops`, the run's time its end.
std::vector<JobSpec> jobs_from_config(const RunConfig& cfg);

}  // namespace ds::model
