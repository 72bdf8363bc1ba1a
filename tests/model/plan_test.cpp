// The run's plan: every rule that bounds a worker (depth, buffers, shares
// of a rate and of an operation count, spinning) decided once, per worker.
#include "model/plan.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "model/errors.h"

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

TEST_CASE("auto spins for completions at depth 4 or less where a worker has a CPU to spare") {
    using ds::model::CompletionWait;
    using ds::model::WaitRule;
    RunConfig cfg;
    cfg.files = 1;
    cfg.qd = 1;
    auto w = make_run_plan(cfg, {2}).workers[0];
    CHECK(w.wait_rule == WaitRule::spare_cpu);
    CHECK(w.wait_spin_us == ds::model::kDefaultSpinUs);
    cfg.qd = 4;
    CHECK(make_run_plan(cfg, {2}).workers[0].wait_spin_us == ds::model::kDefaultSpinUs);
    cfg.qd = 5;  // the random phase's depth and the sequential phases' alike
    w = make_run_plan(cfg, {2}).workers[0];
    CHECK(w.wait_rule == WaitRule::deep);
    CHECK(w.wait_spin_us == 0);
    cfg.qd = 1;
    CHECK(make_run_plan(cfg, {1}).workers[0].wait_rule == WaitRule::no_spare);  // one CPU
    cfg.files = 2;  // two workers on two CPUs: none left for the device
    CHECK(make_run_plan(cfg, {2}).workers[1].wait_rule == WaitRule::no_spare);
    cfg.cpus = {0, 1};  // --cpus gives each its own
    CHECK(make_run_plan(cfg, {2}).workers[1].wait_rule == WaitRule::spare_cpu);
    cfg.cpus.clear();
    cfg.files = 1;
    cfg.rate = 1000;  // an open loop waits on the ring's timer
    CHECK(make_run_plan(cfg, {2}).workers[0].wait_rule == WaitRule::open_loop);
    cfg.rate = 0;
    for (auto mode : {0, 1, 2}) {
        RunConfig c = cfg;
        if (mode == 0) c.backend = ds::model::BackendChoice::sync;
        if (mode == 1) c.nop = true;
        if (mode == 2) c.sqpoll = true;
        CAPTURE(mode);
        CHECK(make_run_plan(c, {2}).workers[0].wait_rule == WaitRule::not_ring);
        CHECK(make_run_plan(c, {2}).workers[0].wait_spin_us == 0);
    }
}

TEST_CASE("--wait forces a strategy at any depth, but not on an open loop") {
    using ds::model::CompletionWait;
    using ds::model::WaitRule;
    RunConfig cfg;
    cfg.files = 4;
    cfg.qd = 128;
    cfg.completion_wait = CompletionWait::spin;
    cfg.spin_us = 20;
    auto w = make_run_plan(cfg, {2}).workers[3];
    CHECK(w.wait_rule == WaitRule::asked);
    CHECK(w.wait_spin_us == 20);
    cfg.files = 1;
    cfg.qd = 1;
    cfg.completion_wait = CompletionWait::sleep;
    w = make_run_plan(cfg, {2}).workers[0];
    CHECK(w.wait_rule == WaitRule::asked);
    CHECK(w.wait_spin_us == 0);
    cfg.completion_wait = CompletionWait::spin;
    cfg.rate = 1000;  // a job file's rate_iops beside --wait spin
    CHECK(make_run_plan(cfg, {2}).workers[0].wait_spin_us == 0);
}

