// First, best, worst and last iteration of each phase.
#include "model/drift.h"

#include "model/results.h"

#include <doctest/doctest.h>

#include <vector>

using namespace ds;

namespace {

model::PhaseFigures figures(model::Phase p, double seconds, std::uint64_t ops, std::uint64_t p99) {
    model::PhaseFigures f;
    f.phase = p;
    f.seconds = seconds;
    f.read_ops = ops;
    f.read_bytes = ops * 4096;
    f.p99_ns = p99;
    return f;
}

}  // namespace

TEST_CASE("drift: first, best, worst and last, with the iteration of each") {
    std::vector<model::IterationResult> its;
    // Random phase IOPS 1000, 3000, 500, 2000; p99 4, 1, 9, 2 ms.
    const std::uint64_t ops[] = {1000, 3000, 500, 2000};
    const std::uint64_t p99[] = {4'000'000, 1'000'000, 9'000'000, 2'000'000};
    for (std::uint64_t i = 0; i < 4; ++i)
        its.push_back({i + 1,
                       {figures(model::Phase::seq_write, 1.0, 10, 5),
                        figures(model::Phase::random, 1.0, ops[i], p99[i])}});
    const auto d = model::phase_drift(its);
    REQUIRE(d.size() == 2);
    CHECK(d[0].phase == model::Phase::seq_write);
    CHECK(d[0].iterations == 4);
    // Equal values: the first one is best and worst.
    CHECK(d[0].bandwidth.best_iteration == 1);
    CHECK(d[0].bandwidth.worst_iteration == 1);
    CHECK(d[0].bandwidth.last_iteration == 4);

    const auto& r = d[1];
    CHECK(r.phase == model::Phase::random);
    CHECK(r.iops.first == 1000.0);
    CHECK(r.iops.first_iteration == 1);
    CHECK(r.iops.best == 3000.0);
    CHECK(r.iops.best_iteration == 2);
    CHECK(r.iops.worst == 500.0);
    CHECK(r.iops.worst_iteration == 3);
    CHECK(r.iops.last == 2000.0);
    CHECK(r.iops.last_iteration == 4);
    CHECK(r.bandwidth.best == 3000.0 * 4096);
    // Latency: lower is better.
    CHECK(r.p99_ns.best == 1'000'000);
    CHECK(r.p99_ns.best_iteration == 2);
    CHECK(r.p99_ns.worst == 9'000'000);
    CHECK(r.p99_ns.worst_iteration == 3);
    CHECK(r.p99_ns.last == 2'000'000);
}

TEST_CASE("drift leaves interrupted phases out") {
    std::vector<model::IterationResult> its;
    its.push_back({1, {figures(model::Phase::random, 1.0, 1000, 10)}});
    auto cut = figures(model::Phase::random, 0.01, 1, 10);  // a signal cut it short
    cut.interrupted = true;
    its.push_back({2, {figures(model::Phase::seq_write, 1.0, 5, 10), cut}});
    const auto d = model::phase_drift(its);
    REQUIRE(d.size() == 2);
    CHECK(d[0].phase == model::Phase::seq_write);
    CHECK(d[1].phase == model::Phase::random);
    CHECK(d[1].iterations == 1);
    CHECK(d[1].iops.worst == 1000.0);
    CHECK(d[1].iops.last_iteration == 1);

    its[0].phases[0].interrupted = true;
    const auto none = model::phase_drift(its);
    REQUIRE(none.size() == 1);  // no complete random phase left
    CHECK(none[0].phase == model::Phase::seq_write);
    CHECK(model::phase_drift({}).empty());
}

namespace {

model::FigureDrift drift_of(const std::vector<double>& values) {
    std::vector<model::IterationResult> its;
    for (std::size_t i = 0; i < values.size(); ++i)
        its.push_back({i + 1,
                       {figures(model::Phase::random, 1.0, static_cast<std::uint64_t>(values[i]),
                                1'000'000)}});
    const auto d = model::phase_drift(its);
    REQUIRE(d.size() == 1);
    return d[0].iops;
}

}  // namespace

