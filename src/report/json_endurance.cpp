// The drive-endurance blocks of the result document: --steady-state,
// --sustained-write and the drive's health per phase.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "drivestress_version.h"
#include "model/drift.h"
#include "output/output_file.h"
#include "pattern/unit.h"
#include "report/figures.h"
#include "report/json_parts.h"
#include "report/json_report.h"
#include "units/utf8.h"

namespace ds::report {

using nlohmann::json;

namespace {

json number_or_null(double v) {
    return std::isfinite(v) ? json(v) : json(nullptr);
}

// --steady-state: per iteration, the rule, every round's IOPS and the window
// judged (line: iops = intercept_iops + slope_iops_per_round x round index).
json steady_state_json(const model::SteadyStateResult& ss) {
    json window = nullptr;
    if (ss.window) {
        const auto& w = *ss.window;
        window = {{"first_round", w.first},
                  {"last_round", w.last},
                  {"mean_iops", w.mean},
                  {"min_iops", w.min},
                  {"max_iops", w.max},
                  {"range_pct", number_or_null(w.range_pct)},
                  {"slope_iops_per_round", w.slope},
                  {"intercept_iops", w.intercept},
                  {"excursion_pct", number_or_null(w.excursion_pct)},
                  {"range_ok", w.range_ok},
                  {"excursion_ok", w.excursion_ok},
                  {"attained", w.attained},
                  {"slope_interval",
                   w.trend_judged ? json::array({w.slope_low, w.slope_high}) : json(nullptr)},
                  {"trend", stats::trend_name(w)}};
    }
    const char* status = ss.status == stats::SteadyStateStatus::attained ? "attained"
                         : ss.status == stats::SteadyStateStatus::max_rounds_reached
                             ? "max-rounds"
                             : "interrupted";
    return {{"iteration", ss.iteration},
            {"metric", "iops"},
            {"round_s", ss.round_s},
            {"rule",
             {{"window_rounds", ss.rule.window_rounds},
              {"max_range_pct", ss.rule.max_range_pct},
              {"max_excursion_pct", ss.rule.max_excursion_pct},
              {"max_rounds", ss.rule.max_rounds}}},
            {"status", status},
            {"attained_at_round", ss.status == stats::SteadyStateStatus::attained
                                      ? json(ss.round_iops.size())
                                      : json(nullptr)},
            {"rounds_iops", ss.round_iops},
            {"window", window}};
}

json intervals_json(const std::vector<stats::ThroughputInterval>& series) {
    json out = json::array();
    for (const auto& iv : series)
        out.push_back({{"seconds", iv.seconds}, {"bytes", iv.bytes}});
    return out;
}

json cliff_step_json(const stats::CliffStep& st) {
    return {{"interval", st.interval},
            {"bytes_before", st.bytes_before},
            {"seconds_before", st.seconds_before},
            {"before_bytes_per_sec", st.before_bytes_per_s},
            {"after_bytes_per_sec", st.after_bytes_per_s},
            {"drop_pct", st.drop_pct}};
}

json sustained_write_json(const model::SustainedWriteResult& sw) {
    json steps = json::array();
    for (const auto& st : sw.cliff.steps)
        steps.push_back(cliff_step_json(st));
    json recovery = nullptr;
    if (sw.recovery) {
        const auto& rec = *sw.recovery;
        recovery = {
            {"idle_s", rec.idle_seconds},
            {"bytes_per_sec", rec.bytes_per_s},
            {"recovered_pct", number_or_null(rec.recovered_pct)},
            {"segment_bytes", rec.segment_bytes},
            {"bytes_to_cliff", rec.bytes_to_cliff ? json(*rec.bytes_to_cliff) : json(nullptr)},
            {"intervals", intervals_json(sw.recovery_series)}};
    }
    return {{"iteration", sw.iteration},
            {"passes", sw.passes},
            {"passes_done", sw.passes_done},
            {"capacity_bytes", sw.capacity_bytes},
            {"interval_s", sw.interval_s},
            {"rule",
             {{"min_level_intervals", sw.rule.min_level_intervals},
              {"min_drop_pct", sw.rule.min_drop_pct}}},
            {"intervals", intervals_json(sw.series)},
            {"cliff",
             {{"long_enough", sw.cliff.long_enough},
              {"found", !sw.cliff.steps.empty()},
              {"total_bytes", sw.cliff.total_bytes},
              {"total_seconds", sw.cliff.total_seconds},
              {"steps", steps}}},
            {"recovery", recovery},
            {"interrupted", sw.interrupted}};
}

json health_log_json(const std::optional<nvme::HealthLog>& log) {
    if (!log) return nullptr;
    const auto& h = *log;
    return {{"critical_warning", h.critical_warning},
            {"composite_temperature_k", h.composite_temperature_k},
            {"available_spare_pct", h.available_spare_pct},
            {"available_spare_threshold_pct", h.available_spare_threshold_pct},
            {"percentage_used", h.percentage_used},
            {"data_units_written", h.data_units_written},
            {"media_errors", h.media_errors},
            {"error_log_entries", h.error_log_entries},
            {"warning_temperature_minutes", h.warning_temperature_minutes},
            {"critical_temperature_minutes", h.critical_temperature_minutes},
            {"thermal_transitions", h.thermal_transitions},
            {"thermal_seconds", h.thermal_seconds}};
}

json phase_health_json(const model::PhaseHealth& p) {
    json findings = json::array();
    json delta = nullptr;
    if (p.change) {
        for (const auto& f : p.change->findings)
            findings.push_back({{"kind", std::string(nvme::finding_name(f.kind))},
                                {"damage", nvme::is_damage(f.kind)},
                                {"before", f.before},
                                {"after", f.after}});
        const auto& d = p.change->delta;
        delta = {{"warnings_set", d.warnings_set},
                 {"media_errors", d.media_errors},
                 {"error_log_entries", d.error_log_entries},
                 {"available_spare_pct", d.available_spare_pct},
                 {"percentage_used", d.percentage_used},
                 {"warning_temperature_minutes", d.warning_temperature_minutes},
                 {"critical_temperature_minutes", d.critical_temperature_minutes},
                 {"thermal_transitions", d.thermal_transitions},
                 {"thermal_seconds", d.thermal_seconds},
                 {"data_units_written", d.data_units_written}};
    }
    const char* thermal =
        p.thermal == nvme::ThermalVerdict::thermal_throttling       ? "thermal-throttling"
        : p.thermal == nvme::ThermalVerdict::throttled_without_loss ? "throttled-without-loss"
                                                                    : "none";
    return {{"iteration", p.iteration},
            {"phase", std::string(model::to_string(p.phase))},
            {"unreadable", p.unreadable.empty() ? json(nullptr) : json(p.unreadable)},
            {"before", health_log_json(p.before)},
            {"after", health_log_json(p.after)},
            {"comparable", p.change ? json(p.change->comparable) : json(nullptr)},
            {"delta", delta},
            {"findings", findings},
            {"damaged", p.change && p.change->damaged()},
            {"thermal", thermal},
            {"reference_bytes_per_sec", p.reference_bytes_per_s},
            {"observed_bytes_per_sec", p.observed_bytes_per_s}};
}

}  // namespace

json drive_health_json(const model::DriveHealth& h) {
    json phases = json::array();
    for (const auto& p : h.phases)
        phases.push_back(phase_health_json(p));
    return {{"available", h.available},
            {"reason", h.available ? json(nullptr) : json(h.reason)},
            {"controller", h.controller.empty() ? json(nullptr) : json(h.controller)},
            {"device", h.device.empty() ? json(nullptr) : json(h.device)},
            {"test_fixture", h.fixture},
            {"damaged", h.damaged()},
            {"phases_read", h.phases_read},
            {"phases_damaged", h.phases_damaged},
            {"first_damage", h.first_damage ? phase_health_json(*h.first_damage) : json(nullptr)},
            {"phases", phases}};
}

// The blocks of the drive-endurance work (--steady-state, --sustained-write),
// when asked for.
void add_endurance_blocks(json& doc, const model::RunResult& r) {
    // Target 1's (each target's is in targets[]).
    doc["drive_health"] =
        drive_health_json(r.targets.empty() ? model::DriveHealth{} : r.targets.front().health);
    if (!r.sustained_write.empty()) {
        json all = json::array();
        for (const auto& sw : r.sustained_write)
            all.push_back(sustained_write_json(sw));
        doc["sustained_write"] = all;
    }
    if (!r.steady_state.empty()) {
        json all = json::array();
        for (const auto& ss : r.steady_state)
            all.push_back(steady_state_json(ss));
        doc["steady_state"] = all;
    }
}

}  // namespace ds::report
