// The text report's drift table for long runs, the saturation line of sweeps,
// the skew line of a run over several files.
#include "report/text_report.h"
#include "report/target_table.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace ds;

namespace {

model::PhaseFigures figures(model::Phase p, double seconds, std::uint64_t ops, std::uint64_t p99) {
    model::PhaseFigures f;
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
    std::vector<model::IterationResult> its;
    // seq-write 100, 250, 50 MiB/s (1 MiB writes for 4 s: long enough to
    // measure); random 1000, 500, 2000 IOPS.
    const std::uint64_t seq[] = {400, 1000, 200};
    const std::uint64_t rnd[] = {1000, 500, 2000};
    for (std::uint64_t i = 0; i < 3; ++i)
        its.push_back({i + 1,
                       {figures(model::Phase::seq_write, 4.0, seq[i], 2'000'000 * (i + 1)),
                        figures(model::Phase::random, 1.0, rnd[i], 1'000'000)}});
    const auto lines = lines_of(report::drift_table(its));
    REQUIRE(lines.size() == 8);  // the first line folded at 100 columns
    CHECK(lines[0].empty());
    CHECK(lines[1].rfind("drift    3 iterations: first, best, worst and last", 0) == 0);
    CHECK(lines[2].rfind("         ", 0) == 0);
    CHECK(lines[4] ==
          "  seq-write  MiB/s     100.0 #1     250.0 #2      50.0 #3      50.0 #3  "
          "one sample a side");
    CHECK(lines[5] ==
          "             p99 ms    2.000 #1     2.000 #1     6.000 #3     6.000 #3  "
          "one sample a side");
    CHECK(lines[6] ==
          "  random     IOPS       1.0k #1      2.0k #3       500 #2      2.0k #3  "
          "one sample a side");
    CHECK(lines[3].substr(lines[3].size() - 5) == "drift");
    for (const auto& l : lines) {
        CAPTURE(l);
        CHECK((l.empty() || l.back() != ' '));
    }
}

TEST_CASE("--units si: the drift table in MB/s, the same runs as in MiB/s") {
    std::vector<model::IterationResult> its;
    // 100 MiB/s = 104.9 MB/s, 250 MiB/s = 262.1 MB/s, 50 MiB/s = 52.4 MB/s.
    const std::uint64_t seq[] = {400, 1000, 200};
    for (std::uint64_t i = 0; i < 3; ++i)
        its.push_back({i + 1, {figures(model::Phase::seq_write, 4.0, seq[i], 2'000'000)}});
    const auto lines = lines_of(report::drift_table(its, units::ByteUnits::si));
    REQUIRE(lines.size() == 6);
    CHECK(lines[4] ==
          "  seq-write  MB/s      104.9 #1     262.1 #2      52.4 #3      52.4 #3  "
          "one sample a side");
}

TEST_CASE("--units si: a phase line and the write summary in MB/s, sizes still binary") {
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.seconds = 2;
    p.counters.write_ops = 1000;
    p.counters.write_bytes = 1000 * 1'000'000ULL;  // 500 MB/s
    p.counters.verified_bytes = 1 << 20;
    for (int i = 0; i < 1000; ++i)
        p.counters.write_latency.record(100'000);
    const std::string si = report::phase_line(p, {}, units::ByteUnits::si);
    CAPTURE(si);
    CHECK(si.rfind("  random         500.0 MB/s      2.00 s", 0) == 0);
    CHECK(si.find("verified 1 MiB") != std::string::npos);
    CHECK(si.find("  total 2.000 s  1000.0 MB  500 writes/s  500.0 MB/s") != std::string::npos);
    const std::string iec = report::phase_line(p, {});
    CAPTURE(iec);
    CHECK(iec.rfind("  random         476.8 MiB/s     2.00 s", 0) == 0);
    CHECK(iec.find("  total 2.000 s  953.7 MiB  500 writes/s  476.8 MiB/s") != std::string::npos);
}

TEST_CASE("drift table: a drift is named only outside the noise") {
    std::vector<model::IterationResult> its;
    // seq-write 200 MiB/s for five iterations, then 100 (a real halving,
    // intervals far apart); p99 the same throughout, a little jitter.
    for (std::uint64_t i = 0; i < 10; ++i)
        its.push_back({i + 1,
                       {figures(model::Phase::seq_write, 2.0, i < 5 ? 400 + 2 * i : 200 + 2 * i,
                                2'000'000 + 1000 * ((i * 7) % 5))}});
    const auto lines = lines_of(report::drift_table(its));
    REQUIRE(lines.size() == 6);  // the first line folded at 100 columns
    CHECK((lines[1] + lines[2]).find("the first 5 runs against the last 5") != std::string::npos);
    CAPTURE(lines[4]);
    CHECK(lines[4].substr(lines[4].size() - 15) == "-47.0 % (worse)");
    CHECK(lines[5].substr(lines[5].size() - 12) == "within noise");
}

TEST_CASE("drift table: runs too short to measure are said to be") {
    std::vector<model::IterationResult> its;
    for (std::uint64_t i = 0; i < 2; ++i)
        its.push_back({i + 1, {figures(model::Phase::seq_write, 0.1, 8, 2'000'000)}});
    const std::string t = report::drift_table(its);
    CAPTURE(t);
    CHECK(t.find("too short to measure: seq-write 2 of 2 runs") != std::string::npos);
    its[1].phases[0] = figures(model::Phase::seq_write, 2.0, 400, 2'000'000);
    its[0].phases[0] = figures(model::Phase::seq_write, 2.0, 400, 2'000'000);
    CHECK(report::drift_table(its).find("too short") == std::string::npos);
}

TEST_CASE("no drift table for a single iteration") {
    std::vector<model::IterationResult> its{{1, {figures(model::Phase::seq_write, 1.0, 10, 1)}}};
    CHECK(report::drift_table(its).empty());
    CHECK(report::drift_table({}).empty());
}

namespace {

// A sweep whose point i did ops[i] operations of `block` bytes in one second,
// every one taking p99_us[i] microseconds.
model::SweepResult sweep_of(model::SweepParam param, std::vector<std::uint64_t> values,
                            std::vector<std::uint64_t> ops, std::vector<std::uint64_t> block,
                            std::vector<std::uint64_t> p99_us) {
    model::SweepResult sw;
    sw.param = param;
    for (std::size_t i = 0; i < values.size(); ++i) {
        model::SweepPoint pt;
        pt.value = values[i];
        pt.random.phase = model::Phase::random;
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
    auto qd = sweep_of(model::SweepParam::qd, {1, 4, 16}, {1000, 3000, 3100}, {4096, 4096, 4096},
                       {100, 100, 300});
    qd.knee = 1;
    CHECK(report::knee_line(qd) ==
          "saturation: by IOPS, qd 4 \u2014 3.0k IOPS, p99 0.100 ms (next step +3% IOPS, "
          "+200% p99)");
    auto blocks = sweep_of(model::SweepParam::rand_block, {4096, 16384, 65536}, {3000, 2000, 1000},
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

TEST_CASE("find-rate line: the rate found with its bracket, or that none met the bound") {
    model::FindRateResult fr;
    fr.bound = {99, 0.005};
    fr.closed_loop_iops = 1000;
    auto probe = [](double rate, bool passed, std::vector<double> ns) {
        model::FindRateProbe p;
        p.requested_iops = rate;
        p.repeats = ns.size();
        p.rate_met = passed || rate < 900;
        p.verdict = stats::judge_probe(ns, 5e6, p.rate_met);
        return p;
    };
    fr.probes = {probe(1000, false, {9e7}), probe(500, true, {1e6}), probe(750, true, {4.1e6}),
                 probe(875, false, {6e6})};
    fr.found = 2;
    fr.failing = 3;
    CHECK(report::find_rate_line(fr) ==
          "find-rate: 750 IOPS meets p99 <= 5.00 ms (bracket 750..875 IOPS, 4 points; "
          "p99 4.10 ms at 750)");
    fr.probes[2] = probe(750, true, {4.1e6, 4.9e6, 5.2e6});  // --repeat 3
    CHECK(report::find_rate_line(fr) ==
          "find-rate: 750 IOPS meets p99 <= 5.00 ms (bracket 750..875 IOPS, 4 points; "
          "p99 4.90 ms (median of 3, 4.10 ms..5.20 ms, within noise) at 750)");
    // One run: the interval of its latencies' ranks, judged against the bound.
    stats::Estimate one_run{.n = 20000,
                            .median = 4.6e6,
                            .min = 4.2e6,
                            .max = 5.3e6,
                            .low = 4.2e6,
                            .high = 5.3e6,
                            .confidence = 0.95};
    fr.probes[2].repeats = 1;
    fr.probes[2].verdict = stats::judge_probe(one_run, 5e6, true);
    CHECK(report::find_rate_line(fr) ==
          "find-rate: 750 IOPS meets p99 <= 5.00 ms (bracket 750..875 IOPS, 4 points; "
          "p99 4.60 ms (4.20 ms..5.30 ms, within noise) at 750)");
    fr.found.reset();
    fr.failing = 1;
    fr.probes = {probe(1000, false, {9e7}), probe(500, false, {7e6})};
    CHECK(report::find_rate_line(fr) ==
          "find-rate: no rate probed meets p99 <= 5.00 ms (2 points; p99 7.00 ms at 500)");
    fr.bound.percentile = 99.9;
    fr.probes = {probe(1000, true, {1e6})};
    fr.found = 0;
    fr.failing.reset();
    CHECK(report::find_rate_line(fr) ==
          "find-rate: 1000 IOPS meets p99.9 <= 5.00 ms (the closed-loop maximum, no higher rate "
          "probed, 1 point; p99.9 1.00 ms at 1000)");
}

// Hand-computed window 100, 110, 90, 105, 95: mean 100, range 20 % (at the
// limit: steady), least-squares slope -1.5 per round, excursion 6 %.
TEST_CASE("steady-state line: attained, with the window's figures") {
    model::SteadyStateResult r;
    r.round_s = 60;
    r.round_iops = {500, 100, 110, 90, 105, 95};
    stats::SteadyStateTracker t;
    for (double v : r.round_iops)
        t.add_round(v);
    r.window = t.window();
    r.status = t.status();
    CHECK(report::steady_state_line(r) ==
          "steady state: attained at round 6 of 60 s (rounds 2-6)  mean 100 IOPS, range 20.0 % "
          "(max 20), slope excursion 6.0 % (max 10)  trend within noise (-1.5 %/round, "
          "95 % -10.3..7.3)");
}

TEST_CASE("steady-state line: not attained, and no window yet") {
    model::SteadyStateResult r;
    r.round_s = 0.5;
    r.rule.max_rounds = 5;
    r.round_iops = {100, 100, 100, 100, 300};
    r.window = stats::evaluate_steady_state(r.round_iops, r.rule);
    r.status = stats::SteadyStateStatus::max_rounds_reached;
    CHECK(report::steady_state_line(r) ==
          "steady state: not attained in 5 rounds of 0.5 s (rounds 1-5)  mean 140 IOPS, range "
          "142.9 % (max 20), slope excursion 114.3 % (max 10)  trend within noise "
          "(28.6 %/round, 95 % -23.9..81.1)");
    // A steady climb with no scatter: within PTS's limits, still moving.
    r.round_iops = {96, 98, 100, 102, 104};
    r.window = stats::evaluate_steady_state(r.round_iops, r.rule);
    r.status = stats::SteadyStateStatus::attained;
    CHECK(report::steady_state_line(r) ==
          "steady state: attained at round 5 of 0.5 s (rounds 1-5)  mean 100 IOPS, range 8.0 % "
          "(max 20), slope excursion 8.0 % (max 10)  still rising 2.0 %/round (95 % 2.0..2.0)");
    r.round_iops = {100, 100};
    r.window.reset();
    r.status = stats::SteadyStateStatus::measuring;
    r.interrupted = true;
    CHECK(report::steady_state_line(r) ==
          "steady state: no verdict: interrupted after 2 rounds of 0.5 s (fewer rounds than the "
          "window of 5)");
}

namespace {

model::SustainedWriteResult sustained(std::vector<stats::ThroughputInterval> series) {
    model::SustainedWriteResult r;
    r.interval_s = 1;
    r.series = std::move(series);
    r.cliff = stats::find_write_cliff(r.series, r.rule);
    return r;
}

}  // namespace

// 10 intervals at 3100 MiB/s then 10 at 850: the cliff after 31000 MiB.
TEST_CASE("write-cliff lines: a cliff, no cliff, no verdict, recovery") {
    constexpr std::uint64_t MiB = 1 << 20;
    std::vector<stats::ThroughputInterval> s(10, {1.0, 3100 * MiB});
    s.insert(s.end(), 10, {1.0, 850 * MiB});
    auto r = sustained(s);
    CHECK(report::write_cliff_lines(r) == "write cliff after 30.3 GiB: 3100 -> 850 MiB/s (-73%)\n");
    std::vector<stats::ThroughputInterval> after(6, {1.0, 2900 * MiB});
    r.recovery_series = after;
    r.recovery = stats::measure_cliff_recovery(r.cliff, after, 60);
    CHECK(report::write_cliff_lines(r) ==
          "write cliff after 30.3 GiB: 3100 -> 850 MiB/s (-73%)\n"
          "  after 60 s idle: 2900 MiB/s, 91 % of the drop recovered; no cliff within 17.0 GiB\n");

    auto flat = sustained(std::vector<stats::ThroughputInterval>(12, {1.0, 1024 * MiB}));
    CHECK(report::write_cliff_lines(flat) ==
          "no write cliff within 12 GiB (12 intervals of 1 s)\n");
    auto short_run = sustained(std::vector<stats::ThroughputInterval>(7, {1.0, 1024 * MiB}));
    CHECK(report::write_cliff_lines(short_run) ==
          "write cliff: no verdict: 7 intervals of 1 s, 10 needed (more --sustained-write passes "
          "or a shorter --cliff-interval)\n");
    // One interval is one interval, not "1 intervals".
    auto one = sustained(std::vector<stats::ThroughputInterval>(1, {1.0, 1024 * MiB}));
    CHECK(report::write_cliff_lines(one) ==
          "write cliff: no verdict: 1 interval of 1 s, 10 needed (more --sustained-write passes "
          "or a shorter --cliff-interval)\n");
}

TEST_CASE("saturation line with repeats: one says it had one, overlap is within noise") {
    auto qd = sweep_of(model::SweepParam::qd, {1, 4, 16}, {1000, 3000, 3100}, {4096, 4096, 4096},
                       {100, 100, 300});
    for (auto& pt : qd.points)
        pt.random.repeats = {pt.random.figures()};
    qd.knee = 1;
    CHECK(report::knee_line(qd) ==
          "saturation: by IOPS, qd 4 \u2014 3.0k IOPS, p99 0.100 ms (next step +3% IOPS, "
          "+200% p99) (one repeat: p99 outside each point's own interval)");
    // Three repeats a point whose p99 ranges at qd 4 and qd 16 overlap.
    for (auto& pt : qd.points) {
        const model::RepeatFigures f = pt.random.figures();
        pt.random.repeats = {f, {f.iops, f.bytes_per_sec, 90e3}, {f.iops, f.bytes_per_sec, 400e3}};
    }
    qd.knee.reset();
    qd.knee_in_noise = 1;
    CHECK(report::knee_line(qd) ==
          "saturation: by IOPS, within noise: the medians level off after qd 4, but its p99 and "
          "the next point's overlap over n=3 repeats");
}

TEST_CASE("a phase run several times quotes its median IOPS with the interval") {
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.seconds = 3;
    p.counters.read_ops = 3000;
    p.repeats = {{900, 0, 1e5}, {1000, 0, 1e5}, {1100, 0, 1e5}};
    const std::string line = report::phase_line(p);
    // Median 1000, interval [900, 1100] (n = 3: min-max): +-10 % of it.
    CHECK(line.find("  1.0k IOPS (\u00b110 %, n=3)") != std::string::npos);
    CHECK(line.find("repeats:   n=3") != std::string::npos);
    CHECK(line.find("IOPS 1.0k range 900-1.1k interval 900-1.1k") != std::string::npos);
}

TEST_CASE("the latency thresholds: named as the option spells them, shown at 0 % too") {
    model::PhaseResult p;
    p.phase = model::Phase::seq_write;
    p.seconds = 1;
    p.counters.write_ops = 4;
    for (std::uint64_t ns : {500'000ull, 2'000'000ull, 20'000'000ull, 30'000'000ull})
        p.counters.write_latency.record(ns);
    const std::string line = report::phase_line(p, model::RunConfig{}.latency_thresholds_s);
    // The default separates an SSD's phase (2 s and 10 s never did).
    CHECK(line.find("  >1ms 75.0000% >10ms 50.0000% >100ms 0.0000%") != std::string::npos);
    CHECK(report::phase_line(p, {2, 10}).find("  >2s 0.0000% >10s 0.0000%") != std::string::npos);
    CHECK(report::phase_line(p, {0.0001}).find("  >100us 100.0000%") != std::string::npos);
}

TEST_CASE("several targets: a header line per target says where its workers ran") {
    model::RunConfig cfg;
    cfg.file_bytes = 8ULL << 20;
    model::RunResult r;
    model::TargetResult a, b;
    a.info.path = "/mnt/a";
    a.info.filesystem = "ext4";
    a.info.device = "/dev/nvme0n1";
    a.files = 2;
    a.placement = "numa node 0 (cpus 0-3)";
    b.raw = true;
    b.info.path = "/dev/nvme1n1";
    b.info.free_bytes = 1ULL << 30;
    b.files = 2;
    b.placement = "numa node 1 (cpus 4-7)";
    r.targets = {a, b};
    CHECK(report::target_header_lines(cfg, r) ==
          "target 1 /mnt/a (ext4 on /dev/nvme0n1)  2 x 8 MiB  O_DIRECT  on numa node 0 (cpus "
          "0-3)\n"
          "target 2 /dev/nvme1n1 (raw device, 1 GiB)  2 regions x 8 MiB  O_DIRECT  on numa node 1 "
          "(cpus 4-7)\n");
}

TEST_CASE("skew line: with several files the shares are each file's, the blocks all of them") {
    // Two workers' files of 8192 blocks each: ranks are per file.
    model::SkewResult a(8192), b(8192);
    for (auto* s : {&a, &b}) {
        s->distribution = "zipf:1.2";
        s->predicted = {0.739, 0.9, 0.95};
        for (std::uint64_t i = 0; i < 1000; ++i)
            s->tally.add(i % 50, i % 50 + (s == &b ? 8192 : 0));
    }
    const std::string one = report::skew_line(a);
    CHECK(one.find("ops on the hottest 1 % of blocks 100.0 % (predicted 73.9)") !=
          std::string::npos);
    CHECK(one.find("blocks touched about 50 of 8.2k (1 %)") != std::string::npos);
    a.add_worker(b);
    const std::string two = report::skew_line(a);
    CHECK(two.find("ops on the hottest 1 % of each file's blocks 100.0 % (predicted 73.9)") !=
          std::string::npos);
    CHECK(two.find("blocks touched about 100 of 16.4k in 2 files (1 %)") != std::string::npos);
}
