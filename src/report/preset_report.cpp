#include "report/preset_report.h"

#include <cstdio>

#include "report/text_report.h"

namespace ds::report {

namespace {

// The phase over every iteration of the test (a preset test runs one,
// but for burn-in's until --duration).
const run::PhaseResult* phase(const run::RunResult& r, run::Phase p) {
    for (const auto& ph : r.merged_phases)
        if (ph.phase == p) return &ph;
    return nullptr;
}

double rate(std::uint64_t v, double s) {
    return s > 0 ? static_cast<double>(v) / s : 0.0;
}

// nvme-endurance: each test's cliff, steady state and drive health again
// under the table, so the summary is in one place.
std::string endurance_summary(const PresetResults& results) {
    std::string out;
    for (const auto& [label, r] : results) {
        std::string lines;
        for (const auto& sw : r.sustained_write)
            lines += "    " + write_cliff_lines(sw);
        for (const auto& ss : r.steady_state)
            lines += "    " + steady_state_line(ss) + "\n";
        if (lines.empty()) continue;
        std::size_t phases_damaged = 0;
        for (const auto& p : r.health.phases)
            phases_damaged += p.change && p.change->damaged();
        lines += r.health.available
                     ? "    drive health: " + std::to_string(r.health.phases.size()) +
                           " phases read, " +
                           (phases_damaged ? std::to_string(phases_damaged) + " with DAMAGE"
                                           : std::string("no damage")) +
                           "\n"
                     : "    drive health: not available: " + r.health.reason + "\n";
        out += "  " + label + ":\n" + lines;
    }
    return out;
}

}  // namespace

PresetRow preset_row(const run::RunResult& r) {
    PresetRow row;
    row.mismatches = r.mismatch_count();
    if (const auto* rnd = phase(r, run::Phase::random)) {
        const auto& c = rnd->counters;
        row.read_bytes_per_sec = rate(c.read_bytes, rnd->seconds);
        row.write_bytes_per_sec = rate(c.write_bytes, rnd->seconds);
        row.read_iops = rate(c.read_ops, rnd->seconds);
        row.write_iops = rate(c.write_ops, rnd->seconds);
        row.p99_ns = rnd->latency().value_at_percentile(99);
        return row;
    }
    stats::LatencyHistogram lat;
    if (const auto* rd = phase(r, run::Phase::seq_read)) {
        row.read_bytes_per_sec = rd->bytes_per_sec();
        row.read_iops = rd->iops();
        lat.merge(rd->latency());
    }
    if (const auto* wr = phase(r, run::Phase::seq_write)) {
        row.write_bytes_per_sec = wr->bytes_per_sec();
        row.write_iops = wr->iops();
        lat.merge(wr->latency());
    }
    row.p99_ns = lat.value_at_percentile(99);
    return row;
}

std::string preset_table(const std::string& name, const PresetResults& results) {
    std::string out = "\npreset " + name + "\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-20s %12s %12s %11s %11s %9s %10s\n", "test", "read MiB/s",
                  "write MiB/s", "read IOPS", "write IOPS", "p99 ms", "mismatches");
    out += line;
    for (const auto& [label, r] : results) {
        PresetRow row = preset_row(r);
        std::snprintf(line, sizeof line, "  %-20s %12.1f %12.1f %11.0f %11.0f %9.3f %10llu\n",
                      label.c_str(), row.read_bytes_per_sec / 1048576.0,
                      row.write_bytes_per_sec / 1048576.0, row.read_iops, row.write_iops,
                      row.p99_ns / 1e6, static_cast<unsigned long long>(row.mismatches));
        out += line;
    }
    return out + endurance_summary(results);
}

nlohmann::json preset_json(const std::string& name, const PresetResults& results) {
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& [label, r] : results) {
        PresetRow row = preset_row(r);
        tests.push_back({{"label", label},
                         {"read_bandwidth_bytes_per_sec", row.read_bytes_per_sec},
                         {"write_bandwidth_bytes_per_sec", row.write_bytes_per_sec},
                         {"read_iops", row.read_iops},
                         {"write_iops", row.write_iops},
                         {"p99_ns", row.p99_ns},
                         {"mismatch_total", row.mismatches},
                         {"exit_code", run::exit_status(r)}});
    }
    return {{"name", name}, {"tests", tests}};
}

}  // namespace ds::report
