#include "report/prometheus.h"

#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "pattern/unit.h"
#include "run/results.h"

using ds::report::prometheus_escape_label;
using ds::report::prometheus_text;

namespace {

// A path with everything the exposition format must escape in a label.
const std::string kTarget = "/mnt/we\"ird\\dir";
const std::string kTargetEscaped = "/mnt/we\\\"ird\\\\dir";

ds::run::PhaseResult phase(ds::run::Phase which, double seconds, std::uint64_t read_ops,
                           std::uint64_t write_ops, std::uint64_t op_bytes,
                           const std::vector<std::uint64_t>& latencies_ns) {
    ds::run::PhaseResult p;
    p.phase = which;
    p.seconds = seconds;
    p.counters.read_ops = read_ops;
    p.counters.write_ops = write_ops;
    p.counters.read_bytes = read_ops * op_bytes;
    p.counters.write_bytes = write_ops * op_bytes;
    // Reads take the first half of the samples, writes the rest.
    for (std::size_t i = 0; i < latencies_ns.size(); ++i)
        (i < latencies_ns.size() / 2 ? p.counters.read_latency : p.counters.write_latency)
            .record(latencies_ns[i]);
    return p;
}

struct Fixture {
    ds::run::RunConfig cfg;
    ds::run::RunResult res;
    std::vector<std::uint64_t> random_lat;

    Fixture() {
        using ds::run::Phase;
        cfg.target = kTarget;
        res.backend.used = ds::io::BackendKind::sync;
        res.started_at = "2024-05-01T12:00:00Z";  // 1714564800
        res.wall_seconds = 30.5;
        // 1..1000 us: p50 about 500 us, p99 about 990 us, max exactly 1000 us.
        for (std::uint64_t i = 1; i <= 1000; ++i)
            random_lat.push_back(i * 1000);

        res.begin_iteration(1, 0);
        res.add_phase(phase(Phase::seq_write, 1.0, 0, 10, 1 << 20, {5'000'000}));
        res.begin_iteration(2, 0);
        // 64 MiB written in 0.5 s = 128 MiB/s, 64 ops / 0.5 s = 128 IOPS.
        res.add_phase(phase(Phase::seq_write, 0.5, 0, 64, 1 << 20,
                            std::vector<std::uint64_t>(64, 2'000'000)));
        // 700 reads + 300 writes of 4 KiB in 2 s.
        res.add_phase(phase(Phase::random, 2.0, 700, 300, 4096, random_lat));
        // Interrupted before its first operation: no latency samples.
        res.add_phase(phase(Phase::reverify, 0.0, 0, 0, 4096, {}));
        res.mismatch_totals[static_cast<std::size_t>(ds::pattern::MismatchClass::torn)] = 3;
        res.mismatch_totals[static_cast<std::size_t>(ds::pattern::MismatchClass::io_error)] = 1;
    }
};

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// name{labels} -> value, for every sample line.
std::map<std::string, std::string> samples_of(const std::string& text) {
    std::map<std::string, std::string> m;
    for (const auto& line : lines_of(text)) {
        if (line.empty() || line[0] == '#') continue;
        auto sp = line.rfind(' ');
        m[line.substr(0, sp)] = line.substr(sp + 1);
    }
    return m;
}

double value_of(const std::map<std::string, std::string>& samples, const std::string& key) {
    auto it = samples.find(key);
    REQUIRE_MESSAGE(it != samples.end(), "no sample " << key);
    return std::stod(it->second);
}

std::string phase_labels(const char* phase, const char* iteration) {
    return std::string("{phase=\"") + phase + "\",target=\"" + kTargetEscaped +
           "\",backend=\"sync\",iteration=\"" + iteration + "\"}";
}

}  // namespace

TEST_CASE("every line is a well-formed HELP, TYPE or sample line") {
    Fixture f;
    const std::string text = prometheus_text(f.cfg, f.res);
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');

    const std::string name = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    // A label value: anything but \, " and newline, or one of the three escapes.
    const std::string label = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
    const std::string value = "(?:[-+]?[0-9]+(?:\\.[0-9]+)?(?:e[-+]?[0-9]+)?|NaN|[-+]Inf)";
    const std::regex help_re("# HELP (" + name + ") [^\\n]+");
    const std::regex type_re("# TYPE (" + name + ") (counter|gauge|histogram|summary|untyped)");
    const std::regex sample_re("(" + name + ")(?:\\{" + label + "(?:," + label + ")*\\})? " +
                               value);

    std::set<std::string> helped, typed;
    std::string family;  // the metric whose samples may follow
    std::size_t samples = 0;
    for (const auto& line : lines_of(text)) {
        CAPTURE(line);
        std::smatch m;
        if (std::regex_match(line, m, help_re)) {
            CHECK(helped.insert(m[1]).second);  // once per metric
            family = m[1];
        } else if (std::regex_match(line, m, type_re)) {
            CHECK(typed.insert(m[1]).second);
            CHECK(m[1] == family);  // TYPE right after its HELP
            CHECK(m[2] == "gauge");
        } else if (std::regex_match(line, m, sample_re)) {
            CHECK(m[1] == family);  // samples follow their own HELP/TYPE
            CHECK(typed.count(m[1]) == 1);
            ++samples;
        } else {
            FAIL("malformed line");
        }
    }
    CHECK(helped == typed);
    CHECK(helped == std::set<std::string>{
                        "drivestress_bandwidth_bytes_per_second", "drivestress_iops",
                        "drivestress_latency_p50_seconds", "drivestress_latency_p99_seconds",
                        "drivestress_latency_max_seconds", "drivestress_mismatches_total",
                        "drivestress_exit_status", "drivestress_last_run_timestamp_seconds"});
    // 3 phases x (bandwidth, iops) + 2 phases x (p50, p99, max) + 9 classes + 2.
    CHECK(samples == 3 * 2 + 2 * 3 + ds::pattern::kMismatchClassCount + 2);
}

