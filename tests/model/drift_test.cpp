// First, best, worst and last iteration of each phase.
#include "model/drift.h"

#include "model/results.h"

#include <doctest/doctest.h>

#include <vector>

using namespace ds;

namespace {

run::PhaseFigures figures(run::Phase p, double seconds, std::uint64_t ops, std::uint64_t p99) {
    run::PhaseFigures f;
    f.phase = p;
    f.seconds = seconds;
    f.read_ops = ops;
    f.read_bytes = ops * 4096;
    f.p99_ns = p99;
    return f;
}

}  // namespace

TEST_CASE("drift: first, best, worst and last, with the iteration of each") {
    std::vector<run::IterationResult> its;
    // Random phase IOPS 1000, 3000, 500, 2000; p99 4, 1, 9, 2 ms.
    const std::uint64_t ops[] = {1000, 3000, 500, 2000};
    const std::uint64_t p99[] = {4'000'000, 1'000'000, 9'000'000, 2'000'000};
    for (std::uint64_t i = 0; i < 4; ++i)
        its.push_back({i + 1,
                       {figures(run::Phase::seq_write, 1.0, 10, 5),
                        figures(run::Phase::random, 1.0, ops[i], p99[i])}});
    const auto d = run::phase_drift(its);
    REQUIRE(d.size() == 2);
    CHECK(d[0].phase == run::Phase::seq_write);
    CHECK(d[0].iterations == 4);
    // Equal values: the first one is best and worst.
    CHECK(d[0].bandwidth.best_iteration == 1);
    CHECK(d[0].bandwidth.worst_iteration == 1);
    CHECK(d[0].bandwidth.last_iteration == 4);

    const auto& r = d[1];
    CHECK(r.phase == run::Phase::random);
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
    std::vector<run::IterationResult> its;
    its.push_back({1, {figures(run::Phase::random, 1.0, 1000, 10)}});
    auto cut = figures(run::Phase::random, 0.01, 1, 10);  // a signal cut it short
    cut.interrupted = true;
    its.push_back({2, {figures(run::Phase::seq_write, 1.0, 5, 10), cut}});
    const auto d = run::phase_drift(its);
    REQUIRE(d.size() == 2);
    CHECK(d[0].phase == run::Phase::seq_write);
    CHECK(d[1].phase == run::Phase::random);
    CHECK(d[1].iterations == 1);
    CHECK(d[1].iops.worst == 1000.0);
    CHECK(d[1].iops.last_iteration == 1);

    its[0].phases[0].interrupted = true;
    const auto none = run::phase_drift(its);
    REQUIRE(none.size() == 1);  // no complete random phase left
    CHECK(none[0].phase == run::Phase::seq_write);
    CHECK(run::phase_drift({}).empty());
}
