// The comparison's JSON (report/backend_comparison.h comparison_json):
// each run, each phase's ratios, the sweep and the verdict, as the schema's
// compare_backends (and compare_atomic) object.
#include <algorithm>

#include "report/backend_comparison.h"
#include "report/comparison_parts.h"
#include "report/json_report.h"

namespace ds::report {

using nlohmann::json;

namespace {

json phase_json(const ComparedPhase& p) {
    return {{"phase", std::string(model::to_string(p.phase))},
            {"in_flight", p.in_flight},
            {"ops", p.ops},
            {"iops", p.iops},
            {"bandwidth_bytes_per_sec", p.bytes_per_sec},
            {"p50_ns", p.p50_ns},
            {"p99_ns", p.p99_ns},
            {"p99_9_ns", p.p999_ns},
            {"cpu_user_ns_per_op", p.user_ns_per_op},
            {"cpu_system_ns_per_op", p.system_ns_per_op},
            {"context_switches_per_op", p.context_switches_per_op},
            {"system_calls_per_op", p.system_calls_per_op}};
}

// phase_json with --repeat's estimates (two repeats or more).
json repeated_phase_json(const ComparedPhase& p) {
    json j = phase_json(p);
    if (p.iops_repeats.n >= 2 && !p.within_run) {
        j["iops_repeats"] = estimate_json(p.iops_repeats);
        j["bandwidth_repeats"] = estimate_json(p.bandwidth_repeats);
    }
    return j;
}

json ratio_row(const ComparedPhase& a, const ComparedPhase& b) {
    const double ca = a.user_ns_per_op + a.system_ns_per_op;
    const double cb = b.user_ns_per_op + b.system_ns_per_op;
    return {
        {"phase", std::string(model::to_string(a.phase))},
        {"io_uring_bandwidth_bytes_per_sec", a.bytes_per_sec},
        {"sync_bandwidth_bytes_per_sec", b.bytes_per_sec},
        {"bandwidth_ratio", ratio(a.bytes_per_sec, b.bytes_per_sec)},
        {"io_uring_iops", a.iops},
        {"sync_iops", b.iops},
        {"iops_ratio", ratio(a.iops, b.iops)},
        {"io_uring_p99_ns", static_cast<double>(a.p99_ns)},
        {"sync_p99_ns", static_cast<double>(b.p99_ns)},
        {"p99_ratio", ratio(static_cast<double>(a.p99_ns), static_cast<double>(b.p99_ns))},
        {"p50_ratio", ratio(static_cast<double>(a.p50_ns), static_cast<double>(b.p50_ns))},
        {"p99_9_ratio", ratio(static_cast<double>(a.p999_ns), static_cast<double>(b.p999_ns))},
        {"cpu_per_op_ratio", ratio(ca, cb)},
        {"context_switches_per_op_ratio",
         ratio(a.context_switches_per_op, b.context_switches_per_op)},
        {"system_calls_per_op_ratio", ratio(a.system_calls_per_op, b.system_calls_per_op)},
        {"in_flight", a.in_flight},
        {"sync_in_flight", b.in_flight},
        {"repeats", a.within_run || b.within_run ? std::size_t{1}
                                                 : std::min(a.iops_repeats.n, b.iops_repeats.n)},
        {"difference", std::string(stats::to_string(stats::compare(
                           by_iops(a.phase) ? a.iops_repeats : a.bandwidth_repeats,
                           by_iops(a.phase) ? b.iops_repeats : b.bandwidth_repeats)))}};
}

json runs_json(const std::vector<ComparedRow>& rows, const model::BackendComparison& c) {
    json runs = json::array();
    std::size_t k = 0;
    for (const auto& run : c.runs) {
        if (!run.ran) continue;
        const ComparedRow& r = rows[k++];
        json phases = json::array();
        for (const auto& p : r.phases)
            phases.push_back(repeated_phase_json(p));
        runs.push_back({{"label", r.label},
                        {"backend", std::string(io::to_string(r.backend))},
                        {"workers", r.workers},
                        {"qd_per_worker", r.qd_per_worker},
                        {"sync_threads_per_worker", r.sync_threads},
                        {"sqpoll", r.sqpoll},
                        {"exit_code", model::code_of(model::exit_status(run))},
                        {"phases", phases}});
    }
    return runs;
}

// --compare-atomic's sweep: each size's two random phases and the cost.
json atomic_sweep_json(const ComparedSweep& s, const std::string& verdict) {
    json points = json::array();
    for (const auto& p : s.points)
        points.push_back({{"rand_block_bytes", p.qd},
                          {"atomic", repeated_phase_json(p.uring)},
                          {"plain", repeated_phase_json(p.sync)},
                          {"iops_cost", ratio(p.sync.iops, p.uring.iops)}});
    return {{"points", points}, {"repeats", s.repeats}, {"verdict", verdict}};
}

json sweep_json(const model::BackendComparison& c) {
    const ComparedSweep s = compared_sweep(c);
    if (s.points.empty()) return nullptr;
    if (c.atomic) return atomic_sweep_json(s, verdict_line(c).substr(9));  // without "verdict  "
    json points = json::array();
    for (const auto& p : s.points)
        points.push_back({{"qd", p.qd},
                          {"io_uring", repeated_phase_json(p.uring)},
                          {"sync", repeated_phase_json(p.sync)},
                          {"iops_ratio", ratio(p.uring.iops, p.sync.iops)}});
    return {{"points", points},
            {"margin_pct", s.margin_pct},
            {"crossover_qd", s.crossover ? json(s.points[*s.crossover].qd) : json(nullptr)},
            {"crossover", crossover_line(s)},
            {"repeats", s.repeats},
            {"crossover_verdict", s.verdict()}};
}

}  // namespace

json comparison_json(const model::BackendComparison& c) {
    const auto rows = compared_rows(c);
    const char* baseline = c.atomic ? "plain" : "sync";  // the second row, the ratios' divisor
    json out = {{"baseline", baseline}, {"rows", json::array()}};
    if (rows.size() >= 2)
        for (const auto& a : rows[0].phases)
            if (const auto* b = find_phase(rows[1], a.phase))
                out["rows"].push_back(ratio_row(a, *b));
    out["runs"] = runs_json(rows, c);
    out["sweep"] = sweep_json(c);
    out["verdict"] = verdict_line(c).substr(9);  // without "verdict  "
    if (c.runs.size() >= 2 && c.runs[1].ran) {
        // The second run in the same shape as the main document's own sections.
        const auto& second = c.runs[1];
        json doc = result_json(second.config, second.result, HostInfo{});
        out[baseline] = {{"backend", doc["backend"]},
                         {"iterations", iterations_json(second.result)},
                         {"merged_phases", doc["merged_phases"]},
                         {"summary", doc["summary"]}};
        if (doc.contains("sweep")) out[baseline]["sweep"] = doc["sweep"];
    }
    return out;
}

}  // namespace ds::report
