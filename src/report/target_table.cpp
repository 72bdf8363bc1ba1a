#include "report/target_table.h"

#include <cinttypes>

#include "units/units.h"

namespace ds::report {

namespace {

using units::printf_string;

const model::PhaseResult* phase_of(const std::vector<model::PhaseResult>& phases,
                                   model::Phase want) {
    for (const auto& p : phases)
        if (p.phase == want) return &p;
    return nullptr;
}

// A phase too short to measure has no figure to quote (kMinMeasuredSeconds).
std::string bandwidth_cell(const model::PhaseResult* p, units::ByteUnits u) {
    if (p && !p->too_short().empty()) return "too short";
    return p ? units::format_bandwidth(p->bytes_per_sec(), u) : "-";
}

std::string iops_cell(const model::PhaseResult* p) {
    if (p && !p->too_short().empty()) return "too short";
    return p ? units::format_iops(p->iops()) : "-";
}

std::string p99_cell(const model::PhaseResult* p) {
    if (!p || p->counters.read_ops + p->counters.write_ops == 0) return "-";
    if (!p->too_short().empty()) return "too short";
    return printf_string("%.3f ms", p->latency().value_at_percentile(99) / 1e6);
}

std::string row(const std::string& name, const std::vector<model::PhaseResult>& phases,
                std::uint64_t verified, std::uint64_t mismatches, const std::string& verdict,
                units::ByteUnits u) {
    using model::Phase;
    return printf_string("  %-18s %13s %13s %9s %10s %9s %10" PRIu64 "  %s\n", name.c_str(),
                         bandwidth_cell(phase_of(phases, Phase::seq_write), u).c_str(),
                         bandwidth_cell(phase_of(phases, Phase::seq_read), u).c_str(),
                         iops_cell(phase_of(phases, Phase::random)).c_str(),
                         p99_cell(phase_of(phases, Phase::random)).c_str(),
                         units::format_bytes(verified).c_str(), mismatches, verdict.c_str());
}

}  // namespace

std::string target_header_lines(const model::RunConfig& cfg, const model::RunResult& r) {
    std::string out;
    for (std::size_t t = 0; t < r.targets.size(); ++t) {
        const auto& tr = r.targets[t];
        const char* io = tr.direct_io ? "O_DIRECT" : "buffered";
        if (tr.raw)
            out +=
                printf_string("target %zu %s (raw device, %s)  %u regions x %s  %s", t + 1,
                              tr.info.path.c_str(), units::format_bytes(tr.info.free_bytes).c_str(),
                              tr.files, units::format_bytes(cfg.file_bytes).c_str(), io);
        else
            out +=
                printf_string("target %zu %s (%s on %s)  %u x %s  %s", t + 1, tr.info.path.c_str(),
                              tr.info.filesystem.empty() ? "?" : tr.info.filesystem.c_str(),
                              tr.info.device.empty() ? "?" : tr.info.device.c_str(), tr.files,
                              units::format_bytes(cfg.file_bytes).c_str(), io);
        out += tr.placement.empty() ? std::string("\n") : "  on " + tr.placement + "\n";
    }
    return out;
}

std::string slow_text(const model::TargetResult& t, units::ByteUnits u) {
    if (!t.slow) return "";
    const auto& s = *t.slow;
    const bool iops = s.phase == model::Phase::random;
    auto figure = [&](double v) {
        return iops ? units::format_iops(v) + " IOPS" : units::format_bandwidth(v, u);
    };
    if (!s.compared_to.empty())  // two like targets, the intervals apart
        return printf_string("%s: %s %.0f %% below %s (%s against %s, outside the noise)",
                             t.name.c_str(), std::string(model::to_string(s.phase)).c_str(),
                             s.below_pct, s.compared_to.c_str(), figure(s.value).c_str(),
                             figure(s.median).c_str());
    return printf_string("%s: %s %.0f %% below the median of %zu (%s, median %s)", t.name.c_str(),
                         std::string(model::to_string(s.phase)).c_str(), s.below_pct,
                         s.like_targets, figure(s.value).c_str(), figure(s.median).c_str());
}

std::string target_table(const model::RunConfig& cfg, const model::RunResult& r,
                         model::ExitStatus code, units::ByteUnits u) {
    if (r.targets.size() < 2) return "";
    std::string out =
        printf_string("\n  %-18s %13s %13s %9s %10s %9s %10s  %s\n", "target", "seq-write",
                      "seq-read", "random", "random p99", "verified", "mismatches", "verdict");
    for (std::size_t t = 0; t < r.targets.size(); ++t) {
        const auto& tr = r.targets[t];
        const model::RunEvidence e = model::target_evidence(cfg, r, t, code);
        out += row(tr.name, tr.merged_phases, tr.verified_bytes(), e.mismatches,
                   model::verdict_cell(e), u);
    }
    const model::RunEvidence all = model::run_evidence(cfg, r, code);
    out += row("total", r.merged_phases, r.totals().verified, r.mismatch_count(),
               model::verdict_cell(all), u);
    for (const auto& tr : r.targets)
        if (tr.slow) out += "slow     " + slow_text(tr, u) + "\n";
    return out;
}

}  // namespace ds::report
