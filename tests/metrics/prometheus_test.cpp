// The Prometheus exposition: the fixed bucket set, exact le text, well-formed
// lines and names, histograms, counters, labels for presets, repeats and targets.
#include "metrics/prometheus.h"

#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "model/phase_result.h"
#include "pattern/unit.h"
#include "stats/histogram.h"

using namespace ds;
using metrics::prometheus_escape_label;
using metrics::prometheus_text;

namespace {

// A path with everything the exposition format must escape in a label.
const std::string kTarget = "/mnt/we\"ird\\dir";
const std::string kTargetEscaped = "/mnt/we\\\"ird\\\\dir";

// The `le` of every bucket, as every host and version must spell them: a
// change here breaks every dashboard that sums old and new hosts.
const std::vector<std::string> kGoldenLe = {
    "0.000001024",  "0.000001216",  "0.000001448",  "0.00000172",   "0.000002048",  "0.000002432",
    "0.000002896",  "0.00000344",   "0.000004096",  "0.000004864",  "0.000005792",  "0.00000688",
    "0.000008192",  "0.000009728",  "0.000011584",  "0.00001376",   "0.000016384",  "0.000019456",
    "0.000023168",  "0.00002752",   "0.000032768",  "0.000038912",  "0.000046336",  "0.00005504",
    "0.000065536",  "0.000077824",  "0.000092672",  "0.00011008",   "0.000131072",  "0.000155648",
    "0.000185344",  "0.00022016",   "0.000262144",  "0.000311296",  "0.000370688",  "0.00044032",
    "0.000524288",  "0.000622592",  "0.000741376",  "0.00088064",   "0.001048576",  "0.001245184",
    "0.001482752",  "0.00176128",   "0.002097152",  "0.002490368",  "0.002965504",  "0.00352256",
    "0.004194304",  "0.004980736",  "0.005931008",  "0.00704512",   "0.008388608",  "0.009961472",
    "0.011862016",  "0.01409024",   "0.016777216",  "0.019922944",  "0.023724032",  "0.02818048",
    "0.033554432",  "0.039845888",  "0.047448064",  "0.05636096",   "0.067108864",  "0.079691776",
    "0.094896128",  "0.11272192",   "0.134217728",  "0.159383552",  "0.189792256",  "0.22544384",
    "0.268435456",  "0.318767104",  "0.379584512",  "0.45088768",   "0.536870912",  "0.637534208",
    "0.759169024",  "0.90177536",   "1.073741824",  "1.275068416",  "1.518338048",  "1.80355072",
    "2.147483648",  "2.550136832",  "3.036676096",  "3.60710144",   "4.294967296",  "5.100273664",
    "6.073352192",  "7.21420288",   "8.589934592",  "10.200547328", "12.146704384", "14.42840576",
    "17.179869184", "20.401094656", "24.293408768", "28.85681152",  "34.359738368", "40.802189312",
    "48.586817536", "57.71362304",  "68.719476736"};

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

model::PhaseResult phase(model::Phase which, double seconds,
                         const std::vector<std::uint64_t>& reads_ns,
                         const std::vector<std::uint64_t>& writes_ns, std::uint64_t op_bytes) {
    model::PhaseResult p;
    p.phase = which;
    p.seconds = seconds;
    for (auto ns : reads_ns)
        p.counters.read_latency.record(ns);
    for (auto ns : writes_ns)
        p.counters.write_latency.record(ns);
    p.counters.read_ops = reads_ns.size();
    p.counters.write_ops = writes_ns.size();
    p.counters.read_bytes = reads_ns.size() * op_bytes;
    p.counters.write_bytes = writes_ns.size() * op_bytes;
    p.counters.verified_bytes = p.counters.read_bytes;
    return p;
}

std::vector<std::uint64_t> range_ns(std::uint64_t from, std::uint64_t step, std::size_t n) {
    std::vector<std::uint64_t> v;
    for (std::size_t i = 0; i < n; ++i)
        v.push_back(from + i * step);
    return v;
}

metrics::PromState make_state() {
    metrics::PromState s;
    s.labels = {{"target", kTarget}, {"rack", "r12"}};
    s.version = "0.1.0";
    s.backend = "io_uring";
    s.kernel = "6.1.0-18-amd64";
    s.drive.name = "nvme0n1";
    s.drive.model = "Test NVMe";
    s.phase = model::Phase::random;
    s.iteration = 2;
    s.start_time_s = 1714564800;
    s.now_s = 1714564830.5;
    return s;
}

// Two iterations of seq-write and random: 8 + 8 writes of 1 MiB, 700 reads
// and 300 writes of 4 KiB (1 us .. 1 ms) in each random phase.
metrics::PromSeriesSet make_run() {
    metrics::PromSeriesSet run;
    model::RunConfig cfg;
    cfg.phases = {model::Phase::seq_write, model::Phase::random};
    run.totals.expect(cfg);
    for (int it = 0; it < 2; ++it) {
        run.totals.add_phase(
            phase(model::Phase::seq_write, 0.5, {}, range_ns(2'000'000, 1000, 8), 1 << 20));
        run.totals.add_phase(phase(model::Phase::random, 2.0, range_ns(1000, 1000, 700),
                                   range_ns(701'000, 1000, 300), 4096));
        ++run.totals.iterations;
    }
    return run;
}

std::string labels(const std::string& more = {}) {
    return "{target=\"" + kTargetEscaped + "\",rack=\"r12\"" + (more.empty() ? "" : "," + more) +
           "}";
}

}  // namespace

TEST_CASE("one fixed bucket set: exact LatencyHistogram boundaries, four per power of two") {
    const auto& bounds = metrics::prom_latency_bounds_ns();
    REQUIRE(bounds.size() == kGoldenLe.size());
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        CAPTURE(i);
        CHECK(metrics::prom_seconds_text(bounds[i]) == kGoldenLe[i]);
        // A boundary of the fine histogram: its counts split exactly there.
        CHECK(stats::LatencyHistogram::bucket_lower(
                  stats::LatencyHistogram::bucket_of(bounds[i])) == bounds[i]);
        if (i == 0) continue;
        const double ratio = double(bounds[i]) / double(bounds[i - 1]);
        CHECK(ratio > 1.18);
        CHECK(ratio <= 1.0 + metrics::kPromQuantileRelativeError);
    }
    CHECK(bounds.front() == 1024);
    CHECK(bounds.back() == (std::uint64_t{1} << 36));
    CHECK(metrics::kPromQuantileRelativeError == doctest::Approx(0.19079).epsilon(1e-4));
}

TEST_CASE("le text is exact decimal seconds") {
    CHECK(metrics::prom_seconds_text(0) == "0");
    CHECK(metrics::prom_seconds_text(1'000'000'000) == "1");
    CHECK(metrics::prom_seconds_text(1'500'000'000) == "1.5");
    CHECK(metrics::prom_seconds_text(1) == "0.000000001");
    CHECK(metrics::prom_seconds_text(68'719'476'736) == "68.719476736");
}

TEST_CASE("a histogram counts each operation below its bucket's bound, exactly") {
    stats::LatencyHistogram fine;
    fine.record(500);              // below the first bound
    fine.record(1023);             // just below 1024
    fine.record(1024);             // at a bound: the next bucket
    fine.record(1215);             // just below 1216
    fine.record(100'000'000'000);  // 100 s: above the top bound
    metrics::PromHistogram h;
    h.add(fine);
    CHECK(h.count == 5);
    CHECK(h.sum_ns == 500 + 1023 + 1024 + 1215 + 100'000'000'000ULL);
    CHECK(h.max_ns == 100'000'000'000ULL);
    CHECK(h.buckets[0] == 2);
    CHECK(h.buckets[1] == 2);
    CHECK(h.buckets[metrics::kPromLatencyBounds] == 1);
    std::uint64_t total = 0;
    for (auto n : h.buckets)
        total += n;
    CHECK(total == 5);

    metrics::PromHistogram twice = h;
    twice.add(h);
    CHECK(twice.count == 10);
    CHECK(twice.buckets[1] == 4);
}

TEST_CASE("every line is a well-formed HELP, TYPE or sample line; names follow the conventions") {
    const std::string text = prometheus_text(make_state(), {make_run()});
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');

    const std::string name = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    // A label value: anything but \, " and newline, or one of the three escapes.
    const std::string label = "[a-zA-Z_][a-zA-Z0-9_]*=\"(?:[^\"\\\\\\n]|\\\\[\\\\\"n])*\"";
    const std::string value = "(?:[-+]?[0-9]+(?:\\.[0-9]+)?(?:e[-+]?[0-9]+)?|NaN|[-+]Inf)";
    const std::regex help_re("# HELP (" + name + ") [^\\n]+");
    const std::regex type_re("# TYPE (" + name + ") (counter|gauge|histogram)");
    const std::regex sample_re("(" + name + ")(?:\\{" + label + "(?:," + label + ")*\\})? " +
                               value);

    std::map<std::string, std::string> types;
    std::string family;  // the metric whose samples may follow
    for (const auto& line : lines_of(text)) {
        CAPTURE(line);
        std::smatch m;
        if (std::regex_match(line, m, help_re)) {
            CHECK(types.count(m[1]) == 0);  // once per metric
            family = m[1];
        } else if (std::regex_match(line, m, type_re)) {
            CHECK(m[1] == family);  // TYPE right after its HELP
            types[m[1]] = m[2];
        } else if (std::regex_match(line, m, sample_re)) {
            std::string sample = m[1];
            if (types[family] == "histogram") {
                CHECK((sample == family + "_bucket" || sample == family + "_sum" ||
                       sample == family + "_count"));
            } else {
                CHECK(sample == family);
            }
        } else {
            FAIL("malformed line");
        }
    }
    for (const auto& [metric, type] : types) {
        CAPTURE(metric);
        CHECK(metric.rfind("drivestress_", 0) == 0);
        const bool total = metric.size() > 6 && metric.substr(metric.size() - 6) == "_total";
        CHECK(total == (type == "counter"));  // counters, and only they, end in _total
    }
    CHECK(types == std::map<std::string, std::string>{
                       {"drivestress_info", "gauge"},
                       {"drivestress_drive_info", "gauge"},
                       {"drivestress_running", "gauge"},
                       {"drivestress_phase", "gauge"},
                       {"drivestress_iteration", "gauge"},
                       {"drivestress_verdict", "gauge"},
                       {"drivestress_start_time_seconds", "gauge"},
                       {"drivestress_last_update_timestamp_seconds", "gauge"},
                       {"drivestress_iterations_total", "counter"},
                       {"drivestress_phase_seconds_total", "counter"},
                       {"drivestress_ops_total", "counter"},
                       {"drivestress_bytes_total", "counter"},
                       {"drivestress_verified_bytes_total", "counter"},
                       {"drivestress_mismatches_total", "counter"},
                       {"drivestress_write_errors_total", "counter"},
                       {"drivestress_cpu_seconds_total", "counter"},
                       {"drivestress_kernel_io_threads_cpu_seconds_total", "counter"},
                       {"drivestress_op_latency_max_seconds", "gauge"},
                       {"drivestress_op_latency_seconds", "histogram"}});
}

TEST_CASE("histograms: cumulative buckets on the fixed set, +Inf equals _count, _sum in seconds") {
    const auto s = samples_of(prometheus_text(make_state(), {make_run()}));
    const std::string op = "phase=\"random\",op=\"read\"";
    std::uint64_t previous = 0;
    for (const auto& le : kGoldenLe) {
        const double v = value_of(
            s, "drivestress_op_latency_seconds_bucket" + labels(op + ",le=\"" + le + "\""));
        CHECK(v >= previous);
        previous = static_cast<std::uint64_t>(v);
    }
    // Reads took 1 us .. 700 us: all below 0.000737... and above 0.00000172.
    CHECK(
        value_of(s, "drivestress_op_latency_seconds_bucket" + labels(op + ",le=\"0.00000172\"")) ==
        2 * 1);  // 1000 ns, in each of two iterations
    CHECK(value_of(s, "drivestress_op_latency_seconds_bucket" + labels(op + ",le=\"+Inf\"")) ==
          1400);
    CHECK(value_of(s, "drivestress_op_latency_seconds_count" + labels(op)) == 1400);
    CHECK(value_of(s, "drivestress_ops_total" + labels(op)) == 1400);
    // Sum of 1..700 us, twice.
    CHECK(value_of(s, "drivestress_op_latency_seconds_sum" + labels(op)) ==
          doctest::Approx(2 * 700 * 701 / 2 * 1e-6));
    CHECK(value_of(s, "drivestress_op_latency_max_seconds" + labels(op)) ==
          doctest::Approx(700e-6));
    CHECK(value_of(s, "drivestress_op_latency_seconds_count" +
                          labels("phase=\"seq-write\",op=\"write\"")) == 16);
    // No series for what the run cannot do: seq-write reads, flushes without --sync.
    CHECK(s.count("drivestress_ops_total" + labels("phase=\"seq-write\",op=\"read\"")) == 0);
    CHECK(s.count("drivestress_ops_total" + labels("phase=\"random\",op=\"flush\"")) == 0);
}

TEST_CASE("counters, state and info") {
    auto run = make_run();
    run.totals.mismatches[static_cast<std::size_t>(pattern::MismatchClass::torn)] = 3;
    auto state = make_state();
    const auto s = samples_of(prometheus_text(state, {run}));
    CHECK(value_of(s, "drivestress_iterations_total" + labels()) == 2);
    CHECK(value_of(s, "drivestress_phase_seconds_total" + labels("phase=\"random\"")) == 4.0);
    CHECK(value_of(s, "drivestress_bytes_total" + labels("phase=\"seq-write\",op=\"write\"")) ==
          16.0 * (1 << 20));
    CHECK(value_of(s, "drivestress_verified_bytes_total" + labels("phase=\"random\"")) ==
          1400.0 * 4096);
    CHECK(value_of(s, "drivestress_mismatches_total" + labels("class=\"torn\"")) == 3);
    CHECK(value_of(s, "drivestress_mismatches_total" + labels("class=\"stale\"")) == 0);
    CHECK(value_of(s, "drivestress_running" + labels()) == 1);
    CHECK(value_of(s, "drivestress_phase" + labels("phase=\"random\"")) == 1);
    CHECK(value_of(s, "drivestress_phase" + labels("phase=\"seq-write\"")) == 0);
    CHECK(value_of(s, "drivestress_iteration" + labels()) == 2);
    CHECK(value_of(s, "drivestress_verdict" + labels("verdict=\"running\"")) == 1);
    CHECK(s.count("drivestress_exit_status" + labels()) == 0);  // not before the end
    CHECK(value_of(s, "drivestress_info" +
                          labels("version=\"0.1.0\",schema_version=\"6\","
                                 "backend=\"io_uring\",kernel=\"6.1.0-18-amd64\"")) == 1);
    // What sysfs did not tell (serial, firmware) is no label at all.
    CHECK(value_of(
              s, "drivestress_drive_info" + labels("device=\"nvme0n1\",model=\"Test NVMe\"")) == 1);
    CHECK(value_of(s, "drivestress_last_update_timestamp_seconds" + labels()) ==
          doctest::Approx(1714564830.5));

    state.running = false;
    state.verdict = "failed";
    state.exit_status = 2;
    const auto end = samples_of(prometheus_text(state, {run}));
    CHECK(value_of(end, "drivestress_running" + labels()) == 0);
    CHECK(value_of(end, "drivestress_phase" + labels("phase=\"random\"")) == 0);
    CHECK(value_of(end, "drivestress_verdict" + labels("verdict=\"failed\"")) == 1);
    CHECK(value_of(end, "drivestress_verdict" + labels("verdict=\"running\"")) == 0);
    CHECK(value_of(end, "drivestress_exit_status" + labels()) == 2);
}

TEST_CASE("the series a configuration can have are there from the start, at zero") {
    model::RunConfig cfg;
    metrics::PromTotals t;
    t.expect(cfg);  // all four phases, 70% reads
    std::set<std::string> keys;
    for (const auto& [key, s] : t.ops) {
        keys.insert(std::string(model::to_string(key.first)) + "/" +
                    std::string(metrics::to_string(key.second)));
        CHECK(s.latency.count == 0);
    }
    CHECK(keys == std::set<std::string>{"seq-write/write", "seq-read/read", "random/read",
                                        "random/write", "reverify/read"});

    cfg.sync = model::SyncMethod::fdatasync;
    cfg.read_pct = 100;  // the random phase only reads: no write, no flush there
    metrics::PromTotals sync;
    sync.expect(cfg);
    CHECK(sync.ops.count({model::Phase::seq_write, metrics::PromOp::flush}) == 1);
    CHECK(sync.ops.count({model::Phase::random, metrics::PromOp::flush}) == 0);
    CHECK(sync.ops.count({model::Phase::random, metrics::PromOp::write}) == 0);

    cfg.sync_compare = true;
    metrics::PromTotals none;
    none.expect(cfg);
    CHECK(none.ops.empty());
}

TEST_CASE("a phase's seconds add up to the phase itself") {
    const auto p = phase(model::Phase::random, 2.0, range_ns(1000, 7919, 500),
                         range_ns(3000, 104729, 200), 4096);
    model::IntervalStats first, second;
    for (std::size_t i = 0; i < 500; ++i)
        (i < 300 ? first : second).read_latency.record(1000 + i * 7919);
    for (std::size_t i = 0; i < 200; ++i)
        (i < 50 ? first : second).write_latency.record(3000 + i * 104729);
    first.read_bytes = 300 * 4096;
    second.read_bytes = 200 * 4096;
    first.write_bytes = 50 * 4096;
    second.write_bytes = 150 * 4096;
    metrics::PromTotals whole, seconds;
    whole.add_phase(p);
    seconds.add_interval(model::Phase::random, first);
    seconds.add_interval(model::Phase::random, second);
    seconds.phase_seconds[model::Phase::random] = 2.0;
    seconds.verified_bytes[model::Phase::random] = p.counters.verified_bytes;
    metrics::PromState state = make_state();
    CHECK(prometheus_text(state, {{{}, whole}}) == prometheus_text(state, {{{}, seconds}}));
}

TEST_CASE("preset tests are told apart by their labels") {
    metrics::PromSeriesSet a = make_run(), b = make_run();
    a.labels = {{"preset", "desktop"}, {"test", "SEQ1M Q8T1"}};
    b.labels = {{"preset", "desktop"}, {"test", "RND4K Q32T1 read"}};
    const auto s = samples_of(prometheus_text(make_state(), {a, b}));
    CHECK(value_of(s, "drivestress_iterations_total" +
                          labels("preset=\"desktop\",test=\"SEQ1M Q8T1\"")) == 2);
    CHECK(value_of(s, "drivestress_iterations_total" +
                          labels("preset=\"desktop\",test=\"RND4K Q32T1 read\"")) == 2);
}

TEST_CASE(
    "label values escape backslash, double quote and newline; non-UTF-8 bytes become U+FFFD") {
    CHECK(prometheus_escape_label("plain/path") == "plain/path");
    CHECK(prometheus_escape_label("a\"b") == "a\\\"b");
    CHECK(prometheus_escape_label("a\\b") == "a\\\\b");
    CHECK(prometheus_escape_label("a\nb") == "a\\nb");
    CHECK(prometheus_escape_label("\\\"\n") == "\\\\\\\"\\n");
    CHECK(prometheus_escape_label("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");
    CHECK(prometheus_escape_label("a\xff"
                                  "b") ==
          "a\xef\xbf\xbd"
          "b");
    CHECK(prometheus_escape_label("\xc3") == "\xef\xbf\xbd");                  // cut short
    CHECK(prometheus_escape_label("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");  // overlong
    CHECK(prometheus_escape_label("\xed\xa0\x80") == "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");

    auto state = make_state();
    const std::string text = prometheus_text(state, {make_run()});
    CHECK(text.find("target=\"" + kTargetEscaped + "\"") != std::string::npos);
    CHECK(text.find(kTarget) == std::string::npos);  // never unescaped
    state.labels[0].second = "/mnt/two\nlines";
    for (const auto& line : lines_of(prometheus_text(state, {make_run()})))
        CHECK(line.rfind("lines\"", 0) != 0);  // the newline did not split a sample
}

TEST_CASE("--prom-label names and values are checked") {
    using metrics::prom_label_name_problem;
    using metrics::prom_label_value_problem;
    CHECK(prom_label_name_problem("rack") == "");
    CHECK(prom_label_name_problem("_drive_2") == "");
    CHECK(prom_label_name_problem("").find("empty") != std::string::npos);
    CHECK(prom_label_name_problem("2rack").find("not a label name") != std::string::npos);
    CHECK(prom_label_name_problem("ra-ck").find("not a label name") != std::string::npos);
    CHECK(prom_label_name_problem("__name__").find("Prometheus's own") != std::string::npos);
    for (const char* own : {"target", "phase", "op", "le", "class", "verdict", "version", "backend",
                            "kernel", "test", "preset", "device"})
        CHECK(prom_label_name_problem(own).find("sets itself") != std::string::npos);
    CHECK(prom_label_value_problem("r12") == "");
    CHECK(prom_label_value_problem("a \"quoted\" \\ value\n") == "");
    CHECK(prom_label_value_problem("").find("empty") != std::string::npos);
    CHECK(prom_label_value_problem("\xff").find("UTF-8") != std::string::npos);
}

TEST_CASE("--repeat: median, interval and spread are gauges of their own, per phase and point") {
    metrics::PromSeriesSet run = make_run();  // phases run once: no estimate
    CHECK(prometheus_text(make_state(), {run}).find("drivestress_repeat") == std::string::npos);

    // Five repeats of 100..500 IOPS: n = 5, the interval is [min, max]
    // (93.75 %), the median 300.
    model::PhaseResult p = phase(model::Phase::random, 1.0, range_ns(1000, 1000, 10), {}, 4096);
    for (double iops : {300.0, 100.0, 500.0, 200.0, 400.0})
        p.repeats.push_back({iops, iops * 4096, iops * 1000});
    run.totals.add_phase(p);
    run.totals.add_phase(p, "qd=32");
    const std::string text = prometheus_text(make_state(), {run});
    const auto s = samples_of(text);
    for (const std::string point : {"", ",point=\"qd=32\""}) {
        CAPTURE(point);
        const std::string l = labels("phase=\"random\"" + point);
        CHECK(value_of(s, "drivestress_repeats" + l) == 5);
        CHECK(value_of(s, "drivestress_repeat_confidence" + l) == doctest::Approx(0.9375));
        CHECK(value_of(s, "drivestress_repeat_ops_per_second" + l) == 300);
        CHECK(value_of(s, "drivestress_repeat_ops_per_second_low" + l) == 100);
        CHECK(value_of(s, "drivestress_repeat_ops_per_second_high" + l) == 500);
        CHECK(value_of(s, "drivestress_repeat_ops_per_second_min" + l) == 100);
        CHECK(value_of(s, "drivestress_repeat_ops_per_second_max" + l) == 500);
        CHECK(value_of(s, "drivestress_repeat_bytes_per_second" + l) == 300 * 4096);
        // p99 in seconds: 300 us.
        CHECK(value_of(s, "drivestress_repeat_p99_latency_seconds" + l) == doctest::Approx(300e-6));
    }
    // A family per figure and bound: 3 x 5, plus the count and coverage.
    std::set<std::string> families;
    for (const auto& line : lines_of(text))
        if (line.rfind("# TYPE drivestress_repeat", 0) == 0) {
            CHECK(line.substr(line.rfind(' ') + 1) == "gauge");
            families.insert(line);
        }
    CHECK(families.size() == 17);
    // Merging another run's totals appends its repeats (the phase in progress).
    metrics::PromTotals more = run.totals;
    more.add(run.totals);
    CHECK(more.repeats.at({model::Phase::random, ""}).size() == 10);
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

TEST_CASE("several targets: a series per target, labelled with it and its device") {
    metrics::PromState s = make_state();
    s.targets = {{kTarget, "/dev/vda", 10, 5, 40960, 20480, 40960, 0, false},
                 {"/dev/loop3", "/dev/loop3", 7, 3, 28672, 12288, 28672, 2, true}};
    const std::string text = metrics::prometheus_text(s, {make_run()});
    CHECK(has(text,
              "drivestress_target_mismatches_total{target=\"/dev/loop3\",rack=\"r12\","
              "device=\"/dev/loop3\"} 2\n"));
    CHECK(has(text, "drivestress_target_operations_total{target=\"" + kTargetEscaped +
                        "\",rack=\"r12\",device=\"/dev/vda\",op=\"read\"} 10\n"));
    CHECK(has(text,
              "drivestress_target_slow{target=\"/dev/loop3\",rack=\"r12\","
              "device=\"/dev/loop3\"} 1\n"));
    SUBCASE("one target: none (the run's own series are its)") {
        s.targets.resize(1);
        CHECK_FALSE(has(metrics::prometheus_text(s, {make_run()}), "drivestress_target_"));
    }
}
