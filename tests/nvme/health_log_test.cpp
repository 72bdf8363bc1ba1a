// The health log page decoded: every field from its offset and width, 128-bit
// counters saturating, critical warning bits, data units and temperatures.
#include "nvme/health_log.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "health_log_fixture.h"

using ds::nvme::critical_warning_names;
using ds::nvme::data_units_to_bytes;
using ds::nvme::HealthLog;
using ds::nvme::kelvin_to_celsius;
using ds::nvme::parse_health_log;
namespace cw = ds::nvme::critical_warning;

TEST_CASE("every field of the fixture page is read from its offset") {
    const fixture::Page page = fixture::healthy_drive();
    const HealthLog h = parse_health_log(page);
    CHECK(h.critical_warning == 0);
    CHECK(h.composite_temperature_k == 312);
    CHECK(h.available_spare_pct == 100);
    CHECK(h.available_spare_threshold_pct == 10);
    CHECK(h.percentage_used == 2);
    CHECK(h.endurance_group_critical_warning == 0);
    CHECK(h.data_units_read == 123456);
    CHECK(h.data_units_written == 305419896);
    CHECK(h.host_read_commands == 0x0123456789ABCDEFull);
    CHECK(h.host_write_commands == 0x5544332211ull);
    CHECK(h.controller_busy_minutes == 12345);
    CHECK(h.power_cycles == 42);
    CHECK(h.power_on_hours == 10000);
    CHECK(h.unsafe_shutdowns == 7);
    CHECK(h.media_errors == 0);
    CHECK(h.error_log_entries == 12);
    CHECK(h.warning_temperature_minutes == 5);
    CHECK(h.critical_temperature_minutes == 1);
    CHECK(h.temperature_sensors_k == std::array<std::uint16_t, 8>{316, 302, 0, 0, 0, 0, 0, 0});
    CHECK(h.thermal_transitions == std::array<std::uint32_t, 2>{3, 1});
    CHECK(h.thermal_seconds == std::array<std::uint32_t, 2>{300, 60});
}

TEST_CASE("the fixture itself: fields end where the reserved ranges begin") {
    const fixture::Page p = fixture::healthy_drive();
    CHECK(p[6] == std::byte{0x00});  // last byte of the header fields
    CHECK(p[7] == std::byte{0xEE});  // reserved 7..31
    CHECK(p[31] == std::byte{0xEE});
    CHECK(p[32] == std::byte{0x40});   // data units read begins
    CHECK(p[231] == std::byte{0x00});  // last byte of thermal management time 2
    for (std::size_t i = 232; i < 512; ++i)
        CHECK(p[i] == std::byte{0xEE});  // reserved 232..511
}

TEST_CASE("the widest values of each field width are read whole") {
    fixture::Page page = fixture::healthy_drive();
    fixture::put_le(page, fixture::offset::composite_temperature, 2, 0xFFFF);
    fixture::put_le(page, fixture::offset::media_errors, 8, 0xFFFFFFFFFFFFFFFFull);
    fixture::put_le(page, fixture::offset::warning_temperature_time, 4, 0xFFFFFFFF);
    fixture::put_le(page, fixture::offset::thermal_seconds_1, 4, 0x80000001);
    const HealthLog h = parse_health_log(page);
    CHECK(h.composite_temperature_k == 0xFFFF);
    CHECK(h.media_errors == 0xFFFFFFFFFFFFFFFFull);
    CHECK(h.warning_temperature_minutes == 0xFFFFFFFFu);
    CHECK(h.thermal_seconds[0] == 0x80000001u);
    CHECK(h.critical_temperature_minutes == 1);  // the neighbours are untouched
    CHECK(h.temperature_sensors_k[0] == 316);
}

TEST_CASE("a 128-bit counter beyond 64 bits saturates instead of wrapping") {
    fixture::Page page = fixture::healthy_drive();
    fixture::put(page, fixture::offset::data_units_written + 8, {0x01});  // bit 64 set
    const HealthLog h = parse_health_log(page);
    CHECK(h.data_units_written == std::numeric_limits<std::uint64_t>::max());
    CHECK(h.data_units_read == 123456);
}

TEST_CASE("critical warning bits and their names") {
    fixture::Page page = fixture::healthy_drive();
    fixture::put(page, fixture::offset::critical_warning, {0x05});
    fixture::put(page, fixture::offset::endurance_group_warning, {0x08});
    const HealthLog h = parse_health_log(page);
    CHECK(h.critical_warning == (cw::spare_below_threshold | cw::reliability_degraded));
    CHECK(h.endurance_group_critical_warning == cw::read_only);
    CHECK(critical_warning_names(h.critical_warning) ==
          "spare-below-threshold,reliability-degraded");
    CHECK(critical_warning_names(0) == "");
    CHECK(critical_warning_names(0xFF) ==
          "spare-below-threshold,temperature,reliability-degraded,read-only,"
          "volatile-backup-failed,pmr-read-only,reserved-bit-6,reserved-bit-7");
    CHECK(cw::temperature == 0x02);
    CHECK(cw::volatile_backup_failed == 0x10);
    CHECK(cw::pmr_read_only == 0x20);
}

TEST_CASE("data units are thousands of 512-byte blocks; temperatures are kelvin") {
    CHECK(data_units_to_bytes(0) == 0);
    CHECK(data_units_to_bytes(1) == 512000);
    CHECK(data_units_to_bytes(305419896) == 305419896ull * 512000);
    CHECK(data_units_to_bytes(std::numeric_limits<std::uint64_t>::max() / 512000 + 1) ==
          std::numeric_limits<std::uint64_t>::max());
    CHECK(kelvin_to_celsius(312) == doctest::Approx(38.85));
    CHECK(kelvin_to_celsius(273) == doctest::Approx(-0.15));
}
