// A run of several jobs (model/job.h): the table of each job's own figures,
// grouped, within 100 columns.
#pragma once

#include <string>

#include "model/results.h"
#include "units/units.h"

namespace ds::report {

// A row per job in group order (a line naming each group when there are
// several): its name, access and mix (fio's rw), sizes (bs), depth, IOPS,
// bandwidth, latency percentiles (p50, p99, p99.9 in ms) and bytes
// verified.  Empty for a run of one job (a plain run's report is as it was).
std::string job_table(const model::RunResult& r, units::ByteUnits u = units::ByteUnits::iec);

// fio's rw for a job's access and shares: "randread", "write", "randrw70"
// (70 % reads), "rw70t10" (and 10 % trims).
std::string job_rw(const model::JobResult& j);

// Its sizes as fio's bs spells them: "4k", "128k", "1536", a range
// "4k-128k" for a mix.
std::string job_bs(const model::JobResult& j);

}  // namespace ds::report
