// What a run keeps of its iterations: figures for every one, each phase
// merged over all of them, and the last --iteration-detail in full.
#include "model/results.h"

#include <doctest/doctest.h>

#include <cstdint>

using namespace ds;

namespace {

model::PhaseResult phase(model::Phase p, double seconds, std::uint64_t reads, std::uint64_t ns) {
    model::PhaseResult r;
    r.phase = p;
    r.workers = 2;
    r.seconds = seconds;
    r.cpu = {.user_s = 0.25, .system_s = 0.5};
    r.counters.read_ops = reads;
    r.counters.read_bytes = reads * 4096;
    r.counters.verified_bytes = reads * 4096;
    for (std::uint64_t i = 0; i < reads; ++i)
        r.counters.read_latency.record(ns);
    return r;
}

}  // namespace

TEST_CASE("figures: what an iteration keeps of a phase") {
    model::PhaseResult p = phase(model::Phase::random, 2.0, 1000, 50'000);
    p.counters.write_ops = 1000;
    p.counters.write_bytes = 1000 * 4096;
    for (int i = 0; i < 1000; ++i)
        p.counters.write_latency.record(150'000);
    p.counters.mismatches[0] = 2;
    p.counters.mismatches[3] = 1;
    p.interrupted = true;
    const auto f = model::PhaseFigures::of(p);
    CHECK(f.phase == model::Phase::random);
    CHECK(f.interrupted);
    CHECK(f.seconds == 2.0);
    CHECK(f.read_ops == 1000);
    CHECK(f.write_bytes == 1000 * 4096);
    CHECK(f.verified_bytes == 1000 * 4096);
    CHECK(f.mismatches == 3);
    CHECK(f.iops() == doctest::Approx(1000.0));
    CHECK(f.bytes_per_sec() == doctest::Approx(2000.0 * 4096 / 2.0));
    // Reads and writes together: half at 50 us, half at 150 us.
    CHECK(f.p50_ns == p.latency().value_at_percentile(50));
    CHECK(f.p50_ns < 51'000);
    CHECK(f.p99_ns > 149'000);
    CHECK(f.max_ns == 150'000);
    CHECK(f.cpu.user_s == 0.25);
    // The point of it: no histograms.
    CHECK(sizeof(model::PhaseFigures) <= 128);
}

TEST_CASE("iterations keep figures, phases merge over iterations in run order") {
    model::RunResult r;
    r.begin_iteration(1, 0);
    r.add_phase(phase(model::Phase::seq_write, 1.0, 0, 0));
    r.add_phase(phase(model::Phase::random, 2.0, 100, 10'000));
    r.begin_iteration(2, 0);
    r.add_phase(phase(model::Phase::seq_read, 0.5, 10, 1'000'000));  // a phase seen only now
    r.add_phase(phase(model::Phase::random, 3.0, 200, 20'000));
    REQUIRE(r.iterations.size() == 2);
    CHECK(r.iterations[0].index == 1);
    CHECK(r.iterations[1].index == 2);
    REQUIRE(r.iterations[1].phases.size() == 2);
    CHECK(r.iterations[1].phases[1].read_ops == 200);

    REQUIRE(r.merged_phases.size() == 3);
    CHECK(r.merged_phases[0].phase == model::Phase::seq_write);
    CHECK(r.merged_phases[1].phase == model::Phase::seq_read);
    CHECK(r.merged_phases[2].phase == model::Phase::random);
    const auto& rnd = r.merged_phases[2];
    CHECK(rnd.seconds == 5.0);
    CHECK(rnd.counters.read_ops == 300);
    CHECK(rnd.counters.read_latency.count() == 300);
    CHECK(rnd.counters.read_latency.min() == 10'000);
    CHECK(rnd.counters.read_latency.max() == 20'000);
    CHECK(rnd.cpu.system_s == 1.0);
    CHECK(rnd.workers == 2);
    CHECK(r.iteration_detail.empty());

    const auto t = r.totals();
    CHECK(t.read == 310 * 4096);
    CHECK(t.verified == 310 * 4096);
}

TEST_CASE("an interrupted run of a phase marks the merged phase interrupted") {
    model::RunResult r;
    r.begin_iteration(1, 0);
    r.add_phase(phase(model::Phase::random, 2.0, 100, 10'000));
    r.begin_iteration(2, 0);
    auto cut = phase(model::Phase::random, 0.5, 10, 10'000);
    cut.interrupted = true;
    r.add_phase(cut);
    CHECK(r.merged_phases[0].interrupted);
    CHECK(!r.iterations[0].phases[0].interrupted);
    CHECK(r.iterations[1].phases[0].interrupted);
}

TEST_CASE("iteration detail: the last N iterations in full, the others dropped") {
    model::RunResult r;
    for (std::uint64_t i = 1; i <= 5; ++i) {
        r.begin_iteration(i, 2);
        r.add_phase(phase(model::Phase::seq_read, 1.0, i, i * 1000));
    }
    REQUIRE(r.iteration_detail.size() == 2);
    CHECK(r.iteration_detail[0].index == 4);
    CHECK(r.iteration_detail[1].index == 5);
    REQUIRE(r.iteration_detail[1].phases.size() == 1);
    CHECK(r.iteration_detail[1].phases[0].counters.read_latency.max() == 5000);
    CHECK(r.iterations.size() == 5);
    CHECK(r.merged_phases[0].counters.read_ops == 15);
}

TEST_CASE("too short to measure: under 1 s or under 200 operations, either one") {
    CHECK(model::too_short_reason(1.0, 200).empty());
    CHECK(model::too_short_reason(5.0, 100000).empty());
    CHECK(model::too_short_reason(0.04, 32) == "0.040 s, 32 operations");
    CHECK(model::too_short_reason(0.999, 5000) == "0.99 s, 5000 operations");  // never "1.00 s"
    CHECK(model::too_short_reason(12.5, 199) == "12.50 s, 199 operations");
    CHECK(model::too_short_reason(0, 1) == "0.000 s, 1 operation");
    // A phase is judged on all its operations; a merged phase on its sum.
    model::PhaseResult p = phase(model::Phase::seq_read, 0.6, 150, 1000);
    CHECK(p.too_short() == "0.60 s, 150 operations");
    CHECK(model::PhaseFigures::of(p).too_short() == p.too_short());
    p.merge(phase(model::Phase::seq_read, 0.6, 150, 1000));
    CHECK(p.too_short().empty());
}

namespace {

model::TargetResult target_with(const std::string& name, double random_seconds, std::uint64_t ops) {
    model::TargetResult t;
    t.name = name;
    t.device_kind = "loop";
    t.capacity_bytes = 64ULL << 20;
    model::PhaseResult p = phase(model::Phase::random, random_seconds, ops, 1000);
    t.add_phase(p);
    return t;
}

}  // namespace

TEST_CASE("the slow target: more than 25 % below the median of at least three like it") {
    std::vector<model::TargetResult> ts{target_with("loop0", 1, 1000),
                                        target_with("loop1", 1, 1100), target_with("loop2", 1, 590),
                                        target_with("loop3", 1, 900)};
    model::flag_slow_targets(ts);
    CHECK_FALSE(ts[0].slow);
    CHECK_FALSE(ts[1].slow);
    CHECK_FALSE(ts[3].slow);
    REQUIRE(ts[2].slow);
    CHECK(ts[2].slow->phase == model::Phase::random);
    CHECK(ts[2].slow->median == doctest::Approx(950));  // of 590, 900, 1000, 1100
    CHECK(ts[2].slow->below_pct == doctest::Approx(100.0 * 360 / 950));
    CHECK(ts[2].slow->like_targets == 4);
    SUBCASE("unlike targets are not compared") {
        ts[2].device_kind = "nvme";
        model::flag_slow_targets(ts);
        CHECK_FALSE(ts[2].slow);  // alone of its kind
    }
    SUBCASE("a different size is another kind of target") {
        ts[1].capacity_bytes = 1;
        ts[3].capacity_bytes = 1;
        model::flag_slow_targets(ts);
        CHECK_FALSE(ts[2].slow);  // two like it, fewer than three
    }
}

TEST_CASE("the slower of two like targets: apart by interval, or by every 0.1 s sample") {
    // 3 s of 0.1 s slices: one target steps from 84k to 175k IOPS (a CPU-bound
    // loop device when a neighbour quietened), the other is throttled to ~290.
    auto with_series = [](const std::string& name, const std::vector<std::uint64_t>& per_slice) {
        std::uint64_t ops = 0;
        for (const auto n : per_slice)
            ops += n;
        model::TargetResult t = target_with(name, 3, ops);
        t.merged_phases[0].series.ops = per_slice;
        t.merged_phases[0].series.bytes.assign(per_slice.size(), 0);
        for (std::size_t i = 0; i < per_slice.size(); ++i)
            t.merged_phases[0].series.bytes[i] = per_slice[i] * 4096;
        return t;
    };
    std::vector<std::uint64_t> stepped(30, 17'500), throttled(30, 29);
    for (std::size_t i = 0; i < 12; ++i)
        stepped[i] = 8'400;
    for (std::size_t i = 0; i < 30; i += 3)
        throttled[i] = 20;
    std::vector<model::TargetResult> ts{with_series("loop0", stepped),
                                        with_series("loop5", throttled)};
    REQUIRE(ts[0].merged_phases[0].figure_estimate().low <
            ts[1].merged_phases[0].figure_estimate().high);
    model::flag_slow_targets(ts);
    CHECK_FALSE(ts[0].slow);
    REQUIRE(ts[1].slow);
    CHECK(ts[1].slow->like_targets == 2);
    CHECK(ts[1].slow->compared_to == "loop0");
    SUBCASE("samples that overlap are within the noise") {
        throttled[29] = 9'000;  // one slice as fast as the other's slow level
        ts[1] = with_series("loop5", throttled);
        model::flag_slow_targets(ts);
        CHECK_FALSE(ts[1].slow);
    }
}

TEST_CASE("a target's verdict: its own mismatches, the run's other reasons") {
    model::RunConfig cfg;
    model::RunResult r;
    r.targets = {target_with("a", 1, 100), target_with("b", 1, 100)};
    r.targets[0].files = r.targets[1].files = 2;
    r.targets[1].first_file = 2;
    for (auto& t : r.targets)
        t.merged_phases[0].counters.verified_bytes = 4096;
    r.targets[1].merged_phases[0].counters.mismatches[0] = 3;
    const auto a = model::target_evidence(cfg, r, 0, model::ExitStatus::mismatch);
    const auto b = model::target_evidence(cfg, r, 1, model::ExitStatus::mismatch);
    CHECK(a.status == model::ExitStatus::success);
    CHECK(a.mismatches == 0);
    CHECK(b.status == model::ExitStatus::mismatch);
    CHECK(b.mismatches == 3);
    CHECK(model::verdict_cell(a) == "PASS");
    SUBCASE("damage found by a write-back is the file's target's") {
        model::FileDamage d;
        d.file_index = 1;
        r.damage.push_back(d);
        CHECK(model::target_evidence(cfg, r, 0, model::ExitStatus::mismatch).status ==
              model::ExitStatus::mismatch);
    }
    SUBCASE("damage in a target's health log fails that target alone") {
        r.targets[1].merged_phases[0].counters.mismatches[0] = 0;
        model::PhaseHealth ph;
        ph.change.emplace();
        ph.change->comparable = true;
        ph.change->findings.push_back({nvme::HealthFindingKind::media_errors, 0, 2});
        REQUIRE(ph.change->damaged());
        r.targets[1].health.add(ph);
        REQUIRE(r.health_damaged());
        CHECK(model::exit_status(r) == model::ExitStatus::mismatch);
        const auto healthy = model::target_evidence(cfg, r, 0, model::ExitStatus::mismatch);
        const auto damaged = model::target_evidence(cfg, r, 1, model::ExitStatus::mismatch);
        CHECK(healthy.status == model::ExitStatus::success);
        CHECK(damaged.status == model::ExitStatus::mismatch);
        CHECK(damaged.health_damage_only);
        CHECK(model::verdict_cell(damaged) == "FAIL (health)");
    }
    SUBCASE("a signal is every target's") {
        CHECK(model::target_evidence(cfg, r, 0, model::interrupted_by(2)).status ==
              model::interrupted_by(2));
    }
}

TEST_CASE("lateness tolerance: max(1 ms, 10 intervals of one worker's schedule)") {
    CHECK(model::lateness_tolerance_ns(100'000) == 1'000'000);  // 10 intervals: 100 us
    CHECK(model::lateness_tolerance_ns(10'000) == 1'000'000);   // exactly 1 ms
    CHECK(model::lateness_tolerance_ns(250) == 40'000'000);     // 10 x 4 ms
    model::PhaseResult p;
    CHECK(p.lateness_tolerance_ns() == 0);  // closed loop
    p.requested_rate = 1000;
    p.workers = 4;  // 250 a second each
    CHECK(p.lateness_tolerance_ns() == 40'000'000);
}

TEST_CASE("rate met: judged on the operations late beyond the tolerance, not every late one") {
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.workers = 1;
    p.seconds = 10;
    p.requested_rate = 1000;
    p.counters.read_ops = 10'000;                // achieved = requested
    p.counters.late_ops = 2'000;                 // 20 % due while every slot was busy (jitter)...
    p.counters.late_beyond_tolerance_ops = 100;  // ...1 % of them by more than 10 ms
    CHECK(p.rate_met());
    p.counters.late_beyond_tolerance_ops = 101;
    CHECK(!p.rate_met());
    p.counters.late_beyond_tolerance_ops = 0;
    p.counters.read_ops = 9'400;  // achieved 94 %
    CHECK(!p.rate_met());
}

TEST_CASE("late beyond tolerance adds up when phases merge") {
    model::PhaseCounters a, b;
    a.late_ops = 5;
    a.late_beyond_tolerance_ops = 2;
    b.late_ops = 7;
    b.late_beyond_tolerance_ops = 3;
    a.merge(b);
    CHECK(a.late_ops == 12);
    CHECK(a.late_beyond_tolerance_ops == 5);
}

TEST_CASE("drive health held by a burn-in stays bounded and keeps its first damage") {
    model::DriveHealth h;
    auto phase = [](std::uint64_t iteration, bool damage) {
        model::PhaseHealth ph;
        ph.iteration = iteration;
        ph.change.emplace();
        if (damage) ph.change->findings.push_back({nvme::HealthFindingKind::media_errors, 0, 1});
        return ph;
    };
    for (std::uint64_t i = 1; i <= 250; ++i)
        h.add(phase(i, i == 3 || i == 200));
    CHECK(h.phases.size() == model::DriveHealth::kMaxPhases);
    CHECK(h.phases.front().iteration == 151);  // the last 100, in run order
    CHECK(h.phases.back().iteration == 250);
    CHECK(h.phases_read == 250);
    CHECK(h.phases_damaged == 2);
    REQUIRE(h.first_damage);
    CHECK(h.first_damage->iteration == 3);  // long gone from the window
    CHECK(h.damaged());
    CHECK_FALSE(model::DriveHealth{}.damaged());
}

TEST_CASE("no verdict on the nop backend, named as the run asked for it") {
    model::RunConfig cfg;
    cfg.nop = true;
    model::RunResult r;
    const auto words = [&] {
        return model::verdict_words(model::run_evidence(cfg, r, model::ExitStatus::success));
    };
    CHECK(words() == "NO VERDICT: --backend nop moved no data (the engine's own figures)");
    cfg.job_file = "null.fio";
    CHECK(words() == "NO VERDICT: ioengine=null moved no data (the engine's own figures)");
}
