// The run's jobs in the result document (model/results.h JobResult): what
// each was asked, when it was active on the run's clock (two jobs ran at
// once where their intervals overlap) and its own figures.  A plain run has
// one job.
#include <nlohmann/json.hpp>

#include "report/json_parts.h"
#include "units/block_mix.h"

namespace ds::report {

using nlohmann::json;

namespace {

json job_latency_json(const model::PhaseResult& p) {
    const stats::LatencyHistogram h = p.latency();
    if (h.count() == 0) return nullptr;
    return {{"p50", h.value_at_percentile(50)},
            {"p99", h.value_at_percentile(99)},
            {"p99.9", h.value_at_percentile(99.9)}};
}

json job_json(const model::JobResult& j) {
    const model::PhaseResult& p = j.workload;
    const model::PhaseCounters& c = p.counters;
    return {{"name", j.name},
            {"group", j.group},
            {"copies", j.copies},
            {"access", std::string(model::to_string(j.access))},
            {"read_pct", j.read_pct},
            {"trim_pct", j.trim_pct},
            {"block_sizes", j.sizes},
            {"rand_mix", j.mix.size() > 1 ? json(units::block_mix_text(j.mix)) : json(nullptr)},
            {"qd", j.depth},
            {"start_ns", j.start_ns},
            {"end_ns", j.end_ns},
            {"seconds", p.seconds},
            {"read_ops", c.read_ops},
            {"write_ops", c.write_ops},
            {"trim_ops", c.trim_ops},
            {"read_bytes", c.read_bytes},
            {"write_bytes", c.write_bytes},
            {"iops", p.iops()},
            {"bandwidth_bytes_per_sec", p.bytes_per_sec()},
            {"latency_ns", job_latency_json(p)},
            {"verified_bytes", c.verified_bytes},
            {"mismatches", c.mismatch_total()}};
}

}  // namespace

json jobs_json(const model::RunResult& r) {
    json jobs = json::array();
    for (const model::JobResult& j : r.jobs)
        jobs.push_back(job_json(j));
    return jobs;
}

}  // namespace ds::report
