#include "nvme/health_change.h"

namespace ds::nvme {

namespace {

// Two's-complement difference of two counters: exact for |after - before| < 2^63.
std::int64_t diff(std::uint64_t before, std::uint64_t after) {
    return static_cast<std::int64_t>(after - before);
}

std::uint64_t sum2(const std::array<std::uint32_t, 2>& a) {
    return std::uint64_t{a[0]} + a[1];
}

bool lifetime_counters_fell(const HealthDelta& d) {
    for (std::int64_t v :
         {d.data_units_read, d.data_units_written, d.host_read_commands, d.host_write_commands,
          d.controller_busy_minutes, d.power_cycles, d.power_on_hours, d.unsafe_shutdowns,
          d.media_errors, d.error_log_entries, d.warning_temperature_minutes,
          d.critical_temperature_minutes, d.thermal_transitions[0], d.thermal_transitions[1],
          d.thermal_seconds[0], d.thermal_seconds[1]})
        if (v < 0) return true;
    return false;
}

// Available spare went from at or above its threshold to below it.
bool spare_crossed_threshold(const HealthLog& b, const HealthLog& a) {
    return b.available_spare_pct >= b.available_spare_threshold_pct &&
           a.available_spare_pct < a.available_spare_threshold_pct;
}

void find_damage(const HealthLog& b, const HealthLog& a, const HealthDelta& d,
                 std::vector<HealthFinding>& out) {
    if (d.media_errors > 0)
        out.push_back({HealthFindingKind::media_errors, b.media_errors, a.media_errors});
    if (d.warnings_set & ~critical_warning::temperature)
        out.push_back(
            {HealthFindingKind::critical_warning, b.critical_warning, a.critical_warning});
    if (d.endurance_group_warnings_set)
        out.push_back({HealthFindingKind::endurance_group_warning,
                       b.endurance_group_critical_warning, a.endurance_group_critical_warning});
    if (spare_crossed_threshold(b, a))
        out.push_back({HealthFindingKind::spare_below_threshold, b.available_spare_pct,
                       a.available_spare_pct});
}

void find_notices(const HealthLog& b, const HealthLog& a, const HealthDelta& d,
                  std::vector<HealthFinding>& out) {
    using K = HealthFindingKind;
    if (d.warnings_set & critical_warning::temperature)
        out.push_back({K::temperature_warning, b.critical_warning, a.critical_warning});
    if (d.thermal_transitions[0] > 0 || d.thermal_transitions[1] > 0)
        out.push_back(
            {K::thermal_transitions, sum2(b.thermal_transitions), sum2(a.thermal_transitions)});
    if (d.thermal_seconds[0] > 0 || d.thermal_seconds[1] > 0)
        out.push_back({K::thermal_time, sum2(b.thermal_seconds), sum2(a.thermal_seconds)});
    if (d.warning_temperature_minutes > 0)
        out.push_back({K::warning_temperature_time, b.warning_temperature_minutes,
                       a.warning_temperature_minutes});
    if (d.critical_temperature_minutes > 0)
        out.push_back({K::critical_temperature_time, b.critical_temperature_minutes,
                       a.critical_temperature_minutes});
    if (d.error_log_entries > 0)
        out.push_back({K::error_log_entries, b.error_log_entries, a.error_log_entries});
    if (d.available_spare_pct < 0 && !spare_crossed_threshold(b, a))  // a crossing is damage
        out.push_back({K::spare_consumed, b.available_spare_pct, a.available_spare_pct});
    if (d.percentage_used > 0) out.push_back({K::wear, b.percentage_used, a.percentage_used});
    if (d.unsafe_shutdowns > 0)
        out.push_back({K::unsafe_shutdowns, b.unsafe_shutdowns, a.unsafe_shutdowns});
}

}  // namespace

HealthDelta health_delta(const HealthLog& b, const HealthLog& a) {
    HealthDelta d;
    d.warnings_set = static_cast<std::uint8_t>(a.critical_warning & ~b.critical_warning);
    d.warnings_cleared = static_cast<std::uint8_t>(b.critical_warning & ~a.critical_warning);
    d.endurance_group_warnings_set = static_cast<std::uint8_t>(a.endurance_group_critical_warning &
                                                               ~b.endurance_group_critical_warning);
    d.composite_temperature_k = int{a.composite_temperature_k} - b.composite_temperature_k;
    d.available_spare_pct = int{a.available_spare_pct} - b.available_spare_pct;
    d.percentage_used = int{a.percentage_used} - b.percentage_used;
    d.data_units_read = diff(b.data_units_read, a.data_units_read);
    d.data_units_written = diff(b.data_units_written, a.data_units_written);
    d.host_read_commands = diff(b.host_read_commands, a.host_read_commands);
    d.host_write_commands = diff(b.host_write_commands, a.host_write_commands);
    d.controller_busy_minutes = diff(b.controller_busy_minutes, a.controller_busy_minutes);
    d.power_cycles = diff(b.power_cycles, a.power_cycles);
    d.power_on_hours = diff(b.power_on_hours, a.power_on_hours);
    d.unsafe_shutdowns = diff(b.unsafe_shutdowns, a.unsafe_shutdowns);
    d.media_errors = diff(b.media_errors, a.media_errors);
    d.error_log_entries = diff(b.error_log_entries, a.error_log_entries);
    d.warning_temperature_minutes =
        diff(b.warning_temperature_minutes, a.warning_temperature_minutes);
    d.critical_temperature_minutes =
        diff(b.critical_temperature_minutes, a.critical_temperature_minutes);
    for (std::size_t i = 0; i < 2; ++i) {
        d.thermal_transitions[i] = diff(b.thermal_transitions[i], a.thermal_transitions[i]);
        d.thermal_seconds[i] = diff(b.thermal_seconds[i], a.thermal_seconds[i]);
    }
    return d;
}

std::string_view finding_name(HealthFindingKind kind) {
    switch (kind) {
        case HealthFindingKind::media_errors:
            return "media-errors";
        case HealthFindingKind::critical_warning:
            return "critical-warning";
        case HealthFindingKind::endurance_group_warning:
            return "endurance-group-warning";
        case HealthFindingKind::spare_below_threshold:
            return "spare-below-threshold";
        case HealthFindingKind::temperature_warning:
            return "temperature-warning";
        case HealthFindingKind::thermal_transitions:
            return "thermal-transitions";
        case HealthFindingKind::thermal_time:
            return "thermal-time";
        case HealthFindingKind::warning_temperature_time:
            return "warning-temperature-time";
        case HealthFindingKind::critical_temperature_time:
            return "critical-temperature-time";
        case HealthFindingKind::error_log_entries:
            return "error-log-entries";
        case HealthFindingKind::spare_consumed:
            return "spare-consumed";
        case HealthFindingKind::wear:
            return "wear";
        case HealthFindingKind::unsafe_shutdowns:
            return "unsafe-shutdowns";
    }
    return "unknown";
}

bool is_damage(HealthFindingKind kind) {
    return kind == HealthFindingKind::media_errors || kind == HealthFindingKind::critical_warning ||
           kind == HealthFindingKind::endurance_group_warning ||
           kind == HealthFindingKind::spare_below_threshold;
}

bool HealthChange::damaged() const {
    for (const HealthFinding& f : findings)
        if (is_damage(f.kind)) return true;
    return false;
}

HealthChange compare_health(const HealthLog& before, const HealthLog& after) {
    HealthChange c;
    c.delta = health_delta(before, after);
    c.comparable = !lifetime_counters_fell(c.delta);
    if (!c.comparable) return c;
    find_damage(before, after, c.delta, c.findings);
    find_notices(before, after, c.delta, c.findings);
    return c;
}

bool throttle_counters_rose(const HealthDelta& d) {
    return d.thermal_transitions[0] > 0 || d.thermal_transitions[1] > 0 ||
           d.thermal_seconds[0] > 0 || d.thermal_seconds[1] > 0 ||
           d.warning_temperature_minutes > 0 || d.critical_temperature_minutes > 0;
}

ThermalVerdict judge_thermal(const HealthDelta& delta, double reference_bytes_per_s,
                             double observed_bytes_per_s, double min_drop_pct) {
    if (!throttle_counters_rose(delta)) return ThermalVerdict::none;
    const bool fell = reference_bytes_per_s > 0 &&
                      observed_bytes_per_s <= reference_bytes_per_s * (1 - min_drop_pct / 100);
    return fell ? ThermalVerdict::thermal_throttling : ThermalVerdict::throttled_without_loss;
}

}  // namespace ds::nvme
