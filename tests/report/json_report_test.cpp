// The --json document of a run: its header, host, target, backend and
// configuration, each phase's figures and latency, the iterations, the
// mismatch records, the summary and verdict, latency thresholds and --rate.
#include <doctest/doctest.h>

#include "json_fixture.h"

using nlohmann::json;
using namespace ds;
using namespace ds::test::json_doc;

TEST_CASE("document header: schema version, tool, host, target") {
    json d = document(make_config(), make_result(false), make_host());
    CHECK(d["schema_version"].is_number_integer());
    CHECK(d["schema_version"] == 6);
    CHECK(d["in_progress"] == false);
    CHECK(d["schema_version"] == report::kSchemaVersion);
    CHECK(d["tool"]["name"] == "drivestress");
    CHECK(d["tool"]["version"].is_string());
    CHECK(d["started_at"] == "2025-01-31T12:00:00Z");

    CHECK(d["host"]["hostname"] == "testhost");
    CHECK(d["host"]["kernel"] == "6.1.0-18-amd64");
    CHECK(d["host"]["machine"] == "x86_64");
    CHECK(d["host"]["cpu_model"] == "Test CPU");
    CHECK(d["host"]["cpus"] == 8);
    CHECK(d["host"]["memory_bytes"] == (16ULL << 30));
    CHECK(d["host"]["generator_simd"] == "avx2");

    CHECK(d["target"]["path"] == "/mnt/test");
    CHECK(d["target"]["directory"] == "/mnt/test");
    CHECK(d["target"]["filesystem"] == "ext4");
    CHECK(d["target"]["device"] == "/dev/vdb");
    CHECK(d["target"]["free_bytes"] == (10ULL << 30));
    CHECK(d["target"]["direct_io"] == true);
    CHECK(d["target"]["direct_io_fallback_reason"].is_null());
    CHECK(d["target"]["files"] ==
          json::array({"/mnt/test/drivestress-0.dat", "/mnt/test/drivestress-1.dat"}));
}

TEST_CASE("who's who: the run's own id in every rewrite, the drive where sysfs tells it") {
    model::RunResult r = make_result(false);
    json a = report::result_json(make_config(), r, make_host());
    json b = report::result_json(make_config(), r, make_host());  // a later rewrite
    CHECK(a["run_id"] == "0123456789abcdef");
    CHECK(b["run_id"] == a["run_id"]);

    CHECK(report::drive_json(report::DriveInfo{}) == json{{"name", nullptr},
                                                          {"model", nullptr},
                                                          {"serial", nullptr},
                                                          {"firmware", nullptr},
                                                          {"logical_block_bytes", nullptr},
                                                          {"physical_block_bytes", nullptr}});
    report::DriveInfo vda;
    vda.name = "vda";
    vda.serial = "overlayblk";
    vda.logical_block_bytes = 512;
    vda.physical_block_bytes = 4096;
    const json dj = report::drive_json(vda);
    CHECK(dj["name"] == "vda");
    CHECK(dj["model"].is_null());
    CHECK(dj["serial"] == "overlayblk");
    CHECK(dj["logical_block_bytes"] == 512);
    CHECK(dj["physical_block_bytes"] == 4096);
    // Neither /mnt/test nor /dev/vdb exists here: nothing is known.
    if (!std::filesystem::exists("/mnt/test") && !std::filesystem::exists("/dev/vdb"))
        CHECK(a["target"]["drive"] == report::drive_json(report::DriveInfo{}));
}

TEST_CASE("O_DIRECT fallback reason is a string when there is one") {
    model::RunResult r = make_result(false);
    r.direct_io = false;
    r.direct_io_note = "O_DIRECT refused by tmpfs: Invalid argument";
    json d = document(make_config(), r, make_host());
    CHECK(d["target"]["direct_io"] == false);
    CHECK(d["target"]["direct_io_fallback_reason"] ==
          "O_DIRECT refused by tmpfs: Invalid argument");
}

