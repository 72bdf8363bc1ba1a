// Endurance in the text report: steady state, the write cliff and drive
// health per phase.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "drivestress_version.h"
#include "model/drift.h"
#include "report/figures.h"
#include "report/progress_line.h"
#include "report/result_line.h"
#include "report/target_table.h"
#include "report/text_parts.h"
#include "report/text_report.h"
#include "report/text_width.h"
#include "units/units.h"

namespace ds::report {

using units::printf_string;

namespace {

// The slope per round as a share of the window's mean, with its interval:
// "trend within noise (-0.1 %/round, 95 % -0.3..0.2)" or, when the rounds
// move beyond their scatter, "still rising 2.0 %/round (95 % 1.2..2.8)".
std::string trend_text(const stats::SteadyStateWindow& w) {
    if (!w.trend_judged || !(w.mean > 0)) return "trend not judged (no interval from 2 rounds)";
    auto pct = [&](double v) { return 100.0 * v / w.mean; };
    const std::string interval =
        printf_string("95 %% %.1f..%.1f", pct(w.slope_low), pct(w.slope_high));
    if (w.trend_within_noise)
        return printf_string("trend within noise (%.1f %%/round, ", pct(w.slope)) + interval + ")";
    return printf_string("still %s %.1f %%/round (", w.slope > 0 ? "rising" : "falling",
                         std::fabs(pct(w.slope))) +
           interval + ")";
}

}  // namespace

std::string steady_state_line(const model::SteadyStateResult& r) {
    const std::size_t n = r.round_iops.size();
    char round_buf[32];
    std::snprintf(round_buf, sizeof round_buf, "%g s", r.round_s);
    const std::string round = round_buf;
    std::string head;
    if (r.status == stats::SteadyStateStatus::attained)
        head = "attained at round " + std::to_string(n) + " of " + round;
    else if (r.status == stats::SteadyStateStatus::max_rounds_reached)
        head = "not attained in " + std::to_string(n) + " rounds of " + round;
    else
        head = "no verdict: interrupted after " + std::to_string(n) + " rounds of " + round;
    if (!r.window)
        return "steady state: " + head + " (fewer rounds than the window of " +
               std::to_string(r.rule.window_rounds) + ")";
    const auto& w = *r.window;
    std::string line = "steady state: " + head +
                       printf_string(
                           " (rounds %zu-%zu)  mean %.0f IOPS, range %.1f %% (max %g), "
                           "slope excursion %.1f %% (max %g)",
                           w.first + 1, w.last + 1, w.mean, w.range_pct, r.rule.max_range_pct,
                           w.excursion_pct, r.rule.max_excursion_pct);
    return line + "  " + trend_text(w);
}

void TextReport::steady_state_done(const model::SteadyStateResult& r) {
    clear_live();
    std::fprintf(out_, "%s\n", fit(steady_state_line(r)).c_str());
    std::fflush(out_);
}

namespace {

std::string cliff_step_text(const stats::CliffStep& st, const units::RateUnit& ru) {
    char buf[160];
    std::snprintf(buf, sizeof buf, " after %s: %.0f -> %.0f %s (-%.0f%%)",
                  units::format_bytes(st.bytes_before).c_str(), ru.of(st.before_bytes_per_s),
                  ru.of(st.after_bytes_per_s), ru.name, st.drop_pct);
    return buf;
}

std::string recovery_line(const model::SustainedWriteResult& r, const units::RateUnit& ru) {
    const auto& rec = *r.recovery;
    char buf[200];
    std::snprintf(buf, sizeof buf, "  after %g s idle: %.0f %s, %.0f %% of the drop recovered",
                  rec.idle_seconds, ru.of(rec.bytes_per_s), ru.name, rec.recovered_pct);
    std::string out = buf;
    if (rec.bytes_to_cliff)
        out += "; the cliff came back after " + units::format_bytes(*rec.bytes_to_cliff);
    else
        out += "; no cliff within " + units::format_bytes(rec.segment_bytes);
    return out + "\n";
}

}  // namespace

std::string write_cliff_lines(const model::SustainedWriteResult& r, units::ByteUnits u) {
    const auto& c = r.cliff;
    const units::RateUnit ru = units::rate_unit(u);
    char interval[32];
    std::snprintf(interval, sizeof interval, "%g s", r.interval_s);
    if (!c.long_enough)
        return "write cliff: no verdict: " + std::to_string(c.intervals) +
               (c.intervals == 1 ? " interval of " : " intervals of ") + interval + ", " +
               std::to_string(2 * r.rule.min_level_intervals) +
               " needed (more --sustained-write passes or a shorter --cliff-interval)\n";
    if (c.steps.empty())
        return "no write cliff within " + units::format_bytes(c.total_bytes) + " (" +
               std::to_string(c.intervals) +
               (c.intervals == 1 ? " interval of " : " intervals of ") + interval + ")\n";
    std::string out = "write cliff" + cliff_step_text(c.steps[0], ru) + "\n";
    for (std::size_t i = 1; i < c.steps.size(); ++i)
        out += "  next step" + cliff_step_text(c.steps[i], ru) + "\n";
    if (r.recovery) out += recovery_line(r, ru);
    return out;
}

void TextReport::sustained_write_done(const model::SustainedWriteResult& r) {
    clear_live();
    std::fprintf(out_, "%s", fit(write_cliff_lines(r, units_), 9).c_str());
    std::fflush(out_);
}

std::string phase_health_line(const model::PhaseHealth& h, units::ByteUnits u,
                              bool several_targets) {
    const std::string label =
        several_targets ? "  health target " + std::to_string(h.target + 1) + ":" : "  health:";
    if (!h.unreadable.empty()) return label + " not read: " + h.unreadable;
    if (!h.change) return label + " not read";
    const auto& c = *h.change;
    if (!c.comparable)
        return label + " readings not comparable (a lifetime counter went down: another drive?)";
    std::string out = label;
    for (const auto& f : c.findings)
        out += printf_string(" %s %" PRIu64 " -> %" PRIu64 "%s;",
                             std::string(nvme::finding_name(f.kind)).c_str(), f.before, f.after,
                             nvme::is_damage(f.kind) ? " (DAMAGE)" : "");
    const units::RateUnit ru = units::rate_unit(u);
    if (h.thermal == nvme::ThermalVerdict::thermal_throttling)
        out +=
            printf_string(" thermal throttling: %.0f -> %.0f %s;", ru.of(h.reference_bytes_per_s),
                          ru.of(h.observed_bytes_per_s), ru.name);
    else if (h.thermal == nvme::ThermalVerdict::throttled_without_loss)
        out += " throttle counters rose, throughput held;";
    if (c.findings.empty() && h.thermal == nvme::ThermalVerdict::none) out += " no change;";
    out.pop_back();
    return out + printf_string("  (%.1f MB written per the drive)",
                               static_cast<double>(c.delta.data_units_written) * 512000 / 1e6);
}

void TextReport::phase_health_done(const model::PhaseHealth& h) {
    clear_live();
    std::fprintf(out_, "%s\n", phase_health_line(h, units_, several_targets_).c_str());
    std::fflush(out_);
}

}  // namespace ds::report
