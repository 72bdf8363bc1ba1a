#include "modes/job_file_run.h"

#include <sys/stat.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <utility>

#include "cli/job_file_jobs.h"
#include "jobfile/job_file.h"
#include "model/errors.h"
#include "model/job.h"
#include "sys/numa.h"

namespace ds::modes {

namespace {

// What is at `path` now: a regular file's size, a block device.
std::optional<cli::PathFacts> look(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    if (S_ISBLK(st.st_mode)) return cli::PathFacts{0, true};
    if (!S_ISREG(st.st_mode)) return std::nullopt;
    return cli::PathFacts{static_cast<std::uint64_t>(st.st_size), false};
}

}  // namespace

std::vector<std::string> load_job_file(model::RunConfig& cfg) {
    std::vector<std::string> lines;
    if (cfg.job_file.empty()) return lines;
    std::vector<jobfile::Job> parsed =
        jobfile::read_job_file(cfg.job_file, std::cin, jobfile::process_environment());
    jobfile::apply_job_set(parsed, cfg.job_set);
    cli::JobFileContext ctx;
    ctx.target = cfg.target;
    ctx.look = look;
    ctx.cpus = sys::usable_cpus();
    cli::JobFileJobs mapped = cli::jobs_from_job_file(parsed, ctx);
    for (const model::JobSpec& j : mapped.jobs)
        for (const model::FileSpec& f : j.files) {
            const cli::JobFileTarget& t = mapped.targets.at(f.target);
            if (t.device || t.path != cfg.target)
                throw model::SetupError(
                    cfg.job_file + ": job '" + j.name +
                    "': " + (t.device ? f.name : t.path + "/" + f.name) +
                    " is outside TARGET (a block device, an absolute filename=): not yet; "
                    "--job-set filename=NAME puts every job's file in TARGET");
        }
    // Each file of the job file is one of the run's, drivestress-N.dat in
    // TARGET, in the order the jobs first name them: the run never writes a
    // name it does not own.
    std::map<std::string, unsigned> number;
    std::vector<std::uint64_t> bytes;
    for (const model::JobSpec& j : mapped.jobs)
        for (const model::FileSpec& f : j.files) {
            const auto [at, fresh] =
                number.try_emplace(f.name, static_cast<unsigned>(bytes.size()));
            if (fresh) {
                bytes.push_back(0);
                lines.push_back(cfg.job_file + ": " + f.name + " is drivestress-" +
                                std::to_string(at->second) + ".dat in TARGET");
            }
            bytes[at->second] = std::max(bytes[at->second], f.bytes);
        }
    for (model::JobSpec& j : mapped.jobs)
        for (model::FileSpec& f : j.files) {
            const unsigned n = number.at(f.name);
            f = {"drivestress-" + std::to_string(n) + ".dat", bytes[n], 0};
        }
    cfg.files = static_cast<unsigned>(bytes.size());
    cfg.file_bytes = *std::max_element(bytes.begin(), bytes.end());
    cfg.backend = mapped.backend;
    cfg.nop = mapped.nop;
    cfg.buffered = mapped.buffered;
    cfg.verify = !mapped.nop;
    cfg.seq_time_s = 0;
    cfg.seq_until_measured = false;
    cfg.phases = mapped.nop
                     ? std::vector<model::Phase>{model::Phase::random}
                     : std::vector<model::Phase>{model::Phase::seq_write, model::Phase::random,
                                                 model::Phase::reverify};
    cfg.jobs = std::make_shared<const std::vector<model::JobSpec>>(std::move(mapped.jobs));
    for (std::string& n : mapped.notes)
        lines.push_back(std::move(n));
    return lines;
}

}  // namespace ds::modes
