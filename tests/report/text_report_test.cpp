// The text report's drift table for long runs, the saturation line of sweeps.
#include "report/text_report.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace ds;

namespace {

run::PhaseFigures figures(run::Phase p, double seconds, std::uint64_t ops, std::uint64_t p99) {
    run::PhaseFigures f;
    f.phase = p;
    f.seconds = seconds;
    f.write_ops = ops;
    f.write_bytes = ops * (1 << 20);
    f.p99_ns = p99;
    return f;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

}  // namespace

TEST_CASE("drift table: first, best, worst and last of each phase, with the iteration") {
    std::vector<run::IterationResult> its;
    // seq-write 100, 250, 50 MiB/s (1 MiB writes for 1 s); random 1000, 500, 2000 IOPS.
    const std::uint64_t seq[] = {100, 250, 50};
    const std::uint64_t rnd[] = {1000, 500, 2000};
    for (std::uint64_t i = 0; i < 3; ++i)
        its.push_back({i + 1,
                       {figures(run::Phase::seq_write, 1.0, seq[i], 2'000'000 * (i + 1)),
                        figures(run::Phase::random, 1.0, rnd[i], 1'000'000)}});
    const auto lines = lines_of(report::drift_table(its));
    REQUIRE(lines.size() == 7);
    CHECK(lines[0].empty());
    CHECK(lines[1].rfind("drift    3 iterations: first, best, worst and last", 0) == 0);
    CHECK(
        lines[3] ==
        "  seq-write  MiB/s        100.0 #1          250.0 #2           50.0 #3           50.0 #3");
    CHECK(
        lines[4] ==
        "             p99 ms       2.000 #1          2.000 #1          6.000 #3          6.000 #3");
    CHECK(
        lines[5] ==
        "  random     IOPS          1.0k #1           2.0k #3            500 #2           2.0k #3");
    for (const auto& l : lines) {
        CAPTURE(l);
        CHECK((l.empty() || l.back() != ' '));
    }
}

TEST_CASE("no drift table for a single iteration") {
    std::vector<run::IterationResult> its{{1, {figures(run::Phase::seq_write, 1.0, 10, 1)}}};
    CHECK(report::drift_table(its).empty());
    CHECK(report::drift_table({}).empty());
}

namespace {

// A sweep whose point i did ops[i] operations of `block` bytes in one second,
// every one taking p99_us[i] microseconds.
run::SweepResult sweep_of(run::SweepParam param, std::vector<std::uint64_t> values,
                          std::vector<std::uint64_t> ops, std::vector<std::uint64_t> block,
                          std::vector<std::uint64_t> p99_us) {
    run::SweepResult sw;
    sw.param = param;
    for (std::size_t i = 0; i < values.size(); ++i) {
        run::SweepPoint pt;
        pt.value = values[i];
        pt.random.phase = run::Phase::random;
        pt.random.seconds = 1.0;
        pt.random.counters.read_ops = ops[i];
        pt.random.counters.read_bytes = ops[i] * block[i];
        for (int n = 0; n < 100; ++n)
            pt.random.counters.read_latency.record(p99_us[i] * 1000);
        sw.points.push_back(pt);
    }
    return sw;
}

}  // namespace

TEST_CASE("saturation line: a qd sweep by IOPS, a block-size sweep by MiB/s") {
    auto qd = sweep_of(run::SweepParam::qd, {1, 4, 16}, {1000, 3000, 3100}, {4096, 4096, 4096},
                       {100, 100, 300});
    qd.knee = 1;
    CHECK(report::knee_line(qd) ==
          "saturation: by IOPS, qd 4 \u2014 3.0k IOPS, p99 0.100 ms (next step +3% IOPS, "
          "+200% p99)");
    auto blocks = sweep_of(run::SweepParam::rand_block, {4096, 16384, 65536}, {3000, 2000, 1000},
                           {4096, 16384, 65536}, {100, 200, 400});
    CHECK(blocks.axis() == stats::KneeAxis::bandwidth);
    CHECK(report::knee_line(blocks) ==
          "saturation: by MiB/s, not reached (MiB/s still climbing at rand-block 64K)");
    blocks.knee = 1;
    const std::string line = report::knee_line(blocks);
    CHECK(line.rfind("saturation: by MiB/s, rand-block 16K \u2014 31.2 MiB/s (2.0k IOPS), p99 ",
                     0) == 0);
    CHECK(line.find("(next step +100% MiB/s, +100% p99)") != std::string::npos);
}
