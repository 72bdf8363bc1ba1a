// --interference's judgement (report/interference.h): ratios of medians,
// the job that suffered most only outside the noise, the words for one
// sample, a job alone in its group, the table within 100 columns.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "report/interference.h"

using namespace ds;

namespace {

// A job's figures in one run: `ops` operations in 1 s, every one `ns` long.
model::JobResult job(const std::string& name, std::uint64_t ops, std::uint64_t ns) {
    model::JobResult j;
    j.name = name;
    j.workload.seconds = 1;
    j.workload.counters.read_ops = ops;
    for (std::uint64_t i = 0; i < 100; ++i)
        j.workload.counters.read_latency.record(ns);
    return j;
}

model::RunResult run_of(std::vector<model::JobResult> jobs) {
    model::RunResult r;
    r.jobs = std::move(jobs);
    return r;
}

// reader and writer in group 0, `lone` alone in group 1; each repeat's
// reader p99 alone 100 us (+k), together `together_ns` (+k).
model::Interference sample(unsigned repeat, std::uint64_t together_ns) {
    model::Interference c;
    c.repeat = repeat;
    c.jobs.resize(3);
    c.jobs[0].name = "reader";
    c.jobs[1].name = "writer";
    c.jobs[2].name = "lone";
    c.jobs[2].group = 1;
    c.runs = {{"reader alone", 0, {0}, {}, {}},
              {"writer alone", 0, {1}, {}, {}},
              {"group 0 together", 0, {0, 1}, {}, {}},
              {"lone alone", 1, {2}, {}, {}}};
    for (unsigned k = 0; k < repeat; ++k) {
        c.runs[0].repeats.push_back(run_of({job("reader", 10000 + k, 100000 + k * 1000)}));
        c.runs[1].repeats.push_back(run_of({job("writer", 5000, 400000)}));
        c.runs[2].repeats.push_back(
            run_of({job("reader", 4000 + k, together_ns + k * 1000), job("writer", 5000, 400000)}));
        c.runs[3].repeats.push_back(run_of({job("lone", 7000, 300000)}));
    }
    return c;
}

}  // namespace

TEST_CASE("a p99 that grew outside the noise names its job and what it ran under") {
    const model::Interference c = sample(3, 600000);
    const auto figures = report::interference_figures(c);
    REQUIRE(figures.size() == 3);
    CHECK(figures[0].with == std::vector<std::string>{"writer"});
    CHECK(figures[0].p99_ratio == doctest::Approx(6.0).epsilon(0.02));
    CHECK(figures[0].iops_ratio == doctest::Approx(0.4).epsilon(0.01));
    CHECK(figures[0].p99_difference == stats::Difference::higher);
    CHECK(figures[0].iops_difference == stats::Difference::lower);
    CHECK(figures[1].p99_difference == stats::Difference::within_noise);
    CHECK(figures[2].with.empty());
    CHECK(figures[2].p99_ratio == 0);
    const report::JobInterference* worst = report::suffered_most(figures);
    REQUIRE(worst);
    CHECK(worst->name == "reader");
    const std::string text = report::interference_text(c);
    CHECK(text.find("verdict  reader p99 6.0x under writer (outside the noise)") !=
          std::string::npos);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        CHECK_MESSAGE(line.size() <= 100, line);
    const nlohmann::json j = report::interference_json(c);
    CHECK(j["suffered_most"]["job"] == "reader");
    CHECK(j["runs"][2]["exit_codes"] == nlohmann::json::array({0, 0, 0}));
}

TEST_CASE("one run each gives the ratio without a verdict on the noise") {
    const auto figures = report::interference_figures(sample(1, 600000));
    CHECK(figures[0].p99_difference == stats::Difference::single_sample);
    CHECK(report::interference_text(sample(1, 600000))
              .find("reader p99 6.0x under writer (one run each: --repeat 3") != std::string::npos);
}

TEST_CASE("no growth outside the noise is said, not a suffering job") {
    const std::string text = report::interference_text(sample(3, 101000));
    CHECK(text.find("no job's p99 grew outside the noise together; IOPS fell") !=
          std::string::npos);
}
