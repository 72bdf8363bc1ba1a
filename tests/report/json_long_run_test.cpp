// A long run's --json document: the last iterations listed and the earlier
// summarised, merged phases and drift, --iteration-detail, a document in
// progress, and the size of an iteration's line.
#include <doctest/doctest.h>

#include "json_fixture.h"

using nlohmann::json;
using namespace ds;
using namespace ds::test::json_doc;

namespace {

// Three iterations of one seq-write phase: 16 MiB in 0.16 s, 0.08 s and
// 0.32 s (100, 200 and 50 MiB/s), 16 writes each taking 1, 2 and 4 ms.
model::RunResult make_three_iterations(std::uint64_t detail) {
    model::RunResult r = make_result(false);
    r.iterations.clear();
    r.iterations_run = 0;
    r.merged_phases.clear();
    r.drift.clear();
    const double seconds[] = {0.16, 0.08, 0.32};
    for (std::uint64_t i = 1; i <= 3; ++i) {
        r.begin_iteration(i, detail);
        model::PhaseResult w;
        w.phase = model::Phase::seq_write;
        w.workers = 2;
        w.seconds = seconds[i - 1];
        w.counters.write_ops = 16;
        w.counters.write_bytes = 16 * MiB;
        for (int n = 0; n < 16; ++n)
            w.counters.write_latency.record((1ULL << (i - 1)) * 1'000'000);
        r.add_phase(w);
    }
    return r;
}

}  // namespace

TEST_CASE("a long run lists its last iterations and summarises the earlier ones") {
    model::RunResult r = make_three_iterations(0);
    const std::uint64_t n = model::RunResult::kIterationWindow + 7;
    for (std::uint64_t i = 4; i <= n; ++i) {
        r.begin_iteration(i, 0);
        model::PhaseResult w;
        w.phase = model::Phase::seq_write;
        w.seconds = 0.16;
        w.counters.write_ops = 16;
        w.counters.write_bytes = 16 * MiB;
        r.add_phase(w);
    }
    CHECK(r.iterations.size() == model::RunResult::kIterationWindow);
    json d = document(make_config(), r, make_host());
    REQUIRE(d["iterations"].size() == model::RunResult::kIterationWindow);
    CHECK(d["iterations"][0]["index"] == 8);
    CHECK(d["iterations"].back()["index"] == n);
    CHECK(d["summary"]["iterations_run"] == n);
    CHECK(d["summary"]["iterations_summarised"] == 7);
    CHECK(d["summary"]["written_bytes"] == n * 16 * MiB);
    const json& m = d["merged_phases"][0];
    CHECK(m["iterations"] == n);
    CHECK(m["write_bytes"] == n * 16 * MiB);
    // Drift over every iteration, the summarised ones included.
    const json& bw = m["drift"]["bandwidth_bytes_per_sec"];
    CHECK(m["drift"]["iterations"] == n);
    CHECK(bw["first_iteration"] == 1);
    CHECK(bw["best_iteration"] == 2);
    CHECK(bw["worst_iteration"] == 3);
    CHECK(bw["last_iteration"] == n);
    SchemaValidator v(load_schema());
    CHECK(v.errors(d).empty());
}

