// The NVMe SMART / Health Information log page (Get Log Page, log
// identifier 02h): 512 bytes, little-endian, laid out by the NVM Express
// Base Specification (2.0, "SMART / Health Information Log Page").  Offsets
// are given in health_log.cpp next to each field.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace ds::nvme {

inline constexpr std::uint8_t kHealthLogId = 0x02;   // log identifier (LID)
inline constexpr std::size_t kHealthLogBytes = 512;  // page length

// Critical Warning bits (byte 0).  The Endurance Group Critical Warning
// Summary (byte 6) uses bits 0, 2 and 3 with the same meanings.
namespace critical_warning {
inline constexpr std::uint8_t spare_below_threshold = 1 << 0;  // available spare < threshold
inline constexpr std::uint8_t temperature = 1 << 1;  // over or under a temperature threshold
inline constexpr std::uint8_t reliability_degraded = 1 << 2;    // media or internal errors
inline constexpr std::uint8_t read_only = 1 << 3;               // media placed in read-only mode
inline constexpr std::uint8_t volatile_backup_failed = 1 << 4;  // volatile memory backup failed
inline constexpr std::uint8_t pmr_read_only = 1 << 5;  // persistent memory region read-only
}  // namespace critical_warning

// "spare-below-threshold,temperature": the names of the set bits, in bit
// order, comma-separated ("reserved-bit-6" for a bit the specification does
// not define); "" for none.
std::string critical_warning_names(std::uint8_t bits);

// One reading of the page.  The 128-bit counters are held in 64 bits: a
// value of 2^64 or more (2^64 data units are 9.4 ZB) reads as UINT64_MAX.
struct HealthLog {
    std::uint8_t critical_warning = 0;                  // critical_warning:: bits
    std::uint16_t composite_temperature_k = 0;          // kelvin
    std::uint8_t available_spare_pct = 0;               // percent of spare capacity left
    std::uint8_t available_spare_threshold_pct = 0;     // critical warning below this
    std::uint8_t percentage_used = 0;                   // of rated endurance; may exceed 100
    std::uint8_t endurance_group_critical_warning = 0;  // summary over endurance groups
    std::uint64_t data_units_read = 0;                  // units of 1000 x 512 bytes, rounded up
    std::uint64_t data_units_written = 0;               // units of 1000 x 512 bytes, rounded up
    std::uint64_t host_read_commands = 0;
    std::uint64_t host_write_commands = 0;
    std::uint64_t controller_busy_minutes = 0;
    std::uint64_t power_cycles = 0;
    std::uint64_t power_on_hours = 0;
    std::uint64_t unsafe_shutdowns = 0;
    std::uint64_t media_errors = 0;       // unrecovered data integrity errors
    std::uint64_t error_log_entries = 0;  // entries ever added to the error information log
    std::uint32_t warning_temperature_minutes = 0;   // composite >= warning threshold (WCTEMP)
    std::uint32_t critical_temperature_minutes = 0;  // composite >= critical threshold (CCTEMP)
    std::array<std::uint16_t, 8> temperature_sensors_k{};  // kelvin; 0 = not implemented
    std::array<std::uint32_t, 2> thermal_transitions{};    // into thermal management 1, 2
    std::array<std::uint32_t, 2> thermal_seconds{};        // total time in thermal management 1, 2
};

// Decodes a page exactly as the controller returned it.
HealthLog parse_health_log(std::span<const std::byte, kHealthLogBytes> page);

// Bytes that `data_units` (data units read or written) stand for: x 512000,
// saturating at UINT64_MAX.  The drive rounds each counter up to a whole
// unit, so a difference of two readings is exact to within 512000 bytes.
std::uint64_t data_units_to_bytes(std::uint64_t data_units);

// Kelvin as reported -> degrees Celsius.
inline double kelvin_to_celsius(std::uint16_t kelvin) {
    return kelvin - 273.15;
}

}  // namespace ds::nvme
