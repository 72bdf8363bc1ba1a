#include "model/plan.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "model/errors.h"

namespace ds::model {

std::uint64_t max_random_depth(std::uint64_t file_bytes, std::uint32_t block) {
    return std::max<std::uint64_t>(1, file_bytes / block / 2);
}

std::string_view to_string(DepthRule r) {
    switch (r) {
        case DepthRule::half_blocks:
            return "half-blocks";
        case DepthRule::file_share:
            return "file-share";
        case DepthRule::asked:
            break;
    }
    return "asked";
}

std::string_view to_string(WaitRule r) {
    switch (r) {
        case WaitRule::spare_cpu:
            return "spare-cpu";
        case WaitRule::deep:
            return "deep";
        case WaitRule::no_spare:
            return "no-spare-cpu";
        case WaitRule::open_loop:
            return "open-loop";
        case WaitRule::not_ring:
            return "not-a-ring";
        case WaitRule::asked:
            break;
    }
    return "asked";
}

bool RunPlan::depth_limited() const {
    return std::any_of(workers.begin(), workers.end(),
                       [](const WorkerPlan& w) { return w.depth_rule != DepthRule::asked; });
}

std::uint64_t RunPlan::worker_buffer_bytes(std::uint32_t seq_block) const {
    return std::max<std::uint64_t>(std::uint64_t{max_seq_depth} * seq_block,
                                   std::uint64_t{max_rand_depth} * max_block);
}

namespace {

unsigned clamp_depth(std::uint64_t asked, std::uint64_t limit) {
    return static_cast<unsigned>(std::min(asked, limit));
}

std::string list_text(const std::vector<std::uint32_t>& sizes) {
    std::string out;
    for (std::uint32_t s : sizes)
        out += (out.empty() ? "" : ", ") + std::to_string(s);
    return out;
}

std::string job_text(const JobSpec& j) {
    return "job '" + j.name + "'";
}

// The file `f` names in `files`, added at the end when new.  One file named
// with two sizes is refused.
unsigned file_of(std::vector<FilePlan>& files, const FileSpec& f, const JobSpec& job) {
    for (unsigned i = 0; i < files.size(); ++i) {
        if (files[i].name != f.name || files[i].target != f.target) continue;
        if (files[i].bytes != f.bytes)
            throw SetupError(job_text(job) + ": file " + f.name + " has " +
                             std::to_string(files[i].bytes) + " bytes in another job, not " +
                             std::to_string(f.bytes));
        return i;
    }
    if (f.bytes == 0) throw SetupError(job_text(job) + ": file " + f.name + " has no size");
    files.push_back({f.name, f.target, f.bytes, 0, {}});
    return static_cast<unsigned>(files.size() - 1);
}

// What a copy of `job` is, before any rule that needs the other workers of
// its file: its job, file, range, workload and its own limits.
WorkerPlan copy_plan(const RunConfig& cfg, const JobSpec& job, unsigned j, unsigned c,
                     std::vector<FilePlan>& files) {
    WorkerPlan w;
    w.job = j;
    w.copy = c;
    w.group = job.group;
    w.file = file_of(files, job.files[c % job.files.size()], job);
    const FilePlan& f = files[w.file];
    w.target = f.target;
    w.file_bytes = f.bytes;
    w.range_offset = job.offset + std::uint64_t{c} * job.offset_increment;
    w.range_bytes = job.range_bytes            ? job.range_bytes
                    : w.range_offset < f.bytes ? f.bytes - w.range_offset
                                               : 0;
    if (w.range_bytes == 0 || w.range_offset + w.range_bytes > f.bytes)
        throw SetupError(job_text(job) + " copy " + std::to_string(c) + ": its range " +
                         std::to_string(w.range_offset) + "+" + std::to_string(w.range_bytes) +
                         " is not within " + f.name + " (" + std::to_string(f.bytes) + " bytes)");
    w.access = job.access;
    w.offset_step = job.offset_step;
    w.seq_block = cfg.seq_block;
    w.rand_block = job.mix.empty() ? job.block : 0;  // a mix's: the unit (decide_units)
    w.max_rand_block = job.largest_block();
    w.rand_mix = job.mix;
    w.rand_align = job.blockalign;
    w.read_pct = job.read_pct;
    w.trim_pct = job.trim_pct;
    w.distribution = job.distribution;
    w.shape = job.shape;
    w.verify = job.verify;
    w.sync = job.sync;
    w.sync_every = job.sync_every;
    w.batch = job.batch;
    w.atomic = job.atomic;
    w.arrivals = job.arrivals;
    w.runtime_ns = seconds_to_ns(job.runtime_s);
    w.byte_limit = job.io_bytes;
    w.loops = job.loops;
    w.startdelay_ns = seconds_to_ns(job.startdelay_s);
    w.ramp_ns = seconds_to_ns(job.ramp_s);
    w.end_fsync = job.end_fsync;
    return w;
}

// The shares of a job over its copies: operations (the first copies take
// the rest) and rate (even; fixed arrivals interleave across the copies).
void split_shares(const JobSpec& job, unsigned c, WorkerPlan& w) {
    if (job.ops) w.op_limit = job.ops / job.copies + (c < job.ops % job.copies ? 1 : 0);
    if (job.rate > 0) {
        w.rate = job.rate / job.copies;
        if (w.arrivals == Arrivals::fixed)
            w.rate_offset_ns = static_cast<std::uint64_t>(1e9 / w.rate * c / job.copies);
    }
}

// The jobs on file `f`, each once.
std::vector<unsigned> jobs_on(const RunPlan& plan, const FilePlan& f) {
    std::vector<unsigned> jobs;
    for (unsigned i : f.workers)
        if (std::find(jobs.begin(), jobs.end(), plan.workers[i].job) == jobs.end())
            jobs.push_back(plan.workers[i].job);
    return jobs;
}

// File `f`'s unit: the one asked for, or the largest power of two dividing
// every size and alignment of the jobs on it; refused below the O_DIRECT
// alignment (and 512), or when a size is no multiple of it.
std::uint32_t unit_of(const RunPlan& plan, const FilePlan& f, const RunConfig& cfg,
                      const PlanHost& host) {
    std::uint32_t asked = 0;
    std::uint64_t bits = 0;
    std::vector<std::uint32_t> sizes;
    std::string names;
    for (unsigned j : jobs_on(plan, f)) {
        const JobSpec& job = plan.jobs[j];
        names += (names.empty() ? "" : ", ") + job_text(job);
        if (job.unit && asked && job.unit != asked)
            throw SetupError("file " + f.name + ": units " + std::to_string(asked) + " and " +
                             std::to_string(job.unit) + " asked for by its jobs");
        if (job.unit) asked = job.unit;
        for (std::uint32_t s : job.sizes())
            sizes.push_back(s);
        if (job.blockalign) sizes.push_back(job.blockalign);
    }
    for (std::uint32_t s : sizes)
        bits |= s;
    const std::uint32_t least = std::max<std::uint32_t>(512, host.direct_align);
    const auto unit = static_cast<std::uint32_t>(asked ? asked : bits & (~bits + 1));
    if (unit < least || (unit & (unit - 1)) != 0)
        throw SetupError("file " + f.name + ": the sizes " + list_text(sizes) + " of " + names +
                         " have no power-of-two unit of at least " + std::to_string(least) +
                         " bytes dividing them all (the O_DIRECT alignment)");
    std::vector<std::uint32_t> odd;
    for (std::uint32_t s : sizes)
        if (s % unit) odd.push_back(s);
    if (cfg.seq_block % unit) odd.push_back(cfg.seq_block);
    if (!odd.empty())
        throw SetupError("file " + f.name + ": the sizes " + list_text(odd) + " of " + names +
                         " are not multiples of its unit " + std::to_string(unit));
    return unit;
}

// The units of its file each worker on it may hold: `budget` split so that
// a worker that wants less than an even share leaves the rest to the others.
std::vector<std::uint64_t> share_out(std::uint64_t budget, const std::vector<std::uint64_t>& want) {
    std::vector<std::uint64_t> share(want.size(), 0);
    std::vector<std::size_t> open(want.size());
    std::iota(open.begin(), open.end(), 0);
    while (!open.empty()) {
        const std::uint64_t even = budget / open.size();
        std::vector<std::size_t> still;
        for (std::size_t i : open) {
            if (want[i] <= even) {
                share[i] = want[i];
                budget -= want[i];
            } else {
                still.push_back(i);
            }
        }
        if (still.size() == open.size()) {  // nobody satisfied: even shares, the rest to the first
            for (std::size_t k = 0; k < still.size(); ++k)
                share[still[k]] = even + (k < budget % still.size() ? 1 : 0);
            break;
        }
        open = std::move(still);
    }
    return share;
}

// The workload depth of every worker on file `f`: what it asks, at most
// half of its range's blocks of its largest size, and at most its share of
// half of the file's units (one worker on a file: the whole half, which
// its range's rule already keeps it within).
void decide_depths(RunPlan& plan, const FilePlan& f) {
    const std::uint64_t budget = std::max<std::uint64_t>(1, f.bytes / f.unit / 2);
    std::vector<std::uint64_t> want, units_per_op;
    for (unsigned i : f.workers) {
        const WorkerPlan& w = plan.workers[i];
        const std::uint64_t ask = plan.jobs[w.job].depth;
        want.push_back(std::min(ask, max_random_depth(w.range_bytes, w.max_rand_block)));
        units_per_op.push_back(w.max_rand_block / f.unit);
    }
    std::vector<std::uint64_t> want_units(want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
        want_units[k] = want[k] * units_per_op[k];
    const std::vector<std::uint64_t> share = share_out(budget, want_units);
    for (std::size_t k = 0; k < f.workers.size(); ++k) {
        WorkerPlan& w = plan.workers[f.workers[k]];
        const std::uint64_t ask = plan.jobs[w.job].depth;
        w.rand_depth = clamp_depth(
            want[k],
            std::max<std::uint64_t>(1, share[k] / std::max<std::uint64_t>(1, units_per_op[k])));
        w.depth_rule = w.rand_depth == ask       ? DepthRule::asked
                       : w.rand_depth == want[k] ? DepthRule::half_blocks
                                                 : DepthRule::file_share;
        const std::uint64_t seq_blocks = (f.bytes + w.seq_block - 1) / w.seq_block;
        w.seq_depth = clamp_depth(
            ask, std::max<std::uint64_t>(1, std::min(kSeqInflightBytes / w.seq_block, seq_blocks)));
    }
}

// Every worker of every job, in the jobs' order, copies in order; refused
// beyond kMaxWorkers or for a job with no copy or no file.
void expand_jobs(RunPlan& plan, const RunConfig& cfg) {
    std::uint64_t total = 0;
    for (const JobSpec& j : plan.jobs) {
        if (j.copies == 0) throw SetupError(job_text(j) + ": no copies (numjobs 0)");
        if (j.files.empty()) throw SetupError(job_text(j) + ": names no file");
        if (j.depth == 0) throw SetupError(job_text(j) + ": depth 0");
        total += j.copies;
    }
    if (total > kMaxWorkers)
        throw SetupError(std::to_string(total) + " workers (every job's copies): at most " +
                         std::to_string(kMaxWorkers));
    for (unsigned j = 0; j < plan.jobs.size(); ++j)
        for (unsigned c = 0; c < plan.jobs[j].copies; ++c) {
            WorkerPlan w = copy_plan(cfg, plan.jobs[j], j, c, plan.files);
            split_shares(plan.jobs[j], c, w);
            w.index = static_cast<unsigned>(plan.workers.size());
            plan.files[w.file].workers.push_back(w.index);
            plan.workers.push_back(std::move(w));
        }
}

// Spinning before due times needs a CPU per worker running at once (its
// group's) and one left for the device and the kernel; --cpus (no CPU
// twice) names each worker's.
void decide_spin(RunPlan& plan, const RunConfig& cfg, const PlanHost& host) {
    std::map<unsigned, std::size_t> in_group;
    for (const WorkerPlan& w : plan.workers)
        ++in_group[w.group];
    for (WorkerPlan& w : plan.workers) {
        const std::size_t group = in_group[w.group];
        w.spin = cfg.cpus.empty() ? group < host.usable_cpus : group <= cfg.cpus.size();
    }
}

// How each worker waits for completions: as asked, else a spin where a
// sleep would cost a wake-up per operation (shallow, closed loop, a ring
// that sleeps) and the worker has a CPU of its own (decide_spin's rule).
void decide_wait(RunPlan& plan, const RunConfig& cfg) {
    const bool not_ring = cfg.backend == BackendChoice::sync || cfg.nop || cfg.sqpoll || cfg.iopoll;
    for (WorkerPlan& w : plan.workers) {
        // An open loop waits on the ring's timer until each due time,
        // whatever was asked (a job file's rate_iops beside --wait spin).
        WaitRule rule = w.rate > 0 || !cfg.replay.empty() ? WaitRule::open_loop : WaitRule::asked;
        if (rule == WaitRule::asked && cfg.completion_wait == CompletionWait::automatic)
            rule = not_ring                                              ? WaitRule::not_ring
                   : std::max(w.rand_depth, w.seq_depth) > kSpinMaxDepth ? WaitRule::deep
                   : !w.spin                                             ? WaitRule::no_spare
                                                                         : WaitRule::spare_cpu;
        const bool spins = rule == WaitRule::asked ? cfg.completion_wait == CompletionWait::spin
                                                   : rule == WaitRule::spare_cpu;
        w.wait_rule = rule;
        w.wait_spin_us = spins ? cfg.spin_us : 0;
    }
}

}  // namespace

RunPlan make_run_plan(const RunConfig& cfg, std::vector<JobSpec> jobs, const PlanHost& host) {
    RunPlan plan;
    plan.jobs = std::move(jobs);
    expand_jobs(plan, cfg);
    for (FilePlan& f : plan.files) {
        f.unit = unit_of(plan, f, cfg, host);
        for (unsigned i : f.workers) {
            WorkerPlan& w = plan.workers[i];
            w.unit = f.unit;
            if (w.rand_block == 0) w.rand_block = f.unit;
            if (w.range_offset % f.unit || w.range_bytes < w.max_rand_block)
                throw SetupError(job_text(plan.jobs[w.job]) + " copy " + std::to_string(w.copy) +
                                 ": its range " + std::to_string(w.range_offset) + "+" +
                                 std::to_string(w.range_bytes) + " of " + f.name +
                                 " must start on a unit (" + std::to_string(f.unit) +
                                 ") and hold its largest block");
        }
        decide_depths(plan, f);
    }
    decide_spin(plan, cfg, host);
    decide_wait(plan, cfg);
    for (const WorkerPlan& w : plan.workers) {
        plan.asked_qd = std::max(plan.asked_qd, plan.jobs[w.job].depth);
        plan.max_seq_depth = std::max(plan.max_seq_depth, w.seq_depth);
        plan.max_rand_depth = std::max(plan.max_rand_depth, w.rand_depth);
        plan.max_block = std::max(plan.max_block, w.max_rand_block);
    }
    return plan;
}

RunPlan make_run_plan(const RunConfig& cfg, const PlanHost& host, const PlanPoint& at) {
    std::vector<JobSpec> jobs = jobs_from_config(cfg);
    JobSpec& j = jobs.front();
    if (at.qd) j.depth = at.qd;
    if (at.files) {
        j.copies = at.files;
        j.files.resize(at.files);
    }
    if (at.rand_block) {
        j.block = at.rand_block;
        j.slot_block = 0;
    }
    if (at.rate > 0) j.rate = at.rate;
    RunPlan plan = make_run_plan(cfg, std::move(jobs), host);
    // Buffers and slots for the deepest point of the run: the configured
    // depth (a sweep's largest) at the unit's size, the largest block.
    plan.asked_qd = at.qd ? at.qd : cfg.qd;
    plan.max_rand_depth = clamp_depth(cfg.qd, max_random_depth(cfg.file_bytes, cfg.rand_block));
    plan.max_block = cfg.max_rand_block();
    return plan;
}

}  // namespace ds::model
