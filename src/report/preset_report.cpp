#include "report/preset_report.h"

#include <algorithm>
#include <cstdio>

#include "report/json_report.h"
#include "report/result_line.h"
#include "report/text_report.h"
#include "report/text_width.h"

namespace ds::report {

namespace {

std::string iops_text(double iops) {
    char buf[32];
    if (iops >= 1e6)
        std::snprintf(buf, sizeof buf, "%.2fM", iops / 1e6);
    else if (iops >= 1e4)
        std::snprintf(buf, sizeof buf, "%.1fk", iops / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.0f", iops);
    return buf;
}

// "RND4K Q32T1 read" -> ("RND4K Q32T1", reads); labels without the suffix
// stand for both directions.
std::pair<std::string, int> row_name(const std::string& label) {
    for (auto [suffix, dir] : {std::pair{" read", 1}, std::pair{" write", 2}})
        if (label.size() > std::string(suffix).size() &&
            label.compare(label.size() - std::string(suffix).size(), std::string::npos, suffix) ==
                0)
            return {label.substr(0, label.size() - std::string(suffix).size()), dir};
    return {label, 3};
}

// One direction's three cells, or dashes when the test did none, or what
// stands for them when its phase was too short to measure.
std::string cells(bool measured, double bytes_per_sec, double iops, std::uint64_t p99_ns,
                  const std::string& too_short, units::ByteUnits u) {
    char buf[96];
    if (measured && !too_short.empty()) {  // "too short: 0.040 s, 16 ops" across 31 columns
        std::string text = "too short: " + too_short;
        if (auto at = text.find(" operation"); at != std::string::npos)
            text.replace(at, std::string::npos, " ops");
        std::snprintf(buf, sizeof buf, " %30s", text.c_str());
    } else if (!measured)
        std::snprintf(buf, sizeof buf, " %10s %9s %9s", "-", "-", "-");
    else
        std::snprintf(buf, sizeof buf, " %10.1f %9s %9.3f", units::rate_unit(u).of(bytes_per_sec),
                      iops_text(iops).c_str(), static_cast<double>(p99_ns) / 1e6);
    return buf;
}

// "    drive health: 4 phases read, no damage" ("drive health of target 2:"
// for `target` > 0), or why there is none.
std::string drive_health_line(const model::DriveHealth& h, std::size_t target) {
    const std::string label = target ? "    drive health of target " + std::to_string(target) + ": "
                                     : "    drive health: ";
    if (!h.available) return label + "not available: " + h.reason + "\n";
    return label + std::to_string(h.phases_read) + " phases read, " +
           (h.phases_damaged ? std::to_string(h.phases_damaged) + " with DAMAGE"
                             : std::string("no damage")) +
           "\n";
}

// A test whose random phase drew a skew, a size mix or flushes (database):
// those lines under the table, as a run states them under its random phase
// (docs/workloads.md); a preset prints no phase lines of its own.
std::string workload_summary(const PresetResults& results, units::ByteUnits u) {
    std::string out;
    for (const auto& [label, r] : results) {
        const auto random = std::find_if(
            r.merged_phases.begin(), r.merged_phases.end(),
            [](const model::PhaseResult& p) { return p.phase == model::Phase::random; });
        if (random == r.merged_phases.end()) continue;
        std::string lines;
        if (random->skew) lines += fit(skew_line(*random->skew)) + "\n";
        if (!random->counters.sizes.empty()) lines += fit(sizes_line(*random, u)) + "\n";
        if (random->counters.flush_ops) lines += fit(flushes_line(*random)) + "\n";
        if (!lines.empty()) out += "  " + label + ", random phase:\n" + lines;
    }
    return out;
}

// nvme-endurance: each test's cliff, steady state and drive health again
// under the table, so the summary is in one place.
std::string endurance_summary(const PresetResults& results, units::ByteUnits u) {
    std::string out;
    for (const auto& [label, r] : results) {
        std::string lines;
        for (const auto& sw : r.sustained_write)
            lines += "    " + write_cliff_lines(sw, u);
        for (const auto& ss : r.steady_state)
            lines += fit("    " + steady_state_line(ss), 17) + "\n";
        if (lines.empty()) continue;
        for (std::size_t t = 0; t < r.targets.size(); ++t)
            lines += drive_health_line(r.targets[t].health, r.targets.size() > 1 ? t + 1 : 0);
        out += "  " + label + ":\n" + lines;
    }
    return out;
}

}  // namespace

PresetRow preset_row(const model::RunResult& r) {
    PresetRow row;
    row.mismatches = r.mismatch_count();
    const QuotedFigures q = quoted_figures(r);
    const DirectionFigures& rd = q.random ? q.random_read : q.seq_read;
    const DirectionFigures& wr = q.random ? q.random_write : q.seq_write;
    row.reads = rd.measured;
    row.writes = wr.measured;
    row.read_bytes_per_sec = rd.bytes_per_sec;
    row.write_bytes_per_sec = wr.bytes_per_sec;
    row.read_iops = rd.iops;
    row.write_iops = wr.iops;
    row.read_p99_ns = rd.p99_ns;
    row.write_p99_ns = wr.p99_ns;
    row.read_too_short = rd.too_short;
    row.write_too_short = wr.too_short;
    if (q.random) {
        row.p99_ns = q.random_p99_ns;
        return row;
    }
    stats::LatencyHistogram lat;
    for (const auto& ph : r.merged_phases)
        if (ph.phase == model::Phase::seq_read || ph.phase == model::Phase::seq_write)
            lat.merge(ph.latency());
    row.p99_ns = lat.value_at_percentile(99);
    return row;
}

std::string preset_table(const std::string& name, const PresetResults& results,
                         units::ByteUnits u) {
    struct Line {
        std::string name;
        PresetRow read, write;
        bool has_read = false, has_write = false;
        model::RunEvidence evidence;  // of the line's tests together
    };
    std::vector<Line> lines;
    for (const auto& [label, r] : results) {
        auto [row_label, dir] = row_name(label);
        if (lines.empty() || lines.back().name != row_label) lines.push_back({row_label});
        Line& l = lines.back();
        const PresetRow row = preset_row(r);
        if ((dir & 1) && row.reads) l.read = row, l.has_read = true;
        if ((dir & 2) && row.writes) l.write = row, l.has_write = true;
        l.evidence.status = model::worse_exit_status(l.evidence.status, model::exit_status(r));
        l.evidence.mismatches += r.mismatch_count();
        l.evidence.verified_bytes += r.totals().verified;
    }
    const char* rate = units::rate_unit(u).name;
    std::string out = "\npreset " + name + ": each direction's " + rate +
                      ", IOPS and p99 (details of every test: --json)\n";
    char buf[256];
    // Each direction: " %10s %9s %9s", 31 columns.
    std::snprintf(buf, sizeof buf, "  %-16s %s %s\n", "", "------------ read ------------",
                  "----------- write ------------");
    out += buf;
    std::snprintf(buf, sizeof buf, "  %-16s %10s %9s %9s %10s %9s %9s  %s\n", "test", rate, "IOPS",
                  "p99 ms", rate, "IOPS", "p99 ms", "result");
    out += buf;
    for (const auto& l : lines) {
        const std::string verdict = model::verdict_cell(l.evidence);
        std::snprintf(buf, sizeof buf, "  %-16s", l.name.c_str());
        out += buf;
        out += cells(l.has_read, l.read.read_bytes_per_sec, l.read.read_iops, l.read.read_p99_ns,
                     l.read.read_too_short, u);
        out += cells(l.has_write, l.write.write_bytes_per_sec, l.write.write_iops,
                     l.write.write_p99_ns, l.write.write_too_short, u);
        out += "  " + verdict + "\n";
    }
    // A preset prints no figures block: what duplicates hide is said here.
    for (const auto& [label, r] : results) {
        if (r.data && r.data->dedupe_pct > 0) {
            out += fit("  data: " + dedupe_words(*r.data), 8) + "\n";
            break;
        }
    }
    return out + workload_summary(results, u) + endurance_summary(results, u);
}

nlohmann::json preset_json(const std::string& name, const PresetResults& results,
                           const std::vector<model::RunConfig>* configs, const HostInfo* host) {
    nlohmann::json tests = nlohmann::json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
        const auto& [label, r] = results[i];
        PresetRow row = preset_row(r);
        nlohmann::json t = {{"label", label},
                            {"read_bandwidth_bytes_per_sec", row.read_bytes_per_sec},
                            {"write_bandwidth_bytes_per_sec", row.write_bytes_per_sec},
                            {"read_iops", row.read_iops},
                            {"write_iops", row.write_iops},
                            {"p99_ns", row.p99_ns},
                            {"read_p99_ns", row.read_p99_ns},
                            {"write_p99_ns", row.write_p99_ns},
                            {"mismatch_total", row.mismatches},
                            {"too_short", (row.reads && !row.read_too_short.empty()) ||
                                              (row.writes && !row.write_too_short.empty())},
                            {"exit_code", model::code_of(model::exit_status(r))}};
        if (configs && host && i < configs->size()) {
            nlohmann::json doc = result_json((*configs)[i], r, *host);
            for (const char* key : {"config", "backend", "merged_phases", "summary"})
                t[key] = std::move(doc[key]);
            set_verdict(t, model::exit_status(r));
        }
        tests.push_back(std::move(t));
    }
    return {{"name", name}, {"tests", tests}};
}

}  // namespace ds::report
