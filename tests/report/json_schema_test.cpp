// schema/result.schema.json against the document: the schema is valid and
// closed, describes every key the code writes (and requires what it always
// writes), its enums are the code's names, synthetic documents validate and
// what a document must not contain is rejected.
#include <doctest/doctest.h>

#include "json_fixture.h"

using nlohmann::json;
using namespace ds;
using namespace ds::test::json_doc;

TEST_CASE("schema file: valid JSON, draft 2020-12, closed objects") {
    json s = load_schema();
    CHECK(s["$schema"] == "https://json-schema.org/draft/2020-12/schema");
    CHECK(s["type"] == "object");
    CHECK(s["additionalProperties"] == false);
    REQUIRE(s.contains("$defs"));
    CHECK(s["$defs"]["phase"]["additionalProperties"] == false);
    CHECK(s["$defs"]["mismatch_record"]["additionalProperties"] == false);
    CHECK(s["properties"]["schema_version"]["const"] == report::kSchemaVersion);
    CHECK(s["$defs"]["iteration_phase"]["additionalProperties"] == false);
}

TEST_CASE("schema file: every key the document has is described, every required key is there") {
    json s = load_schema();
    json d = document(make_config(), make_result(true), make_host());
    for (const auto& [k, _] : d.items()) {
        CAPTURE(k);
        CHECK(s["properties"].contains(k));
    }
    for (const auto& k : s["required"]) {
        CAPTURE(k);
        CHECK(d.contains(k.get<std::string>()));
    }
    // Everything the code always writes is required (a finished run's own
    // keys in the first alternative; the second is a run in progress, the
    // third a --verify-only document).
    REQUIRE(s["anyOf"].size() == 3);
    for (const auto& k : s["anyOf"][0]["required"])
        CHECK(d.contains(k.get<std::string>()));
    CHECK(s["required"].size() + s["anyOf"][0]["required"].size() == d.size());
    // A merged phase: the phase keys, and iterations and drift.
    const json& phase = d["merged_phases"][0];
    CHECK(s["$defs"]["phase"]["required"].size() + 2 == phase.size());
    for (const auto& [k, _] : phase.items()) {
        CAPTURE(k);
        CHECK(s["$defs"]["phase"]["properties"].contains(k));
    }
    const json& figures = d["iterations"][0]["phases"][0];
    // (This run's phases are too short to measure: that key is there too.)
    CHECK(figures.value("too_short", false));
    CHECK(s["$defs"]["iteration_phase"]["required"].size() + 1 == figures.size());
    for (const auto& [k, _] : figures.items()) {
        CAPTURE(k);
        CHECK(s["$defs"]["iteration_phase"]["properties"].contains(k));
    }
}

TEST_CASE("schema file: a target's object and its phases are described, keys and all") {
    json s = load_schema();
    model::RunResult r = make_result(true);
    model::TargetResult t;
    t.name = "loop3";
    t.raw = true;
    t.info.path = "/dev/loop3";
    t.files = 2;
    t.merged_phases = r.merged_phases;
    t.slow = model::SlowTarget{model::Phase::random, 10, 100, 90, 4};
    r.targets = {t};
    json d = document(make_config(), r, make_host());
    REQUIRE(d["targets"].size() == 1);
    const json& got = d["targets"][0];
    CHECK(got["name"] == "loop3");
    CHECK(got["slow"]["below_median_pct"] == 90.0);
    CHECK(got["raw_device"] == true);
    CHECK(s["$defs"]["target"]["required"].size() == got.size());
    for (const auto& [k, _] : got.items()) {
        CAPTURE(k);
        CHECK(s["$defs"]["target"]["properties"].contains(k));
    }
    REQUIRE(!got["merged_phases"].empty());
    const json& phase = got["merged_phases"][0];
    CHECK(s["$defs"]["target_phase"]["required"].size() == phase.size());
    for (const auto& [k, _] : phase.items()) {
        CAPTURE(k);
        CHECK(s["$defs"]["target_phase"]["properties"].contains(k));
    }
    CHECK(s["$defs"]["slow_target"]["required"].size() == got["slow"].size());
}

