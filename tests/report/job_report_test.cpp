// A run's jobs in its reports: what model::job_results keeps of the plan,
// the JSON document's jobs[] (a plain run has one), the text table of a run
// of several jobs (none for one) within 100 columns.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "json_fixture.h"
#include "model/plan.h"
#include "report/job_table.h"

using nlohmann::json;
using namespace ds;
using namespace ds::test::json_doc;

namespace {

// Two jobs: a QD 1 random reader (group 0) and a 128K sequential writer
// (two copies, group 1), with figures.
model::RunResult two_jobs() {
    model::RunResult r = make_result(false);
    model::JobSpec reader;
    reader.name = "reader";
    reader.read_pct = 100;
    reader.files = {{"a.dat", 16ULL << 20, 0}};
    model::JobSpec writer;
    writer.name = "writer";
    writer.group = 1;
    writer.copies = 2;
    writer.access = model::Access::sequential;
    writer.read_pct = 0;
    writer.block = 128 * 1024;
    writer.depth = 8;
    writer.files = {{"b.dat", 16ULL << 20, 0}};
    r.plan = model::make_run_plan(model::RunConfig{}, {reader, writer}, {2});
    r.jobs = model::job_results(r.plan);
    model::PhaseResult& p = r.jobs[0].workload;
    p.seconds = 2;
    p.workers = 1;
    p.counters.read_ops = 1000;
    p.counters.read_bytes = 1000 * 4096;
    p.counters.verified_bytes = 1000 * 4096;
    for (std::uint64_t ns = 100'000; ns < 200'000; ns += 100)
        p.counters.read_latency.record(ns);
    r.jobs[0].start_ns = 5'000'000;
    r.jobs[0].end_ns = 2'005'000'000;
    r.jobs[1].start_ns = 2'006'000'000;
    r.jobs[1].end_ns = 3'006'000'000;
    return r;
}

}  // namespace

TEST_CASE("job_results: each job's name, group, copies, shares, sizes and first copy's depth") {
    const model::RunResult r = two_jobs();
    REQUIRE(r.jobs.size() == 2);
    CHECK(r.jobs[0].name == "reader");
    CHECK(r.jobs[0].group == 0);
    CHECK(r.jobs[0].copies == 1);
    CHECK(r.jobs[0].read_pct == 100);
    CHECK(r.jobs[0].sizes == std::vector<std::uint32_t>{4096});
    CHECK(r.jobs[0].depth == 1);
    CHECK(r.jobs[1].name == "writer");
    CHECK(r.jobs[1].group == 1);
    CHECK(r.jobs[1].copies == 2);
    CHECK(r.jobs[1].access == model::Access::sequential);
    CHECK(r.jobs[1].sizes == std::vector<std::uint32_t>{128 * 1024});
    CHECK(r.jobs[1].depth == r.plan.workers[1].rand_depth);
    CHECK(r.jobs[1].workload.phase == model::Phase::random);
    // A plain run: one job, "random".
    const model::RunConfig plain;
    const auto one = model::job_results(model::make_run_plan(plain, {2}));
    REQUIRE(one.size() == 1);
    CHECK(one[0].name == "random");
    CHECK(one[0].copies == plain.workers());
}

TEST_CASE("JSON: jobs[] with each job's active interval and figures") {
    const model::RunResult r = two_jobs();
    const json d = document(make_config(), r, make_host());
    REQUIRE(d["jobs"].size() == 2);
    const json& reader = d["jobs"][0];
    CHECK(reader["name"] == "reader");
    CHECK(reader["group"] == 0);
    CHECK(reader["access"] == "random");
    CHECK(reader["block_sizes"] == json::array({4096}));
    CHECK(reader["rand_mix"].is_null());
    CHECK(reader["start_ns"] == 5'000'000);
    CHECK(reader["end_ns"] == 2'005'000'000);
    CHECK(reader["read_ops"] == 1000);
    CHECK(reader["iops"] == 500.0);
    CHECK(reader["bandwidth_bytes_per_sec"] == 500.0 * 4096);
    CHECK(reader["verified_bytes"] == 1000 * 4096);
    CHECK(reader["mismatches"] == 0);
    CHECK(reader["latency_ns"]["p50"].get<std::uint64_t>() >= 140'000);
    CHECK(reader["latency_ns"]["p50"].get<std::uint64_t>() <= 160'000);
    const json& writer = d["jobs"][1];
    CHECK(writer["copies"] == 2);
    CHECK(writer["access"] == "sequential");
    CHECK(writer["latency_ns"].is_null());  // it completed nothing here
    CHECK(writer["iops"] == 0.0);
    // The document without jobs (a result made by hand) has an empty array.
    CHECK(document(make_config(), make_result(false), make_host())["jobs"] == json::array());
}

TEST_CASE("text: a table of jobs, grouped, within 100 columns; none for one job") {
    model::RunResult r = two_jobs();
    const std::string t = report::job_table(r);
    std::istringstream in(t);
    int rows = 0;
    bool groups = false;
    for (std::string line; std::getline(in, line);) {
        CAPTURE(line);
        CHECK(line.size() <= 100);
        if (line.rfind("  reader", 0) == 0) {
            ++rows;
            CHECK(line.find("randread") != std::string::npos);
            CHECK(line.find(" 4k ") != std::string::npos);
            CHECK(line.find("500") != std::string::npos);  // IOPS
        }
        if (line.rfind("  writer", 0) == 0) {
            ++rows;
            CHECK(line.find("write") != std::string::npos);
            CHECK(line.find("randwrite") == std::string::npos);
            CHECK(line.find("128k") != std::string::npos);
        }
        if (line == "  group 1") groups = true;
    }
    CHECK(rows == 2);
    CHECK(groups);
    CHECK(t.find("p99.9 ms") != std::string::npos);
    r.jobs.pop_back();
    CHECK(report::job_table(r).empty());
}

TEST_CASE("fio's rw and bs of a job") {
    model::JobResult j;
    j.read_pct = 70;
    CHECK(report::job_rw(j) == "randrw70");
    j.trim_pct = 10;
    CHECK(report::job_rw(j) == "randrw70t10");
    j.access = model::Access::sequential;
    j.read_pct = 0;
    j.trim_pct = 100;
    CHECK(report::job_rw(j) == "trim");
    j.sizes = {512, 1536, 65536};
    CHECK(report::job_bs(j) == "512-64k");
    j.sizes = {1U << 20};
    CHECK(report::job_bs(j) == "1m");
}
