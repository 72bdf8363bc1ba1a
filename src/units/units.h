// Quantities as people type and read them: sizes (K/M/G/T, binary) and
// durations (s/m/h).  Parsing rejects anything ambiguous with a message
// naming the bad text; it never guesses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ds::units {

// "4096", "4K", "4k", "4KiB", "1M", "2G", "1T" -> bytes (KiB = 1024).
// Throws std::invalid_argument with a one-line reason on a bad spelling,
// a negative value or overflow.  Zero is accepted (callers decide).
std::uint64_t parse_size(std::string_view text);

// "10", "10s", "1.5s", "500ms", "250us", "2m", "1h" -> seconds (plain number = seconds).
double parse_duration(std::string_view text);

// Non-negative integer without suffix; throws std::invalid_argument.
std::uint64_t parse_count(std::string_view text);

// "500", "2.5k", "50k", "1M" -> a rate (k = 1000, M = 1000000: operations
// are counted in decimal); from kMinRate to kMaxRate operations a second;
// throws std::invalid_argument naming the bound a rate passes.
inline constexpr double kMinRate = 1;
inline constexpr double kMaxRate = 1e9;
double parse_rate(std::string_view text);

// Splits "a,b,c" into its non-empty items; empty items are an error.
std::vector<std::string> split_list(std::string_view text);

// 1536 -> "1.5 KiB", 268435456 -> "256 MiB" (exact values print without decimals).
std::string format_bytes(std::uint64_t bytes);
// format_bytes(bytes) for a message that compares it with `other` (a need
// against what is available, an extent against a limit), with the exact
// count added where rounding would hide how the two compare: 4194305
// against 4194304 is "4.0 MiB (4194305 bytes)", not "4.0 MiB" beside "4 MiB".
std::string format_bytes_against(std::uint64_t bytes, std::uint64_t other);
// Option-style spelling: 268435456 -> "256M", 4096 -> "4K", 1000 -> "1000".
std::string format_size_option(std::uint64_t bytes);
// 0.000412 -> "412 us", 2.5 -> "2.50 s".
std::string format_seconds(double s);
// IOPS for a report: 1234567 -> "1.23M", 148300 -> "148.3k", 812 -> "812".
std::string format_iops(double iops);
// A percentile as it was given: 99 -> "p99", 99.99999999 -> "p99.99999999"
// (the shortest spelling that reads back as the same number; never rounded
// up to "p100").
std::string format_percentile(double percentile);

// The unit a report states throughput in (--units): binary, MiB/s of
// 2^20 bytes (the default, as sizes are typed: -s 32M is 32 MiB), or
// decimal, MB/s of 10^6 bytes, as drive spec sheets state it.  Sizes stay
// binary either way.
enum class ByteUnits { iec, si };
struct RateUnit {
    double bytes;        // bytes per one of the unit
    const char* name;    // "MiB/s" or "MB/s"
    const char* amount;  // "MiB" or "MB"
    double of(double bytes_per_sec) const { return bytes_per_sec / bytes; }
};
constexpr RateUnit rate_unit(ByteUnits u) {
    return u == ByteUnits::si ? RateUnit{1e6, "MB/s", "MB"} : RateUnit{1048576.0, "MiB/s", "MiB"};
}
// 1572864 bytes/s -> "1.5 MiB/s" (or "1.6 MB/s"), one decimal.
std::string format_bandwidth(double bytes_per_sec, ByteUnits u);

// printf into a string, any length.
std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ds::units
