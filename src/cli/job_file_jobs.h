// fio's jobs (jobfile/job.h, as the reader types them) onto drivestress's
// (model/job.h, what the engine runs): each option a JobSpec can express is
// mapped exactly, and anything it or the engine cannot honour today is
// refused in one line, "FILE:LINE: OPTION: why (fio runs it)", never
// approximated.  What changes nothing drivestress does comes back as notes
// a user should read.  --job-file calls it before the run
// (modes/job_file_run.h).
//
// What is decided here for the whole run, from every job:
//   backend   each job's ioengine maps to one (io_uring, libaio, posixaio:
//             io_uring; sync, psync, pvsync, pvsync2, vsync: sync; null:
//             nop, not verified); a run has one backend, so a job whose
//             engine maps to another than the first job's is refused at its
//             ioengine line.
//   direct    O_DIRECT is the run's (--buffered): the first job decides, a
//             job with the other is refused at its direct (or buffered) line.
//   targets   a TARGET given (JobFileContext::target) holds every job's files
//             (it replaces directory= and relative filenames); otherwise
//             each file's directory is its target.  A block device named in
//             filename= is a target of its own.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "jobfile/job.h"
#include "model/config.h"
#include "model/job.h"

namespace ds::cli {

// What the mapper needs to know of the machine, given by the caller (a
// test gives a fixed one).
struct PathFacts {
    std::uint64_t bytes = 0;  // a regular file's size, a block device's
    bool device = false;      // a block device
};
struct JobFileContext {
    // A TARGET on the command line ("": none).
    std::string target;
    // An existing file or block device at `path`: its size (fio's size=N%
    // and a file named without a size take it); nullopt when none exists.
    std::function<std::optional<PathFacts>(const std::string& path)> look;
    // The CPUs configured: cpus_allowed may name 0 to cpus - 1 (0: not checked).
    unsigned cpus = 0;
};

// Where a JobSpec's FileSpec::target points.
struct JobFileTarget {
    std::string path;     // a directory, or a block device
    bool device = false;  // the device is written: --destroy-data names it
    bool operator==(const JobFileTarget&) const = default;
};

struct JobFileJobs {
    std::vector<model::JobSpec> jobs;  // the file's jobs in order, copies in `copies`
    std::vector<JobFileTarget> targets;
    model::BackendChoice backend = model::BackendChoice::sync;
    bool nop = false;                // ioengine=null: the nop backend (io_uring, verify off)
    bool buffered = true;            // no job asked for direct=1
    std::vector<std::string> notes;  // one line each: "FILE:LINE: OPTION: text"
};

// The engine's jobs for a job file's.  Throws jobfile::JobFileError on the
// first option it refuses.  Sizes, as fio's: a device's file is the device
// and size its region from offset; another file is `filesize` (size then
// being the I/O of each pass, not the region), else offset + size (with
// numjobs copies on one file, up to the last copy's offset_increment), else
// the existing file's size; size=N% and offset=N% are shares of that; a
// file several jobs name takes the largest size any of them gives it.
// Time: runtime counts after ramp_time, as in fio (JobSpec::runtime_s is
// their sum).
JobFileJobs jobs_from_job_file(const std::vector<jobfile::Job>& jobs, const JobFileContext& ctx);

}  // namespace ds::cli
