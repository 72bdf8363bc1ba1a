// The preset table's text: a test whose random phase drew a skew, a size
// mix or flushes (--preset database) states them under the table.
#include "report/preset_report.h"

#include <doctest/doctest.h>

#include <string>

using namespace ds;

namespace {

// A random phase of 5 s: 1000 reads and 500 writes of an 8K/64K mix, 50
// fdatasync calls.
model::PhaseResult random_phase() {
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.seconds = 5;
    auto& c = p.counters;
    c.read_ops = 1000;
    c.write_ops = 500;
    c.read_bytes = c.write_bytes = 1000 * 8192;
    for (std::uint64_t i = 0; i < 1500; ++i)
        (i < 1000 ? c.read_latency : c.write_latency).record(1'000'000 + i * 1000);
    for (const std::uint32_t bytes : {8192u, 65536u}) {
        model::SizeCounters s;
        s.bytes = bytes;
        s.read_ops = bytes == 8192 ? 900 : 100;
        s.write_ops = bytes == 8192 ? 450 : 50;
        s.read_latency.record(1'000'000);
        c.sizes.push_back(s);
    }
    c.flush_ops = 50;
    for (int i = 0; i < 50; ++i)
        c.flush_latency.record(2'000'000);
    return p;
}

}  // namespace

TEST_CASE("a skewed, mixed, flushing test states its skew, sizes and flushes under the table") {
    model::RunResult r;
    model::PhaseResult p = random_phase();
    model::SkewResult skew(1024);
    skew.distribution = "zipf:1.1";
    skew.predicted = {0.637, 0.85, 0.9};
    for (std::uint64_t i = 0; i < 1500; ++i)
        skew.tally.add(i % 7, i % 7);
    p.skew = skew;
    r.merged_phases.push_back(p);
    const std::string text = report::preset_table("database", {{"database", r}});
    const auto under = text.find("  database, random phase:\n");
    REQUIRE(under != std::string::npos);
    const std::string tail = text.substr(under);
    CHECK(tail.find("\n  skew:      zipf:1.1  ops on the hottest 1 % of blocks 100.0 % (predicted "
                    "63.7)") != std::string::npos);
    CHECK(tail.find("\n  bs 8K:     90.0 % of ops") != std::string::npos);
    CHECK(tail.find("\n  bs 64K:    10.0 % of ops") != std::string::npos);
    CHECK(tail.find("\n  flushes:   50 (10/s)  lat ms p50 2.") != std::string::npos);
}

TEST_CASE("a uniform test of one size without flushes adds nothing under the table") {
    model::RunResult r;
    model::PhaseResult p = random_phase();
    p.counters.sizes.clear();
    p.counters.flush_ops = 0;
    r.merged_phases.push_back(p);
    const std::string text = report::preset_table("desktop", {{"RND4K Q32T1 read", r}});
    CHECK(text.find("random phase:") == std::string::npos);
    CHECK(text.find("skew:") == std::string::npos);
    CHECK(text.find("flushes") == std::string::npos);
}
