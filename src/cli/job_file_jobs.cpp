// jobs_from_job_file: each job through the parts of cli/job_file_map.h,
// then what is the run's (backend, O_DIRECT, groups) decided over all.
#include "cli/job_file_jobs.h"

#include <algorithm>
#include <map>
#include <span>
#include <utility>

#include "cli/job_file_map.h"

namespace ds::cli {

namespace jobmap {

jobfile::Origin where(const jobfile::Job& job, std::string_view option) {
    const jobfile::Origin* o = job.origin_of(option);
    return o ? *o : job.origin;
}

void refuse(const jobfile::Job& job, std::string_view option, const std::string& why,
            bool fio_refuses) {
    throw jobfile::JobFileError(where(job, option), std::string(option),
                                why + (fio_refuses ? " (fio refuses it too)" : " (fio runs it)"));
}

void note(std::vector<std::string>& notes, const jobfile::Job& job, std::string_view option,
          const std::string& text) {
    std::string line = jobfile::error_line(where(job, option), std::string(option), text);
    if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
}

std::uint64_t checked(const jobfile::Job& job, std::string_view option, std::uint64_t a,
                      std::uint64_t b, std::uint64_t c) {
    std::uint64_t product = 0, sum = 0;
    if (__builtin_mul_overflow(a, b, &product) || __builtin_add_overflow(product, c, &sum))
        refuse(job, option, "more than 2^64 - 1 bytes or operations");
    return sum;
}

std::string bytes_text(std::uint64_t bytes) {
    return std::to_string(bytes);
}

namespace {

bool any_of3(const jobfile::PerDirection<std::uint64_t>& v) {
    return v[0] || v[1] || v[2];
}

// fio's queue-refill knobs at anything but what drivestress does (refill
// at once, reap what has completed).
void refuse_queue_knobs(const jobfile::Job& job) {
    if (job.iodepth_low != 0 && job.iodepth_low < job.iodepth)
        refuse(job, "iodepth_low",
               "a queue left to drain to " + std::to_string(job.iodepth_low) +
                   ": drivestress refills at once");
    if (job.iodepth_batch_complete_min > 1)
        refuse(job, "iodepth_batch_complete_min",
               "waiting for " + std::to_string(job.iodepth_batch_complete_min) +
                   " completions: drivestress reaps what has completed");
    if (job.iodepth_batch_complete_max != 0 && job.iodepth_batch_complete_max < job.iodepth)
        refuse(job, "iodepth_batch_complete_max",
               "reaping at most " + std::to_string(job.iodepth_batch_complete_max) +
                   ": drivestress reaps what has completed");
}

// The fio logs a job asks for: not written yet.
void refuse_logs(const jobfile::Job& job) {
    if (job.bw_log.on) refuse(job, "write_bw_log", "fio's logs are not written yet");
    if (job.iops_log.on) refuse(job, "write_iops_log", "fio's logs are not written yet");
    if (job.lat_log.on) refuse(job, "write_lat_log", "fio's logs are not written yet");
}

// The option that gave the job's sizes.
const char* sizes_option(const jobfile::Job& job) {
    for (std::size_t d = 0; d < 3; ++d)
        if (!job.bssplit[d].empty()) return "bssplit";
    for (std::size_t d = 0; d < 3; ++d)
        if (job.bsrange[d]) return "bsrange";
    return "bs";
}

}  // namespace

// Sizes may be any multiple of the unit, each random operation placed at
// blockalign (engine/phases.h, RandomPhase); a stream has one size.
void refuse_engine_limits(const jobfile::Job& job, const model::JobSpec& spec) {
    if (spec.access == model::Access::sequential && !spec.mix.empty())
        refuse(job, sizes_option(job),
               "a sequential stream of several sizes: the engine's streams take one");
    if (spec.offset_step % static_cast<std::int64_t>(spec.block) != 0)
        refuse(job, "rw",
               "an offset step of " + std::to_string(spec.offset_step) +
                   " bytes: not a multiple of the block (" + std::to_string(spec.block) + ")");
    if (spec.offset_step == -static_cast<std::int64_t>(spec.block))
        refuse(job, "rw",
               "an offset step of minus the block reads one block over and over, several reads "
               "of it in flight at once");
}

void refuse_unmapped(const jobfile::Job& job) {
    if (job.thinktime_us) refuse(job, "thinktime", "drivestress has no think time");
    if (any_of3(job.rate_min)) refuse(job, "rate_min", "no least rate that fails a job yet");
    if (any_of3(job.rate_iops_min))
        refuse(job, "rate_iops_min", "no least rate that fails a job yet");
    if (job.exitall) refuse(job, "exitall", "a job's end does not end the others yet");
    if (job.fill_device) refuse(job, "fill_device", "drivestress writes within sized files");
    if (job.steadystate_duration_us)
        refuse(job, job.origin_of("steadystate_duration") ? "steadystate_duration" : "steadystate",
               "fio's steady-state test is not a job's end yet");
    if (job.continue_on_error != jobfile::ContinueOnError::none)
        refuse(job, "continue_on_error", "an I/O error is a finding, never continued past");
    if (!job.numa_cpu_nodes.empty())
        refuse(job, "numa_cpu_nodes", "give the nodes' CPUs as cpus_allowed");
    refuse_queue_knobs(job);
    refuse_logs(job);
}

}  // namespace jobmap

namespace {

using jobmap::note;
using jobmap::refuse;

const char* backend_text(jobfile::Backend b) {
    switch (b) {
        case jobfile::Backend::io_uring:
            return "io_uring";
        case jobfile::Backend::nop:
            return "nop";
        case jobfile::Backend::sync:
            break;
    }
    return "sync";
}

std::string job_at(const jobfile::Job& job, std::string_view option) {
    const jobfile::Origin o = jobmap::where(job, option);
    return "job '" + job.name + "' (" + o.file + ":" + std::to_string(o.line) + ")";
}

// One backend and one O_DIRECT for the run: the first job's; a job asking
// for another is refused at its own line.
void decide_run(const std::vector<jobfile::Job>& jobs, JobFileJobs& out) {
    const jobfile::Job& first = jobs.front();
    for (const jobfile::Job& j : jobs) {
        if (j.ioengine.backend != first.ioengine.backend)
            refuse(j, "ioengine",
                   "'" + j.ioengine.name + "' runs on the " + backend_text(j.ioengine.backend) +
                       " backend, " + job_at(first, "ioengine") + " on " +
                       backend_text(first.ioengine.backend) + ": one backend per run");
        if (j.direct != first.direct)
            refuse(j, "direct",
                   std::string(j.direct ? "O_DIRECT" : "buffered I/O") + " beside " +
                       job_at(first, "direct") +
                       (first.direct ? " with O_DIRECT" : " with buffered I/O") +
                       ": one for the whole run");
    }
    out.backend = first.ioengine.backend == jobfile::Backend::sync ? model::BackendChoice::sync
                                                                   : model::BackendChoice::io_uring;
    out.nop = first.ioengine.backend == jobfile::Backend::nop;
    out.buffered = !first.direct;
    if (out.nop)
        note(out.notes, first, "ioengine",
             "null: the nop backend, no I/O reaches the device and nothing is verified");
}

// fio extends a file to what each job on it reaches: one size, the
// largest, for every job naming it.
void same_file_sizes(std::vector<model::JobSpec>& jobs) {
    std::map<std::pair<unsigned, std::string>, std::uint64_t> largest;
    for (const model::JobSpec& j : jobs)
        for (const model::FileSpec& f : j.files) {
            std::uint64_t& bytes = largest[{f.target, f.name}];
            bytes = std::max(bytes, f.bytes);
        }
    for (model::JobSpec& j : jobs)
        for (model::FileSpec& f : j.files)
            f.bytes = largest[{f.target, f.name}];
}

// fio's wait_for=X starts the job when X ends; drivestress starts a group
// when every job before it has ended.  The two agree, and wait_for starts
// a group, when every job of the group so far is X (or its copies) and
// every job after this one until the next stonewall waits for a job too
// (fio starts one that does not at once, beside X).  A job waiting for the
// X that started its group joins that group.
struct Grouping {
    unsigned group = 0, in_group = 0;
    std::size_t start = 0;  // the index of the group's first job
    std::string waited;     // the job that group's first job waits for, if any
};

bool starts_group_by_wait(std::span<const jobfile::Job> jobs, std::size_t i, const Grouping& g) {
    const jobfile::Job& job = jobs[i];
    if (job.wait_for.empty() || job.stonewall) return false;
    if (g.in_group > 0 && job.wait_for == g.waited) return false;
    for (std::size_t k = g.start; k < i; ++k)
        if (jobs[k].name != job.wait_for)
            refuse(job, "wait_for",
                   "'" + jobs[k].name + "' runs before it too: fio starts it when '" +
                       job.wait_for + "' ends, drivestress when every job of its group before " +
                       "it has");
    for (std::size_t k = i + 1; k < jobs.size() && !jobs[k].stonewall; ++k)
        if (jobs[k].wait_for.empty())
            refuse(job, "wait_for",
                   "'" + jobs[k].name + "' after it waits for nothing: fio starts it beside '" +
                       job.wait_for + "', drivestress would start it after");
    return true;
}

// fio's stonewall starts the group that runs after the jobs before it (and
// wait_for, where starts_group_by_wait takes it); new_group only starts a
// group for reporting, so the job runs beside the jobs before it (and is
// reported with them: said).
unsigned run_group(std::span<const jobfile::Job> jobs, std::size_t i, Grouping& g,
                   std::vector<std::string>& notes) {
    const jobfile::Job& job = jobs[i];
    const bool waits = starts_group_by_wait(jobs, i, g);
    if ((job.stonewall || waits) && g.in_group > 0) {
        ++g.group;
        g.in_group = 0;
        g.start = i;
        g.waited = waits ? job.wait_for : std::string();
    } else if (job.new_group && !job.stonewall && g.in_group > 0 && job.wait_for.empty()) {
        note(notes, job, "new_group",
             "reporting only: the job runs, and is reported, with the jobs before it");
    }
    ++g.in_group;
    return g.group;
}

// What the reader noted, and the notes of options that change nothing.
void general_notes(const jobfile::Job& job, std::vector<std::string>& notes) {
    for (const jobfile::Note& n : job.notes) {
        std::string line = jobfile::error_line(n.origin, n.option, n.text);
        if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
    }
    if (job.origin_of("randseed") || !job.randrepeat)
        note(notes, job, job.origin_of("randseed") ? "randseed" : "randrepeat",
             "every job's random choices follow the run's seed (--seed)");
    if (job.origin_of("create_on_open"))
        note(notes, job, "create_on_open", "drivestress lays every file out before its jobs");
    if (job.origin_of("fallocate"))
        note(notes, job, "fallocate", "drivestress lays every file out by writing it");
    if (job.group_reporting)
        note(notes, job, "group_reporting", "drivestress reports each job, its copies together");
    if (job.refill_buffers)
        note(notes, job, "refill_buffers", "every write of drivestress carries new data");
    // fio offloads submission so that a rate is kept while the device lags
    // (no coordinated omission); drivestress's open loop issues each
    // operation at its due time and times it from then, inline.
    if (job.io_submit_mode == jobfile::SubmitMode::offload)
        note(notes, job, "io_submit_mode",
             "offload: drivestress's workers submit their own I/O, a rate's latency timed from "
             "each due time");
}

}  // namespace

JobFileJobs jobs_from_job_file(const std::vector<jobfile::Job>& jobs, const JobFileContext& ctx) {
    JobFileJobs out;
    if (jobs.empty()) return out;
    decide_run(jobs, out);
    Grouping grouping;
    bool keeps = false;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const jobfile::Job& job = jobs[i];
        jobmap::refuse_unmapped(job);
        if (ctx.cpus && !job.cpus_allowed.empty() && job.cpus_allowed.back() >= ctx.cpus)
            refuse(job, "cpus_allowed",
                   "CPU " + std::to_string(job.cpus_allowed.back()) + ": the host has " +
                       std::to_string(ctx.cpus) + " (0 to " + std::to_string(ctx.cpus - 1) + ")",
                   true);
        model::JobSpec spec;
        spec.name = job.name;
        spec.group = run_group(jobs, i, grouping, out.notes);
        spec.copies = job.numjobs;
        spec.verify = !out.nop;
        jobmap::map_files(job, ctx, out.targets, spec, out.notes);
        jobmap::map_workload(job, out.backend == model::BackendChoice::sync, spec, out.notes);
        jobmap::refuse_engine_limits(job, spec);
        jobmap::map_ends(job, spec, out.notes);
        general_notes(job, out.notes);
        keeps = keeps || !job.unlink;
        out.jobs.push_back(std::move(spec));
    }
    same_file_sizes(out.jobs);
    if (keeps)
        note(out.notes, jobs.front(), "unlink",
             "fio keeps its files; drivestress removes its own at the end");
    return out;
}

}  // namespace ds::cli
