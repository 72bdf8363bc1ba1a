// The host's load from /proc/stat: the cpu line in seconds, steal and foreign
// load as shares, and loads of several phases added up.
#include "sys/host_load.h"

#include <doctest/doctest.h>

using ds::sys::HostCpu;
using ds::sys::HostLoad;

TEST_CASE("the aggregate cpu line, in seconds; per-CPU lines and the rest ignored") {
    const char* text =
        "cpu  100 10 50 800 20 5 5 10 7 0\n"
        "cpu0 50 5 25 400 10 2 3 5 0 0\n"
        "intr 12345\n";
    const auto c = ds::sys::parse_proc_stat(text, 100);
    REQUIRE(c.has_value());
    CHECK(c->user == doctest::Approx(1.0));
    CHECK(c->steal == doctest::Approx(0.1));
    CHECK(c->total() == doctest::Approx(10.0));  // guest (7) is inside user already
    CHECK(c->busy() == doctest::Approx(1.7));
}

TEST_CASE("a missing or short cpu line is no reading") {
    CHECK_FALSE(ds::sys::parse_proc_stat("intr 1\n", 100).has_value());
    CHECK_FALSE(ds::sys::parse_proc_stat("cpu 1 2 3\n", 100).has_value());
    CHECK_FALSE(ds::sys::parse_proc_stat("cpu 1 2 3 4 5 6 7 x\n", 100).has_value());
    CHECK_FALSE(ds::sys::parse_proc_stat("cpu 1 2 3 4 5 6 7 8\n", 0).has_value());
}

TEST_CASE("steal and foreign load as shares of the host's CPU time") {
    HostCpu before{};
    HostCpu after{};
    // 2 CPUs x 10 s = 20 CPU-seconds: 6 busy (2 of them ours), 2 stolen.
    after.user = 5;
    after.system = 1;
    after.steal = 2;
    after.idle = 12;
    const HostLoad l = ds::sys::host_load(before, after, 2.0);
    CHECK(l.seconds == doctest::Approx(20));
    CHECK(l.steal_pct() == doctest::Approx(10));
    CHECK(l.foreign_pct() == doctest::Approx(20));
    CHECK(ds::sys::busy(l));
}

TEST_CASE("a quiet host is not busy; our own CPU time is never foreign") {
    HostCpu before{};
    HostCpu after{};
    after.user = 4;  // all of it ours
    after.idle = 16;
    const HostLoad l = ds::sys::host_load(before, after, 4.5);  // rounding: a bit more than seen
    CHECK(l.foreign_pct() == 0);
    CHECK(l.steal_pct() == 0);
    CHECK_FALSE(ds::sys::busy(l));
    CHECK(ds::sys::host_load(after, after, 0).seconds == 0);
}

TEST_CASE("loads of several phases add up in CPU-seconds") {
    HostLoad a{true, 10, 1, 2};
    const HostLoad b{true, 30, 0, 6};
    a += b;
    CHECK(a.seconds == 40);
    CHECK(a.steal_pct() == doctest::Approx(2.5));
    CHECK(a.foreign_pct() == doctest::Approx(20));
    CHECK(HostLoad{}.steal_pct() == 0);
}

TEST_CASE("the real /proc/stat parses") {
    const auto text = ds::sys::proc_stat().read();
    REQUIRE(text.has_value());
    const auto c = ds::sys::parse_proc_stat(*text, 100);
    REQUIRE(c.has_value());
    CHECK(c->total() > 0);
}
