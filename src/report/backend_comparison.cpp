#include "report/backend_comparison.h"

#include <cstdio>

#include "report/json_report.h"

namespace ds::report {

using nlohmann::json;

namespace {

// The phase over every iteration (one unless --iterations says more).
const run::PhaseResult* find_phase(const run::RunResult& r, run::Phase p) {
    for (const auto& ph : r.merged_phases)
        if (ph.phase == p) return &ph;
    return nullptr;
}

double ratio(double a, double b) {
    return b > 0 ? a / b : 0.0;
}

}  // namespace

std::string comparison_table(const run::RunResult& uring, const run::RunResult& sync) {
    const std::size_t n = uring.iterations.size();
    std::string out = "\nbackends compared (" +
                      (n > 1 ? std::to_string(n) + " iterations merged" : "iteration 1") +
                      "; ratio = io_uring / sync)\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-10s %12s %12s %7s %11s %11s %7s %10s %10s %7s\n", "phase",
                  "uring MiB/s", "sync MiB/s", "ratio", "uring IOPS", "sync IOPS", "ratio",
                  "uring p99", "sync p99", "ratio");
    out += line;
    for (run::Phase p : run::kAllPhases) {
        const auto* a = find_phase(uring, p);
        const auto* b = find_phase(sync, p);
        if (!a || !b) continue;
        double pa = static_cast<double>(a->latency().value_at_percentile(99)) / 1e6;
        double pb = static_cast<double>(b->latency().value_at_percentile(99)) / 1e6;
        std::snprintf(line, sizeof line,
                      "  %-10s %12.1f %12.1f %6.2fx %11.0f %11.0f %6.2fx %8.3fms %8.3fms %6.2fx\n",
                      std::string(run::to_string(p)).c_str(), a->bytes_per_sec() / 1048576.0,
                      b->bytes_per_sec() / 1048576.0, ratio(a->bytes_per_sec(), b->bytes_per_sec()),
                      a->iops(), b->iops(), ratio(a->iops(), b->iops()), pa, pb, ratio(pa, pb));
        out += line;
    }
    return out;
}

json comparison_json(const run::RunConfig& cfg, const run::RunResult& uring,
                     const run::RunResult& sync) {
    json rows = json::array();
    for (run::Phase p : run::kAllPhases) {
        const auto* a = find_phase(uring, p);
        const auto* b = find_phase(sync, p);
        if (!a || !b) continue;
        double pa = static_cast<double>(a->latency().value_at_percentile(99));
        double pb = static_cast<double>(b->latency().value_at_percentile(99));
        rows.push_back({{"phase", std::string(run::to_string(p))},
                        {"io_uring_bandwidth_bytes_per_sec", a->bytes_per_sec()},
                        {"sync_bandwidth_bytes_per_sec", b->bytes_per_sec()},
                        {"bandwidth_ratio", ratio(a->bytes_per_sec(), b->bytes_per_sec())},
                        {"io_uring_iops", a->iops()},
                        {"sync_iops", b->iops()},
                        {"iops_ratio", ratio(a->iops(), b->iops())},
                        {"io_uring_p99_ns", pa},
                        {"sync_p99_ns", pb},
                        {"p99_ratio", ratio(pa, pb)}});
    }
    // The sync run in the same shape as the main document's own sections.
    json sync_doc = result_json(cfg, sync, HostInfo{});
    return {{"baseline", "sync"},
            {"rows", rows},
            {"sync",
             {{"backend", sync_doc["backend"]},
              {"iterations", iterations_json(sync)},
              {"merged_phases", sync_doc["merged_phases"]},
              {"summary", sync_doc["summary"]}}}};
}

}  // namespace ds::report
