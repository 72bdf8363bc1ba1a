// Where the results go and what they hold: --prom with its labels and pace,
// --interval, --iteration-detail and --latency-thresholds.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cli/command_line.h"

using ds::cli::Outputs;
using ds::cli::parse_command_line;
using ds::cli::ParsedCommandLine;
using ds::cli::UsageError;
using ds::model::RunConfig;

namespace {

using Args = std::vector<std::string>;

RunConfig parse(const Args& args) {
    ParsedCommandLine p = parse_command_line(args);
    REQUIRE(p.action == ParsedCommandLine::Action::run);
    return p.config;
}

Outputs outputs(const Args& args) {
    return parse_command_line(args).outputs;
}

// The UsageError message for `args`, or "" when they are accepted (so a
// missing rejection fails the check on the message).
std::string usage_error(const Args& args) {
    try {
        parse_command_line(args);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// Checks that `args` are rejected with a message naming `option`.
void check_rejected(const Args& args, const std::string& option) {
    std::string msg = usage_error(args);
    CAPTURE(msg);
    CHECK(!msg.empty());
    CHECK(contains(msg, option));
}

}  // namespace

TEST_CASE("--prom, --prom-label and --prom-interval") {
    const std::string prom = "/tmp/options_test_never_written.prom";
    ParsedCommandLine p = parse_command_line({"--prom", prom, "--prom-label", "rack=r12",
                                              "--prom-label", "drive=bay 3 \"left\"", "/tmp"});
    CHECK(p.outputs.prom.text() == prom);
    CHECK(p.outputs.prom_labels == std::vector<std::pair<std::string, std::string>>{
                                       {"rack", "r12"}, {"drive", "bay 3 \"left\""}});
    CHECK(p.outputs.prom_interval_s == 5);  // the default
    CHECK(outputs({"--prom", prom, "--prom-interval", "250ms", "/tmp"}).prom_interval_s ==
          doctest::Approx(0.25));
    // A value may hold '=': only the first one splits.
    CHECK(outputs({"--prom", prom, "--prom-label", "k=a=b", "/tmp"}).prom_labels ==
          std::vector<std::pair<std::string, std::string>>{{"k", "a=b"}});

    check_rejected({"--prom-label", "rack=r12", "/tmp"}, "--prom-label needs --prom");
    check_rejected({"--prom-interval", "10s", "/tmp"}, "--prom-interval needs --prom");
    check_rejected({"--prom", prom, "--prom-label", "rack", "/tmp"}, "KEY=VALUE");
    // (Label names and values follow the exposition format's rules, which
    // main checks with the report layer: prometheus_test and the hostile
    // input table.)
    check_rejected({"--prom", prom, "--prom-label", "a=1", "--prom-label", "a=2", "/tmp"},
                   "given twice");
    check_rejected({"--prom", prom, "--prom-interval", "50ms", "/tmp"}, "--prom-interval");
    check_rejected({"--prom", prom, "--prom-interval", "soon", "/tmp"}, "--prom-interval");
    check_rejected({"--prom", prom, "--compare-backends", "/tmp"}, "--compare-backends");
    // Where there is no run there is no textfile.
    check_rejected({"--verify-only", "/tmp/x.state", "--prom-label", "a=b"}, "--prom-label");
}

TEST_CASE("--interval: the length of a --timeseries line, 100ms to 60s") {
    const std::string ts = "/tmp/options_test_never_written.ndjson";
    CHECK(parse_command_line({"/tmp"}).config.interval_s == 1);  // the default
    CHECK(
        parse_command_line({"--timeseries", ts, "--interval", "250ms", "/tmp"}).config.interval_s ==
        doctest::Approx(0.25));
    CHECK(parse_command_line({"--timeseries", ts, "--interval", "1m", "/tmp"}).config.interval_s ==
          60);
    CHECK(usage_error({"--timeseries", ts, "--interval", "50ms", "/tmp"}).find("--interval") !=
          std::string::npos);
    CHECK(usage_error({"--timeseries", ts, "--interval", "61s", "/tmp"}).find("100ms and 60s") !=
          std::string::npos);
    CHECK(usage_error({"--interval", "2s", "/tmp"}).find("needs --timeseries") !=
          std::string::npos);
}

TEST_CASE("--iteration-detail: how many last iterations keep their histograms") {
    CHECK(parse({}).iteration_detail == 0);
    CHECK(parse({"--iteration-detail", "5"}).iteration_detail == 5);
    CHECK(parse({"--iteration-detail", "10000"}).iteration_detail == 10000);
    CHECK(contains(parse_command_line({"--help"}).help_text, "--iteration-detail"));
    check_rejected({"--iteration-detail", "10001"}, "--iteration-detail");
    check_rejected({"--iteration-detail", "-1"}, "--iteration-detail");
    check_rejected({"--iteration-detail", "x"}, "--iteration-detail");
}

TEST_CASE("--latency-thresholds: durations, or the seed tool's by name") {
    CHECK(parse({"--latency-thresholds", "1s,500ms"}).latency_thresholds_s ==
          std::vector<double>{1.0, 0.5});
    CHECK(parse({"--latency-thresholds", "2m"}).latency_thresholds_s == std::vector<double>{120.0});
    // The seed tool's thresholds stay available by name.
    CHECK(parse({"--latency-thresholds", "seed"}).latency_thresholds_s ==
          std::vector<double>{2.0, 10.0});
    check_rejected({"--latency-thresholds", "0"}, "--latency-thresholds");
    check_rejected({"--latency-thresholds", "1s,,2s"}, "--latency-thresholds");
    check_rejected({"--latency-thresholds", "soon"}, "--latency-thresholds");
}

TEST_CASE("latency thresholds and knee gain") {
    auto d = parse_command_line({});
    CHECK(d.config.latency_thresholds_s ==
          std::vector<double>{1e-3, 1e-2, 1e-1});  // 1ms,10ms,100ms
    CHECK(d.config.knee_gain_pct == 5);
    auto c = parse_command_line({"--latency-thresholds", "500us,1s", "--knee-gain", "10"});
    CHECK(c.config.latency_thresholds_s == std::vector<double>{0.0005, 1});
    CHECK(c.config.knee_gain_pct == 10);
    CHECK_THROWS_AS(parse_command_line({"--latency-thresholds", "0"}), UsageError);
    CHECK_THROWS_AS(parse_command_line({"--latency-thresholds", "1s,,2s"}), UsageError);
}