TEST_CASE("schema file: enums match the names the code writes") {
    json s = load_schema();
    json phases = json::array();
    for (auto p : model::kAllPhases)
        phases.push_back(std::string(model::to_string(p)));
    CHECK(s["$defs"]["phase_name"]["enum"] == phases);

    json classes = json::array();
    for (std::size_t i = 0; i < pattern::kMismatchClassCount; ++i)
        classes.push_back(std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i))));
    CHECK(s["$defs"]["mismatch_class"]["enum"] == classes);
    CHECK(s["$defs"]["class_counts"]["required"] == classes);

    const json& backend = s["$defs"]["backend"]["properties"];
    CHECK(backend["requested"]["enum"] ==
          json::array({std::string(model::to_string(model::BackendChoice::automatic)),
                       std::string(model::to_string(model::BackendChoice::io_uring)),
                       std::string(model::to_string(model::BackendChoice::sync))}));
    CHECK(backend["used"]["enum"] ==
          json::array({std::string(io::to_string(io::BackendKind::io_uring)),
                       std::string(io::to_string(io::BackendKind::sync))}));
    const json& summary = s["$defs"]["summary"]["properties"];
    CHECK(summary["status"]["enum"] ==
          json::array({"passed", "no-verdict", "failed", "error", "interrupted", "running"}));
    CHECK(summary["stop_reason"]["enum"] ==
          json::array({"completed", "duration", "signal", "error", nullptr}));
}

TEST_CASE("synthetic documents validate against the schema") {
    SchemaValidator v(load_schema());
    model::RunConfig cfg = make_config();

    SUBCASE("with a mismatch (header found)") {
        auto errors = v.errors(document(cfg, make_result(true), make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("clean, io_uring") {
        auto errors = v.errors(document(cfg, make_result(false), make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("sync fallback, no O_DIRECT, rand-ops, duration, interrupted") {
        model::RunResult r = make_result(false);
        r.backend.used = io::BackendKind::sync;
        r.backend.fallback_reason = "io_uring_setup: Operation not permitted";
        r.backend.effective_qd = 1;
        r.backend.seq_qd = 1;
        r.direct_io = false;
        r.direct_io_note = "O_DIRECT refused";
        r.stop = model::StopReason::signal;
        r.stop_signal = SIGTERM;
        cfg.rand_ops = 500;
        cfg.duration_s = 60;
        auto errors = v.errors(document(cfg, r, make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("ended by a fatal problem") {
        model::RunResult r = make_result(false);
        r.stop = model::StopReason::error;
        r.fatal_error = "write: No space left on device";
        auto errors = v.errors(document(cfg, r, make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("io-error record without a header") {
        model::RunResult r = make_result(true);
        r.mismatch_records[0].found.reset();
        r.mismatch_records[0].cls = pattern::MismatchClass::io_error;
        r.mismatch_records[0].error = 5;
        auto errors = v.errors(document(cfg, r, make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
}

TEST_CASE("the schema rejects what the document must not contain") {
    SchemaValidator v(load_schema());
    const json good = document(make_config(), make_result(true), make_host());
    REQUIRE(v.errors(good).empty());

    json d = good;
    d["debug_note"] = "diagnostics never go in the document";
    CHECK(!v.errors(d).empty());

    d = good;
    d["iterations"][0]["phases"][0]["extra_metric"] = 1;
    CHECK(!v.errors(d).empty());

    d = good;
    d["iterations"][0]["phases"][0]["latency"] = d["merged_phases"][0]["latency"];  // no histograms
    CHECK(!v.errors(d).empty());

    d = good;
    d["iterations"][0]["phases"][0]["interrupted"] = false;  // present only when true
    CHECK(!v.errors(d).empty());

    d = good;
    d["merged_phases"][0]["extra_metric"] = 1;
    CHECK(!v.errors(d).empty());

    d = good;
    d["merged_phases"][0].erase("drift");
    CHECK(!v.errors(d).empty());

    d = good;
    d["merged_phases"][0]["bandwidth_bytes_per_sec"] = "33554432";
    CHECK(!v.errors(d).empty());

    d = good;
    d["summary"]["exit_code"] = nullptr;  // only while in progress
    CHECK(!v.errors(d).empty());

    d = good;
    d["in_progress"] = true;  // without a progress object and a running status
    CHECK(!v.errors(d).empty());

    d = good;
    d["summary"].erase("exit_code");
    CHECK(!v.errors(d).empty());

    d = good;
    d["mismatches"][0]["class"] = "bitrot";
    CHECK(!v.errors(d).empty());

    d = good;
    d["summary"]["status"] = "ok";
    CHECK(!v.errors(d).empty());

    d = good;
    d["backend"]["used"] = "sync";  // but io_uring features are present
    CHECK(!v.errors(d).empty());

    d = good;
    d["merged_phases"][0]["latency"]["histogram"]["buckets"][0] = json::array({1, 2, 3});
    CHECK(!v.errors(d).empty());

    d = good;
    d["schema_version"] = 1;  // iterations[] held whole phases then
    CHECK(!v.errors(d).empty());
}
