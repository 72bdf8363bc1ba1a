// Two health-log readings compared: which changes are damage, which notices,
// the thermal throttling verdict, and readings that cannot be compared.
#include "nvme/health_change.h"

#include <doctest/doctest.h>

#include <vector>

#include "health_log_fixture.h"

using ds::nvme::compare_health;
using ds::nvme::finding_name;
using ds::nvme::HealthChange;
using ds::nvme::HealthFindingKind;
using ds::nvme::HealthLog;
using ds::nvme::is_damage;
using ds::nvme::judge_thermal;
using ds::nvme::parse_health_log;
using ds::nvme::ThermalVerdict;
using K = HealthFindingKind;
namespace off = fixture::offset;

namespace {

HealthLog read(const fixture::Page& p) {
    return parse_health_log(p);
}

std::vector<K> kinds(const HealthChange& c) {
    std::vector<K> k;
    for (const auto& f : c.findings)
        k.push_back(f.kind);
    return k;
}

}  // namespace

TEST_CASE("a phase that only wrote: counters move, nothing to report") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    // 305419896 + 2000 data units = 0x12345E48; 1 GB written = 2000 x 512000 bytes.
    fixture::put(after, off::data_units_written, {0x48, 0x5E, 0x34, 0x12});
    fixture::put(after, off::host_write_commands, {0x11, 0x26});    // +0x400 = 1024 commands
    fixture::put(after, off::composite_temperature, {0x3D, 0x01});  // 312 -> 317 K
    const HealthChange c = compare_health(read(before), read(after));
    CHECK(c.comparable);
    CHECK(c.findings.empty());
    CHECK_FALSE(c.damaged());
    CHECK(c.delta.data_units_written == 2000);
    CHECK(c.delta.host_write_commands == 1024);
    CHECK(c.delta.composite_temperature_k == 5);
    CHECK(c.delta.media_errors == 0);
    CHECK(c.delta.warnings_set == 0);
}

TEST_CASE("media errors rising is damage") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::media_errors, {0x03});
    const HealthChange c = compare_health(read(before), read(after));
    REQUIRE(c.findings.size() == 1);
    CHECK(c.findings[0].kind == K::media_errors);
    CHECK(c.findings[0].before == 0);
    CHECK(c.findings[0].after == 3);
    CHECK(c.delta.media_errors == 3);
    CHECK(c.damaged());
}

TEST_CASE("a critical warning newly set is damage; one already set is not news") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::critical_warning, {0x04});  // reliability degraded
    HealthChange c = compare_health(read(before), read(after));
    REQUIRE(c.findings.size() == 1);
    CHECK(c.findings[0].kind == K::critical_warning);
    CHECK(c.findings[0].before == 0x00);
    CHECK(c.findings[0].after == 0x04);
    CHECK(c.delta.warnings_set == 0x04);
    CHECK(c.damaged());

    c = compare_health(read(after), read(after));
    CHECK(c.findings.empty());
    CHECK_FALSE(c.damaged());

    // Cleared: reported in the delta, not a finding.
    c = compare_health(read(after), read(before));
    CHECK(c.delta.warnings_cleared == 0x04);
    CHECK(c.findings.empty());
}

TEST_CASE("the temperature warning alone is a notice, not damage") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::critical_warning, {0x02});
    const HealthChange c = compare_health(read(before), read(after));
    CHECK(kinds(c) == std::vector<K>{K::temperature_warning});
    CHECK_FALSE(c.damaged());

    // With another bit set at the same time: both, damage first.
    fixture::put(after, off::critical_warning, {0x0A});  // temperature + read-only
    const HealthChange both = compare_health(read(before), read(after));
    CHECK(kinds(both) == std::vector<K>{K::critical_warning, K::temperature_warning});
    CHECK(both.damaged());
}

TEST_CASE("an endurance group critical warning newly set is damage") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::endurance_group_warning, {0x08});
    const HealthChange c = compare_health(read(before), read(after));
    CHECK(kinds(c) == std::vector<K>{K::endurance_group_warning});
    CHECK(c.damaged());
}

TEST_CASE("available spare: below its threshold is damage, a smaller drop a notice") {
    const fixture::Page before = fixture::healthy_drive();  // 100%, threshold 10%
    fixture::Page after = before;
    fixture::put(after, off::available_spare, {0x09});  // 9% < 10%
    HealthChange c = compare_health(read(before), read(after));
    CHECK(kinds(c) == std::vector<K>{K::spare_below_threshold});
    CHECK(c.findings[0].before == 100);
    CHECK(c.findings[0].after == 9);
    CHECK(c.delta.available_spare_pct == -91);
    CHECK(c.damaged());

    fixture::put(after, off::available_spare, {0x0A});  // 10%: at the threshold, not below
    c = compare_health(read(before), read(after));
    CHECK(kinds(c) == std::vector<K>{K::spare_consumed});
    CHECK_FALSE(c.damaged());

    // Already below at the start: the run did not cross it.
    fixture::Page low = before;
    fixture::put(low, off::available_spare, {0x08});
    fixture::put(after, off::available_spare, {0x07});
    c = compare_health(read(low), read(after));
    CHECK(kinds(c) == std::vector<K>{K::spare_consumed});
    CHECK_FALSE(c.damaged());
}

