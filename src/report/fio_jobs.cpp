// The jobs of --fio-json's document: which phases, named how, in which
// group, and their workload spelled in fio's options (a job file that would
// ask fio for the same workload, as far as fio has the words for it).
#include "report/fio_jobs.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <ctime>

#include "drivestress_version.h"
#include "io/backend.h"
#include "model/plan.h"
#include "units/units.h"

namespace ds::report {

using Options = std::vector<std::pair<std::string, std::string>>;

std::string fio_size(std::uint64_t bytes) {
    std::string s = units::format_size_option(bytes);  // "4K", "256M", "1000"
    for (char& ch : s)
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

std::string fio_duration(double seconds) {
    const std::uint64_t us = (model::seconds_to_ns(seconds) + 500) / 1000;
    if (us % 1'000'000 == 0) return std::to_string(us / 1'000'000);  // fio's unit: seconds
    if (us % 1000 == 0) return std::to_string(us / 1000) + "ms";
    return std::to_string(us) + "us";
}

std::string fio_distribution(const stats::DistributionSpec& d) {
    std::string text = d.text();  // "zipf:1.2", "normal:5%", "zoned:60/10,40/90"
    switch (d.kind) {
        case stats::DistributionKind::uniform:
            return "random";
        case stats::DistributionKind::normal:
            if (!text.empty() && text.back() == '%') text.pop_back();
            return text;
        case stats::DistributionKind::zoned:
            for (char& ch : text)
                if (ch == ',') ch = ':';
            return text;
        default:
            return text;
    }
}

namespace {

// fio's rw for a worker's mix: reads, trims and the rest writes, at
// random offsets or in order (a job file's rw=read, write, trim, rw).  fio
// has no word for trims beside reads and writes: such a mix is randrw (or
// rw), and the job's desc gives its trims.
std::string fio_rw(const model::WorkerPlan& w) {
    const std::string in_order = w.access == model::Access::sequential ? "" : "rand";
    if (w.read_pct == 100) return in_order + "read";
    if (w.trim_pct == 100) return in_order + "trim";
    if (w.read_pct == 0 && w.trim_pct == 0) return in_order + "write";
    return in_order + "rw";
}

std::string joined(const std::vector<std::string>& parts, char sep) {
    std::string s;
    for (const std::string& p : parts)
        s += (s.empty() ? "" : std::string(1, sep)) + p;
    return s;
}

// How a job's workers ran: fio's numjobs (threads) and iodepth.  The sync
// backend's worker at --qd N is N threads, each one blocking operation at a
// time: fio's psync with numjobs N and iodepth 1.
struct Threads {
    unsigned copies = 1;
    unsigned depth = 1;
};

// Whether each operation was a blocking call on a thread of its own (the
// sync backend: fio's psync), not one of a queue (io_uring, nop).
bool blocking_calls(const model::RunConfig& cfg, const model::RunResult& r) {
    return !cfg.nop && (io::backend_flags(r.backend.used) & io::kBlockingCalls) != 0;
}

Threads threads_of(const model::RunConfig& cfg, const model::RunResult& r,
                   const model::RunPlan& plan) {
    const auto workers = static_cast<unsigned>(plan.workers.size());
    const unsigned depth = std::max(1U, plan.rand_depth());
    if (blocking_calls(cfg, r)) return {workers * depth, 1};
    return {workers, depth};
}

void add_what(Options& o, const model::RunConfig& cfg, const model::WorkerPlan& w) {
    if (!cfg.replay.empty()) {
        o.emplace_back("read_iolog", cfg.replay);
        if (cfg.replay_speed == 0) o.emplace_back("replay_no_stall", "1");
        return;
    }
    const std::string rw = fio_rw(w);
    o.emplace_back("rw", rw);
    if (rw == "randrw" || rw == "rw") o.emplace_back("rwmixread", std::to_string(w.read_pct));
    if (w.rand_mix.empty() || w.rand_block == w.max_rand_block) {
        o.emplace_back("bs", fio_size(w.rand_block));
        return;
    }
    std::vector<std::string> split;
    for (const units::BlockShare& b : w.rand_mix)
        split.push_back(fio_size(b.bytes) + "/" + std::to_string(b.weight));
    o.emplace_back("bssplit", joined(split, ':'));
}

// `size`: the job's file, as fio's size gives it.
void add_engine(Options& o, const model::RunConfig& cfg, const model::RunResult& r,
                const model::WorkerPlan& w, const Threads& t, std::uint64_t size) {
    const bool sync = blocking_calls(cfg, r);
    o.emplace_back("ioengine", cfg.nop ? "null" : sync ? "psync" : "io_uring");
    o.emplace_back("iodepth", std::to_string(t.depth));
    if (!sync && w.batch > 1) o.emplace_back("iodepth_batch_submit", std::to_string(w.batch));
    if (cfg.sqpoll) o.emplace_back("sqthread_poll", "1");
    if (cfg.iopoll) o.emplace_back("hipri", "1");
    o.emplace_back("direct", r.direct_io ? "1" : "0");
    o.emplace_back("size", fio_size(size));
    o.emplace_back("numjobs", std::to_string(t.copies));
    o.emplace_back("group_reporting", "1");
    if (sync) o.emplace_back("thread", "1");
}

void add_length_and_pace(Options& o, const model::RunConfig& cfg, const model::WorkerPlan& w,
                         const Threads& t, unsigned workers) {
    if (cfg.rand_ops) {
        const std::uint64_t n = *cfg.rand_ops;
        o.emplace_back("number_ios", std::to_string((n + t.copies - 1) / t.copies));
    } else if (cfg.replay.empty() && !cfg.steady_state) {
        o.emplace_back("time_based", "1");
        o.emplace_back("runtime", fio_duration(cfg.rand_time_s));
    }
    if (w.rate > 0) {  // fio's rate_iops is each copy's
        const double per_copy = w.rate * workers / t.copies;
        o.emplace_back("rate_iops", std::to_string(std::llround(per_copy)));
        if (w.arrivals == model::Arrivals::poisson) o.emplace_back("rate_process", "poisson");
    }
}

void add_data_and_sync(Options& o, const model::RunConfig& cfg, const model::WorkerPlan& w) {
    if (w.distribution.kind != stats::DistributionKind::uniform)
        o.emplace_back("random_distribution", fio_distribution(w.distribution));
    if (w.sync == model::SyncMethod::fsync || w.sync == model::SyncMethod::fdatasync)
        o.emplace_back(std::string(model::to_string(w.sync)), std::to_string(w.sync_every));
    if (w.sync == model::SyncMethod::osync) o.emplace_back("sync", "sync");
    if (w.sync == model::SyncMethod::dsync) o.emplace_back("sync", "dsync");
    if (cfg.compress > 1) {
        o.emplace_back("buffer_compress_percentage",
                       std::to_string(std::llround(100 - 100 / cfg.compress)));
        o.emplace_back("refill_buffers", "1");
    }
    if (cfg.dedupe)
        o.emplace_back("dedupe_percentage", std::to_string(std::llround(cfg.dedupe_pct())));
    std::vector<std::string> cpus;
    for (unsigned c : cfg.cpus)
        cpus.push_back(std::to_string(c));
    if (!cpus.empty()) o.emplace_back("cpus_allowed", joined(cpus, ','));
}

// fio's error: the first failed operation's errno; a read that found wrong
// data is EILSEQ, as fio's verify reports it.
// `job`: the job whose records count (empty: every job's).
int job_error(const model::RunResult& r, const model::PhaseResult& p, const std::string& job) {
    const auto io_error = static_cast<std::size_t>(pattern::MismatchClass::io_error);
    if (p.counters.mismatch_total() == 0) return 0;
    for (const model::MismatchRecord& m : r.mismatch_records)
        if (m.phase == model::Phase::random && (job.empty() || m.job == job))
            return m.cls == pattern::MismatchClass::io_error && m.error ? m.error : EILSEQ;
    return p.counters.mismatches[io_error] ? EIO : EILSEQ;
}

// `what`: "the random phase", "job 'reader'".
std::string job_desc(const std::string& what, const model::RunConfig& cfg,
                     const model::RunResult& r, const model::PhaseResult& p,
                     const model::WorkerPlan& w) {
    std::string d = std::string("drivestress ") + DRIVESTRESS_VERSION + ": " + what + " of " +
                    std::to_string(p.workers) + (p.workers == 1 ? " worker" : " workers");
    if (r.iterations_run > 1) d += ", " + std::to_string(r.iterations_run) + " iterations merged";
    if (p.repeats.size() > 1) d += ", " + std::to_string(p.repeats.size()) + " repeats merged";
    if (w.trim_pct > 0 && w.trim_pct < 100 && w.read_pct + w.trim_pct < 100)
        d += ", " + std::to_string(w.trim_pct) + "% trims";
    // fio 3.33 has no word for RWF_ATOMIC (fio's atomic= came later).
    if (w.atomic) d += ", every write RWF_ATOMIC (--atomic)";
    if (p.interrupted) d += ", interrupted";
    if (cfg.nop) return d + "; nop backend: no device I/O, nothing verified";
    if (!cfg.verify) return d + "; reads not verified (--no-verify)";
    const std::uint64_t bad = p.counters.mismatch_total();
    return d + "; every read verified: " + std::to_string(bad) +
           (bad == 1 ? " mismatch" : " mismatches");
}

FioJob make_job(const std::string& name, unsigned group, const model::RunConfig& cfg,
                const model::RunResult& r, const model::PhaseResult& p,
                const model::PlanPoint& at) {
    const model::RunPlan plan = model::make_run_plan(cfg, {}, at);
    const model::WorkerPlan w = plan.workers.empty() ? model::WorkerPlan{} : plan.workers.front();
    const Threads t = threads_of(cfg, r, plan);
    FioJob job;
    job.name = name;
    job.group = group;
    job.error = job_error(r, p, {});
    job.options = fio_job_options(name, cfg, r, at);
    job.desc = job_desc("the random phase", cfg, r, p, w);
    job.copies = t.copies;
    // An open loop's depth follows its arrivals: not one level.
    const bool open_loop = w.rate > 0 || (!cfg.replay.empty() && cfg.replay_speed > 0);
    job.depth = open_loop ? 0 : t.depth;
    job.elapsed_s = r.wall_seconds;
    job.phase = &p;
    return job;
}

// A sweep point's changes to the plan, and its name ("qd=4").
model::PlanPoint point_of(const model::SweepResult& s, const model::SweepPoint& pt) {
    model::PlanPoint at;
    const auto v = static_cast<unsigned>(pt.value);
    if (s.param == model::SweepParam::qd) at.qd = v;
    if (s.param == model::SweepParam::files) at.files = v;
    if (s.param == model::SweepParam::rand_block) at.rand_block = v;
    if (s.param == model::SweepParam::rate) at.rate = pt.random.requested_rate;
    return at;
}

std::string point_name(const model::RunConfig& cfg, const model::SweepResult& s,
                       const model::SweepPoint& pt) {
    const std::string param(model::to_string(s.param));
    if (s.param == model::SweepParam::rand_block) return param + "=" + fio_size(pt.value);
    const bool percent = cfg.sweep && cfg.sweep->percent;
    return param + "=" + std::to_string(pt.value) + (percent ? "%" : "");
}

// How long a job of several ran, in fio's words: its operations (each
// copy's number_ios), bytes (io_size), passes (loops), else its runtime or
// the run's; when its copies started and what its figures left out.
void add_job_length(Options& o, const model::RunConfig& cfg, const model::JobSpec& job,
                    const model::WorkerPlan& w, const Threads& t) {
    if (job.ops) o.emplace_back("number_ios", std::to_string((job.ops + t.copies - 1) / t.copies));
    if (job.io_bytes) o.emplace_back("io_size", fio_size(job.io_bytes));
    if (job.loops) o.emplace_back("loops", std::to_string(job.loops));
    if (!job.ops && !job.io_bytes && !job.loops) {
        o.emplace_back("time_based", "1");
        o.emplace_back("runtime",
                       fio_duration(job.runtime_s > 0 ? job.runtime_s : cfg.rand_time_s));
    }
    if (job.ramp_s > 0) o.emplace_back("ramp_time", fio_duration(job.ramp_s));
    if (job.startdelay_s > 0) o.emplace_back("startdelay", fio_duration(job.startdelay_s));
    if (w.rate > 0) {  // fio's rate_iops is each copy's
        o.emplace_back("rate_iops", std::to_string(std::llround(job.rate / t.copies)));
        if (w.arrivals == model::Arrivals::poisson) o.emplace_back("rate_process", "poisson");
    }
}

// A job of a run of several (a job file): its own name, group, workload
// and figures (model::JobResult), its options read off its first copy's
// plan.  Its copies ran as one fio job with numjobs and group_reporting.
FioJob make_job_of(const model::RunConfig& cfg, const model::RunResult& r, unsigned index,
                   unsigned group) {
    const model::JobResult& jr = r.jobs[index];
    const model::JobSpec& spec = r.plan.jobs[index];
    const auto first = std::find_if(r.plan.workers.begin(), r.plan.workers.end(),
                                    [index](const model::WorkerPlan& w) { return w.job == index; });
    const model::WorkerPlan w = first == r.plan.workers.end() ? model::WorkerPlan{} : *first;
    const bool sync = blocking_calls(cfg, r);
    const Threads t = sync ? Threads{jr.copies * std::max(1U, jr.depth), 1}
                           : Threads{jr.copies, std::max(1U, jr.depth)};
    FioJob job;
    job.name = jr.name;
    job.group = group + jr.group;
    job.error = job_error(r, jr.workload, jr.name);
    job.options = {{"name", jr.name}};
    add_what(job.options, cfg, w);
    add_engine(job.options, cfg, r, w, t, w.file_bytes);
    if (w.range_offset) job.options.emplace_back("offset", fio_size(w.range_offset));
    add_job_length(job.options, cfg, spec, w, t);
    add_data_and_sync(job.options, cfg, w);
    job.options.emplace_back("randseed", std::to_string(r.seed));
    job.desc = job_desc("job '" + jr.name + "'", cfg, r, jr.workload, w);
    job.copies = t.copies;
    job.depth = w.rate > 0 ? 0 : t.depth;  // an open loop's depth follows its arrivals
    job.elapsed_s = r.wall_seconds;
    job.phase = &jr.workload;
    return job;
}

// A run of several jobs (a job file): one fio job each, in the plan's
// order, their groups after the groups before them.
void add_jobs_of(const model::RunConfig& cfg, const model::RunResult& r, unsigned& group,
                 std::vector<FioJob>& jobs) {
    unsigned groups = 0;
    for (unsigned i = 0; i < r.jobs.size() && i < r.plan.jobs.size(); ++i) {
        jobs.push_back(make_job_of(cfg, r, i, group));
        groups = std::max(groups, r.jobs[i].group + 1);
    }
    group += groups;
}

void add_run_jobs(const FioRunRef& run, unsigned& group, std::vector<FioJob>& jobs) {
    const model::RunConfig& cfg = *run.cfg;
    const model::RunResult& r = *run.result;
    if (cfg.jobs || r.jobs.size() > 1) return add_jobs_of(cfg, r, group, jobs);
    if (cfg.sweep) {
        for (const model::SweepPoint& pt : r.sweep.points)
            jobs.push_back(make_job(run.label + " " + point_name(cfg, r.sweep, pt), group++, cfg, r,
                                    pt.random, point_of(r.sweep, pt)));
        return;
    }
    for (const model::PhaseResult& p : r.merged_phases)
        if (p.phase == model::Phase::random) {
            jobs.push_back(make_job(run.label, group++, cfg, r, p, {}));
            return;
        }
}

// Where every job's files are: fio's directory (several: ':'-separated, as
// fio takes them) and, for raw devices, filename.
Options global_options(const model::RunResult& r) {
    std::vector<std::string> dirs, devices;
    for (const model::TargetResult& t : r.targets)
        (t.raw ? devices : dirs).push_back(t.raw ? t.info.path : t.info.directory);
    Options o;
    if (!dirs.empty()) o.emplace_back("directory", joined(dirs, ':'));
    if (!devices.empty()) o.emplace_back("filename", joined(devices, ':'));
    return o;
}

std::string ctime_text(std::chrono::system_clock::time_point t) {
    const std::time_t s = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    localtime_r(&s, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);  // ctime(3) without its newline
    return buf;
}

}  // namespace

Options fio_job_options(const std::string& name, const model::RunConfig& cfg,
                        const model::RunResult& r, const model::PlanPoint& at) {
    const model::RunPlan plan = model::make_run_plan(cfg, {}, at);
    const model::WorkerPlan w = plan.workers.empty() ? model::WorkerPlan{} : plan.workers.front();
    const Threads t = threads_of(cfg, r, plan);
    Options o{{"name", name}};
    add_what(o, cfg, w);
    add_engine(o, cfg, r, w, t, cfg.file_bytes);
    add_length_and_pace(o, cfg, w, t, static_cast<unsigned>(plan.workers.size()));
    add_data_and_sync(o, cfg, w);
    o.emplace_back("randseed", std::to_string(r.seed));
    return o;
}

FioDocument fio_document(const std::vector<FioRunRef>& runs,
                         std::chrono::system_clock::time_point end) {
    FioDocument d;
    d.version = std::string("drivestress ") + DRIVESTRESS_VERSION + " (fio-3.33 JSON+ layout)";
    d.end_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(end.time_since_epoch()).count();
    d.time = ctime_text(end);
    if (!runs.empty()) d.global_options = global_options(*runs.front().result);
    unsigned group = 0;
    for (const FioRunRef& run : runs)
        add_run_jobs(run, group, d.jobs);
    return d;
}

}  // namespace ds::report
