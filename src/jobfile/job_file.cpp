#include "jobfile/job_file.h"

#include <algorithm>
#include <istream>

#include "units/units.h"

namespace ds::jobfile {

namespace {

// Where a job's option was set, else its section header.
Origin where(const Job& job, std::string_view option) {
    const Origin* o = job.origin_of(option);
    return o ? *o : job.origin;
}

// fio's wait_for_ok: the job waited for is an earlier one, named once.
void check_wait_for(const Job& job, std::span<const Job> earlier) {
    if (job.wait_for.empty()) return;
    Origin at = where(job, "wait_for");
    if (job.wait_for == job.section)
        throw JobFileError(at, "wait_for", "a job cannot wait for itself");
    auto named = std::count_if(earlier.begin(), earlier.end(),
                               [&](const Job& j) { return j.name == job.wait_for; });
    if (named == 0)
        throw JobFileError(at, "wait_for", quote(job.wait_for) + " is no job before this one");
    if (named > 1) throw JobFileError(at, "wait_for", quote(job.wait_for) + " names several jobs");
}

}  // namespace

std::size_t job_bytes(const Job& j) {
    constexpr std::size_t kString = sizeof(std::string);
    std::size_t n = sizeof(Job) + j.section.size() + j.name.size() + j.wait_for.size() +
                    j.origin.file.size() + j.bw_log.prefix.size() + j.iops_log.prefix.size() +
                    j.lat_log.prefix.size();
    for (const auto& list : {&j.filenames, &j.directories})
        for (const std::string& s : *list)
            n += kString + s.size();
    for (const Note& note : j.notes)
        n += sizeof(Note) + note.origin.file.size() + note.option.size() + note.text.size();
    for (const auto& [option, origin] : j.set)
        n += 64 + option.size() + origin.file.size();  // 64: a map node
    n += (j.cpus_allowed.size() + j.numa_cpu_nodes.size()) * sizeof(unsigned);
    for (int d = 0; d < 3; ++d)
        n += j.bssplit[d].size() * sizeof(BlockShare) +
             j.random_distribution.zones[d].size() * sizeof(Zone);
    return n;
}

void check_jobs(std::vector<Job>& jobs) {
    int group = 0;
    unsigned in_group = 0;
    std::size_t total = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        Job& job = jobs[i];
        if (!job.filenames.empty()) job.nrfiles = static_cast<unsigned>(job.filenames.size());
        check_wait_for(job, std::span<const Job>(jobs).first(i));
        if ((job.stonewall || job.new_group) && in_group > 0) {
            ++group;
            in_group = 0;
        }
        job.group = group;
        ++in_group;
        total += job.numjobs;
        if (total > kMaxJobs)
            throw JobFileError(
                where(job, "numjobs"), job.origin_of("numjobs") ? "numjobs" : "",
                "more than " + std::to_string(kMaxJobs) + " jobs (counting numjobs copies)");
    }
}

std::vector<Job> build_jobs(const std::vector<Section>& sections, const std::string& name,
                            std::size_t max_bytes) {
    Job defaults;  // fio's def_thread: every [global] so far
    std::vector<Job> jobs;
    std::size_t bytes = 0;
    for (const Section& s : sections) {
        if (s.global) {
            apply_options(defaults, s.options);
            continue;
        }
        if (jobs.size() >= kMaxJobs)
            throw JobFileError(s.origin, "", "more than " + std::to_string(kMaxJobs) + " jobs");
        Job job = defaults;
        job.section = s.name;
        job.name = s.name;
        job.origin = s.origin;
        apply_options(job, s.options);
        bytes += job_bytes(job);
        if (bytes > max_bytes)
            throw JobFileError(s.origin, "",
                               "the jobs so far hold over " + units::format_bytes(max_bytes) +
                                   " (names, files, options)");
        jobs.push_back(std::move(job));
    }
    if (jobs.empty())
        throw JobFileError({name, 0}, "", "no jobs (only [global] sections, or none)");
    check_jobs(jobs);
    return jobs;
}

std::vector<Job> parse_job_text(std::string_view text, const std::string& name,
                                const Environment& env) {
    return build_jobs(parse_sections(text, name, env), name);
}

std::vector<Job> read_job_file(const std::string& path, std::istream& standard_input,
                               const Environment& env) {
    return build_jobs(read_sections(path, standard_input, env), path == "-" ? "stdin" : path);
}

void apply_job_set(std::vector<Job>& jobs, std::span<const std::string> overrides) {
    std::vector<RawOption> options;
    for (const std::string& o : overrides) {
        std::size_t eq = o.find('=');
        RawOption raw{o.substr(0, eq), std::nullopt, Origin{"--job-set", 0}};
        if (eq != std::string::npos) raw.value = o.substr(eq + 1);
        if (raw.key.empty()) throw JobFileError(raw.origin, "", quote(o) + ": KEY=VALUE");
        options.push_back(std::move(raw));
    }
    const bool files = std::any_of(options.begin(), options.end(),
                                   [](const RawOption& o) { return o.key == "filename"; });
    for (Job& job : jobs) {
        if (files) job.filenames.clear();  // --job-set filename= replaces, not adds
        apply_options(job, options);
    }
    check_jobs(jobs);
}

}  // namespace ds::jobfile
