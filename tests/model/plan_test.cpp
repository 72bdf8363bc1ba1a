// The run's plan: every rule that bounds a worker (depth, buffers, shares
// of a rate and of an operation count, spinning) decided once, per worker.
#include "model/plan.h"

#include <doctest/doctest.h>

using ds::model::Arrivals;
using ds::model::DepthRule;
using ds::model::make_run_plan;
using ds::model::PlanPoint;
using ds::model::RunConfig;

TEST_CASE("the random phase's depth is --qd until half of the file's blocks") {
    RunConfig cfg;
    cfg.qd = 256;
    cfg.file_bytes = 64ULL << 20;
    auto plan = make_run_plan(cfg, {2});
    REQUIRE(plan.workers.size() == 4);
    CHECK(plan.rand_depth() == 256);
    CHECK(plan.workers[3].depth_rule == DepthRule::asked);
    CHECK_FALSE(plan.depth_limited());
    cfg.file_bytes = 16 * 4096;
    plan = make_run_plan(cfg, {2});
    CHECK(plan.rand_depth() == 8);  // 16 units: 8 in flight at most
    CHECK(plan.workers[0].depth_rule == DepthRule::half_blocks);
    CHECK(plan.depth_limited());
    CHECK(plan.asked_qd == 256);
}

TEST_CASE("a mix's largest size decides the half-of-the-blocks rule") {
    RunConfig cfg;
    cfg.qd = 64;
    cfg.file_bytes = 1ULL << 20;  // 256 units of 4K, 8 blocks of 128K
    cfg.rand_mix = {{4096, 60}, {131072, 40}};
    const auto plan = make_run_plan(cfg, {2});
    CHECK(plan.workers[0].max_rand_block == 131072);
    CHECK(plan.rand_depth() == 4);
    // Buffers: the run's deepest phase at the unit's size, its largest block.
    CHECK(plan.max_rand_depth == 64);
    CHECK(plan.max_block == 131072);
}

TEST_CASE("sequential phases hold at most 8 MiB in flight and never more blocks than the file") {
    RunConfig cfg;
    cfg.qd = 256;
    cfg.file_bytes = 64ULL << 20;
    cfg.seq_block = 1U << 20;
    CHECK(make_run_plan(cfg, {2}).seq_depth() == 8);
    cfg.file_bytes = 3ULL << 20;
    CHECK(make_run_plan(cfg, {2}).seq_depth() == 3);
    cfg.seq_block = 16U << 20;
    cfg.file_bytes = 64ULL << 20;
    CHECK(make_run_plan(cfg, {2}).seq_depth() == 1);
}

TEST_CASE("a sweep point's plan applies the same rules at its value") {
    RunConfig cfg;
    cfg.qd = 64;
    cfg.files = 4;
    cfg.file_bytes = 64 * 4096;  // 64 units
    PlanPoint at;
    at.qd = 48;
    CHECK(make_run_plan(cfg, {2}, at).rand_depth() == 32);
    at = {};
    at.files = 2;
    CHECK(make_run_plan(cfg, {2}, at).workers.size() == 2);
    at = {};
    at.rand_block = 16384;  // 16 blocks: 8 in flight
    const auto p = make_run_plan(cfg, {2}, at);
    CHECK(p.rand_depth() == 8);
    CHECK(p.workers[0].max_rand_block == 16384);
    CHECK(p.workers[0].unit == 4096);
}

TEST_CASE("--rand-ops is split so that the shares add up, the first workers taking the rest") {
    RunConfig cfg;
    cfg.files = 3;
    cfg.rand_ops = 10;
    const auto plan = make_run_plan(cfg, {2});
    CHECK(plan.workers[0].op_limit == 4);
    CHECK(plan.workers[1].op_limit == 3);
    CHECK(plan.workers[2].op_limit == 3);
}

TEST_CASE("a rate is split evenly and fixed arrivals interleave across the workers") {
    RunConfig cfg;
    cfg.files = 4;
    cfg.rate = 4000;  // 1000 a worker: 1 ms apart, offsets a quarter of that
    auto plan = make_run_plan(cfg, {8});
    for (unsigned i = 0; i < 4; ++i) {
        CAPTURE(i);
        CHECK(plan.workers[i].rate == doctest::Approx(1000));
        CHECK(plan.workers[i].rate_offset_ns == 250'000ULL * i);
    }
    cfg.arrivals = Arrivals::poisson;
    plan = make_run_plan(cfg, {8});
    CHECK(plan.workers[3].rate_offset_ns == 0);
}

TEST_CASE("an open loop spins only with a CPU for each worker and one to spare") {
    RunConfig cfg;
    cfg.files = 1;
    CHECK(make_run_plan(cfg, {2}).workers[0].spin);
    cfg.files = 2;
    CHECK_FALSE(make_run_plan(cfg, {2}).workers[0].spin);
    cfg.cpus = {0, 1};  // --cpus names each worker's CPU
    CHECK(make_run_plan(cfg, {2}).workers[1].spin);
}

TEST_CASE("several targets: each worker knows its target") {
    RunConfig cfg;
    cfg.files = 2;
    cfg.more_targets.push_back({"/tmp/b", "", ""});
    const auto plan = make_run_plan(cfg, {2});
    REQUIRE(plan.workers.size() == 4);
    CHECK(plan.workers[1].target == 0);
    CHECK(plan.workers[2].target == 1);
    CHECK(plan.workers[3].index == 3);
}
