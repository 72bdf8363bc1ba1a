#include "model/plan.h"

#include <algorithm>

namespace ds::model {

std::uint64_t max_random_depth(std::uint64_t file_bytes, std::uint32_t block) {
    return std::max<std::uint64_t>(1, file_bytes / block / 2);
}

std::string_view to_string(DepthRule r) {
    return r == DepthRule::half_blocks ? "half-blocks" : "asked";
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

// What every worker of the run shares: the configuration's workload.
WorkerPlan common_plan(const RunConfig& cfg, const PlanPoint& at) {
    WorkerPlan w;
    w.file_bytes = cfg.file_bytes;
    w.unit = cfg.rand_block;
    w.seq_block = cfg.seq_block;
    w.rand_block = at.rand_block ? at.rand_block : cfg.rand_block;
    w.max_rand_block = at.rand_block ? at.rand_block : cfg.max_rand_block();
    w.rand_mix = cfg.rand_mix;
    const std::uint64_t qd = at.qd ? at.qd : cfg.qd;
    const std::uint64_t seq_blocks = (cfg.file_bytes + cfg.seq_block - 1) / cfg.seq_block;
    w.seq_depth = clamp_depth(
        qd, std::max<std::uint64_t>(1, std::min(kSeqInflightBytes / cfg.seq_block, seq_blocks)));
    const std::uint64_t limit = max_random_depth(cfg.file_bytes, w.max_rand_block);
    w.rand_depth = clamp_depth(qd, limit);
    w.depth_rule = qd > limit ? DepthRule::half_blocks : DepthRule::asked;
    w.read_pct = cfg.read_pct;
    w.trim_pct = cfg.trim_pct;
    w.distribution = cfg.distribution;
    w.shape = cfg.unit_shape();
    w.verify = cfg.verify;
    w.sync = cfg.sync;
    w.sync_every = cfg.sync_every;
    w.batch = cfg.batch;
    w.atomic = cfg.atomic;
    w.arrivals = cfg.arrivals;
    return w;
}

}  // namespace

RunPlan make_run_plan(const RunConfig& cfg, const PlanHost& host, const PlanPoint& at) {
    RunPlan plan;
    plan.asked_qd = at.qd ? at.qd : cfg.qd;
    const unsigned active = at.files ? at.files : cfg.workers();
    const WorkerPlan common = common_plan(cfg, at);
    const double rate = at.rate > 0 ? at.rate : cfg.rate;
    // Spinning before due times needs a CPU per worker and one left for the
    // device and the kernel; --cpus (no CPU twice) names each worker's.
    const bool spin = cfg.cpus.empty() ? active < host.usable_cpus : active <= cfg.cpus.size();
    for (unsigned i = 0; i < active; ++i) {
        WorkerPlan w = common;
        w.index = i;
        w.target = cfg.files ? i / cfg.files : 0;
        if (cfg.rand_ops) {
            const std::uint64_t n = *cfg.rand_ops;
            w.op_limit = n / active + (i < n % active ? 1 : 0);
        }
        if (rate > 0) {
            // Split evenly; fixed arrivals start a fraction of an interval
            // after the worker before, so the workers' arrivals interleave.
            w.rate = rate / active;
            if (w.arrivals == Arrivals::fixed)
                w.rate_offset_ns = static_cast<std::uint64_t>(1e9 / w.rate * i / active);
        }
        w.spin = spin;
        plan.workers.push_back(std::move(w));
    }
    // Buffers and slots for the deepest point of the run: the configured
    // depth (a sweep's largest) at the unit's size, the largest block.
    plan.max_seq_depth = common.seq_depth;
    plan.max_rand_depth = clamp_depth(cfg.qd, max_random_depth(cfg.file_bytes, cfg.rand_block));
    plan.max_block = cfg.max_rand_block();
    return plan;
}

}  // namespace ds::model
