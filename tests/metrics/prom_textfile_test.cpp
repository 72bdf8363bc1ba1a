// The --prom textfile over a run: written at the start, live during a phase,
// last with the verdict; a preset's tests in one file; a file that cannot be written.
#include "metrics/prom_textfile.h"

#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "model/errors.h"
#include "model/results.h"
#include "pattern/unit.h"

using namespace ds;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = (fs::temp_directory_path() / "prom_textfile_test.XXXXXX").string();
        REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
        path = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// name{labels} -> value of every sample line.
std::map<std::string, double> samples_of(const std::string& text) {
    std::map<std::string, double> m;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        auto sp = line.rfind(' ');
        m[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
    }
    return m;
}

// Samples that must never go down between two writes of one run.
bool is_counter(const std::string& key) {
    const std::string name = key.substr(0, key.find('{'));
    auto ends = [&](const char* s) {
        const std::string suffix(s);
        return name.size() > suffix.size() &&
               name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    return ends("_total") || ends("_bucket") || ends("_sum") || ends("_count");
}

void check_monotone(const std::map<std::string, double>& before,
                    const std::map<std::string, double>& after) {
    for (const auto& [key, v] : before) {
        if (!is_counter(key)) continue;
        CAPTURE(key);
        REQUIRE(after.count(key) == 1);  // a series never disappears
        CHECK(after.at(key) >= v);
    }
}

struct Setup {
    TempDir dir;
    model::RunConfig cfg;
    model::RunResult res;
    std::string path;

    Setup() {
        cfg.target = dir.path.string();
        cfg.phases = {model::Phase::seq_write, model::Phase::random};
        res.target.path = dir.path.string();
        res.target.directory = dir.path.string();
        res.backend.used = io::BackendKind::sync;
        path = (dir.path / "drivestress.prom").string();
    }
    metrics::PromTextfile textfile(double interval_s, const std::string& preset = {}) {
        return metrics::PromTextfile({path, {{"rack", "r12"}}, interval_s, preset},
                                     report::HostInfo{});
    }
    std::string key(const std::string& name, const std::string& more = {}) const {
        return name + "{target=\"" + dir.path.string() + "\",rack=\"r12\"" +
               (more.empty() ? "" : "," + more) + "}";
    }
};

model::IntervalStats second_with_reads(std::uint64_t second, std::uint64_t n, std::uint64_t ns) {
    model::IntervalStats s;
    s.index = second;
    for (std::uint64_t i = 0; i < n; ++i)
        s.read_latency.record(ns);
    s.read_ops = n;
    s.read_bytes = n * 4096;
    return s;
}

}  // namespace

