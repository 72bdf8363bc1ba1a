// What changed in a drive's health between two readings of its SMART /
// Health log (before and after a phase), and what that means: damage (the
// run fails with a class of its own), thermal throttling, or a notice.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "nvme/health_log.h"

namespace ds::nvme {

// after - before, field by field.  Lifetime counters only grow; a negative
// difference means the readings are not of one drive (or it was reset).
struct HealthDelta {
    std::uint8_t warnings_set = 0;      // critical warning bits set after, not before
    std::uint8_t warnings_cleared = 0;  // set before, not after
    std::uint8_t endurance_group_warnings_set = 0;
    int composite_temperature_k = 0;
    int available_spare_pct = 0;  // negative: spare consumed
    int percentage_used = 0;
    std::int64_t data_units_read = 0;  // units of 1000 x 512 bytes
    std::int64_t data_units_written = 0;
    std::int64_t host_read_commands = 0;
    std::int64_t host_write_commands = 0;
    std::int64_t controller_busy_minutes = 0;
    std::int64_t power_cycles = 0;
    std::int64_t power_on_hours = 0;
    std::int64_t unsafe_shutdowns = 0;
    std::int64_t media_errors = 0;
    std::int64_t error_log_entries = 0;
    std::int64_t warning_temperature_minutes = 0;
    std::int64_t critical_temperature_minutes = 0;
    std::array<std::int64_t, 2> thermal_transitions{};  // thermal management 1, 2
    std::array<std::int64_t, 2> thermal_seconds{};
};

HealthDelta health_delta(const HealthLog& before, const HealthLog& after);

enum class HealthFindingKind {
    // Damage: the drive lost data or capacity to keep it.
    media_errors,             // media and data integrity errors rose
    critical_warning,         // a critical warning other than temperature newly set
    endurance_group_warning,  // an endurance group critical warning newly set
    spare_below_threshold,    // available spare fell below its threshold
    // Notices: reported, the run goes on.
    temperature_warning,        // the temperature critical warning newly set
    thermal_transitions,        // transitions into thermal management 1 or 2 rose
    thermal_time,               // seconds in thermal management 1 or 2 rose
    warning_temperature_time,   // minutes at or above the warning temperature rose
    critical_temperature_time,  // minutes at or above the critical temperature rose
    error_log_entries,          // entries added to the error information log
    spare_consumed,             // available spare fell, still at or above its threshold
    wear,                       // percentage used rose
    unsafe_shutdowns,           // an unsafe shutdown was counted
};

// Stable kebab-case name ("media-errors"), for JSON values and text.
std::string_view finding_name(HealthFindingKind kind);
// True for the kinds that mean damage.
bool is_damage(HealthFindingKind kind);

// One change worth reporting, with the values before and after: the
// warning bits, percent for spare and wear, the sum over thermal management
// 1 and 2 for the thermal kinds, the counter otherwise.
struct HealthFinding {
    HealthFindingKind kind;
    std::uint64_t before = 0;
    std::uint64_t after = 0;
};

struct HealthChange {
    HealthDelta delta;
    // False when a lifetime counter (hours, power cycles, data units,
    // commands, errors) fell: the readings are not of one drive (a reset
    // renamed the controller?), and no finding is made from them.
    bool comparable = true;
    std::vector<HealthFinding> findings;  // damage first, then notices, each in enum order
    bool damaged() const;                 // any finding is damage
};

// The temperature warning bit is a notice, not damage: it reports a
// condition that clears when the drive cools, and a burn-in that heats a
// drive to its threshold has not harmed it.  Error log entries are a
// notice too: the host's own invalid commands add to them.
HealthChange compare_health(const HealthLog& before, const HealthLog& after);

// True when thermal management transitions or time, or the minutes at or
// above the warning or critical temperature, rose.
bool throttle_counters_rose(const HealthDelta& delta);

enum class ThermalVerdict {
    none,                    // no throttle counter rose
    throttled_without_loss,  // counters rose, throughput held
    thermal_throttling,      // counters rose while throughput fell
};

// Throughput fell when `observed_bytes_per_s` is at least `min_drop_pct`
// below `reference_bytes_per_s` (what the phase does unthrottled: its first
// intervals, or the same phase in the first iteration).
ThermalVerdict judge_thermal(const HealthDelta& delta, double reference_bytes_per_s,
                             double observed_bytes_per_s, double min_drop_pct = 10);

}  // namespace ds::nvme
