// fio's values as drivestress's job-file reader takes them: sizes with
// fio's suffixes under both kb_base rules, percentages, times with each
// option's bare unit, booleans, per-direction lists, fio's word matching,
// and the refusals that say what fio 3.33 would have read instead.
#include "jobfile/values.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

using namespace ds::jobfile;

namespace {

template <class F>
std::string refusal(F f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("sizes: k, kb and ki are kb_base; kib is the other base, as fio's code has it") {
    CHECK(parse_size("4096", 1024) == 4096);
    CHECK(parse_size("4k", 1024) == 4096);
    CHECK(parse_size("4K", 1024) == 4096);
    CHECK(parse_size("4kb", 1024) == 4096);
    CHECK(parse_size("4KB", 1024) == 4096);
    CHECK(parse_size("4ki", 1024) == 4096);  // fio's HOWTO says 1000s; its code says k
    CHECK(parse_size("4KiB", 1024) == 4000);
    CHECK(parse_size("4kib", 1024) == 4000);
    CHECK(parse_size("1m", 1024) == 1048576);
    CHECK(parse_size("1mib", 1024) == 1000000);
    CHECK(parse_size("1g", 1024) == 1073741824);
    CHECK(parse_size("1t", 1024) == 1099511627776ULL);
    CHECK(parse_size("1p", 1024) == 1125899906842624ULL);
    CHECK(parse_size("4096b", 1024) == 4096);
    CHECK(parse_size("4096B", 1024) == 4096);
    CHECK(parse_size("0x10", 1024) == 16);
    CHECK(parse_size("+4k", 1024) == 4096);
    CHECK(parse_size("0", 1024) == 0);
}

TEST_CASE("sizes with kb_base=1000: k is 1000 and kib 1024") {
    CHECK(parse_size("4k", 1000) == 4000);
    CHECK(parse_size("4kb", 1000) == 4000);
    CHECK(parse_size("4ki", 1000) == 4000);
    CHECK(parse_size("4kib", 1000) == 4096);
    CHECK(parse_size("4KiB", 1000) == 4096);
    CHECK(parse_size("1m", 1000) == 1000000);
    CHECK(parse_size("1MiB", 1000) == 1048576);
    CHECK(parse_size("1t", 1000) == 1000000000000ULL);
}

TEST_CASE("a size fio would misread is refused with fio's reading") {
    auto size = [](const char* s) { return refusal([&] { parse_size(s, 1024); }); };
    CHECK(size(" 4k") ==
          "' 4k' is not a size (fio keeps a space after '='): fio 3.33 would read "
          "4 bytes");
    CHECK(size("4 k") == "'4 k' is not a size: fio 3.33 would read 4 bytes");
    CHECK(size("1.5k") == "'1.5k' is not a size: fio 3.33 would read 1 bytes");
    CHECK(size("4x") == "'4x' is not a size: fio 3.33 would read 4 bytes");
    CHECK(size("10x") == "'10x' is not a size: fio 3.33 would read 16 bytes");  // "0x": base 16
    CHECK(size("4kbytes") == "'4kbytes' is not a size: fio 3.33 would read 4096 bytes");
    CHECK(size("4K%") == "'4K%' is not a size: fio 3.33 would read 4096 bytes");
    CHECK(size("0x10k") == "'0x10k' is not a size: fio 3.33 would read 16 bytes");
    CHECK(size("1e3") == "'1e3' is not a size: fio 3.33 would read 1 bytes");
    CHECK(size("k") == "'k' is not a size");
    CHECK(size("") == "an empty value is not a size");
    CHECK(size("-4k") == "'-4k' is not a size: fio 3.33 would read 18446744073709547520 bytes");
    CHECK(size("50%") == "'50%': a percentage is not a size");
    CHECK(size("(1+1)*4k") == "'(1+1)*4k': fio 3.33 as Debian builds it has no arithmetic");
    CHECK(size("16777216t") == "'16777216t' is too large");
    CHECK(size("99999999999999999999") == "'99999999999999999999' is too large");
}

TEST_CASE("amounts: a size or a percentage from 1 to 100") {
    CHECK(parse_amount("50%", 1024) == Amount{0, 50});
    CHECK(parse_amount("100%", 1024) == Amount{0, 100});
    CHECK(parse_amount("1g", 1024) == Amount{1073741824, std::nullopt});
    CHECK(refusal([] { parse_amount("0%", 1024); }) == "'0%': a percentage is from 1% to 100%");
    CHECK(refusal([] { parse_amount("150%", 1024); }) == "'150%': a percentage is from 1% to 100%");
    CHECK(refusal([] { parse_amount("50.5%", 1024); }) ==
          "'50.5%' is not a size: fio 3.33 would read 50 bytes");
}

TEST_CASE("integers take size suffixes as fio's int options do, within bounds") {
    CHECK(parse_integer("32", 1024, 1, 100) == 32);
    CHECK(parse_integer("1k", 1024, 1, 4096) == 1024);
    CHECK(refusal([] { parse_integer("0", 1024, 1, 10); }) == "'0' is less than 1");
    CHECK(refusal([] { parse_integer("101", 1024, 0, 100); }) == "'101' is more than 100");
    CHECK(refusal([] { parse_integer("-5", 1024, 0, 100); }) == "'-5' is negative");
}

TEST_CASE("times: the bare unit is the option's, suffixes us ms s m h d") {
    CHECK(parse_time_us("10", BareUnit::seconds) == 10000000);
    CHECK(parse_time_us("10", BareUnit::microseconds) == 10);
    CHECK(parse_time_us("10s", BareUnit::microseconds) == 10000000);
    CHECK(parse_time_us("250us", BareUnit::seconds) == 250);
    CHECK(parse_time_us("250usec", BareUnit::seconds) == 250);
    CHECK(parse_time_us("500ms", BareUnit::seconds) == 500000);
    CHECK(parse_time_us("500MSEC", BareUnit::seconds) == 500000);
    CHECK(parse_time_us("5m", BareUnit::seconds) == 300000000);
    CHECK(parse_time_us("2h", BareUnit::seconds) == 7200000000ULL);
    CHECK(parse_time_us("1d", BareUnit::seconds) == 86400000000ULL);
    CHECK(parse_time_us("0", BareUnit::seconds) == 0);
}

TEST_CASE("a time fio would misread is refused with fio's reading") {
    auto time = [](const char* s) { return refusal([&] { parse_time_us(s, BareUnit::seconds); }); };
    CHECK(time("10sec") ==
          "'10sec' is not a time (us, ms, s, m, h or d): fio 3.33 would read 10 us");
    CHECK(time("1min") == "'1min' is not a time (us, ms, s, m, h or d): fio 3.33 would read 1 us");
    CHECK(time("1.5s") ==
          "'1.5s' is not a time (us, ms, s, m, h or d): fio 3.33 would read 1000000 us");
    CHECK(time("0x10") == "'0x10' is not a time: fio 3.33 would read 16 us");
    CHECK(time("s") == "'s' is not a time");
    CHECK(time("") == "an empty value is not a time");
}

TEST_CASE("booleans are 0 or 1; a set option takes any whole number") {
    CHECK(parse_bool("1"));
    CHECK_FALSE(parse_bool("0"));
    CHECK(refusal([] { parse_bool("2"); }) == "'2' is not 0 or 1");
    CHECK(refusal([] { parse_bool("yes"); }) == "'yes' is not 0 or 1");
    CHECK(refusal([] { parse_bool("true"); }) == "'true' is not 0 or 1");
    CHECK(parse_set("7"));
    CHECK_FALSE(parse_set("0"));
    CHECK(refusal([] { parse_set("on"); }) == "'on' is not a whole number (0 or 1)");
}

TEST_CASE("per-direction values: the last item covers the directions after it") {
    using D = Directions;
    CHECK(split_directions("4k") == D{"4k", "4k", "4k"});
    CHECK(split_directions("4k,8k") == D{"4k", "8k", "8k"});
    CHECK(split_directions("4k,8k,16k") == D{"4k", "8k", "16k"});
    CHECK(split_directions("4k,8k,") == D{"4k", "8k", std::nullopt});
    CHECK(split_directions(",8k") == D{std::nullopt, "8k", "8k"});
    CHECK(split_directions(",8k,") == D{std::nullopt, "8k", std::nullopt});
    CHECK(split_directions("4k,") == D{"4k", std::nullopt, std::nullopt});
    CHECK(split_directions("4k,,16k") == D{"4k", std::nullopt, "16k"});
    CHECK(split_directions("4k,8k,16k,") == D{"4k", "8k", "16k"});
    CHECK(refusal([] { split_directions("1,2,3,4"); }) ==
          "'1,2,3,4': at most three values (reads,writes,trims)");
}

TEST_CASE("fio's word match: longest first, the text up to its first ',' or ':'") {
    constexpr std::string_view words[] = {"read", "randread", "rw", "readwrite"};
    auto m = match_choice("randread:8", words);
    REQUIRE(m);
    CHECK(m->index == 1);
    CHECK(m->rest == ":8");
    CHECK(match_choice("readwrite", words)->index == 3);
    CHECK(match_choice("read", words)->index == 0);
    CHECK(match_choice("read,write", words)->rest == ",write");
    CHECK_FALSE(match_choice("reads", words));
    CHECK_FALSE(match_choice(" read", words));
    CHECK_FALSE(match_choice("READ", words));
    // the first ',' wins over an earlier ':', as in fio (zoned lists per direction fail there)
    constexpr std::string_view dist[] = {"zoned", "random"};
    CHECK_FALSE(match_choice("zoned:60/10:40/90,50/50:50/50", dist));
}

TEST_CASE("quoting shows control bytes as '?' and cuts long text") {
    CHECK(quote("a\tb") == "'a?b'");
    CHECK(quote(std::string(100, 'x')) == "'" + std::string(60, 'x') + "...'");
}