TEST_CASE("label values escape backslash, double quote and newline") {
    CHECK(prometheus_escape_label("plain/path") == "plain/path");
    CHECK(prometheus_escape_label("a\"b") == "a\\\"b");
    CHECK(prometheus_escape_label("a\\b") == "a\\\\b");
    CHECK(prometheus_escape_label("a\nb") == "a\\nb");
    CHECK(prometheus_escape_label("\\\"\n") == "\\\\\\\"\\n");

    Fixture f;
    const std::string text = prometheus_text(f.cfg, f.res);
    CHECK(text.find("target=\"" + kTargetEscaped + "\"") != std::string::npos);
    CHECK(text.find(kTarget) == std::string::npos);  // never unescaped

    f.cfg.target = "/mnt/two\nlines";
    const std::string text2 = prometheus_text(f.cfg, f.res);
    CHECK(text2.find("target=\"/mnt/two\\nlines\"") != std::string::npos);
    for (const auto& line : lines_of(text2))  // the newline did not split a sample
        CHECK(line.rfind("lines\"", 0) != 0);
}

TEST_CASE("values come from the latest iteration, mismatches and exit status from the run") {
    Fixture f;
    const auto s = samples_of(prometheus_text(f.cfg, f.res));

    // Iteration 1 is not reported per phase.
    CHECK(s.count("drivestress_iops" + phase_labels("seq-write", "1")) == 0);

    CHECK(value_of(s, "drivestress_bandwidth_bytes_per_second" + phase_labels("seq-write", "2")) ==
          doctest::Approx(128.0 * 1048576));
    CHECK(value_of(s, "drivestress_iops" + phase_labels("seq-write", "2")) == doctest::Approx(128));
    CHECK(value_of(s, "drivestress_bandwidth_bytes_per_second" + phase_labels("random", "2")) ==
          doctest::Approx(1000.0 * 4096 / 2));
    CHECK(value_of(s, "drivestress_iops" + phase_labels("random", "2")) == doctest::Approx(500));
    CHECK(value_of(s, "drivestress_latency_p50_seconds" + phase_labels("seq-write", "2")) ==
          doctest::Approx(0.002).epsilon(0.004));

    // Random-phase latency: reads and writes together, through the histogram.
    ds::stats::LatencyHistogram h;
    for (auto v : f.random_lat)
        h.record(v);
    CHECK(value_of(s, "drivestress_latency_p50_seconds" + phase_labels("random", "2")) ==
          doctest::Approx(h.value_at_percentile(50) * 1e-9));
    CHECK(value_of(s, "drivestress_latency_p99_seconds" + phase_labels("random", "2")) ==
          doctest::Approx(h.value_at_percentile(99) * 1e-9));
    CHECK(value_of(s, "drivestress_latency_p99_seconds" + phase_labels("random", "2")) ==
          doctest::Approx(990e-6).epsilon(0.004));
    CHECK(value_of(s, "drivestress_latency_max_seconds" + phase_labels("random", "2")) ==
          doctest::Approx(1e-3));

    // A phase without operations: rates of 0, no latency samples.
    CHECK(value_of(s, "drivestress_iops" + phase_labels("reverify", "2")) == 0);
    CHECK(s.count("drivestress_latency_p99_seconds" + phase_labels("reverify", "2")) == 0);

    const std::string run = "target=\"" + kTargetEscaped + "\",backend=\"sync\"}";
    CHECK(value_of(s, "drivestress_mismatches_total{class=\"torn\"," + run) == 3);
    CHECK(value_of(s, "drivestress_mismatches_total{class=\"io-error\"," + run) == 1);
    CHECK(value_of(s, "drivestress_mismatches_total{class=\"stale\"," + run) == 0);
    CHECK(value_of(s, "drivestress_exit_status{" + run) == 2);
    CHECK(value_of(s, "drivestress_last_run_timestamp_seconds{" + run) ==
          doctest::Approx(1714564830.5));

    f.res.mismatch_totals = {};
    CHECK(value_of(samples_of(prometheus_text(f.cfg, f.res)), "drivestress_exit_status{" + run) ==
          0);
}

TEST_CASE("a run without iterations still renders every metric's HELP and TYPE") {
    ds::run::RunConfig cfg;
    ds::run::RunResult res;
    res.fatal_error = "no space left";
    const std::string text = prometheus_text(cfg, res);
    CHECK(text.find("# TYPE drivestress_iops gauge\n") != std::string::npos);
    CHECK(text.find("drivestress_iops{") == std::string::npos);
    CHECK(value_of(samples_of(text),
                   "drivestress_exit_status{target=\".\",backend=\"io_uring\"}") == 1);
}