TEST_CASE("written at start, live from the seconds of the phase running, last with the verdict") {
    Setup s;
    auto prom = s.textfile(0.1);
    CHECK(!prom.written());
    prom.started(s.cfg, s.res);
    REQUIRE(prom.written());
    auto first = samples_of(read_file(s.path));
    CHECK(first.at(s.key("drivestress_running")) == 1);
    CHECK(first.at(s.key("drivestress_verdict", "verdict=\"running\"")) == 1);
    CHECK(first.at(s.key("drivestress_ops_total", "phase=\"random\",op=\"read\"")) == 0);

    // Two seconds of the random phase: counted before the phase ends.
    prom.interval_done(1, model::Phase::random, 0, second_with_reads(0, 10, 50'000), 1.0, 0);
    prom.interval_done(1, model::Phase::random, 0, second_with_reads(1, 5, 70'000), 1.0, 0);
    model::ProgressSnapshot snap{1, model::Phase::random, 0.5, 2.25, 0, 0};
    prom.progress(snap);
    const auto live = samples_of(prom.text());
    CHECK(live.at(s.key("drivestress_ops_total", "phase=\"random\",op=\"read\"")) == 15);
    CHECK(live.at(s.key("drivestress_op_latency_seconds_sum", "phase=\"random\",op=\"read\"")) ==
          doctest::Approx(10 * 50e-6 + 5 * 70e-6));
    CHECK(live.at(s.key("drivestress_phase_seconds_total", "phase=\"random\"")) == 2.25);
    CHECK(live.at(s.key("drivestress_phase", "phase=\"random\"")) == 1);
    CHECK(live.at(s.key("drivestress_iteration")) == 1);
    check_monotone(first, live);

    // The phase ends: its own totals replace the seconds, and are no less.
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.seconds = 2.5;
    for (int i = 0; i < 10; ++i)
        p.counters.read_latency.record(50'000);
    for (int i = 0; i < 7; ++i)
        p.counters.read_latency.record(70'000);
    p.counters.read_ops = 17;
    p.counters.read_bytes = 17 * 4096;
    p.counters.verified_bytes = 17 * 4096;
    prom.phase_done(1, p);
    model::IterationResult it;
    it.index = 1;
    prom.iteration_done(it);
    const auto done = samples_of(prom.text());
    CHECK(done.at(s.key("drivestress_ops_total", "phase=\"random\",op=\"read\"")) == 17);
    CHECK(done.at(s.key("drivestress_phase_seconds_total", "phase=\"random\"")) == 2.5);
    CHECK(done.at(s.key("drivestress_iterations_total")) == 1);
    check_monotone(live, done);

    CHECK(prom.finish(0) == "");
    const auto last = samples_of(read_file(s.path));
    CHECK(last.at(s.key("drivestress_running")) == 0);
    CHECK(last.at(s.key("drivestress_verdict", "verdict=\"passed\"")) == 1);
    CHECK(last.at(s.key("drivestress_exit_status")) == 0);
    CHECK(last.at(s.key("drivestress_ops_total", "phase=\"random\",op=\"read\"")) == 17);
    check_monotone(done, last);
}

TEST_CASE("a mismatch makes the verdict failed while the run goes on") {
    Setup s;
    auto prom = s.textfile(1e9);  // no rewrite between the first and the last
    prom.started(s.cfg, s.res);
    model::IntervalStats second = second_with_reads(0, 3, 10'000);
    second.mismatches = 1;
    second.mismatches_by_class[static_cast<std::size_t>(pattern::MismatchClass::zeroed)] = 1;
    prom.interval_done(1, model::Phase::random, 0, second, 1.0, 1);
    const auto live = samples_of(prom.text());
    CHECK(live.at(s.key("drivestress_verdict", "verdict=\"failed\"")) == 1);
    CHECK(live.at(s.key("drivestress_mismatches_total", "class=\"zeroed\"")) == 1);
    // The file itself still holds the first write (the interval is not over).
    CHECK(samples_of(read_file(s.path))
              .at(s.key("drivestress_mismatches_total", "class=\"zeroed\"")) == 0);

    // A failed write-back between phases is in the run's totals only.
    s.res.mismatch_totals[static_cast<std::size_t>(pattern::MismatchClass::zeroed)] = 1;
    s.res.mismatch_totals[static_cast<std::size_t>(pattern::MismatchClass::io_error)] = 2;
    prom.run_ended(s.res);
    CHECK(prom.finish(2) == "");
    const auto last = samples_of(read_file(s.path));
    CHECK(last.at(s.key("drivestress_mismatches_total", "class=\"zeroed\"")) == 1);
    CHECK(last.at(s.key("drivestress_mismatches_total", "class=\"io-error\"")) == 2);
    CHECK(last.at(s.key("drivestress_verdict", "verdict=\"failed\"")) == 1);
    CHECK(last.at(s.key("drivestress_exit_status")) == 2);
}

TEST_CASE("a preset's tests share one file, each with its own series") {
    Setup s;
    auto prom = s.textfile(1e9, "desktop");
    prom.begin_test("SEQ1M Q8T1");
    prom.started(s.cfg, s.res);
    prom.begin_test("RND4K Q1T1 read");
    prom.started(s.cfg, s.res);
    CHECK(prom.finish(130) == "");
    const auto last = samples_of(read_file(s.path));
    for (const char* test : {"SEQ1M Q8T1", "RND4K Q1T1 read"})
        CHECK(last.at(s.key("drivestress_iterations_total",
                            std::string("preset=\"desktop\",test=\"") + test + "\"")) == 0);
    CHECK(last.at(s.key("drivestress_verdict", "verdict=\"interrupted\"")) == 1);
}

TEST_CASE("a textfile that cannot be written refuses the run; a refused run writes none") {
    Setup s;
    metrics::PromTextfile prom({(s.dir.path / "missing" / "x.prom").string(), {}, 5, {}},
                               report::HostInfo{});
    CHECK_THROWS_AS(prom.started(s.cfg, s.res), model::SetupError);
    CHECK(!prom.written());
    CHECK(prom.finish(1) == "");
    CHECK(!fs::exists(s.dir.path / "missing"));
}
