// The parts of jobs_from_job_file (cli/job_file_jobs.h), one per concern,
// and how each refuses and notes: a refusal names the line where the
// option was set (the job's section header when it was not), a note the
// same.  For cli/job_file_*.cpp and their tests only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/job_file_jobs.h"

namespace ds::cli::jobmap {

// Where `option` was set for `job`, else the job's section header.
jobfile::Origin where(const jobfile::Job& job, std::string_view option);

// Throws JobFileError "FILE:LINE: OPTION: why (fio runs it)", or "(fio
// refuses it too)" for what fio also refuses.
[[noreturn]] void refuse(const jobfile::Job& job, std::string_view option, const std::string& why,
                         bool fio_refuses = false);

// "FILE:LINE: OPTION: text", once however many jobs inherit it.
void note(std::vector<std::string>& notes, const jobfile::Job& job, std::string_view option,
          const std::string& text);

// a * b + c, refused at `option` past 2^64 - 1.
std::uint64_t checked(const jobfile::Job& job, std::string_view option, std::uint64_t a,
                      std::uint64_t b, std::uint64_t c = 0);

// "4096", "1536": sizes in messages, as bytes.
std::string bytes_text(std::uint64_t bytes);

// Refuses what no JobSpec field holds (think time, minimum rates, wait_for,
// exitall, fill_device, fio's logs, steady state, continue_on_error, NUMA
// nodes, offloaded submission, fio's queue-refill knobs).
void refuse_unmapped(const jobfile::Job& job);

// What today's engine cannot run though a JobSpec can say it: a
// sequential stream of several sizes (a stream's operations are one size).
void refuse_engine_limits(const jobfile::Job& job, const model::JobSpec& spec);

// The workload: access and shares (rw, rwmixread), sizes (bs, bssplit,
// bsrange, blockalign), distribution, depth and batch, rate and arrivals,
// syncs, the data's shape, CPUs.  `sync_backend`: the job runs on the sync
// backend (one operation at a time, as fio's sync engines).
void map_workload(const jobfile::Job& job, bool sync_backend, model::JobSpec& spec,
                  std::vector<std::string>& notes);

// The files and the range: filename, directory, nrfiles, filesize, size,
// offset, offset_increment; targets found or added.
void map_files(const jobfile::Job& job, const JobFileContext& ctx,
               std::vector<JobFileTarget>& targets, model::JobSpec& spec,
               std::vector<std::string>& notes);

// How long: runtime, time_based, ramp_time, startdelay, loops, io_size,
// number_ios (after map_files: io_size=N% is a share of the range).
void map_ends(const jobfile::Job& job, model::JobSpec& spec, std::vector<std::string>& notes);

}  // namespace ds::cli::jobmap