TEST_CASE("backend: io_uring features, or null and a fallback reason on sync") {
    json d = document(make_config(), make_result(false), make_host());
    const json& b = d["backend"];
    CHECK(b["requested"] == "auto");
    CHECK(b["used"] == "io_uring");
    CHECK(b["fallback_reason"].is_null());
    CHECK(b["random_qd_per_worker"] == 16);
    CHECK(b["seq_qd_per_worker"] == 8);
    REQUIRE(b["io_uring"].is_object());
    CHECK(b["io_uring"]["setup_flags"] == json::array({"SINGLE_ISSUER", "DEFER_TASKRUN"}));
    CHECK(b["io_uring"]["registered_files"] == true);
    CHECK(b["io_uring"]["registered_buffers"] == false);
    CHECK(b["io_uring"]["sq_entries"] == 16);
    CHECK(b["io_uring"]["notes"].size() == 1);

    model::RunResult r = make_result(false);
    r.backend.used = io::BackendKind::sync;
    r.backend.fallback_reason = "io_uring_setup: Operation not permitted";
    r.backend.effective_qd = 1;
    r.backend.seq_qd = 1;
    d = document(make_config(), r, make_host());
    CHECK(d["backend"]["used"] == "sync");
    CHECK(d["backend"]["requested"] == "auto");
    CHECK(d["backend"]["io_uring"].is_null());
    CHECK(d["backend"]["fallback_reason"] == "io_uring_setup: Operation not permitted");

    r.backend.requested = model::BackendChoice::sync;
    r.backend.fallback_reason.clear();
    d = document(make_config(), r, make_host());
    CHECK(d["backend"]["requested"] == "sync");
    CHECK(d["backend"]["fallback_reason"].is_null());
}

TEST_CASE("config: the effective settings, nullable where off") {
    model::RunConfig cfg = make_config();
    json d = document(cfg, make_result(false), make_host());
    const json& c = d["config"];
    CHECK(c["file_size_bytes"] == 8 * MiB);
    CHECK(c["files"] == 2);
    CHECK(c["qd"] == 16);
    CHECK(c["seq_block_bytes"] == MiB);
    CHECK(c["rand_block_bytes"] == 4096);
    CHECK(c["unit_bytes"] == 4096);
    CHECK(c["read_pct"] == 70);
    CHECK(c["rand_time_s"].is_number());
    CHECK(c["rand_time_s"] == 2.0);
    CHECK(c["rand_ops"].is_null());
    CHECK(c["iterations"] == 1);
    CHECK(c["duration_s"].is_null());
    CHECK(c["phases"] == json::array({"seq-write", "seq-read", "random", "reverify"}));
    CHECK(c["seed"] == 42);
    CHECK(c["recreate"] == false);
    CHECK(c["buffered"] == false);
    CHECK(c["verify"] == true);

    cfg.rand_ops = 1000;
    cfg.duration_s = 30;
    cfg.verify = false;
    cfg.phases = {model::Phase::seq_write, model::Phase::random};
    d = document(cfg, make_result(false), make_host());
    CHECK(d["config"]["rand_ops"] == 1000);
    CHECK(d["config"]["rand_time_s"].is_null());
    CHECK(d["config"]["duration_s"] == 30.0);
    CHECK(d["config"]["verify"] == false);
    CHECK(d["config"]["phases"] == json::array({"seq-write", "random"}));
}

