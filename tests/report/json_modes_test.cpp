// The --json documents of the modes: a sweep and its knee, a backend
// comparison, a preset's rows, --verify-only and --find-rate, each as the
// schema describes it.
#include <doctest/doctest.h>

#include "json_fixture.h"

using nlohmann::json;
using namespace ds;
using namespace ds::test::json_doc;

namespace {

// A --sweep qd=1,4,16 result: IOPS 1000, 3000, 3100 (knee at qd 4).
model::RunResult make_sweep_result() {
    model::RunResult r = make_result(false);
    r.sweep.param = model::SweepParam::qd;
    const std::uint64_t values[] = {1, 4, 16};
    const std::uint64_t ops[] = {1000, 3000, 3100};
    const std::uint64_t lat[] = {100'000, 300'000, 900'000};
    for (int i = 0; i < 3; ++i) {
        model::SweepPoint pt;
        pt.value = values[i];
        pt.random.phase = model::Phase::random;
        pt.random.workers = 2;
        pt.random.seconds = 1.0;
        // ops[i] operations in 1 s: all but 10 reads, each taking lat[i].
        pt.random.counters.read_ops = ops[i] - 10;
        pt.random.counters.read_bytes = (ops[i] - 10) * 4096;
        pt.random.counters.verified_bytes = (ops[i] - 10) * 4096;
        pt.random.counters.write_ops = 10;
        pt.random.counters.write_bytes = 10 * 4096;
        for (std::uint64_t n = 0; n < ops[i] - 10; ++n)
            pt.random.counters.read_latency.record(lat[i]);
        for (std::uint64_t n = 0; n < 10; ++n)
            pt.random.counters.write_latency.record(lat[i]);
        r.sweep.points.push_back(pt);
    }
    r.sweep.knee = 1;
    return r;
}

model::RunConfig make_sweep_config() {
    model::RunConfig cfg = make_config();
    cfg.sweep = model::Sweep{.param = model::SweepParam::qd, .values = {1, 4, 16}};
    cfg.qd = 16;
    cfg.knee_gain_pct = 5;
    return cfg;
}

}  // namespace

TEST_CASE("sweep: one random phase per value, and the knee") {
    json d = document(make_sweep_config(), make_sweep_result(), make_host());
    REQUIRE(d.contains("sweep"));
    const json& sw = d["sweep"];
    CHECK(sw["parameter"] == "qd");
    CHECK(sw["knee_gain_pct"] == 5.0);
    REQUIRE(sw["points"].size() == 3);
    CHECK(sw["points"][0]["value"] == 1);
    CHECK(sw["points"][1]["value"] == 4);
    CHECK(sw["points"][2]["value"] == 16);
    CHECK(sw["points"][1]["phase"] == "random");
    CHECK(sw["points"][1]["iops"].get<double>() == doctest::Approx(3000.0));
    CHECK(sw["points"][1]["latency"]["count"] == 3000);
    REQUIRE(sw["knee"].is_object());
    CHECK(sw["knee"]["index"] == 1);
    CHECK(sw["knee"]["value"] == 4);
    CHECK(sw["knee"]["iops"].get<double>() == doctest::Approx(3000.0));
    CHECK(std::abs(sw["knee"]["p99_ns"].get<double>() - 300'000.0) <= 3'000.0);
    CHECK(sw["knee"]["next_iops_gain_pct"].get<double>() == doctest::Approx(100.0 / 30.0));
    CHECK(sw["knee"]["next_p99_change_pct"].get<double>() == doctest::Approx(200.0).epsilon(0.02));
    CHECK(sw["knee"]["axis"] == "iops");
    CHECK(sw["knee"]["bandwidth_bytes_per_sec"].get<double>() ==
          doctest::Approx(sw["points"][1]["bandwidth_bytes_per_sec"].get<double>()));

    model::RunResult r = make_sweep_result();
    r.sweep.knee.reset();
    d = document(make_sweep_config(), r, make_host());
    CHECK(d["sweep"]["knee"].is_null());

    // Without a sweep there is no "sweep" key at all.
    CHECK(!document(make_config(), make_result(false), make_host()).contains("sweep"));
}

TEST_CASE("sweep: a block-size sweep's knee is chosen and described by bandwidth") {
    model::RunResult r = make_sweep_result();
    r.sweep.param = model::SweepParam::rand_block;
    json d = document(make_sweep_config(), r, make_host());
    const json& k = d["sweep"]["knee"];
    REQUIRE(k.is_object());
    CHECK(k["axis"] == "bandwidth");
    const json& pts = d["sweep"]["points"];
    const double bw1 = pts[1]["bandwidth_bytes_per_sec"].get<double>();
    const double bw2 = pts[2]["bandwidth_bytes_per_sec"].get<double>();
    CHECK(k["bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(bw1));
    CHECK(k["next_bandwidth_gain_pct"].get<double>() == doctest::Approx((bw2 / bw1 - 1) * 100));
    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
}

TEST_CASE("sweep and backend comparison documents validate against the schema") {
    SchemaValidator v(load_schema());
    SUBCASE("sweep with a knee") {
        auto errors = v.errors(document(make_sweep_config(), make_sweep_result(), make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("sweep without a knee") {
        model::RunResult r = make_sweep_result();
        r.sweep.knee.reset();
        auto errors = v.errors(document(make_sweep_config(), r, make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("--compare-backends") {
        model::RunConfig cfg = make_config();
        cfg.compare_backends = true;
        model::RunResult uring = make_result(false);
        model::RunResult sync = make_result(false);
        sync.backend.requested = model::BackendChoice::sync;
        sync.backend.used = io::BackendKind::sync;
        sync.backend.effective_qd = sync.backend.seq_qd = 1;
        sync.merged_phases[0].seconds = 1.0;  // half the io_uring rate
        sync.backend.sync_threads = 0;
        sync.merged_phases[0].cpu.context_switches = 300;
        sync.merged_phases[0].counters.system_calls = 100;
        json d = document(cfg, uring, make_host());
        model::BackendComparison cmp;
        cmp.runs.push_back({"io_uring", cfg, uring, true});
        cmp.runs.push_back({"sync", cfg, sync, true});
        cmp.runs.push_back({"sync qd 1", cfg, sync, false});  // never ran: no row
        d["compare_backends"] = report::comparison_json(cmp);
        const json& rows = d["compare_backends"]["rows"];
        REQUIRE(rows.size() == 2);
        CHECK(rows[0]["phase"] == "seq-write");
        CHECK(rows[0]["bandwidth_ratio"].get<double>() == doctest::Approx(2.0));
        CHECK(d["compare_backends"]["sync"]["backend"]["used"] == "sync");
        const json& runs = d["compare_backends"]["runs"];
        REQUIRE(runs.size() == 2);
        CHECK(runs[1]["label"] == "sync");
        const json& ph = runs[1]["phases"][0];
        const double ops = ph["ops"].get<double>();
        REQUIRE(ops > 0);
        CHECK(ph["context_switches_per_op"].get<double>() == doctest::Approx(300 / ops));
        CHECK(ph["system_calls_per_op"].get<double>() == doctest::Approx(100 / ops));
        CHECK(d["compare_backends"]["sweep"].is_null());
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("--compare-backends --sweep qd: both curves and the crossover") {
        model::RunConfig cfg = make_sweep_config();
        cfg.compare_backends = true;
        model::RunResult uring = make_sweep_result();
        model::RunResult sync = make_sweep_result();
        sync.backend.used = io::BackendKind::sync;
        // sync keeps pace at the first point and falls behind from the second on.
        for (std::size_t i = 1; i < sync.sweep.points.size(); ++i)
            sync.sweep.points[i].random.seconds *= 2;
        model::BackendComparison cmp;
        cmp.runs.push_back({"io_uring", cfg, uring, true});
        cmp.runs.push_back({"sync", cfg, sync, true});
        json d = document(cfg, uring, make_host());
        d["compare_backends"] = report::comparison_json(cmp);
        const json& sw = d["compare_backends"]["sweep"];
        REQUIRE(sw.is_object());
        REQUIRE(sw["points"].size() == uring.sweep.points.size());
        REQUIRE(uring.sweep.points.size() >= 2);
        CHECK(sw["crossover_qd"] == uring.sweep.points[1].value);
        CHECK(sw["points"][1]["iops_ratio"].get<double>() == doctest::Approx(2.0));
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
    }
}

TEST_CASE("the schema keeps sweep-only and comparison keys where they belong") {
    SchemaValidator v(load_schema());
    json d = document(make_sweep_config(), make_sweep_result(), make_host());
    REQUIRE(v.errors(d).empty());

    json bad = d;
    bad["merged_phases"][0]["value"] = 4;  // "value" belongs to sweep points
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["sweep"]["points"][0]["drift"] = nullptr;  // and drift to merged phases
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["sweep"]["points"][0].erase("value");
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["sweep"]["parameter"] = "depth";
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["merged_phases"][0]["latency_thresholds"][0]["slower_share"] = 1.5;
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["compare_backends"] = {{"baseline", "io_uring"}, {"rows", json::array()}};
    CHECK(!v.errors(bad).empty());
}

// The summary is the whole run: the sweep's random phases read, wrote and
// verified too (their mismatches already count in summary.mismatches).
TEST_CASE("summary totals include the sweep points") {
    json d = document(make_sweep_config(), make_sweep_result(), make_host());
    const json& sm = d["summary"];
    CHECK(sm["written_bytes"] == 16 * MiB + 3 * 10 * 4096);
    CHECK(sm["read_bytes"] == 16 * MiB + (1000 + 3000 + 3100 - 3 * 10) * 4096);
    CHECK(sm["verified_bytes"] == 16 * MiB + (1000 + 3000 + 3100 - 3 * 10) * 4096);
}

TEST_CASE("preset section: one row per test, validated by the schema") {
    report::PresetResults results;
    results.emplace_back("SEQ1M Q8T1", make_result(false));
    results.emplace_back("RND4K Q32T1 read", make_result(true));
    json d = document(make_config(), results.front().second, make_host());
    d["preset"] = report::preset_json("desktop", results);

    const json& p = d["preset"];
    CHECK(p["name"] == "desktop");
    REQUIRE(p["tests"].size() == 2);
    const json& seq = p["tests"][0];
    CHECK(seq["label"] == "SEQ1M Q8T1");
    // No random phase: seq-read and seq-write figures.
    CHECK(seq["read_bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.25));
    CHECK(seq["write_bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.5));
    CHECK(seq["read_iops"].get<double>() == doctest::Approx(64.0));
    CHECK(seq["write_iops"].get<double>() == doctest::Approx(32.0));
    CHECK(seq["p99_ns"].is_number_integer());
    CHECK(seq["exit_code"] == 0);
    CHECK(seq["mismatch_total"] == 0);
    CHECK(p["tests"][1]["exit_code"] == 2);
    CHECK(p["tests"][1]["mismatch_total"] == 1);

    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());

    d["preset"]["name"] = "turbo";
    CHECK(!v.errors(d).empty());
}

TEST_CASE("a --verify-only document validates; a run's keys in it do not") {
    SchemaValidator v(load_schema());
    model::VerifyOnlyResult r;
    r.state_path = "/mnt/t/drivestress.state";
    r.started_at = "2025-01-31T12:00:00Z";
    r.geo.seed = 7;
    r.geo.file_bytes = 8 << 20;
    r.geo.unit_bytes = 4096;
    r.geo.bound = model::kAnyNewerBound;  // only phase ends acknowledged
    r.geo.paths = {"/mnt/t/drivestress-0.dat"};
    model::VerifyFileResult f;
    f.path = r.geo.paths[0];
    f.acknowledgements = 3;
    f.bound = model::kAnyNewerBound;
    f.intact = 2000;
    f.newer = 47;
    f.lost = 1;
    r.files = {f};
    r.intact = 2000;
    r.newer = 47;
    r.lost = 1;
    r.lost_by_class[static_cast<std::size_t>(pattern::MismatchClass::zeroed)] = 1;
    model::MismatchRecord m;
    m.path = f.path;
    m.offset = m.unit_offset = 12288;
    m.length = 4096;
    m.cls = pattern::MismatchClass::zeroed;
    m.bad_bytes = 4090;
    m.expected_generation = 70000;  // generations are 32 bits
    r.lost_records = {m};
    r.document_id = "fedcba9876543210";
    json d = report::verify_json(r, make_host());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
    CHECK(d["summary"]["exit_code"] == 2);
    CHECK(d["summary"]["status"] == "failed");
    CHECK(d["mismatches"][0]["phase"] == "verify-only");
    CHECK(d["mismatches"][0]["iteration"] == 0);
    CHECK(d["verify_only"]["written_after_ack_units"] == 47);

    json bad = d;
    bad["config"] = json::object();  // a run's section in a verify document
    CHECK(!v.errors(bad).empty());
    json run_doc = document(make_config(), make_result(true), make_host());
    run_doc["verify_only"] = d["verify_only"];  // and the other way round
    CHECK(!v.errors(run_doc).empty());
}

TEST_CASE("--find-rate: the answer, its bracket and every probe; validates against the schema") {
    SchemaValidator v(load_schema());
    model::RunConfig cfg = make_config();
    cfg.find_rate = model::FindRate{99.9, 0.002};
    cfg.sweep = model::Sweep{model::SweepParam::rate, {}, false};
    model::RunResult res = make_result(false);
    res.sweep.param = model::SweepParam::rate;
    res.sweep.closed_loop_iops = 1000;
    model::FindRateResult fr;
    fr.bound = *cfg.find_rate;
    fr.closed_loop_iops = 1000;
    for (const auto& [rate, ns] : {std::pair{1000.0, 9e6}, {500.0, 1e6}, {750.0, 3e6}}) {
        model::SweepPoint pt;
        pt.value = static_cast<std::uint64_t>(rate);
        pt.random.phase = model::Phase::random;
        pt.random.workers = 1;
        pt.random.seconds = 1;
        pt.random.requested_rate = rate;
        pt.random.counters.read_ops = static_cast<std::uint64_t>(rate);
        pt.random.counters.response_latency.record(static_cast<std::uint64_t>(ns));
        res.sweep.points.push_back(pt);
        const std::vector<double> one{ns};
        fr.probes.push_back({rate, 1, true, stats::judge_probe(one, 2e6, true)});
    }
    fr.found = 1;
    fr.failing = 2;
    res.find_rate = fr;
    const json d = document(cfg, res, make_host());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
    const json& j = d["find_rate"];
    CHECK(j["percentile"] == 99.9);
    CHECK(j["bound_ns"] == 2'000'000);
    CHECK(j["found_iops"] == 500.0);
    CHECK(j["lowest_failing_iops"] == 750.0);
    CHECK(j["response_ns_at_found"] == 1e6);
    CHECK(j["found_within_noise"] == false);
    CHECK(j["interrupted"] == false);
    REQUIRE(j["probes"].size() == 3);
    CHECK(j["probes"][0]["passed"] == false);
    CHECK(j["probes"][1]["passed"] == true);
    CHECK(j["probes"][2]["response_ns"]["n"] == 1);
    CHECK(d["sweep"]["points"].size() == 3);
    CHECK(d["sweep"]["rate_percent"] == false);

    res.find_rate->found.reset();  // none passed: nulls
    const json none = document(cfg, res, make_host());
    CHECK(v.errors(none).empty());
    CHECK(none["find_rate"]["found_iops"].is_null());
    CHECK(none["find_rate"]["response_ns_at_found"].is_null());
}
