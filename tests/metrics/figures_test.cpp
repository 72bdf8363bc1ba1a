// The figures report/figures.h describes: each one in every view it names
// (JSON phase object, the schema's phase properties, Prometheus counters, the
// text phase line), from its one description.  A new entry in the table is
// tested here without a line of test code.
#include "report/figures.h"

#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <string>

#include "metrics/prometheus.h"
#include "model/config.h"
#include "report/json_report.h"
#include "report/text_report.h"
#include "tests/report/schema_path.h"  // DS_SCHEMA_PATH

using namespace ds;
using nlohmann::json;
using report::PhaseFigure;

namespace {

// A random phase whose every count differs from every other.
model::PhaseResult make_phase() {
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.workers = 2;
    p.seconds = 2.5;
    auto& c = p.counters;
    c.read_bytes = 7 * 4096;
    c.write_bytes = 3 * 4096;
    c.read_ops = 7;
    c.write_ops = 3;
    c.verified_bytes = 7 * 4096;
    c.unverified_units = 11;
    c.retries = 13;
    c.cancelled_ops = 17;
    c.flush_ops = 19;
    c.write_errors = 23;
    c.trim_ops = 29;
    c.trim_bytes = 29 * 4096;
    c.trimmed_units_read = 31;
    c.trim_not_honoured = 5;
    for (int i = 0; i < 7; ++i)
        c.read_latency.record(100'000);
    for (int i = 0; i < 3; ++i)
        c.write_latency.record(200'000);
    p.host.measured = true;
    p.host.seconds = 5.0;
    p.host.kernel_seconds = 1.25;
    return p;
}

json schema() {
    std::ifstream f(DS_SCHEMA_PATH);
    REQUIRE_MESSAGE(f.good(), "cannot open " DS_SCHEMA_PATH);
    return json::parse(f);
}

std::string prom_of(const model::PhaseResult& p) {
    metrics::PromState state;
    state.labels = {{"target", "/mnt/t"}};
    metrics::PromSeriesSet run;
    run.totals.add_phase(p);
    return metrics::prometheus_text(state, {run});
}

}  // namespace

TEST_CASE("every description is complete and its names are legal") {
    const std::regex metric_name("drivestress_[a-z_]+_total");
    for (const PhaseFigure& f : report::phase_figures()) {
        CAPTURE(f.key);
        CHECK(!f.unit.empty());
        CHECK(f.meaning.size() > 10);
        CHECK(static_cast<bool>(f.value));
        if (!f.metric.empty()) CHECK(std::regex_match(std::string(f.metric), metric_name));
    }
}

TEST_CASE("the schema's phase properties are the descriptions' fragments") {
    const json s = schema();
    const json& phase = s["$defs"]["phase"];
    for (const PhaseFigure& f : report::phase_figures()) {
        CAPTURE(f.key);
        const std::string key(f.key);
        REQUIRE(phase["properties"].contains(key));
        const json want = report::schema_property(f);
        CHECK_MESSAGE(
            phase["properties"][key] == want,
            "schema/result.schema.json $defs.phase.properties." << key << " should be " << want);
        const json& required = phase["required"];
        CHECK(std::find(required.begin(), required.end(), key) != required.end());
    }
}

TEST_CASE("each figure appears in JSON, Prometheus and text as described") {
    const model::PhaseResult p = make_phase();
    const json j = report::phase_json(p, model::RunConfig{});
    const std::string prom = prom_of(p);
    const std::string line = report::phase_line(p, {});
    for (const PhaseFigure& f : report::phase_figures()) {
        CAPTURE(f.key);
        REQUIRE(j.contains(std::string(f.key)));
        CHECK(j[std::string(f.key)].get<double>() == doctest::Approx(f.value(p)));
        if (f.kind == PhaseFigure::Kind::count) CHECK(j[std::string(f.key)].is_number_integer());
        if (!f.metric.empty()) {
            CHECK(prom.find("# TYPE " + std::string(f.metric) + " counter\n") != std::string::npos);
            CHECK(prom.find("# HELP " + std::string(f.metric) + " " + std::string(f.meaning)) !=
                  std::string::npos);
            const std::string sample =
                std::string(f.metric) + "{target=\"/mnt/t\",phase=\"random\"} ";
            const auto at = prom.find(sample);
            REQUIRE(at != std::string::npos);
            CHECK(std::stod(prom.substr(at + sample.size())) == doctest::Approx(f.value(p)));
        }
        if (f.text) CHECK(line.find(f.text(p)) != std::string::npos);
    }
}

TEST_CASE("a figure not measured for a phase is null in JSON and absent elsewhere") {
    model::PhaseResult p = make_phase();
    p.host = {};                                              // /proc/stat could not be read
    p.counters.trim_ops = p.counters.trimmed_units_read = 0;  // no --trim-pct
    const json j = report::phase_json(p, model::RunConfig{});
    const std::string line = report::phase_line(p, {});
    const std::string prom = prom_of(p);
    for (const PhaseFigure& f : report::phase_figures()) {
        if (!f.shown) continue;
        CAPTURE(f.key);
        CHECK(j[std::string(f.key)].is_null());
        if (f.text) CHECK(line.find(f.text(p)) == std::string::npos);
        if (!f.metric.empty()) CHECK(prom.find(std::string(f.metric) + "{") == std::string::npos);
    }
}

TEST_CASE("kernel I/O threads: the figure the recipe added, in all three views") {
    const model::PhaseResult p = make_phase();
    CHECK(report::phase_json(p, model::RunConfig{})["kernel_io_threads_cpu_s"] == 1.25);
    CHECK(report::phase_line(p, {}).find("kernel I/O threads 50 % of a core") != std::string::npos);
    CHECK(prom_of(p).find("drivestress_kernel_io_threads_cpu_seconds_total{target=\"/mnt/t\","
                          "phase=\"random\"} 1.25\n") != std::string::npos);
}