TEST_CASE("merged phases: every iteration added up, histograms merged, and the drift") {
    const model::RunResult r = make_three_iterations(0);
    json d = document(make_config(), r, make_host());
    REQUIRE(d["iterations"].size() == 3);
    REQUIRE(d["merged_phases"].size() == 1);
    const json& m = d["merged_phases"][0];
    CHECK(m["phase"] == "seq-write");
    CHECK(m["iterations"] == 3);
    CHECK(m["write_bytes"] == 48 * MiB);
    CHECK(m["write_ops"] == 48);
    CHECK(m["elapsed_s"].get<double>() == doctest::Approx(0.56));
    CHECK(m["bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(48.0 * MiB / 0.56));
    CHECK(m["latency"]["count"] == 48);
    CHECK(m["latency"]["min_ns"] == 1'000'000);
    CHECK(m["latency"]["max_ns"] == 4'000'000);
    CHECK(m["latency"]["histogram"]["buckets"].size() == 3);

    const json& bw = m["drift"]["bandwidth_bytes_per_sec"];
    CHECK(m["drift"]["iterations"] == 3);
    CHECK(bw["first"].get<double>() == doctest::Approx(100.0 * MiB));
    CHECK(bw["first_iteration"] == 1);
    CHECK(bw["best"].get<double>() == doctest::Approx(200.0 * MiB));
    CHECK(bw["best_iteration"] == 2);
    CHECK(bw["worst"].get<double>() == doctest::Approx(50.0 * MiB));
    CHECK(bw["worst_iteration"] == 3);
    CHECK(bw["last_iteration"] == 3);
    const json& p99 = m["drift"]["p99_ns"];
    CHECK(p99["best"].is_number_integer());
    CHECK(p99["best_iteration"] == 1);  // 1 ms is the lowest
    CHECK(p99["worst_iteration"] == 3);
    CHECK(m["drift"]["iops"]["best"].get<double>() == doctest::Approx(200.0));
    CHECK(!d.contains("iteration_detail"));

    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
}

TEST_CASE("iteration_detail: the last N iterations in full, on request") {
    const model::RunResult r = make_three_iterations(2);
    json d = document(make_config(), r, make_host());
    REQUIRE(d.contains("iteration_detail"));
    const json& detail = d["iteration_detail"];
    REQUIRE(detail.size() == 2);
    CHECK(detail[0]["index"] == 2);
    CHECK(detail[1]["index"] == 3);
    CHECK(detail[1]["phases"][0]["latency"]["max_ns"] == 4'000'000);
    CHECK(!detail[1]["phases"][0].contains("drift"));

    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
    d["iteration_detail"][0]["phases"][0]["iterations"] = 1;  // merged phases only
    CHECK(!v.errors(d).empty());
}

TEST_CASE("a document in progress: marked, no verdict yet, and validated") {
    SchemaValidator v(load_schema());
    const model::RunResult r = make_three_iterations(0);
    auto in_progress = [&](const model::ProgressSnapshot* live) {
        json head = report::result_json(make_config(), r, make_host());
        report::mark_in_progress(head, live);
        return json::parse(report::document_text(head, &r));
    };
    SUBCASE("between iterations") {
        const json d = in_progress(nullptr);
        CHECK(d["in_progress"] == true);
        CHECK(d["summary"]["status"] == "running");
        CHECK(d["summary"]["exit_code"].is_null());
        CHECK(d["summary"]["stop_reason"].is_null());
        CHECK(d["progress"]["iteration"].is_null());
        CHECK(d["progress"]["phase"].is_null());
        CHECK(d["progress"]["updated_at"].is_string());
        CHECK(d["iterations"].size() == 3);
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("while a phase runs") {
        model::ProgressSnapshot live{4, model::Phase::reverify, 0.25, 12.5, 1 << 20, 1};
        json d = in_progress(&live);
        CHECK(d["progress"]["iteration"] == 4);
        CHECK(d["progress"]["phase"] == "reverify");
        CHECK(d["progress"]["phase_elapsed_s"] == 12.5);
        CHECK(d["progress"]["phase_fraction_done"] == 0.25);
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
        live.fraction_done = -1;  // unknown
        CHECK(in_progress(&live)["progress"]["phase_fraction_done"].is_null());
        live.fraction_done = 1.02;  // a last write past the estimate
        CHECK(in_progress(&live)["progress"]["phase_fraction_done"] == 1.0);

        d["summary"]["status"] = "passed";  // a verdict before the end
        CHECK(!v.errors(d).empty());
    }
    SUBCASE("a final document is not in progress") {
        const json d = document(make_config(), r, make_host());
        CHECK(d["in_progress"] == false);
        CHECK(!d.contains("progress"));
    }
}

TEST_CASE("an iteration line is about a kilobyte for four phases") {
    auto line_of = [](double seconds, std::uint64_t ops, std::uint64_t bytes, std::uint64_t ns) {
        model::IterationResult it;
        it.index = 12345;
        for (model::Phase p : model::kAllPhases) {
            model::PhaseFigures f;
            f.phase = p;
            f.seconds = seconds + 0.123456789;
            f.cpu = {.user_s = seconds / 3 + 0.123456789, .system_s = seconds / 7 + 0.987654321};
            f.read_ops = f.write_ops = ops;
            f.read_bytes = f.write_bytes = f.verified_bytes = bytes;
            f.p50_ns = ns;
            f.p99_ns = 10 * ns + 12345;
            f.max_ns = 100 * ns + 12345;
            it.phases.push_back(f);
        }
        return report::iteration_line(it);
    };
    // A default run: 4 x 256 MiB, 10 s of random I/O at 100k IOPS.
    CHECK(line_of(10, 1'000'000, 4'096'000'000, 1'234'567).size() <= 1024);
    // Hours of a fast drive: 100 TB and 10^11 operations in one phase.
    const std::string big = line_of(12345, 123'456'789'012, 123'456'789'012'345, 123'456'789);
    CHECK(big.size() <= 1200);
    const json j = json::parse(big);
    CHECK(j["phases"][3]["elapsed_s"] == 12345.123457);  // to the microsecond
    CHECK(j["phases"][3]["max_ns"] == 12'345'691'245);
}