TEST_CASE("wear, error log entries, unsafe shutdowns and temperature time are notices") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::percentage_used, {0x03});
    fixture::put(after, off::error_log_entries, {0x0E});          // 12 -> 14
    fixture::put(after, off::unsafe_shutdowns, {0x08});           // 7 -> 8
    fixture::put(after, off::warning_temperature_time, {0x07});   // 5 -> 7 min
    fixture::put(after, off::critical_temperature_time, {0x02});  // 1 -> 2 min
    fixture::put(after, off::media_errors, {0x01});
    const HealthChange c = compare_health(read(before), read(after));
    CHECK(kinds(c) == std::vector<K>{K::media_errors, K::warning_temperature_time,
                                     K::critical_temperature_time, K::error_log_entries, K::wear,
                                     K::unsafe_shutdowns});
    CHECK(c.findings[3].before == 12);
    CHECK(c.findings[3].after == 14);
    CHECK(c.findings[4].before == 2);
    CHECK(c.findings[4].after == 3);
    CHECK(c.delta.warning_temperature_minutes == 2);
}

TEST_CASE("thermal management counters: findings and the throttling verdict") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::thermal_transitions_1, {0x05});    // 3 -> 5
    fixture::put(after, off::thermal_seconds_1, {0xA4, 0x01});  // 300 -> 420 s
    const HealthChange c = compare_health(read(before), read(after));
    CHECK(kinds(c) == std::vector<K>{K::thermal_transitions, K::thermal_time});
    CHECK(c.findings[0].before == 4);  // 3 + 1 over both thermal management levels
    CHECK(c.findings[0].after == 6);
    CHECK(c.findings[1].before == 360);  // 300 + 60 s
    CHECK(c.findings[1].after == 480);
    CHECK(c.delta.thermal_transitions[0] == 2);
    CHECK(c.delta.thermal_seconds[0] == 120);
    CHECK_FALSE(c.damaged());

    CHECK(judge_thermal(c.delta, 3000, 2000) == ThermalVerdict::thermal_throttling);
    CHECK(judge_thermal(c.delta, 3000, 2700) == ThermalVerdict::thermal_throttling);  // -10%
    CHECK(judge_thermal(c.delta, 3000, 2900) == ThermalVerdict::throttled_without_loss);
    CHECK(judge_thermal(c.delta, 3000, 2900, 3) == ThermalVerdict::thermal_throttling);
    CHECK(judge_thermal(c.delta, 0, 0) == ThermalVerdict::throttled_without_loss);

    // Throughput fell, but nothing thermal rose: not throttling (a write cliff?).
    const HealthChange cool = compare_health(read(before), read(before));
    CHECK(judge_thermal(cool.delta, 3000, 800) == ThermalVerdict::none);

    // Minutes above the warning temperature count as throttle evidence too.
    fixture::Page warm = before;
    fixture::put(warm, off::warning_temperature_time, {0x06});
    const HealthChange w = compare_health(read(before), read(warm));
    CHECK(judge_thermal(w.delta, 3000, 1500) == ThermalVerdict::thermal_throttling);
}

TEST_CASE("readings whose lifetime counters went back are not compared") {
    const fixture::Page before = fixture::healthy_drive();
    fixture::Page after = before;
    fixture::put(after, off::power_on_hours, {0x28, 0x23});  // 10000 -> 9000 h
    fixture::put(after, off::media_errors, {0x05});          // would be damage
    const HealthChange c = compare_health(read(before), read(after));
    CHECK_FALSE(c.comparable);
    CHECK(c.findings.empty());
    CHECK_FALSE(c.damaged());
    CHECK(c.delta.power_on_hours == -1000);
}

TEST_CASE("finding names are stable and only four kinds are damage") {
    CHECK(finding_name(K::media_errors) == "media-errors");
    CHECK(finding_name(K::critical_warning) == "critical-warning");
    CHECK(finding_name(K::endurance_group_warning) == "endurance-group-warning");
    CHECK(finding_name(K::spare_below_threshold) == "spare-below-threshold");
    CHECK(finding_name(K::temperature_warning) == "temperature-warning");
    CHECK(finding_name(K::thermal_transitions) == "thermal-transitions");
    CHECK(finding_name(K::thermal_time) == "thermal-time");
    CHECK(finding_name(K::warning_temperature_time) == "warning-temperature-time");
    CHECK(finding_name(K::critical_temperature_time) == "critical-temperature-time");
    CHECK(finding_name(K::error_log_entries) == "error-log-entries");
    CHECK(finding_name(K::spare_consumed) == "spare-consumed");
    CHECK(finding_name(K::wear) == "wear");
    CHECK(finding_name(K::unsafe_shutdowns) == "unsafe-shutdowns");
    int damage = 0;
    for (int k = 0; k <= static_cast<int>(K::unsafe_shutdowns); ++k)
        damage += is_damage(static_cast<K>(k));
    CHECK(damage == 4);
    CHECK(is_damage(K::media_errors));
    CHECK_FALSE(is_damage(K::temperature_warning));
}