TEST_CASE("phases: bytes, seconds, bandwidth = bytes / seconds, IOPS, CPU") {
    json d = document(make_config(), make_result(true), make_host());
    // One iteration: each merged phase is that iteration's phase.
    const json& phases = d["merged_phases"];
    REQUIRE(phases.size() == 2);

    const json& w = phases[0];
    CHECK(w["phase"] == "seq-write");
    CHECK(w["interrupted"] == false);
    CHECK(w["elapsed_s"] == 0.5);
    CHECK(w["write_bytes"] == 16 * MiB);
    CHECK(w["read_bytes"] == 0);
    CHECK(w["write_ops"] == 16);
    CHECK(w["read_ops"] == 0);
    CHECK(w["bandwidth_bytes_per_sec"].is_number());
    CHECK(w["bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.5));
    CHECK(w["write_bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.5));
    CHECK(w["read_bandwidth_bytes_per_sec"] == 0.0);
    CHECK(w["iops"].get<double>() == doctest::Approx(32.0));
    CHECK(w["write_iops"].get<double>() == doctest::Approx(32.0));
    CHECK(w["read_iops"] == 0.0);
    CHECK(w["verified_bytes"] == 0);
    CHECK(w["workers"] == 2);
    CHECK(w["cpu"]["user_s"] == 0.1);
    CHECK(w["cpu"]["system_s"] == 0.2);
    CHECK(w["cpu"]["user_pct"].get<double>() == doctest::Approx(20.0));
    CHECK(w["cpu"]["system_pct"].get<double>() == doctest::Approx(40.0));
    CHECK(w["cpu"]["ops_per_cpu_s"].get<double>() == doctest::Approx(16.0 / 0.3));
    CHECK(w["cpu"]["bytes_per_cpu_s"].get<double>() == doctest::Approx(16.0 * MiB / 0.3));
    CHECK(w["mismatches"]["corrupt"] == 0);

    const json& r = phases[1];
    CHECK(r["phase"] == "seq-read");
    CHECK(r["elapsed_s"] == 0.25);
    CHECK(r["read_bytes"] == 16 * MiB);
    CHECK(r["verified_bytes"] == 16 * MiB);
    CHECK(r["bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.25));
    CHECK(r["read_bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.25));
    CHECK(r["iops"].get<double>() == doctest::Approx(64.0));
    CHECK(r["read_iops"].get<double>() == doctest::Approx(64.0));
    CHECK(r["mismatches"]["corrupt"] == 1);
    CHECK(r["mismatches"]["stale"] == 0);
    CHECK(w["iterations"] == 1);
    CHECK(r["iterations"] == 1);
}

TEST_CASE("iterations: every iteration's figures, one compact line each, last in the file") {
    const model::RunResult res = make_result(true);
    const std::string text =
        report::document_text(report::result_json(make_config(), res, make_host()), &res);
    const json d = json::parse(text);
    REQUIRE(d["iterations"].size() == 1);
    const json& it = d["iterations"][0];
    CHECK(it["index"] == 1);
    REQUIRE(it["phases"].size() == 2);
    const json& w = it["phases"][0];
    CHECK(w["phase"] == "seq-write");
    CHECK(!w.contains("interrupted"));  // written only when true
    CHECK(w["elapsed_s"] == 0.5);
    CHECK(w["write_bytes"] == 16 * MiB);
    CHECK(w["write_ops"] == 16);
    CHECK(w["max_ns"] == 160'000);
    CHECK(w["cpu_s"].get<double>() == doctest::Approx(0.3));
    const json& r = it["phases"][1];
    CHECK(r["phase"] == "seq-read");
    CHECK(r["verified_bytes"] == 16 * MiB);
    CHECK(r["mismatch_total"] == 1);
    CHECK(r["max_ns"] == 5'000);
    // The iteration is one line, the last thing in the document.
    const std::string line = report::iteration_line(res.iterations[0]);
    CHECK(line.find('\n') == std::string::npos);
    CHECK(line.find(' ') == std::string::npos);
    CHECK(ends_with(text, "\"iterations\": [\n    " + line + "\n  ]\n}\n"));
    CHECK(json::parse(line) == it);
}

TEST_CASE("a zero-length phase reports zero rates, not NaN or null") {
    model::RunResult res = make_result(false);
    res.merged_phases[0].seconds = 0;
    res.merged_phases[0].cpu = {};
    json d = document(make_config(), res, make_host());
    const json& w = d["merged_phases"][0];
    CHECK(w["bandwidth_bytes_per_sec"] == 0.0);
    CHECK(w["iops"] == 0.0);
    CHECK(w["cpu"]["user_pct"] == 0.0);
    CHECK(w["cpu"]["ops_per_cpu_s"] == 0.0);
}

TEST_CASE("latency: min/mean/max, percentiles and a histogram summing to count") {
    json d = document(make_config(), make_result(false), make_host());
    const json& w = d["merged_phases"][0];
    const json& r = d["merged_phases"][1];
    SUBCASE("writes") {
        check_latency(w["write_latency"], write_samples());
        check_latency(w["latency"], write_samples());
        check_empty_latency(w["read_latency"]);
    }
    SUBCASE("reads") {
        check_latency(r["read_latency"], kReadSamples);
        check_latency(r["latency"], kReadSamples);
        check_empty_latency(r["write_latency"]);
    }
    SUBCASE("latency_json of a mixed histogram merges reads and writes") {
        stats::LatencyHistogram h;
        std::vector<std::uint64_t> all = write_samples();
        all.insert(all.end(), kReadSamples.begin(), kReadSamples.end());
        for (auto ns : all)
            h.record(ns);
        check_latency(report::latency_json(h), all);
    }
}

TEST_CASE("numbers are numbers") {
    model::RunConfig cfg = make_config();
    json d = document(cfg, make_result(true), make_host());
    check_numbers_are_numbers(d, "$");
    CHECK(d["summary"]["exit_code"].is_number_integer());
    CHECK(d["config"]["seed"].is_number_unsigned());
    CHECK(d["mismatches"][0]["expected_generation"].is_number_integer());
    CHECK(d["mismatches"][0]["found"]["generation"].is_number_integer());
    // A dumped and re-parsed document is the same document (no NaN, no inf).
    CHECK(json::parse(d.dump()) == d);

    cfg.rand_ops = 77;
    cfg.duration_s = 1.5;
    check_numbers_are_numbers(document(cfg, make_result(false), make_host()), "$");
}

TEST_CASE("mismatch record: file, offsets, class and header found") {
    json d = document(make_config(), make_result(true), make_host());
    REQUIRE(d["mismatches"].size() == 1);
    const json& m = d["mismatches"][0];
    CHECK(m["iteration"] == 1);
    CHECK(m["phase"] == "seq-read");
    CHECK(m["file"] == "/mnt/test/drivestress-1.dat");
    CHECK(m["file_index"] == 1);
    CHECK(m["offset_bytes"] == 7 * 4096 + 100);
    CHECK(m["unit_offset_bytes"] == 7 * 4096);
    CHECK(m["length_bytes"] == 4096);
    CHECK(m["class"] == "corrupt");
    CHECK(m["op"] == "read");
    CHECK(m["bad_bytes"] == 17);
    CHECK(m["errno"] == 0);
    CHECK(m["expected_generation"] == 1);
    REQUIRE(m["found"].is_object());
    CHECK(m["found"]["run_id"] == 0x1234);
    CHECK(m["found"]["file_index"] == 1);
    CHECK(m["found"]["offset_bytes"] == 7 * 4096);
    CHECK(m["found"]["generation"] == 1);
    CHECK(m["found"]["unit_bytes"] == 4096);
    CHECK(d["mismatches_truncated"] == false);

    model::RunResult r = make_result(true);
    r.mismatch_records[0].found.reset();
    r.mismatch_records[0].cls = pattern::MismatchClass::io_error;
    r.mismatch_records[0].op = io::OpKind::write;
    r.mismatch_records[0].error = 5;  // EIO
    r.mismatch_totals = {};
    r.mismatch_totals[class_index(pattern::MismatchClass::io_error)] = 1;
    d = document(make_config(), r, make_host());
    CHECK(d["mismatches"][0]["found"].is_null());
    CHECK(d["mismatches"][0]["class"] == "io-error");
    CHECK(d["mismatches"][0]["op"] == "write");
    CHECK(d["mismatches"][0]["errno"] == 5);
    CHECK(d["summary"]["mismatches"]["io-error"] == 1);
    CHECK(d["summary"]["status"] == "failed");
}

TEST_CASE("mismatches_truncated when more were counted than recorded") {
    model::RunResult r = make_result(true);
    r.mismatch_totals[class_index(pattern::MismatchClass::corrupt)] = 150;
    json d = document(make_config(), r, make_host());
    CHECK(d["mismatches"].size() == 1);
    CHECK(d["mismatches_truncated"] == true);
    CHECK(d["summary"]["mismatch_total"] == 150);
}

TEST_CASE("summary: totals and the verdict") {
    SUBCASE("a mismatch fails the run with exit 2") {
        json d = document(make_config(), make_result(true), make_host());
        const json& s = d["summary"];
        CHECK(s["written_bytes"] == 16 * MiB);
        CHECK(s["read_bytes"] == 16 * MiB);
        CHECK(s["verified_bytes"] == 16 * MiB);
        CHECK(s["elapsed_s"] == 0.8);
        CHECK(s["iterations_run"] == 1);
        CHECK(s["mismatch_total"] == 1);
        CHECK(s["mismatches"]["corrupt"] == 1);
        CHECK(s["mismatches"]["stale"] == 0);
        CHECK(s["mismatches"].size() == pattern::kMismatchClassCount);
        CHECK(s["stop_reason"] == "completed");
        CHECK(s["signal"].is_null());
        CHECK(s["status"] == "failed");
        CHECK(s["exit_code"] == 2);
    }
    SUBCASE("a clean run passes with exit 0") {
        json d = document(make_config(), make_result(false), make_host());
        CHECK(d["mismatches"] == json::array());
        CHECK(d["summary"]["mismatch_total"] == 0);
        CHECK(d["summary"]["status"] == "passed");
        CHECK(d["summary"]["exit_code"] == 0);
        CHECK(d["summary"]["stop_reason"] == "completed");
        CHECK(d["summary"]["error"].is_null());
    }
    SUBCASE("SIGINT: interrupted, exit 130") {
        model::RunResult r = make_result(false);
        r.stop = model::StopReason::signal;
        r.stop_signal = SIGINT;
        r.iterations[0].phases[1].interrupted = true;
        r.merged_phases[1].interrupted = true;
        r.drift[1] = model::PhaseDrift{r.drift[1].phase, 1, 0, {}, {}, {}};  // as add_phase has it
        json d = document(make_config(), r, make_host());
        CHECK(d["summary"]["status"] == "interrupted");
        CHECK(d["summary"]["exit_code"] == 130);
        CHECK(d["summary"]["stop_reason"] == "signal");
        CHECK(d["summary"]["signal"] == SIGINT);
        CHECK(d["iterations"][0]["phases"][1]["interrupted"] == true);
        CHECK(d["merged_phases"][1]["interrupted"] == true);
        CHECK(d["merged_phases"][1]["drift"].is_null());  // no complete run of it
    }
    SUBCASE("SIGTERM: interrupted, exit 143") {
        model::RunResult r = make_result(false);
        r.stop = model::StopReason::signal;
        r.stop_signal = SIGTERM;
        json d = document(make_config(), r, make_host());
        CHECK(d["summary"]["status"] == "interrupted");
        CHECK(d["summary"]["exit_code"] == 143);
        CHECK(d["summary"]["signal"] == SIGTERM);
    }
    SUBCASE("a mismatch wins over a signal") {
        model::RunResult r = make_result(true);
        r.stop = model::StopReason::signal;
        r.stop_signal = SIGINT;
        json d = document(make_config(), r, make_host());
        CHECK(d["summary"]["status"] == "failed");
        CHECK(d["summary"]["exit_code"] == 2);
        CHECK(d["summary"]["stop_reason"] == "signal");
    }
    SUBCASE("a fatal problem (filesystem full): error, exit 1, one line") {
        model::RunResult r = make_result(false);
        r.stop = model::StopReason::error;
        r.fatal_error = "/mnt/test/drivestress-0.dat: write: No space left on device";
        json d = document(make_config(), r, make_host());
        CHECK(d["summary"]["status"] == "error");
        CHECK(d["summary"]["exit_code"] == 1);
        CHECK(d["summary"]["stop_reason"] == "error");
        CHECK(d["summary"]["error"] ==
              "/mnt/test/drivestress-0.dat: write: No space left on device");
        CHECK(d["summary"]["signal"].is_null());
    }
    SUBCASE("a mismatch wins over a fatal problem") {
        model::RunResult r = make_result(true);
        r.stop = model::StopReason::error;
        r.fatal_error = "write: No space left on device";
        json d = document(make_config(), r, make_host());
        CHECK(d["summary"]["status"] == "failed");
        CHECK(d["summary"]["exit_code"] == 2);
    }
    SUBCASE("--duration reached is a clean pass") {
        model::RunResult r = make_result(false);
        r.stop = model::StopReason::duration;
        json d = document(make_config(), r, make_host());
        CHECK(d["summary"]["status"] == "passed");
        CHECK(d["summary"]["exit_code"] == 0);
        CHECK(d["summary"]["stop_reason"] == "duration");
        CHECK(d["summary"]["signal"].is_null());
    }
    SUBCASE("exit_code in the document equals exit_status()") {
        for (bool mm : {false, true}) {
            model::RunResult r = make_result(mm);
            json d = document(make_config(), r, make_host());
            CHECK(d["summary"]["exit_code"] == model::exit_status(r));
        }
    }
}

TEST_CASE("latency thresholds: the share of operations slower than each duration") {
    model::RunConfig cfg = make_config();
    cfg.latency_thresholds_s = {50e-6, 2.0};  // 50 us, 2 s
    json d = document(cfg, make_result(false), make_host());
    const json& t = d["merged_phases"][0]["latency_thresholds"];
    REQUIRE(t.is_array());
    REQUIRE(t.size() == 2);
    CHECK(t[0]["threshold_ns"] == 50'000);
    // Write samples are 10, 20, ... 160 us: 60 .. 160 us are slower than 50 us.
    CHECK(t[0]["slower_count"] == 11);
    CHECK(t[0]["slower_share"].get<double>() == doctest::Approx(11.0 / 16.0));
    CHECK(t[1]["threshold_ns"] == 2'000'000'000ULL);
    CHECK(t[1]["slower_count"] == 0);
    CHECK(t[1]["slower_share"] == 0.0);

    // Thresholds are rounded to the nearest nanosecond, not truncated:
    // "100us" parses to 100 * 1e-6 s, which times 1e9 is 99999.99999999999.
    cfg.latency_thresholds_s = {units::parse_duration("100us"), 100 * 1e-6, 0.3};
    d = document(cfg, make_result(false), make_host());
    const json& rounded = d["merged_phases"][0]["latency_thresholds"];
    REQUIRE(rounded.size() == 3);
    CHECK(rounded[0]["threshold_ns"] == 100'000);
    CHECK(rounded[1]["threshold_ns"] == 100'000);
    CHECK(rounded[2]["threshold_ns"] == 300'000'000);

    // No thresholds asked for: an empty list, still there.
    cfg.latency_thresholds_s.clear();
    d = document(cfg, make_result(false), make_host());
    CHECK(d["merged_phases"][0]["latency_thresholds"] == json::array());

    // A phase without operations reports share 0, not NaN.
    cfg.latency_thresholds_s = {1.0};
    model::RunResult r = make_result(false);
    r.merged_phases[0].counters = {};
    d = document(cfg, r, make_host());
    CHECK(d["merged_phases"][0]["latency_thresholds"][0]["slower_share"] == 0.0);
}

TEST_CASE("--rate: a phase's rate object holds the schedule's figures; closed loop: null") {
    model::RunConfig cfg = make_config();
    cfg.rate = 400;
    cfg.arrivals = model::Arrivals::poisson;
    model::RunResult res = make_result(false);
    res.begin_iteration(2, 0);
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.workers = 2;
    p.seconds = 2;
    p.requested_rate = 400;
    p.counters.read_ops = 700;  // 350 IOPS of 400: not met
    p.counters.read_bytes = 700 * 4096;
    p.counters.late_ops = 100;
    p.counters.max_lateness_ns = 250'000'000;
    for (int i = 0; i < 700; ++i) {
        p.counters.read_latency.record(1'000'000);
        p.counters.response_latency.record(i < 600 ? 1'010'000 : 200'000'000);
    }
    for (int i = 0; i < 600; ++i)
        p.counters.issue_error.record(10'000);
    res.add_phase(p);
    const json d = document(cfg, res, make_host());
    CHECK(d["config"]["rate_iops"] == 400.0);
    CHECK(d["config"]["arrivals"] == "poisson");
    const json* random = nullptr;
    for (const json& ph : d["merged_phases"]) {
        if (ph["phase"] != "random") CHECK(ph["rate"].is_null());
        if (ph["phase"] == "random") random = &ph;
    }
    REQUIRE(random);
    const json& r = (*random)["rate"];
    CHECK(r["requested_iops"] == 400.0);
    CHECK(r["achieved_iops"].get<double>() == doctest::Approx(350.0));
    CHECK(r["met"] == false);
    CHECK(r["arrivals"] == "poisson");
    CHECK(r["late_ops"] == 100);
    CHECK(r["max_lateness_ns"] == 250'000'000);
    CHECK(r["late_beyond_tolerance_ops"] == 0);
    CHECK(r["lateness_tolerance_ns"] == 50'000'000);  // 10 intervals of 200 a second
    CHECK(r["response_latency"]["count"] == 700);
    CHECK(r["issue_error"]["count"] == 600);
    CHECK(r["response_latency"]["percentiles_ns"]["p99"].get<std::uint64_t>() >= 199'000'000);
    CHECK((*random)["latency"]["percentiles_ns"]["p99"].get<std::uint64_t>() < 1'100'000);
}
