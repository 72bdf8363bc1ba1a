// fio's values, read as fio 3.33 reads them (parse.c, options.c) but
// strictly: a value fio would silently misread ("4 k" is 4 bytes to fio,
// "10sec" 10 microseconds, "1.5k" 1 byte) is refused with what fio would
// have made of it.  Each parser throws std::invalid_argument with a reason
// that does not name the option (the caller adds file, line and option).
//
// Sizes: a whole number (decimal, or hexadecimal after 0x) with an optional
// suffix, not case-sensitive: b; k, kb, ki; kib (and m, g, t, p alike).
// With kb_base=1024, fio's default, k/kb/ki are 1024 and kib is 1000 (fio's
// "compatibility mode", opposite to the standards); kb_base=1000 swaps them.
// Times: a whole number with us/usec, ms/msec, s, m, h or d; a bare number
// is in the option's own unit (seconds for runtime, microseconds for
// thinktime).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ds::jobfile {

// "4k" -> 4096 (kb_base 1024 or 1000).
std::uint64_t parse_size(std::string_view text, unsigned kb_base);
// "-8k" -> -8192: rw's offset step (rw=read:-8k).
std::int64_t parse_signed_size(std::string_view text, unsigned kb_base);

// A size or a share of the file or device: size=50%, offset=10%.
struct Amount {
    std::uint64_t bytes = 0;
    std::optional<unsigned> percent;  // 1 to 100 (size=50%: percent 50, bytes 0)
    bool operator==(const Amount&) const = default;
};
Amount parse_amount(std::string_view text, unsigned kb_base);

// An integer option (fio's int): the size suffixes apply as fio applies
// them (iodepth=1k is 1024); from min to max.
std::uint64_t parse_integer(std::string_view text, unsigned kb_base, std::uint64_t min,
                            std::uint64_t max);

enum class BareUnit { microseconds, seconds };
// "10s", "500ms", "250us", "2m", "1h", "1d" -> microseconds.
std::uint64_t parse_time_us(std::string_view text, BareUnit bare);

// fio's bool: 0 or 1.
bool parse_bool(std::string_view text);
// fio's "set" option (stonewall, time_based): a bare key is true, else any
// whole number, 0 false.
bool parse_set(std::string_view text);

// A real number ("1.2", "0.25"), finite.
double parse_real(std::string_view text);

// Per-direction values "R,W,T" (bs=4k,8k): an item per direction (read,
// write, trim); an empty item leaves that direction as it was, and the last
// item also covers the directions after it unless a comma ends the text
// (bs=4k,8k: trims 8k; bs=4k,8k,: trims as they were).  More than three
// items are refused.
using Directions = std::array<std::optional<std::string>, 3>;
Directions split_directions(std::string_view text);

// fio's match of a word among an option's values (parse.c posval):
// longest value first, a value matches when the text equals it up to the
// first ',' or ':' of the text.  The index of the matched word and the
// text after it ("randread:8" -> randread, ":8"); nullopt when none does.
struct Choice {
    std::size_t index = 0;
    std::string_view rest;
};
std::optional<Choice> match_choice(std::string_view text, std::span<const std::string_view> words);

// "'TEXT'" for messages, with non-printing bytes shown as '?'.
std::string quote(std::string_view text);

}  // namespace ds::jobfile
