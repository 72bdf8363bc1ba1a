// The workload phase's groups (a group's workers at once, groups in order)
// and each worker's own times in it: startdelay, runtime after its ramp,
// its own limits, the group's time, --duration (run/phase_runner.h).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/plan.h"
#include "run/phase_runner.h"

using namespace ds;

namespace {

model::JobSpec job(const std::string& name, unsigned group, unsigned copies) {
    model::JobSpec j;
    j.name = name;
    j.group = group;
    j.copies = copies;
    j.files = {{name + ".dat", 4ULL << 20, 0}};
    return j;
}

}  // namespace

TEST_CASE("groups run in their order, each with every worker of its jobs") {
    const model::RunConfig cfg;
    // Workers in the jobs' order: b's two copies, a, then c.
    const model::RunPlan plan =
        model::make_run_plan(cfg, {job("b", 3, 2), job("a", 0, 1), job("c", 3, 1)}, {2});
    REQUIRE(plan.workers.size() == 4);
    const auto groups = run::workload_groups(plan);
    REQUIRE(groups.size() == 2);
    CHECK(groups[0] == std::vector<unsigned>{2});
    CHECK(groups[1] == std::vector<unsigned>{0, 1, 3});
    // A plain run: one group of every worker.
    model::RunConfig plain;
    plain.files = 3;
    const auto one = run::workload_groups(model::make_run_plan(plain, {2}));
    REQUIRE(one.size() == 1);
    CHECK(one[0] == std::vector<unsigned>{0, 1, 2});
}

TEST_CASE("a worker's times: its startdelay, its runtime after its ramp, its own limits") {
    constexpr std::uint64_t g0 = 1'000'000'000, s = 1'000'000'000;
    model::WorkerPlan w;
    // No limit of its own: the group's time, as a plain run's phase.
    run::WorkloadTimes t = run::workload_times(w, g0, 5 * s, 0, false);
    CHECK(t.start_ns == g0);
    CHECK(t.rate_start_ns == g0 + 1'000'000);
    CHECK(t.deadline_ns == g0 + 5 * s);
    w.startdelay_ns = 2 * s;
    w.ramp_ns = 1 * s;
    w.runtime_ns = 3 * s;
    w.rate_offset_ns = 500;
    t = run::workload_times(w, g0, 5 * s, 0, false);
    CHECK(t.start_ns == g0 + 2 * s);
    CHECK(t.rate_start_ns == g0 + 2 * s + 1'000'000 + 500);
    CHECK(t.deadline_ns == g0 + 6 * s);  // beyond the group's 5 s: its own
    // --duration ends it sooner.
    CHECK(run::workload_times(w, g0, 5 * s, g0 + 4 * s, false).deadline_ns == g0 + 4 * s);
    // Its operations, bytes or passes end it: no time but --duration's.
    w.runtime_ns = 0;
    w.op_limit = 100;
    CHECK(run::workload_times(w, g0, 5 * s, 0, false).deadline_ns == 0);
    CHECK(run::workload_times(w, g0, 5 * s, g0 + 9 * s, false).deadline_ns == g0 + 9 * s);
    w.op_limit = 0;
    w.byte_limit = 1 << 20;
    CHECK(run::workload_times(w, g0, 5 * s, 0, false).deadline_ns == 0);
    w.byte_limit = 0;
    w.loops = 2;
    CHECK(run::workload_times(w, g0, 5 * s, 0, false).deadline_ns == 0);
    // A trace ends the phase.
    w.loops = 0;
    CHECK(run::workload_times(w, g0, 5 * s, 0, true).deadline_ns == 0);
}
