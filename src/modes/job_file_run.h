// --job-file: the job file read (jobfile/), its jobs mapped onto the
// engine's (cli/job_file_jobs.h) and put into the run's configuration, on
// the system as it is right before the run (files that exist, CPUs).
#pragma once

#include <string>
#include <vector>

#include "model/config.h"

namespace ds::modes {

// With cfg.job_file: reads it (standard input for "-"), applies
// cfg.job_set, maps the jobs and fills in cfg.jobs, the files (the run's
// drivestress-N.dat in TARGET, one per file of the job file, at the largest
// size any job gives it), the backend, O_DIRECT and the phases (lay out,
// the jobs, reverify).  Returns the mapping's notes and which file of the
// job file each drivestress-N.dat stands for, one line each.  Throws
// jobfile::JobFileError or model::SetupError, one line naming the file,
// line and option.
std::vector<std::string> load_job_file(model::RunConfig& cfg);

}  // namespace ds::modes