TEST_CASE("a sweep point's depth decides its wait") {
    RunConfig cfg;
    cfg.files = 1;
    cfg.qd = 64;
    PlanPoint at;
    at.qd = 2;
    CHECK(make_run_plan(cfg, {2}, at).workers[0].wait_spin_us > 0);
    at.qd = 64;
    CHECK(make_run_plan(cfg, {2}, at).workers[0].wait_spin_us == 0);
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

// ---- Jobs (model/job.h): the plan's rules per file, over every worker on it.

using ds::model::Access;
using ds::model::FileSpec;
using ds::model::JobSpec;
using ds::model::SetupError;

namespace {

// A job of `copies` copies on the files named, each of `bytes`.
JobSpec job_on(std::string name, std::vector<std::string> files, std::uint64_t bytes,
               unsigned copies = 1) {
    JobSpec j;
    j.name = std::move(name);
    j.copies = copies;
    for (auto& f : files)
        j.files.push_back({f, bytes, 0});
    return j;
}

// The message of the SetupError `f` throws ("" when it throws none).
template <class F>
std::string refusal(F f) {
    try {
        f();
    } catch (const SetupError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a plain run is one job whose plan is the configuration's") {
    RunConfig cfg;
    cfg.files = 3;
    cfg.qd = 8;
    cfg.rand_ops = 10;
    const auto jobs = ds::model::jobs_from_config(cfg);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].copies == 3);
    CHECK(jobs[0].files.size() == 3);
    CHECK(jobs[0].access == Access::random);
    const auto plan = make_run_plan(cfg, {2});
    REQUIRE(plan.jobs.size() == 1);
    REQUIRE(plan.files.size() == 3);
    for (unsigned i = 0; i < 3; ++i) {
        CAPTURE(i);
        const auto& w = plan.workers[i];
        CHECK(w.index == i);
        CHECK(w.file == i);  // a plain run's worker i tests file i
        CHECK(w.copy == i);
        CHECK(w.job == 0);
        CHECK(w.group == 0);
        CHECK(w.range_offset == 0);
        CHECK(w.range_bytes == cfg.file_bytes);
        CHECK(plan.files[i].workers == std::vector<unsigned>{i});
        CHECK_FALSE(plan.files[i].shared());
        CHECK(plan.files[i].unit == 4096);
    }
}

TEST_CASE("copies on one file share it; each job's copies keep their order") {
    RunConfig cfg;
    std::vector<JobSpec> jobs{job_on("reader", {"a"}, 64ULL << 20, 2),
                              job_on("writer", {"a", "b"}, 64ULL << 20, 3)};
    jobs[1].group = 1;
    const auto plan = make_run_plan(cfg, jobs, {2});
    REQUIRE(plan.workers.size() == 5);
    REQUIRE(plan.files.size() == 2);
    CHECK(plan.files[0].name == "a");
    CHECK(plan.files[0].workers == std::vector<unsigned>{0, 1, 2, 4});
    CHECK(plan.files[1].workers == std::vector<unsigned>{3});
    CHECK(plan.workers[3].job == 1);
    CHECK(plan.workers[3].copy == 1);
    CHECK(plan.workers[3].file == 1);  // copy c on files[c % files]
    CHECK(plan.workers[4].file == 0);
    CHECK(plan.workers[4].group == 1);
}

TEST_CASE("a file's unit is the largest power of two dividing every size and alignment on it") {
    RunConfig cfg;
    // JESD219's mix: 512 divides 1536, 2560, 3072 and 3584 (and 4096).
    JobSpec a = job_on("a", {"f"}, 64ULL << 20);
    a.mix = {{1536, 25}, {2560, 25}, {3072, 25}, {3584, 25}};
    JobSpec b = job_on("b", {"f", "g"}, 64ULL << 20, 2);
    b.block = 16384;
    auto plan = make_run_plan(cfg, {a, b}, {2});
    CHECK(plan.files[0].unit == 512);
    CHECK(plan.files[1].unit == 16384);  // b alone on g
    CHECK(plan.workers[0].unit == 512);
    CHECK(plan.workers[0].rand_block == 512);  // a mix's: the unit
    CHECK(plan.workers[0].max_rand_block == 3584);
    CHECK(plan.workers[2].unit == 16384);
    // An alignment takes part: 8K blocks aligned to 4K make a 4K unit.
    b.blockalign = 4096;
    plan = make_run_plan(cfg, {b}, {2});
    CHECK(plan.files[0].unit == 4096);
    CHECK(plan.files[1].unit == 4096);
    CHECK(plan.workers[0].rand_align == 4096);  // the worker places its operations there
    // fio's default alignment, the smallest size: an iometer mix at 512.
    JobSpec c = job_on("c", {"f"}, 64ULL << 20);
    c.mix = {{4096, 60}, {65536, 40}};
    c.blockalign = 512;
    plan = make_run_plan(cfg, {c}, {2});
    CHECK(plan.files[0].unit == 512);
    CHECK(plan.workers[0].rand_align == 512);
}

TEST_CASE("an alignment that leaves no unit of 512 bytes is refused, naming it with the sizes") {
    RunConfig cfg;
    JobSpec a = job_on("a", {"f"}, 64ULL << 20);
    a.mix = {{1536, 50}, {3072, 50}};
    a.blockalign = 768;
    const std::string why = refusal([&] { make_run_plan(cfg, {a}, {2}); });
    CHECK(why.find("the sizes 1536, 3072, 768 of job 'a'") != std::string::npos);
    CHECK(why.find("no power-of-two unit of at least 512 bytes") != std::string::npos);
}

TEST_CASE("sizes with no unit of at least 512 bytes and the O_DIRECT alignment are refused") {
    RunConfig cfg;
    JobSpec a = job_on("odd", {"f"}, 64ULL << 20);
    a.mix = {{1000, 50}, {3000, 50}};
    const std::string why = refusal([&] { make_run_plan(cfg, {a}, {2}); });
    CHECK(why.find("file f") != std::string::npos);
    CHECK(why.find("1000, 3000") != std::string::npos);
    CHECK(why.find("job 'odd'") != std::string::npos);
    // 1536 and 2560 share 512, but a device that aligns to 4096 refuses it.
    a.mix = {{1536, 50}, {2560, 50}};
    CHECK(refusal([&] { make_run_plan(cfg, {a}, {2}); }).empty());
    ds::model::PlanHost host{2, 4096};
    CHECK(refusal([&] { make_run_plan(cfg, {a}, host); }).find("at least 4096") !=
          std::string::npos);
}

TEST_CASE("sizes that are not multiples of the unit asked for are refused, naming them") {
    RunConfig cfg;
    JobSpec a = job_on("a", {"f"}, 64ULL << 20);
    a.unit = 4096;
    a.mix = {{4096, 50}, {6144, 25}, {10240, 25}};
    const std::string why = refusal([&] { make_run_plan(cfg, {a}, {2}); });
    CHECK(why.find("6144, 10240") != std::string::npos);
    CHECK(why.find("unit 4096") != std::string::npos);
    // Two jobs on one file asking for different units.
    JobSpec b = job_on("b", {"f"}, 64ULL << 20);
    b.unit = 8192;
    b.block = 8192;
    a.mix.clear();
    CHECK(refusal([&] {
              make_run_plan(cfg, {a, b}, {2});
          }).find("units 4096 and 8192") != std::string::npos);
}

TEST_CASE("half of a file's units in flight, over all its workers") {
    RunConfig cfg;
    // 64 units of 4K: 32 in flight over the file.  Four copies asking 32
    // each get 8 (each also within half of its own range's blocks).
    JobSpec j = job_on("four", {"f"}, 64 * 4096, 4);
    j.depth = 32;
    auto plan = make_run_plan(cfg, {j}, {2});
    unsigned total = 0;
    for (const auto& w : plan.workers) {
        CHECK(w.rand_depth == 8);
        CHECK(w.depth_rule == DepthRule::file_share);
        total += w.rand_depth;
    }
    CHECK(total == 32);
    CHECK(plan.depth_limited());
    // A QD 1 reader beside a flood: the reader keeps its 1, the writer the rest.
    JobSpec reader = job_on("reader", {"f"}, 64 * 4096);
    JobSpec flood = job_on("flood", {"f"}, 64 * 4096);
    flood.depth = 64;
    plan = make_run_plan(cfg, {reader, flood}, {2});
    CHECK(plan.workers[0].rand_depth == 1);
    CHECK(plan.workers[0].depth_rule == DepthRule::asked);
    CHECK(plan.workers[1].rand_depth == 31);
    CHECK(plan.workers[1].depth_rule == DepthRule::file_share);
    // Units, not operations: 16K operations hold 4 units each.
    flood.block = 16384;
    plan = make_run_plan(cfg, {reader, flood}, {2});
    CHECK(plan.files[0].unit == 4096);
    CHECK(plan.workers[1].rand_depth == 7);  // 31 units left: 7 operations of 4
    // Each worker is still within half of its own range's blocks.
    JobSpec narrow = job_on("narrow", {"g"}, 64 * 4096);
    narrow.depth = 32;
    narrow.range_bytes = 8 * 4096;
    plan = make_run_plan(cfg, {narrow}, {2});
    CHECK(plan.workers[0].rand_depth == 4);
    CHECK(plan.workers[0].depth_rule == DepthRule::half_blocks);
}

TEST_CASE("ranges: offset, size and a step per copy, each within its file") {
    RunConfig cfg;
    JobSpec j = job_on("r", {"f"}, 16ULL << 20, 4);
    j.offset = 1ULL << 20;
    j.offset_increment = 2ULL << 20;
    j.range_bytes = 1ULL << 20;
    const auto plan = make_run_plan(cfg, {j}, {2});
    CHECK(plan.workers[3].range_offset == 7ULL << 20);
    CHECK(plan.workers[3].range_bytes == 1ULL << 20);
    j.copies = 8;  // copy 7 would start at 15 MiB and end at 16 MiB: fits
    CHECK(refusal([&] { make_run_plan(cfg, {j}, {2}); }).empty());
    j.copies = 9;  // copy 8: 17 MiB, past the end
    CHECK(refusal([&] { make_run_plan(cfg, {j}, {2}); }).find("copy 8") != std::string::npos);
    j.copies = 1;
    j.offset = 1000;  // not on a unit
    CHECK(refusal([&] { make_run_plan(cfg, {j}, {2}); }).find("must start on a unit") !=
          std::string::npos);
    // Without a size, a copy's range runs to the end of the file.
    j.offset = 4ULL << 20;
    j.range_bytes = 0;
    CHECK(make_run_plan(cfg, {j}, {2}).workers[0].range_bytes == 12ULL << 20);
}

TEST_CASE("at most 4096 workers, every job's copies counted") {
    RunConfig cfg;
    JobSpec a = job_on("a", {"f"}, 64ULL << 20, 4000);
    JobSpec b = job_on("b", {"g"}, 64ULL << 20, 96);
    CHECK(make_run_plan(cfg, {a, b}, {2}).workers.size() == 4096);
    b.copies = 97;
    const std::string why = refusal([&] { make_run_plan(cfg, {a, b}, {2}); });
    CHECK(why.find("4097 workers") != std::string::npos);
    CHECK(why.find("at most 4096") != std::string::npos);
}

TEST_CASE("a job's operations and rate are split between its copies; limits are each copy's") {
    RunConfig cfg;
    JobSpec j = job_on("j", {"f"}, 64ULL << 20, 3);
    j.ops = 10;
    j.rate = 3000;
    j.runtime_s = 2;
    j.io_bytes = 1ULL << 20;
    j.loops = 2;
    j.startdelay_s = 0.5;
    j.ramp_s = 1;
    const auto plan = make_run_plan(cfg, {j}, {8});
    CHECK(plan.workers[0].op_limit == 4);
    CHECK(plan.workers[2].op_limit == 3);
    CHECK(plan.workers[1].rate == doctest::Approx(1000));
    CHECK(plan.workers[1].rate_offset_ns == 333'333);
    CHECK(plan.workers[2].runtime_ns == 2'000'000'000ULL);
    CHECK(plan.workers[2].byte_limit == 1ULL << 20);
    CHECK(plan.workers[2].loops == 2);
    CHECK(plan.workers[2].startdelay_ns == 500'000'000ULL);
    CHECK(plan.workers[2].ramp_ns == 1'000'000'000ULL);
}

TEST_CASE("one file named with two sizes, a job without files or copies: refused") {
    RunConfig cfg;
    JobSpec a = job_on("a", {"f"}, 64ULL << 20);
    JobSpec b = job_on("b", {"f"}, 32ULL << 20);
    CHECK(refusal([&] { make_run_plan(cfg, {a, b}, {2}); }).find("file f") != std::string::npos);
    b.files.clear();
    CHECK(refusal([&] {
              make_run_plan(cfg, {a, b}, {2});
          }).find("names no file") != std::string::npos);
    a.copies = 0;
    CHECK(refusal([&] { make_run_plan(cfg, {a}, {2}); }).find("no copies") != std::string::npos);
}
