#include "model/job.h"

#include <algorithm>

#include "model/results.h"

namespace ds::model {

std::string_view to_string(Access a) {
    return a == Access::sequential ? "sequential" : "random";
}

std::vector<std::uint32_t> JobSpec::sizes() const {
    std::vector<std::uint32_t> out;
    if (mix.empty()) out.push_back(block);
    for (const units::BlockShare& b : mix)
        out.push_back(b.bytes);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::uint32_t JobSpec::largest_block() const {
    return std::max(sizes().back(), slot_block);
}

std::vector<JobSpec> jobs_from_config(const RunConfig& cfg) {
    JobSpec j;
    j.name = "random";
    j.copies = cfg.workers();
    for (unsigned t = 0; t < cfg.target_count(); ++t)
        for (unsigned i = 0; i < cfg.files; ++i)
            j.files.push_back({"drivestress-" + std::to_string(i) + ".dat", cfg.file_bytes, t});
    j.access = Access::random;
    j.read_pct = cfg.read_pct;
    j.trim_pct = cfg.trim_pct;
    j.block = cfg.rand_block;
    j.mix = cfg.rand_mix;
    j.unit = cfg.rand_block;
    // A sweep's largest block, a replayed trace's largest operation.
    j.slot_block = cfg.max_rand_block();
    j.distribution = cfg.distribution;
    j.depth = cfg.qd;
    j.batch = cfg.batch;
    j.rate = cfg.rate;
    j.arrivals = cfg.arrivals;
    j.shape = cfg.unit_shape();
    j.verify = cfg.verify;
    j.atomic = cfg.atomic;
    j.sync = cfg.sync;
    j.sync_every = cfg.sync_every;
    j.ops = cfg.rand_ops.value_or(0);
    return {std::move(j)};
}

std::vector<JobResult> job_results(const RunPlan& plan) {
    std::vector<JobResult> out;
    for (const JobSpec& j : plan.jobs) {
        JobResult r;
        r.name = j.name;
        r.group = j.group;
        r.copies = j.copies;
        r.access = j.access;
        r.read_pct = j.read_pct;
        r.trim_pct = j.trim_pct;
        r.sizes = j.sizes();
        if (j.mix.size() > 1) r.mix = j.mix;
        r.workload.phase = Phase::random;
        out.push_back(std::move(r));
    }
    for (const WorkerPlan& w : plan.workers)
        if (w.job < out.size() && w.copy == 0) out[w.job].depth = w.rand_depth;
    return out;
}

}  // namespace ds::model
