// The run's plan in the result document: what each worker was set to do
// after every rule (model/plan.h), so that a reader sees the depth a worker
// really ran at and why, without re-deriving the rules.
#include <nlohmann/json.hpp>

#include "report/json_parts.h"
#include "units/block_mix.h"

namespace ds::report {

using nlohmann::json;

namespace {

json worker_plan_json(const model::WorkerPlan& w) {
    return {{"worker", w.index},
            {"target", w.target},
            {"file_size_bytes", w.file_bytes},
            {"unit_bytes", w.unit},
            {"seq_block_bytes", w.seq_block},
            {"rand_block_bytes", w.rand_block},
            {"max_rand_block_bytes", w.max_rand_block},
            {"rand_mix",
             w.rand_mix.size() > 1 ? json(units::block_mix_text(w.rand_mix)) : json(nullptr)},
            {"seq_qd", w.seq_depth},
            {"random_qd", w.rand_depth},
            {"depth_rule", std::string(model::to_string(w.depth_rule))},
            {"read_pct", w.read_pct},
            {"trim_pct", w.trim_pct},
            {"op_limit", w.op_limit ? json(w.op_limit) : json(nullptr)},
            {"rate_iops", w.rate > 0 ? json(w.rate) : json(nullptr)},
            {"rate_offset_ns", w.rate_offset_ns},
            {"spin", w.spin},
            {"completion_wait",
             {{"spin_us", w.wait_spin_us}, {"rule", std::string(model::to_string(w.wait_rule))}}}};
}

}  // namespace

json plan_json(const model::RunPlan& plan) {
    json workers = json::array();
    for (const auto& w : plan.workers)
        workers.push_back(worker_plan_json(w));
    return {{"asked_qd", plan.asked_qd},
            {"depth_limited", plan.depth_limited()},
            {"workers", std::move(workers)}};
}

}  // namespace ds::report
