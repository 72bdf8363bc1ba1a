#include "nvme/health_log.h"

#include <limits>

namespace ds::nvme {

namespace {

// Little-endian unsigned integer of `n` bytes at `offset` (n <= 8).
std::uint64_t le(std::span<const std::byte, kHealthLogBytes> p, std::size_t offset, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;)
        v = (v << 8) | std::to_integer<std::uint64_t>(p[offset + i]);
    return v;
}

// A 16-byte counter, saturated to 64 bits.
std::uint64_t le128(std::span<const std::byte, kHealthLogBytes> p, std::size_t offset) {
    return le(p, offset + 8, 8) != 0 ? std::numeric_limits<std::uint64_t>::max() : le(p, offset, 8);
}

}  // namespace

std::string critical_warning_names(std::uint8_t bits) {
    static const char* const kNames[8] = {
        "spare-below-threshold",  "temperature",   "reliability-degraded", "read-only",
        "volatile-backup-failed", "pmr-read-only", "reserved-bit-6",       "reserved-bit-7"};
    std::string out;
    for (unsigned b = 0; b < 8; ++b) {
        if (!(bits & (1u << b))) continue;
        if (!out.empty()) out += ',';
        out += kNames[b];
    }
    return out;
}

// Byte offsets per the NVMe Base Specification 2.0, SMART / Health
// Information Log Page; bytes 7-31 and 232-511 are reserved.
HealthLog parse_health_log(std::span<const std::byte, kHealthLogBytes> p) {
    HealthLog h;
    h.critical_warning = static_cast<std::uint8_t>(le(p, 0, 1));
    h.composite_temperature_k = static_cast<std::uint16_t>(le(p, 1, 2));
    h.available_spare_pct = static_cast<std::uint8_t>(le(p, 3, 1));
    h.available_spare_threshold_pct = static_cast<std::uint8_t>(le(p, 4, 1));
    h.percentage_used = static_cast<std::uint8_t>(le(p, 5, 1));
    h.endurance_group_critical_warning = static_cast<std::uint8_t>(le(p, 6, 1));
    h.data_units_read = le128(p, 32);
    h.data_units_written = le128(p, 48);
    h.host_read_commands = le128(p, 64);
    h.host_write_commands = le128(p, 80);
    h.controller_busy_minutes = le128(p, 96);
    h.power_cycles = le128(p, 112);
    h.power_on_hours = le128(p, 128);
    h.unsafe_shutdowns = le128(p, 144);
    h.media_errors = le128(p, 160);
    h.error_log_entries = le128(p, 176);
    h.warning_temperature_minutes = static_cast<std::uint32_t>(le(p, 192, 4));
    h.critical_temperature_minutes = static_cast<std::uint32_t>(le(p, 196, 4));
    for (std::size_t i = 0; i < 8; ++i)
        h.temperature_sensors_k[i] = static_cast<std::uint16_t>(le(p, 200 + 2 * i, 2));
    for (std::size_t i = 0; i < 2; ++i) {
        h.thermal_transitions[i] = static_cast<std::uint32_t>(le(p, 216 + 4 * i, 4));
        h.thermal_seconds[i] = static_cast<std::uint32_t>(le(p, 224 + 4 * i, 4));
    }
    return h;
}

std::uint64_t data_units_to_bytes(std::uint64_t data_units) {
    constexpr std::uint64_t kUnit = 1000 * 512;
    if (data_units > std::numeric_limits<std::uint64_t>::max() / kUnit)
        return std::numeric_limits<std::uint64_t>::max();
    return data_units * kUnit;
}

}  // namespace ds::nvme
