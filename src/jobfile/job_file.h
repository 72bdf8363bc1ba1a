// A fio job file into typed jobs: the syntax (sections.h), each section's
// options in fio's order onto a Job (a [global] section changes the
// defaults of the sections after it), then what fio checks across jobs:
// wait_for names an earlier job, groups (stonewall, new_group), at most
// 4096 jobs counting numjobs copies.  Nothing runs: the jobs are mapped
// onto the engine elsewhere.
#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "jobfile/job.h"
#include "jobfile/sections.h"

namespace ds::jobfile {

inline constexpr std::size_t kMaxJobs = 4096;  // counting numjobs copies, as fio's REAL_MAX_JOBS
// What the jobs may hold in memory, estimated by job_bytes: fio has no
// bound, but a [global] with 4096 file names copied into 4096 jobs would
// hold 16 million strings.
inline constexpr std::size_t kMaxJobBytes = 256 * 1024 * 1024;

// A job's memory, estimated: the Job, its strings and lists.
std::size_t job_bytes(const Job& job);

// The jobs of job file `path` ("-": standard input), in file order.
// Throws JobFileError.
std::vector<Job> read_job_file(const std::string& path, std::istream& standard_input,
                               const Environment& env);
// The jobs of a job file's text, named `name` in messages.
std::vector<Job> parse_job_text(std::string_view text, const std::string& name,
                                const Environment& env);
// The jobs of sections read already (`name`: the file, for "no jobs"),
// refused when they come to over `max_bytes` (job_bytes).
std::vector<Job> build_jobs(const std::vector<Section>& sections, const std::string& name,
                            std::size_t max_bytes = kMaxJobBytes);

// Applies options to a job in fio's order: kb_base (and fio's other
// first options) first, filename last, engine options after the rest.
void apply_options(Job& job, const std::vector<RawOption>& options);

// What fio checks across jobs, in file order: nrfiles counts filenames,
// wait_for names an earlier job (not itself, not two), the groups, at
// most kMaxJobs jobs.  build_jobs and apply_job_set end with it.
void check_jobs(std::vector<Job>& jobs);

// --job-set KEY=VALUE, each in order, onto every job through the same
// parsers (filename= replaces the job's files); errors name "--job-set".
void apply_job_set(std::vector<Job>& jobs, std::span<const std::string> overrides);

}  // namespace ds::jobfile
