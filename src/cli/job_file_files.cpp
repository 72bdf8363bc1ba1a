// A job's files, their sizes and its range onto its JobSpec, and the ends
// of a job (how long it runs), which read the range.
//
// fio's files: filename= names one file (or device) every copy shares;
// without it each copy has its own, named as fio names it, NAME.COPY.0,
// in directory= (or the TARGET given).  A copy works on one file in
// drivestress, so several names or nrfiles above 1 are refused.
#include <filesystem>

#include "cli/job_file_map.h"

namespace ds::cli::jobmap {

namespace {

using jobfile::Job;

unsigned target_index(std::vector<JobFileTarget>& targets, const JobFileTarget& t) {
    for (unsigned i = 0; i < targets.size(); ++i)
        if (targets[i] == t) return i;
    targets.push_back(t);
    return static_cast<unsigned>(targets.size() - 1);
}

// A file's place: its target and its name in it, and the path to look at.
struct Place {
    JobFileTarget target;
    std::string name;
    std::string path;
};

Place place_of(const Job& job, const JobFileContext& ctx, const std::string& name,
               std::vector<std::string>& notes) {
    Place p;
    const bool absolute = name.starts_with('/');
    if (!absolute && !ctx.target.empty()) {
        if (!job.directories.empty()) note(notes, job, "directory", "the TARGET given replaces it");
        p.target.path = ctx.target;
        p.name = name;
    } else if (absolute) {
        const std::filesystem::path path(name);
        p.target.path = path.parent_path().string();
        p.name = path.filename().string();
    } else {
        if (job.directories.size() > 1)
            refuse(job, "directory", "files spread over several directories: give one");
        p.target.path = job.directories.empty() ? "." : job.directories.front();
        p.name = name;
    }
    p.path = p.target.path == "/" ? "/" + p.name : p.target.path + "/" + p.name;
    return p;
}

// N% of `whole`, or the bytes given.
std::uint64_t amount_of(const jobfile::Amount& a, std::uint64_t whole) {
    return a.percent ? whole / 100 * *a.percent + whole % 100 * *a.percent / 100 : a.bytes;
}

// The sizes of a job's files: what is there (a device's, an existing
// file's) and what fio would make of the job's options.
struct Sizes {
    std::uint64_t offset = 0, increment = 0, range = 0, file = 0;
};

Sizes sizes_of(const Job& job, const std::optional<PathFacts>& there, unsigned last_copy,
               const std::string& path) {
    if (job.filesize.min != job.filesize.max)
        refuse(job, "filesize", "sizes drawn from a range: a file has one size");
    const std::uint64_t fixed = job.filesize.max          ? job.filesize.max
                                : (there && there->bytes) ? there->bytes
                                                          : 0;
    for (const char* option : {"size", "offset", "offset_increment"}) {
        const jobfile::Amount& a = std::string_view(option) == "size"     ? job.size
                                   : std::string_view(option) == "offset" ? job.offset
                                                                          : job.offset_increment;
        if (a.percent && !fixed)
            refuse(job, option,
                   std::to_string(*a.percent) + "% of " + path + ", which has no size yet", true);
    }
    Sizes s;
    s.offset = amount_of(job.offset, fixed);
    s.increment = amount_of(job.offset_increment, fixed);
    // size is the region and the I/O of each pass, unless filesize gives
    // the files' size: then the region is the file and size the I/O (fio).
    s.range = job.filesize.max ? 0 : amount_of(job.size, fixed);
    const std::uint64_t reach = checked(job, s.increment ? "offset_increment" : "size", last_copy,
                                        s.increment, checked(job, "size", s.offset, 1, s.range));
    if (there && there->device) {
        s.file = there->bytes;
    } else if (job.filesize.max) {
        s.file = job.filesize.max;
    } else if (s.range) {
        s.file = std::max(reach, fixed);  // fio extends a file to what the job reaches
    } else if (fixed) {
        s.file = fixed;
    } else {
        refuse(job, "size", path + " has no size: give size= or filesize=", true);
    }
    // size=N% with an offset: the share from the offset to the end at most (fio).
    if (job.size.percent && s.range + s.offset > s.file)
        s.range = s.file - std::min(s.offset, s.file);
    return s;
}

}  // namespace

void map_files(const Job& job, const JobFileContext& ctx, std::vector<JobFileTarget>& targets,
               model::JobSpec& spec, std::vector<std::string>& notes) {
    if (job.filenames.size() > 1)
        refuse(job, "filename",
               std::to_string(job.filenames.size()) +
                   " files in one job: a copy works on one file (give each file a job)");
    if (job.filenames.empty() && job.nrfiles > 1)
        refuse(job, "nrfiles",
               std::to_string(job.nrfiles) + " files in one job: a copy works on one file");
    const bool shared = !job.filenames.empty();
    const unsigned files = shared ? 1 : job.numjobs;
    for (unsigned c = 0; c < files; ++c) {
        const std::string name =
            shared ? job.filenames.front() : job.name + "." + std::to_string(c) + ".0";
        Place p = place_of(job, ctx, name, notes);
        const std::optional<PathFacts> there = ctx.look ? ctx.look(p.path) : std::nullopt;
        if (there && there->device) {
            p.target = {p.path, true};
            p.name = p.path;
        }
        const Sizes s = sizes_of(job, there, shared ? job.numjobs - 1 : c, p.path);
        spec.offset = s.offset;
        spec.offset_increment = s.increment;
        spec.range_bytes = s.range;
        spec.files.push_back({p.name, s.file, target_index(targets, p.target)});
    }
}

void map_ends(const Job& job, model::JobSpec& spec, std::vector<std::string>& notes) {
    if (job.startdelay.min_us != job.startdelay.max_us)
        refuse(job, "startdelay", "a random delay: give one");
    spec.startdelay_s = static_cast<double>(job.startdelay.min_us) / 1e6;
    spec.ramp_s = static_cast<double>(job.ramp_time_us) / 1e6;
    if (job.runtime_us) spec.runtime_s = static_cast<double>(job.runtime_us) / 1e6 + spec.ramp_s;
    if (job.time_based) {  // fio goes round its range until the time is up, whatever else
        if (!job.runtime_us)
            note(notes, job, "time_based", "no runtime: the run's time ends the job");
        return;
    }
    // fio's number_ios counts over every loop of each copy.
    spec.ops = checked(job, "number_ios", job.number_ios, std::uint64_t{job.numjobs} * job.loops);
    const bool io_given = job.io_size.bytes || job.io_size.percent;
    const bool size_is_io = job.filesize.max && (job.size.bytes || job.size.percent);
    if (io_given || size_is_io) {
        std::uint64_t range = spec.range_bytes;
        if (!range && spec.offset_increment && job.io_size.percent)
            refuse(job, "io_size", "a share of ranges that differ between copies");
        const model::FileSpec& f = spec.files.front();
        if (!range) range = f.bytes - std::min(spec.offset, f.bytes);
        const std::uint64_t io =
            io_given ? amount_of(job.io_size, range) : amount_of(job.size, f.bytes);
        spec.io_bytes = checked(job, io_given ? "io_size" : "size", io, job.loops);
        spec.loops = 0;
    } else {
        spec.loops = job.loops;
    }
}

}  // namespace ds::cli::jobmap
