#include "report/job_table.h"

#include <algorithm>
#include <vector>

#include "report/text_parts.h"

namespace ds::report {

namespace {

using units::printf_string;

std::string size_text(std::uint32_t bytes) {
    if (bytes % (1U << 20) == 0) return std::to_string(bytes >> 20).append("m");
    if (bytes % 1024 == 0) return std::to_string(bytes >> 10).append("k");
    return std::to_string(bytes);
}

// A row: 2 + 14 + 10 + 7 + 4 + 9 + 12 + 3 x 8 + 9 columns, a space
// between two: 100 (a longer cell, rare, pushes the rest right).
struct Cells {
    std::string job, rw, bs, qd, iops, bandwidth, p50, p99, p999, verified;
};

std::string row(const Cells& c) {
    return printf_string("  %-14.14s %-10s %-7s %4s %9s %12s %8s %8s %8s %9s\n", c.job.c_str(),
                         c.rw.c_str(), c.bs.c_str(), c.qd.c_str(), c.iops.c_str(),
                         c.bandwidth.c_str(), c.p50.c_str(), c.p99.c_str(), c.p999.c_str(),
                         c.verified.c_str());
}

std::string job_row(const model::JobResult& j, units::ByteUnits u) {
    const model::PhaseResult& p = j.workload;
    const stats::LatencyHistogram h = p.latency();
    const bool any = h.count() > 0 && p.seconds > 0;
    auto at = [&](double pct) { return any ? ms(h.value_at_percentile(pct)) : std::string("-"); };
    return row({j.name, job_rw(j), job_bs(j), std::to_string(j.depth),
                any ? units::format_iops(p.iops()) : "-",
                any ? units::format_bandwidth(p.bytes_per_sec(), u) : "-", at(50), at(99), at(99.9),
                units::format_bytes(p.counters.verified_bytes)});
}

}  // namespace

std::string job_rw(const model::JobResult& j) {
    std::string rw = j.access == model::Access::random ? "rand" : "";
    if (j.read_pct >= 100) return rw.append("read");
    if (j.trim_pct >= 100) return rw.append("trim");
    if (j.read_pct == 0 && j.trim_pct == 0) return rw.append("write");
    rw.append("rw").append(std::to_string(j.read_pct));
    if (j.trim_pct) rw.append("t").append(std::to_string(j.trim_pct));
    return rw;
}

std::string job_bs(const model::JobResult& j) {
    if (j.sizes.empty()) return "-";
    if (j.sizes.size() == 1) return size_text(j.sizes.front());
    return size_text(j.sizes.front()).append("-").append(size_text(j.sizes.back()));
}

std::string job_table(const model::RunResult& r, units::ByteUnits u) {
    if (r.jobs.size() < 2) return "";
    std::vector<const model::JobResult*> jobs;
    for (const model::JobResult& j : r.jobs)
        jobs.push_back(&j);
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const auto* a, const auto* b) { return a->group < b->group; });
    const bool groups = jobs.front()->group != jobs.back()->group;
    std::string out("\n");
    out.append(row({"job", "rw", "bs", "qd", "IOPS", "bandwidth", "p50 ms", "p99 ms", "p99.9 ms",
                    "verified"}));
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (groups && (i == 0 || jobs[i]->group != jobs[i - 1]->group))
            out.append(printf_string("  group %u\n", jobs[i]->group));
        out.append(job_row(*jobs[i], u));
    }
    return out;
}

}  // namespace ds::report
