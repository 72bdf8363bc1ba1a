// One job of a fio job file after [global] inheritance: every option
// drivestress takes (option_policy.h), typed, with fio 3.33's defaults,
// and where each was set (file:line) for the errors of whoever maps the
// job onto the engine.  `numjobs` stays a count: expanding the copies is
// the mapper's.  Sizes are bytes, times microseconds.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jobfile/error.h"
#include "jobfile/values.h"

namespace ds::jobfile {

// fio's data directions, the index of a per-direction value.
enum class Direction { read = 0, write = 1, trim = 2 };
template <class T>
using PerDirection = std::array<T, 3>;

// rw=; rw=rw and rw=readwrite are both readwrite.
enum class Rw {
    read,
    write,
    trim,
    randread,
    randwrite,
    randtrim,
    readwrite,
    randrw,
    trimwrite,
    randtrimwrite
};
bool is_random(Rw rw);

struct SizeRange {  // bsrange, filesize: min <= max
    std::uint64_t min = 0, max = 0;
    bool operator==(const SizeRange&) const = default;
};
struct TimeRange {  // startdelay: a random delay between min and max
    std::uint64_t min_us = 0, max_us = 0;
    bool operator==(const TimeRange&) const = default;
};

struct BlockShare {  // one size of a bssplit
    std::uint64_t bytes = 0;
    unsigned percent = 0;
    bool operator==(const BlockShare&) const = default;
};

enum class DistributionKind { random, zipf, pareto, normal, zoned, zoned_abs };
struct Zone {  // zoned: access_percent of I/O to size_percent of the file; zoned_abs: size_bytes
    unsigned access_percent = 0;
    unsigned size_percent = 0;
    std::uint64_t size_bytes = 0;
    bool operator==(const Zone&) const = default;
};
struct Distribution {
    DistributionKind kind = DistributionKind::random;
    double parameter = 0;          // zipf theta, pareto power, normal deviation (per cent)
    std::optional<double> center;  // zipf:1.2:0.25 -> 0.25 (0 to 1)
    PerDirection<std::vector<Zone>> zones;
    bool operator==(const Distribution&) const = default;
};

// drivestress's backend for fio's engine.
enum class Backend { io_uring, sync, nop };
struct Engine {
    std::string name = "psync";  // as fio names it
    Backend backend = Backend::sync;
    bool operator==(const Engine&) const = default;
};

enum class SyncMode { none, sync, dsync };
enum class RateProcess { linear, poisson };
enum class Fallocate { none, native, posix, keep, truncate };
enum class SubmitMode { inline_submit, offload };
enum class ContinueOnError { none, read, write, io, verify, all };
enum class CpusPolicy { shared, split };
enum class ExitWhat { group, stonewall, all };
enum class SteadyKind { iops, iops_slope, bw, bw_slope };

struct Log {  // write_bw_log=NAME: on, and the file names' prefix ("" the job's name)
    bool on = false;
    std::string prefix;
    bool operator==(const Log&) const = default;
};

// Names a job may hold in filename= (and directory=): fio has no bound,
// a reader of hostile input needs one.
inline constexpr std::size_t kMaxNames = 4096;

// A noted option: accepted, changing nothing drivestress does (one per
// option: the last place it was written).
struct Note {
    Origin origin;
    std::string option;
    std::string text;
};

struct Job {
    std::string section;  // the section's name
    std::string name;     // name= or the section's
    Origin origin;        // the section header
    int group = 0;        // fio's group: stonewall or new_group starts the next
    unsigned kb_base = 1024;
    std::vector<Note> notes;
    // Where each taken option was last set, by fio's name of it (not an
    // alias); direct and buffered, rwmixread and rwmixwrite, share theirs.
    std::map<std::string, Origin, std::less<>> set;
    const Origin* origin_of(std::string_view option) const;

    // Jobs and groups
    unsigned numjobs = 1;
    bool stonewall = false, new_group = false, group_reporting = false;
    bool exitall = false, thread = false;
    ExitWhat exit_what = ExitWhat::group;
    std::string wait_for;
    TimeRange startdelay;
    // Files: filename= accumulates (a job adds to [global]'s), as in fio
    std::vector<std::string> filenames;
    std::vector<std::string> directories;
    unsigned nrfiles = 1;  // the number of filenames when there are some
    SizeRange filesize;    // 0: size / nrfiles
    Amount size, offset, offset_increment, io_size;
    std::uint64_t number_ios = 0;
    bool fill_device = false, create_on_open = false, unlink = false;
    Fallocate fallocate = Fallocate::native;
    // The workload
    Rw rw = Rw::read;
    std::int64_t rw_offset_step = 0;  // rw=read:-8k: added to each sequential offset
    unsigned rw_random_run = 1;       // rw=randread:8: a new random offset every 8 I/Os
    unsigned rwmixread = 50;          // rwmixwrite is 100 - rwmixread
    PerDirection<std::uint64_t> bs{4096, 4096, 4096};
    PerDirection<std::optional<SizeRange>> bsrange;
    PerDirection<std::vector<BlockShare>> bssplit;    // in fio's order (by percent)
    PerDirection<std::uint64_t> blockalign{0, 0, 0};  // 0: the block size
    Distribution random_distribution;
    bool norandommap = false, randrepeat = true;
    std::uint64_t randseed = 0x89;
    // The queue
    Engine ioengine;
    unsigned iodepth = 1, iodepth_batch = 1, iodepth_batch_complete_min = 1;
    unsigned iodepth_batch_complete_max = 0, iodepth_low = 0;  // 0: fio's iodepth
    SubmitMode io_submit_mode = SubmitMode::inline_submit;
    // Durability
    bool direct = false;
    unsigned fsync = 0, fdatasync = 0;
    bool end_fsync = false;
    SyncMode sync = SyncMode::none;
    // Time
    bool time_based = false;
    std::uint64_t runtime_us = 0, ramp_time_us = 0;
    unsigned loops = 1;
    // Rate and think time (0: no limit)
    PerDirection<std::uint64_t> rate{0, 0, 0}, rate_min{0, 0, 0};  // bytes a second
    PerDirection<std::uint64_t> rate_iops{0, 0, 0}, rate_iops_min{0, 0, 0};
    RateProcess rate_process = RateProcess::linear;
    std::uint64_t thinktime_us = 0, thinktime_spin_us = 0;
    unsigned thinktime_blocks = 1;
    // Data written
    std::optional<unsigned> buffer_compress_percentage;
    bool refill_buffers = false;
    unsigned dedupe_percentage = 0;
    // Placement
    std::vector<unsigned> cpus_allowed;  // sorted; empty: any
    CpusPolicy cpus_allowed_policy = CpusPolicy::shared;
    std::vector<unsigned> numa_cpu_nodes;  // sorted; empty: any
    // Logs
    Log bw_log, iops_log, lat_log;
    unsigned log_avg_msec = 0;
    bool per_job_logs = true;
    // Errors, steady state (off while steadystate_duration_us is 0)
    ContinueOnError continue_on_error = ContinueOnError::none;
    SteadyKind steadystate = SteadyKind::iops_slope;
    double steadystate_limit = 0.01;
    bool steadystate_percent = true;  // the limit is a per cent of the mean
    std::uint64_t steadystate_duration_us = 0, steadystate_ramp_us = 0;
};

}  // namespace ds::jobfile
