// Which runs and phases --fio-json's document lists as fio jobs, and each
// one's workload in fio's option names (report/fio_json.h lays them out).
// The workload phase is the random phase today; a job is one run's random
// phase with every worker (fio's numjobs copies under group_reporting),
// merged over its iterations and repeats.  Each run, and each point of a
// sweep, is a group of its own (groupid in run order), as stonewalled jobs
// of a job file would be.  A run of several jobs (--job-file; docs:
// jobs.md) gives one FioJob per job, its copies merged, its group its
// stonewalled group's, its options read off what it ran.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/results.h"
#include "report/fio_json.h"

namespace ds::report {

// One run a document covers: a single run, a --compare-backends row, a
// --preset test.
struct FioRunRef {
    std::string label;  // its job's name ("random"), or its points' first word
    const model::RunConfig* cfg = nullptr;
    const model::RunResult* result = nullptr;
};

// The jobs of `runs`, in order: a run's random phase is one job named by
// its label; a sweep's (or --find-rate's) points one job each, named
// "LABEL qd=4" (files=, rand-block=, rate=); a run whose random phase did
// not run (a preset's sequential test) has none.  `end`: when the runs
// ended (timestamp and time).
FioDocument fio_document(const std::vector<FioRunRef>& runs,
                         std::chrono::system_clock::time_point end);

// A job's workload in fio's options, in job-file order: rw, rwmixread, bs
// or bssplit, ioengine, iodepth, direct, size, numjobs, runtime or
// number_ios, rate_iops, random_distribution, fsync, ...; `at`: a sweep
// point's changes.
std::vector<std::pair<std::string, std::string>> fio_job_options(const std::string& name,
                                                                 const model::RunConfig& cfg,
                                                                 const model::RunResult& r,
                                                                 const model::PlanPoint& at);

// Spellings fio takes: 4096 -> "4k", 268435456 -> "256m", 1000 -> "1000";
// 10 s -> "10", 0.5 s -> "500ms"; zipf:1.2 -> "zipf:1.2", normal:5% ->
// "normal:5", zoned:60/10,40/90 -> "zoned:60/10:40/90".
std::string fio_size(std::uint64_t bytes);
std::string fio_duration(double seconds);
std::string fio_distribution(const stats::DistributionSpec& d);

}  // namespace ds::report
