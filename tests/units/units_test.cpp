// Sizes, durations, counts, lists and rates as people type them, and the sizes,
// durations, percentiles and names the reports print.
#include "units/units.h"
#include "units/utf8.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ds::units;

namespace {

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = KiB * 1024;
constexpr std::uint64_t GiB = MiB * 1024;
constexpr std::uint64_t TiB = GiB * 1024;

// The message of the std::invalid_argument `f` throws, or "" when it throws
// nothing (so a missing rejection fails the CHECK that follows).
template <typename F>
std::string rejection(F&& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("parse_size: plain byte counts") {
    CHECK(parse_size("0") == 0);
    CHECK(parse_size("1") == 1);
    CHECK(parse_size("512") == 512);
    CHECK(parse_size("4096") == 4096);
    CHECK(parse_size("1000") == 1000);
    CHECK(parse_size("18446744073709551615") == UINT64_MAX);
}

TEST_CASE("parse_size: binary suffixes K/M/G/T") {
    CHECK(parse_size("4K") == 4 * KiB);
    CHECK(parse_size("1M") == MiB);
    CHECK(parse_size("256M") == 256 * MiB);
    CHECK(parse_size("2G") == 2 * GiB);
    CHECK(parse_size("1T") == TiB);
    CHECK(parse_size("3T") == 3 * TiB);
    // The largest value that fits: (2^24 - 1) TiB.
    CHECK(parse_size("16777215T") == 16777215ULL * TiB);
}

TEST_CASE("parse_size: lower case and KiB/MiB spellings") {
    CHECK(parse_size("4k") == 4 * KiB);
    CHECK(parse_size("1m") == MiB);
    CHECK(parse_size("2g") == 2 * GiB);
    CHECK(parse_size("1t") == TiB);
    CHECK(parse_size("4KiB") == 4 * KiB);
    CHECK(parse_size("64MiB") == 64 * MiB);
    CHECK(parse_size("2GiB") == 2 * GiB);
    CHECK(parse_size("1TiB") == TiB);
    CHECK(parse_size("4kib") == 4 * KiB);
    CHECK(parse_size("8mib") == 8 * MiB);
}

TEST_CASE("parse_size: surrounding whitespace is ignored") {
    CHECK(parse_size(" 4K") == 4 * KiB);
    CHECK(parse_size("4K ") == 4 * KiB);
    CHECK(parse_size("\t1M\n") == MiB);
    CHECK(parse_size("  123  ") == 123);
}

TEST_CASE("parse_size: rejections name the bad text") {
    CHECK(rejection([] { parse_size(""); }) != "");
    CHECK(rejection([] { parse_size("   "); }) != "");
    CHECK(rejection([] { parse_size("-1"); }).find("-1") != std::string::npos);
    CHECK(rejection([] { parse_size("-4K"); }).find("negative") != std::string::npos);
    CHECK(rejection([] { parse_size("4X"); }).find("4X") != std::string::npos);
    CHECK(rejection([] { parse_size("K"); }).find("'K'") != std::string::npos);
    CHECK(rejection([] { parse_size("M"); }) != "");
    CHECK(rejection([] { parse_size("1.5M"); }).find("1.5M") != std::string::npos);
    CHECK(rejection([] { parse_size("0.5K"); }) != "");
    CHECK(rejection([] { parse_size("4K4"); }) != "");
    CHECK(rejection([] { parse_size("4KK"); }) != "");
    CHECK(rejection([] { parse_size("0x10"); }) != "");
    CHECK(rejection([] { parse_size("+4K"); }) != "");
    CHECK(rejection([] { parse_size("four"); }) != "");
}

TEST_CASE("parse_size: overflow is rejected, never wrapped") {
    CHECK(rejection([] { parse_size("99999999999999999999"); }).find("too large") !=
          std::string::npos);
    CHECK(rejection([] { parse_size("18446744073709551616"); }) != "");
    CHECK(rejection([] { parse_size("20000000T"); }).find("too large") != std::string::npos);
    CHECK(rejection([] { parse_size("16777216T"); }) != "");           // exactly 2^64
    CHECK(rejection([] { parse_size("17179869184G"); }) != "");        // 2^34 GiB = 2^64
    CHECK(rejection([] { parse_size("18014398509481984K"); }) != "");  // 2^54 KiB = 2^64
}

TEST_CASE("parse_duration: plain numbers are seconds") {
    CHECK(parse_duration("0") == 0.0);
    CHECK(parse_duration("10") == 10.0);
    CHECK(parse_duration("3600") == 3600.0);
    CHECK(parse_duration(" 7 ") == 7.0);
}

TEST_CASE("parse_duration: s, ms, m and h") {
    CHECK(parse_duration("10s") == 10.0);
    CHECK(parse_duration("500ms") == doctest::Approx(0.5));
    CHECK(parse_duration("1ms") == doctest::Approx(0.001));
    CHECK(parse_duration("2m") == 120.0);
    CHECK(parse_duration("1h") == 3600.0);
    CHECK(parse_duration("24h") == 86400.0);
}

TEST_CASE("parse_duration: fractional values") {
    CHECK(parse_duration("1.5") == doctest::Approx(1.5));
    CHECK(parse_duration("1.5s") == doctest::Approx(1.5));
    CHECK(parse_duration("0.25m") == doctest::Approx(15.0));
    CHECK(parse_duration("0.5h") == doctest::Approx(1800.0));
    CHECK(parse_duration("2.5ms") == doctest::Approx(0.0025));
}

TEST_CASE("parse_duration: rejections") {
    CHECK(rejection([] { parse_duration(""); }) != "");
    CHECK(rejection([] { parse_duration("-1"); }).find("negative") != std::string::npos);
    CHECK(rejection([] { parse_duration("-5s"); }) != "");
    CHECK(rejection([] { parse_duration("s"); }) != "");
    CHECK(rejection([] { parse_duration("abc"); }).find("abc") != std::string::npos);
    CHECK(rejection([] { parse_duration("10x"); }).find("10x") != std::string::npos);
    CHECK(rejection([] { parse_duration("10d"); }) != "");
    CHECK(rejection([] { parse_duration("1.2.3"); }) != "");
    CHECK(rejection([] { parse_duration("."); }) != "");
    CHECK(rejection([] { parse_duration("1e3"); }) != "");
    CHECK(rejection([] { parse_duration("5ss"); }) != "");
    CHECK(rejection([] { parse_duration("99999999999h"); }).find("too large") != std::string::npos);
}

TEST_CASE("parse_count: non-negative integers only") {
    CHECK(parse_count("0") == 0);
    CHECK(parse_count("1") == 1);
    CHECK(parse_count("42") == 42);
    CHECK(parse_count(" 7 ") == 7);
    CHECK(parse_count("18446744073709551615") == UINT64_MAX);

    CHECK(rejection([] { parse_count(""); }) != "");
    CHECK(rejection([] { parse_count("-1"); }).find("negative") != std::string::npos);
    CHECK(rejection([] { parse_count("1K"); }).find("1K") != std::string::npos);
    CHECK(rejection([] { parse_count("1.0"); }) != "");
    CHECK(rejection([] { parse_count("abc"); }) != "");
    CHECK(rejection([] { parse_count("+1"); }) != "");
    CHECK(rejection([] { parse_count("18446744073709551616"); }).find("too large") !=
          std::string::npos);
}

TEST_CASE("split_list: items in order, trimmed") {
    CHECK(split_list("a") == std::vector<std::string>{"a"});
    CHECK(split_list("a,b,c") == std::vector<std::string>{"a", "b", "c"});
    CHECK(split_list("seq-write,seq-read") == std::vector<std::string>{"seq-write", "seq-read"});
    CHECK(split_list(" a , b ") == std::vector<std::string>{"a", "b"});
}

TEST_CASE("split_list: empty items are rejected") {
    CHECK(rejection([] { split_list(""); }).find("empty item") != std::string::npos);
    CHECK(rejection([] { split_list("a,,b"); }) != "");
    CHECK(rejection([] { split_list("a,"); }) != "");
    CHECK(rejection([] { split_list(",a"); }) != "");
    CHECK(rejection([] { split_list(" , "); }) != "");
    CHECK(rejection([] { split_list(","); }) != "");
}

TEST_CASE("format_bytes: binary units, exact values without decimals") {
    CHECK(format_bytes(0) == "0 B");
    CHECK(format_bytes(1) == "1 B");
    CHECK(format_bytes(1023) == "1023 B");
    CHECK(format_bytes(1024) == "1 KiB");
    CHECK(format_bytes(1536) == "1.5 KiB");
    CHECK(format_bytes(4096) == "4 KiB");
    CHECK(format_bytes(1000000) == "976.6 KiB");
    CHECK(format_bytes(256 * MiB) == "256 MiB");
    CHECK(format_bytes(3 * GiB / 2) == "1.5 GiB");
    CHECK(format_bytes(GiB) == "1 GiB");
    CHECK(format_bytes(2 * TiB) == "2 TiB");
    CHECK(format_bytes(1024 * TiB) == "1 PiB");
    CHECK(format_bytes(1024 * 1024 * TiB) == "1 EiB");
    CHECK(format_bytes(~std::uint64_t{0}) == "16 EiB");  // not "16384.0 PiB"
}

TEST_CASE("format_bytes_against: exact bytes where rounding hides how two amounts compare") {
    using ds::units::format_bytes_against;
    // "reaches 4.0 MiB, beyond 4 MiB": one byte over, hidden by rounding.
    CHECK(format_bytes_against(4 * MiB + 1, 4 * MiB) == "4.0 MiB (4194305 bytes)");
    CHECK(format_bytes_against(4 * MiB, 4 * MiB + 1) == "4 MiB (4194304 bytes)");
    // 2 GiB less 1 KiB and 2 GiB less 100 KiB both print as "2.0 GiB".
    CHECK(format_bytes_against(2 * GiB - KiB, 2 * GiB - 100 * KiB) == "2.0 GiB (2147482624 bytes)");
    // Told apart by the text: nothing added.
    CHECK(format_bytes_against(5 * MiB, 4 * MiB) == "5 MiB");
    CHECK(format_bytes_against(3 * MiB / 2, 4 * MiB) == "1.5 MiB");
    CHECK(format_bytes_against(4 * MiB, 4 * MiB) == "4 MiB");
    CHECK(format_bytes_against(1023, 1022) == "1023 B");
}

TEST_CASE("format_size_option: the spelling --size accepts") {
    CHECK(format_size_option(0) == "0");
    CHECK(format_size_option(1000) == "1000");
    CHECK(format_size_option(1536) == "1536");
    CHECK(format_size_option(1024) == "1K");
    CHECK(format_size_option(4096) == "4K");
    CHECK(format_size_option(MiB) == "1M");
    CHECK(format_size_option(256 * MiB) == "256M");
    CHECK(format_size_option(1536 * KiB) == "1536K");
    CHECK(format_size_option(2 * GiB) == "2G");
    CHECK(format_size_option(TiB) == "1T");
    CHECK(format_size_option(1024 * TiB) == "1024T");
}

TEST_CASE("format_size_option round-trips through parse_size") {
    const std::vector<std::uint64_t> values{0,       1,       512,        1000,
                                            1536,    4 * KiB, 1536 * KiB, 256 * MiB,
                                            7 * GiB, 5 * TiB, 1024 * TiB, 16777215 * TiB};
    for (std::uint64_t v : values) {
        CAPTURE(v);
        CHECK(parse_size(format_size_option(v)) == v);
    }
}

TEST_CASE("format_seconds: us, ms and s") {
    CHECK(format_seconds(0) == "0 us");
    CHECK(format_seconds(0.000412) == "412 us");
    CHECK(format_seconds(0.0125) == "12.50 ms");
    CHECK(format_seconds(0.5) == "500.00 ms");
    CHECK(format_seconds(1) == "1.00 s");
    CHECK(format_seconds(2.5) == "2.50 s");
    CHECK(format_seconds(90) == "90.00 s");
}

// Just below a unit boundary the rounded figure must move up a unit:
// "1024.0 KiB" and "1000.00 ms" are not readings a person expects.
TEST_CASE("format_bytes and format_seconds never print a full next unit") {
    for (std::uint64_t v : {MiB - 1, MiB - 10, GiB - 1, TiB - 1}) {
        const std::string text = format_bytes(v);
        INFO(v, " bytes -> \"", text, "\"");
        CHECK(std::stod(text) < 1024.0);
    }
    for (double s : {0.0009999, 0.9999999}) {
        const std::string text = format_seconds(s);
        INFO(s, " s -> \"", text, "\"");
        CHECK(std::stod(text) < 1000.0);
    }
}

TEST_CASE("printf_string has no length limit; IOPS read as a report shows them") {
    const std::string long_text(1000, 'x');
    CHECK(ds::units::printf_string("%s|%d", long_text.c_str(), 7) == long_text + "|7");
    CHECK(ds::units::printf_string("%s", "").empty());
    CHECK(ds::units::format_iops(1234567) == "1.23M");
    CHECK(ds::units::format_iops(148300) == "148.3k");
    CHECK(ds::units::format_iops(812.4) == "812");
}

TEST_CASE("utf8_length: a sequence's length, 0 where the bytes are not UTF-8") {
    using ds::units::utf8_length;
    CHECK(utf8_length("a", 0) == 1);
    CHECK(utf8_length("\xc3\xa9", 0) == 2);          // é
    CHECK(utf8_length("\xe2\x82\xac", 0) == 3);      // €
    CHECK(utf8_length("\xf0\x9f\x98\x80", 0) == 4);  // an emoji
    CHECK(utf8_length("\xff", 0) == 0);
    CHECK(utf8_length("\xc0\xaf", 0) == 0);      // overlong '/'
    CHECK(utf8_length("\xed\xa0\x80", 0) == 0);  // a surrogate
    CHECK(utf8_length("\xe2\x82", 0) == 0);      // cut short
}

TEST_CASE("printable: what a terminal would act on is spelled out, the rest kept") {
    using ds::units::printable;
    CHECK(printable("plain /tmp/dir") == "plain /tmp/dir");
    CHECK(printable("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");  // é €
    CHECK(printable("e\x1b[2Jz") == "e\\x1b[2Jz");
    CHECK(printable("a\rb\x7f") == "a\\x0db\\x7f");
    CHECK(printable("a\nb\tc") == "a\\nb\\x09c");
    CHECK(printable("a\nb\tc", true) == "a\nb\tc");
    CHECK(printable("\xe2\x80\xae"
                    "evil") == "\\u{202e}evil");  // right-to-left override
    CHECK(printable("\xe2\x81\xa6x\xe2\x81\xa9") == "\\u{2066}x\\u{2069}");  // an isolate
    CHECK(printable("\xe2\x80\x8f") == "\\u{200f}");                         // right-to-left mark
    CHECK(printable("\xc2\x9b"
                    "2J") == "\\u{009b}2J");          // C1 CSI
    CHECK(printable("\xe2\x80\xa8") == "\\u{2028}");  // line separator
    CHECK(printable("\xff\xfe") == "\\xff\\xfe");     // not UTF-8
    CHECK(printable("\xe2\x82") == "\\xe2\\x82");     // cut short
    CHECK(printable(std::string("a\0b", 3)) == "a\\x00b");
}

TEST_CASE("parse_rate: at least one operation a second, at most 1e9") {
    using ds::units::parse_rate;
    CHECK(parse_rate("1") == 1.0);
    CHECK(parse_rate("50k") == 50000.0);
    CHECK(parse_rate("1.5M") == 1.5e6);
    CHECK_THROWS_WITH(parse_rate("0.5"), doctest::Contains("below 1 operation a second"));
    CHECK_THROWS_WITH(parse_rate("1e-300"), doctest::Contains("below 1 operation a second"));
    CHECK_THROWS_WITH(parse_rate("0.0001k"), doctest::Contains("below 1 operation a second"));
    CHECK_THROWS(parse_rate("0"));
    CHECK(parse_rate("1000M") == 1e9);
    // Past the top the refusal names it, not "not a number ... above 0".
    for (const char* high : {"2e9", "1e12", "4294967296", "1001M", "1e308M", "inf"})
        CHECK_THROWS_WITH(parse_rate(high),
                          doctest::Contains("above 1000M operations a second (1e9"));
    CHECK_THROWS_WITH(parse_rate("nan"), doctest::Contains("not a number of operations"));
    CHECK_THROWS_WITH(parse_rate("-5"), doctest::Contains("not a number of operations"));
}

TEST_CASE("format_percentile: the percentile as given, never rounded") {
    using ds::units::format_percentile;
    CHECK(format_percentile(99) == "p99");
    CHECK(format_percentile(99.9) == "p99.9");
    CHECK(format_percentile(99.99999999) == "p99.99999999");
    CHECK(format_percentile(50) == "p50");
}
