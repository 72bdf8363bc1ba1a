// fio 3.33's own reading of a number (parse.c: str_to_decimal with
// get_mult_bytes or get_mult_time, Debian's build: no arithmetic), ported
// line for line, quirks included ("4 k" is 4, "10sec" is 10 us, "1.5k" is
// 1).  The reader never takes a value from here: values.cpp parses strictly
// and uses this to tell the user what fio would have made of a value it
// refuses.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ds::jobfile::detail {

struct FioReading {
    std::uint64_t value = 0;  // bytes, or microseconds for a time (wrapped as fio wraps)
    bool percent = false;     // "50%": value is the percentage
};

// str_to_decimal(text, kilo=1): a size with kb_base 1024 or 1000.
std::optional<FioReading> fio_size_reading(std::string_view text, unsigned kb_base);
// str_to_decimal(text, kilo=0, is_seconds): a time in microseconds.
std::optional<FioReading> fio_time_reading(std::string_view text, bool bare_is_seconds);
// __get_mult_bytes: the multiplier fio gives a size suffix ("k" 1024,
// "kib" 1000 with kb_base 1024); 0 for "%".
std::uint64_t fio_size_multiplier(std::string_view suffix, unsigned kb_base);

}  // namespace ds::jobfile::detail
