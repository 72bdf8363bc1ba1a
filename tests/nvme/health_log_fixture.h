// A SMART / Health Information log page (LID 02h) of a healthy drive, laid
// out byte by byte per the NVMe Base Specification 2.0, for the parsing and
// verdict tests.  Every field holds a distinct value so that a field read
// at the wrong offset shows; reserved bytes hold 0xEE so that reading one
// shows too.  Multi-byte fields are little-endian: bytes are listed lowest
// address first.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace fixture {

using Page = std::array<std::byte, 512>;

// Writes `bytes` at `offset`, lowest address first.
inline void put(Page& p, std::size_t offset, std::initializer_list<int> bytes) {
    for (int b : bytes)
        p.at(offset++) = static_cast<std::byte>(b);
}

// Writes the little-endian `value` into the `width` bytes at `offset`.
inline void put_le(Page& p, std::size_t offset, std::size_t width, std::uint64_t value) {
    for (std::size_t i = 0; i < width; ++i, value >>= 8)
        p.at(offset + i) = static_cast<std::byte>(value & 0xFF);
}

inline Page healthy_drive() {
    Page p;
    // Reserved, bytes 7..31 and 232..511.
    p.fill(std::byte{0xEE});
    // 0: critical warning, none.
    put(p, 0, {0x00});
    // 1..2: composite temperature 0x0138 = 312 K (38.85 C).
    put(p, 1, {0x38, 0x01});
    // 3: available spare 100%; 4: its threshold 10%; 5: percentage used 2%;
    // 6: endurance group critical warning summary, none.
    put(p, 3, {0x64, 0x0A, 0x02, 0x00});
    // 32..47: data units read 0x01E240 = 123456.
    put(p, 32, {0x40, 0xE2, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 48..63: data units written 0x12345678 = 305419896.
    put(p, 48, {0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 64..79: host read commands 0x0123456789ABCDEF.
    put(p, 64, {0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, 0, 0, 0, 0, 0, 0, 0, 0});
    // 80..95: host write commands 0x5544332211.
    put(p, 80, {0x11, 0x22, 0x33, 0x44, 0x55, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 96..111: controller busy time 0x3039 = 12345 minutes.
    put(p, 96, {0x39, 0x30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 112..127: power cycles 42.
    put(p, 112, {0x2A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 128..143: power-on hours 0x2710 = 10000.
    put(p, 128, {0x10, 0x27, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 144..159: unsafe shutdowns 7.
    put(p, 144, {0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 160..175: media and data integrity errors 0.
    put(p, 160, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 176..191: number of error information log entries 12.
    put(p, 176, {0x0C, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 192..195: warning composite temperature time 5 minutes;
    // 196..199: critical composite temperature time 1 minute.
    put(p, 192, {0x05, 0, 0, 0, 0x01, 0, 0, 0});
    // 200..215: temperature sensors 1..8: 0x013C = 316 K, 0x012E = 302 K,
    // sensors 3..8 not implemented (0).
    put(p, 200, {0x3C, 0x01, 0x2E, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    // 216..219, 220..223: thermal management temperature 1 and 2 transition
    // counts 3 and 1; 224..227, 228..231: total time in them, 0x012C = 300 s
    // and 60 s.
    put(p, 216, {0x03, 0, 0, 0, 0x01, 0, 0, 0, 0x2C, 0x01, 0, 0, 0x3C, 0, 0, 0});
    return p;
}

// Field offsets, for tests that change one field of the fixture.
namespace offset {
inline constexpr std::size_t critical_warning = 0;
inline constexpr std::size_t composite_temperature = 1;
inline constexpr std::size_t available_spare = 3;
inline constexpr std::size_t percentage_used = 5;
inline constexpr std::size_t endurance_group_warning = 6;
inline constexpr std::size_t data_units_written = 48;
inline constexpr std::size_t host_write_commands = 80;
inline constexpr std::size_t power_on_hours = 128;
inline constexpr std::size_t unsafe_shutdowns = 144;
inline constexpr std::size_t media_errors = 160;
inline constexpr std::size_t error_log_entries = 176;
inline constexpr std::size_t warning_temperature_time = 192;
inline constexpr std::size_t critical_temperature_time = 196;
inline constexpr std::size_t thermal_transitions_1 = 216;
inline constexpr std::size_t thermal_seconds_1 = 224;
}  // namespace offset

}  // namespace fixture