TEST_CASE("drift verdict: one sample, too few, within noise, or a named drift") {
    using K = model::DriftVerdict::Kind;
    const auto one = model::drift_verdict(drift_of({1000}), true);
    CHECK(one.kind == K::one_sample);
    CHECK(model::to_string(one) == "one sample");
    const auto two = model::drift_verdict(drift_of({1000, 500}), true);
    CHECK(two.kind == K::one_sample);
    CHECK(model::to_string(two) == "one sample a side");
    // Two a side: even a halving is not named (too often by chance).
    const auto four = model::drift_verdict(drift_of({1000, 1010, 500, 505}), true);
    CHECK(four.kind == K::too_few);
    CHECK(four.per_side == 2);
    CHECK(model::to_string(four) == "too few runs (2 a side)");

    // Overlapping intervals: within noise, whatever the medians say.
    const auto noise = model::drift_verdict(
        drift_of({1000, 900, 1100, 950, 1050, 980, 1080, 920, 1010, 990}), true);
    CHECK(noise.kind == K::within_noise);
    CHECK(noise.per_side == 5);
    CHECK(model::to_string(noise) == "within noise");

    // Disjoint: named, with the change of the medians and its direction.
    const std::vector<double> halved{1000, 990, 1010, 1005, 995, 500, 495, 505, 510, 490};
    const auto worse = model::drift_verdict(drift_of(halved), true);
    CHECK(worse.kind == K::worse);
    CHECK(worse.change_pct == doctest::Approx(-50.0));
    CHECK(model::to_string(worse) == "-50.0 % (worse)");
    // The same figures where lower is better (latency): an improvement.
    const auto better = model::drift_verdict(drift_of(halved), false);
    CHECK(better.kind == K::better);
    CHECK(model::to_string(better) == "-50.0 % (better)");
    // Three a side is enough: 6 runs.
    CHECK(model::drift_verdict(drift_of({1000, 1001, 1002, 500, 501, 502}), true).kind == K::worse);
}

TEST_CASE("drift verdict: the first five runs against the last five, however many between") {
    // 1000 for 5, then anything for 40 runs, then 2000 for the last 5.
    std::vector<double> v(5, 1000);
    for (int i = 0; i < 40; ++i)
        v.push_back(i % 2 ? 100 : 5000);
    for (int i = 0; i < 5; ++i)
        v.push_back(2000 + i);
    const auto d = drift_of(v);
    CHECK(d.count == 50);
    const auto verdict = model::drift_verdict(d, true);
    CHECK(verdict.per_side == 5);
    CHECK(verdict.kind == model::DriftVerdict::Kind::better);
    CHECK(verdict.change_pct == doctest::Approx(100.2));
    // Seven runs: three a side, the middle one on neither.
    const auto seven = model::drift_verdict(drift_of({10, 11, 12, 1000, 30, 31, 32}), true);
    CHECK(seven.per_side == 3);
    CHECK(seven.kind == model::DriftVerdict::Kind::better);
    CHECK(seven.change_pct == doctest::Approx(181.818).epsilon(0.001));
}

TEST_CASE("drift with too few runs a side: the first and last runs' own intervals") {
    using model::FigureDrift;
    FigureDrift d;
    d.count = 2;
    d.first = 1000;
    d.last = 500;
    d.first_low = 950;
    d.first_high = 1050;
    d.last_low = 480;
    d.last_high = 520;
    model::DriftVerdict v = model::drift_verdict(d, true);
    CHECK(v.own_intervals);
    CHECK(v.kind == model::DriftVerdict::Kind::worse);
    CHECK(v.change_pct == doctest::Approx(-50));
    CHECK(model::to_string(v) == "-50.0 % (worse, #1-last)");
    // Overlapping: within the noise, named so.
    d.last_high = 960;
    d.last = 900;
    v = model::drift_verdict(d, true);
    CHECK(v.kind == model::DriftVerdict::Kind::within_noise);
    CHECK(model::to_string(v) == "within noise (#1-last)");
    // Either run without an interval: as before, one sample a side.
    d.last_low = d.last_high = 0;
    v = model::drift_verdict(d, true);
    CHECK_FALSE(v.own_intervals);
    CHECK(model::to_string(v) == "one sample a side");
    // Three runs a side or more: the runs decide, not the intervals.
    FigureDrift many;
    for (std::size_t i = 0; i < 6; ++i) {
        many.early[i % model::kDriftWindow] = 100;
        many.late[i % model::kDriftWindow] = 100;
    }
    many.count = 6;
    many.first = many.last = 100;
    many.first_low = 90;
    many.first_high = 110;
    many.last_low = 10;
    many.last_high = 20;
    CHECK_FALSE(model::drift_verdict(many, true).own_intervals);
}
