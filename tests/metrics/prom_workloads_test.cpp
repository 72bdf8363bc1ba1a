// A run of several jobs in the Prometheus text: each job's figures under the
// label `workload` (never `job`, Prometheus's own); none for one job.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "metrics/prometheus.h"

using namespace ds;

namespace {

metrics::PromState::Workload workload(const std::string& name, std::uint64_t reads) {
    metrics::PromState::Workload w;
    w.name = name;
    w.read_ops = reads;
    w.read_bytes = reads * 4096;
    w.verified_bytes = reads * 4096;
    w.seconds = 2;
    stats::LatencyHistogram h;
    for (std::uint64_t i = 0; i < reads; ++i)
        h.record(100'000);
    w.latency.add(h);
    return w;
}

bool has_line(const std::string& text, const std::string& line) {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        if (l == line) return true;
    return false;
}

}  // namespace

TEST_CASE("several jobs: each one's figures labelled workload") {
    metrics::PromState s;
    s.labels = {{"target", "/mnt/t"}};
    s.workloads = {workload("reader", 1000), workload("writer", 10)};
    const std::string text = metrics::prometheus_text(s, {});
    CHECK(has_line(text, "# TYPE drivestress_workload_operations_total counter"));
    CHECK(has_line(text,
                   "drivestress_workload_operations_total{target=\"/mnt/t\","
                   "workload=\"reader\",op=\"read\"} 1000"));
    CHECK(has_line(text,
                   "drivestress_workload_operations_total{target=\"/mnt/t\","
                   "workload=\"writer\",op=\"read\"} 10"));
    CHECK(has_line(text,
                   "drivestress_workload_verified_bytes_total{target=\"/mnt/t\","
                   "workload=\"reader\"} 4096000"));
    CHECK(has_line(text,
                   "drivestress_workload_latency_seconds_count{target=\"/mnt/t\","
                   "workload=\"reader\"} 1000"));
    CHECK(has_line(text,
                   "drivestress_workload_seconds_total{target=\"/mnt/t\","
                   "workload=\"writer\"} 2"));
    CHECK(text.find("job=") == std::string::npos);
    CHECK(metrics::prom_label_name_problem("workload") != "");  // ours
    // One job: no workload series at all.
    s.workloads.pop_back();
    CHECK(metrics::prometheus_text(s, {}).find("drivestress_workload_") == std::string::npos);
}
