// --fio-json: fio's latency bins (index and value as fio's stat.c makes
// them), drivestress's histogram in them, the JSON+ shape of a job (its
// directions, percentiles, bins, samples, CPU and depth), fio's printing,
// the jobs of a run and a sweep, and the workload in fio's options.
#include "report/fio_json.h"

#include <doctest/doctest.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "model/results.h"
#include "report/fio_jobs.h"

using namespace ds;
using Json = nlohmann::ordered_json;
using report::FioBins;

namespace {

model::PhaseResult random_phase() {
    model::PhaseResult p;
    p.phase = model::Phase::random;
    p.workers = 2;
    p.seconds = 1.0;
    p.cpu.user_s = 0.5;
    p.cpu.system_s = 0.25;
    p.cpu.context_switches = 77;
    auto& c = p.counters;
    for (int i = 0; i < 700; ++i)
        c.read_latency.record(10'000 + static_cast<std::uint64_t>(i));  // 10 us .. 10.7 us
    for (int i = 0; i < 300; ++i)
        c.write_latency.record(50'000 + 100 * static_cast<std::uint64_t>(i));
    c.read_ops = 700;
    c.read_bytes = 700 * 4096;
    c.write_ops = 300;
    c.write_bytes = 300 * 4096;
    c.flush_ops = 3;
    for (std::uint64_t ns : {1'000'000, 1'100'000, 1'200'000})
        c.flush_latency.record(ns);
    p.series.ops.assign(10, 100);  // ten 0.1 s slices of 100 operations
    p.series.bytes.assign(10, 100 * 4096);
    return p;
}

report::FioDocument document_of(const model::PhaseResult& p, unsigned depth = 8) {
    report::FioDocument d;
    d.version = "drivestress 0.1.0 (fio-3.33 JSON+ layout)";
    d.end_ms = 1'796'545'482'801;
    d.time = "Sun Dec  6 08:24:42 2026";
    d.global_options = {{"directory", "/mnt/test"}};
    report::FioJob job;
    job.name = "random";
    job.options = {{"name", "random"}, {"rw", "randrw"}};
    job.copies = 2;
    job.depth = depth;
    job.elapsed_s = 1.4;
    job.phase = &p;
    d.jobs.push_back(job);
    return d;
}

// The document as printed with "%f": its floats to six decimals.
Json six_decimals(Json j) {
    if (j.is_number_float()) return std::round(j.get<double>() * 1e6) / 1e6;
    if (!j.is_structured()) return j;
    for (auto& v : j)
        v = six_decimals(v);
    return j;
}

std::vector<std::string> keys_of(const Json& j) {
    std::vector<std::string> k;
    for (auto it = j.begin(); it != j.end(); ++it)
        k.push_back(it.key());
    return k;
}

}  // namespace

TEST_CASE("fio's bins: the index and value fio's plat_val_to_idx and plat_idx_to_val give") {
    // Below 128 ns a bin per nanosecond.
    CHECK(FioBins::index_of(0) == 0);
    CHECK(FioBins::index_of(127) == 127);
    CHECK(FioBins::value_of(127) == 127);
    // [128, 256): bins of 2 ns, named by their middle.
    CHECK(FioBins::index_of(128) == 128);
    CHECK(FioBins::index_of(129) == 128);
    CHECK(FioBins::index_of(130) == 129);
    CHECK(FioBins::value_of(128) == 129);
    // Values fio 3.33 printed as bin keys ("1176", "1192", "13888").
    CHECK(FioBins::index_of(1176) == 329);
    CHECK(FioBins::value_of(329) == 1176);
    CHECK(FioBins::value_of(FioBins::index_of(1190)) == 1192);
    CHECK(FioBins::value_of(FioBins::index_of(13826)) == 13888);
    CHECK(FioBins::index_of(1000) == 317);
    CHECK(FioBins::value_of(317) == 1004);
    // The last bin: 2^34 ns and more, named 17112760320 (the largest key
    // fio_jsonplus_clat2csv expects).
    CHECK(FioBins::value_of(FioBins::kCount - 1) == 17'112'760'320ULL);
    CHECK(FioBins::index_of(1ULL << 34) == FioBins::kCount - 1);
    CHECK(FioBins::index_of(~0ULL) == FioBins::kCount - 1);
    CHECK(FioBins::index_of((1ULL << 34) - 1) == FioBins::kCount - 1);
    CHECK(FioBins::index_of((1ULL << 33) - 1) == FioBins::kCount - 65);
    // Every bin's value falls in that bin.
    for (unsigned b = 0; b < FioBins::kCount; ++b)
        REQUIRE(FioBins::index_of(FioBins::value_of(b)) == b);
}

TEST_CASE("every drivestress bucket lies whole in one fio bin, so the conversion is exact") {
    using H = stats::LatencyHistogram;
    for (std::size_t i = 0; i + 1 < H::kBucketCount; ++i) {
        const std::uint64_t lo = H::bucket_lower(i), hi = lo + H::bucket_width(i) - 1;
        if (lo >= (1ULL << 34)) break;
        REQUIRE(FioBins::index_of(lo) == FioBins::index_of(hi));
    }
    // Two drivestress buckets per fio bin above 128 ns: 1000 and 1005 are
    // apart in drivestress ([1000, 1004), [1004, 1008)), together in fio.
    CHECK(H::bucket_of(1000) != H::bucket_of(1005));
    H h;
    for (std::uint64_t ns : {100, 100, 100, 1000, 1005})
        h.record(ns);
    h.record(20'000'000'000ULL);  // 20 s: fio's last bin
    const auto bins = report::fio_bins(h);
    REQUIRE(bins.size() == 3);
    CHECK(bins[0] == std::pair<std::uint64_t, std::uint64_t>{100, 3});
    CHECK(bins[1] == std::pair<std::uint64_t, std::uint64_t>{1004, 2});
    CHECK(bins[2] == std::pair<std::uint64_t, std::uint64_t>{17'112'760'320ULL, 1});
}

TEST_CASE("a job's JSON+: fio's keys in fio's order, directions with percentiles and bins") {
    const model::PhaseResult p = random_phase();
    const Json doc = report::fio_jsonplus(document_of(p));
    CHECK(keys_of(doc) == std::vector<std::string>{"fio version", "timestamp", "timestamp_ms",
                                                   "time", "global options", "jobs", "disk_util"});
    CHECK(doc["timestamp"] == 1'796'545'482);
    CHECK(doc["disk_util"] == Json::array());
    const Json& job = doc["jobs"][0];
    CHECK(keys_of(job) ==
          std::vector<std::string>{"jobname",       "groupid",     "error",       "eta",
                                   "elapsed",       "job options", "read",        "write",
                                   "trim",          "sync",        "job_runtime", "usr_cpu",
                                   "sys_cpu",       "ctx",         "majf",        "minf",
                                   "iodepth_level", "latency_ns",  "latency_us",  "latency_ms"});
    const Json& read = job["read"];
    CHECK(keys_of(read) == std::vector<std::string>{
                               "io_bytes",  "io_kbytes",   "bw_bytes",    "bw",       "iops",
                               "runtime",   "total_ios",   "short_ios",   "drop_ios", "slat_ns",
                               "clat_ns",   "lat_ns",      "bw_min",      "bw_max",   "bw_agg",
                               "bw_mean",   "bw_dev",      "bw_samples",  "iops_min", "iops_max",
                               "iops_mean", "iops_stddev", "iops_samples"});
    CHECK(read["io_bytes"] == 700 * 4096);
    CHECK(read["io_kbytes"] == 700 * 4);
    CHECK(read["bw_bytes"] == 700 * 4096);
    CHECK(read["bw"] == 700 * 4);
    CHECK(read["iops"].get<double>() == doctest::Approx(700));
    CHECK(read["runtime"] == 1000);
    CHECK(read["total_ios"] == 700);
    const Json& clat = read["clat_ns"];
    CHECK(clat["N"] == 700);
    CHECK(clat["min"] == 10'000);
    CHECK(clat["max"] == 10'699);
    CHECK(clat["mean"].get<double>() == doctest::Approx(10'349.5));
    CHECK(clat["stddev"].get<double>() == doctest::Approx(202.2).epsilon(0.01));
    REQUIRE(clat["percentile"].size() == 17);
    CHECK(keys_of(clat["percentile"]).front() == "1.000000");
    CHECK(keys_of(clat["percentile"]).back() == "99.990000");
    CHECK(clat["percentile"]["99.000000"] == p.counters.read_latency.value_at_percentile(99));
    CHECK(clat["percentile"]["99.500000"] == p.counters.read_latency.value_at_percentile(99.5));
    std::uint64_t binned = 0;
    for (auto it = clat["bins"].begin(); it != clat["bins"].end(); ++it)
        binned += it->get<std::uint64_t>();
    CHECK(binned == 700);
    CHECK(clat["bins"].contains("10048"));  // 10000..10111: fio's bin [9984, 10112)
    // A closed loop: response time is service time.
    CHECK(read["lat_ns"] == clat);
    // Submission latency is not measured apart: N 0, no percentiles.
    CHECK(read["slat_ns"] ==
          Json{{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", 0}});
    // No trims: zeros, and no percentile or bins (fio_jsonplus_clat2csv
    // reads "bins" only where there are some).
    CHECK(job["trim"]["total_ios"] == 0);
    CHECK(job["trim"]["runtime"] == 0);
    CHECK(!job["trim"]["clat_ns"].contains("bins"));
    CHECK(!job["trim"]["clat_ns"].contains("percentile"));
    CHECK(job["trim"]["bw_samples"] == 0);
    CHECK(job["trim"]["bw_agg"] == 0.0);
    CHECK(job["sync"]["total_ios"] == 3);
    CHECK(job["sync"]["lat_ns"]["N"] == 3);
    CHECK(job["sync"]["lat_ns"].contains("bins"));
}

TEST_CASE("a job's CPU, depth and latency ranges as fio's group_reporting sums them") {
    const model::PhaseResult p = random_phase();
    const Json job = report::fio_jsonplus(document_of(p))["jobs"][0];
    CHECK(job["elapsed"] == 1);
    CHECK(job["job_runtime"] == 2000);  // two copies of 1 s
    CHECK(job["usr_cpu"].get<double>() == doctest::Approx(25));
    CHECK(job["sys_cpu"].get<double>() == doctest::Approx(12.5));
    CHECK(job["ctx"] == 77);
    CHECK(job["iodepth_level"]["8"] == 100.0);
    CHECK(job["iodepth_level"]["1"] == 0.0);
    CHECK(keys_of(job["iodepth_level"]) ==
          std::vector<std::string>{"1", "2", "4", "8", "16", "32", ">=64"});
    // Reads at 10 us (fio's "20": 10 to 19 us), writes at 50..79.9 us ("100").
    CHECK(job["latency_us"]["20"].get<double>() == doctest::Approx(70));
    CHECK(job["latency_us"]["100"].get<double>() == doctest::Approx(30));
    CHECK(job["latency_ms"][">=2000"] == 0.0);
    CHECK(keys_of(job["latency_ms"]).size() == 12);
    // An open loop's depth is not one level: every level 0.
    const Json open = report::fio_jsonplus(document_of(p, 0))["jobs"][0];
    for (auto it = open["iodepth_level"].begin(); it != open["iodepth_level"].end(); ++it)
        CHECK(*it == 0.0);
    CHECK(report::fio_jsonplus(document_of(p, 64))["jobs"][0]["iodepth_level"][">=64"] == 100.0);
    CHECK(report::fio_jsonplus(document_of(p, 3))["jobs"][0]["iodepth_level"]["2"] == 100.0);
}

TEST_CASE("bandwidth and IOPS samples: 500 ms of the phase's slices, each direction its share") {
    const model::PhaseResult p = random_phase();  // ten 0.1 s slices of 100 ops
    const Json job = report::fio_jsonplus(document_of(p))["jobs"][0];
    CHECK(job["read"]["iops_samples"] == 2);
    CHECK(job["read"]["iops_mean"].get<double>() == doctest::Approx(700));  // 70 % of 1000/s
    CHECK(job["read"]["iops_min"] == 700);
    CHECK(job["read"]["iops_stddev"] == 0.0);
    CHECK(job["write"]["iops_mean"].get<double>() == doctest::Approx(300));
    CHECK(job["read"]["bw_mean"].get<double>() == doctest::Approx(2800));  // KiB/s
    CHECK(job["read"]["bw_agg"].get<double>() == doctest::Approx(100));
    model::PhaseResult none = p;
    none.series = {};
    const Json j = report::fio_jsonplus(document_of(none))["jobs"][0];
    CHECK(j["read"]["bw_samples"] == 0);
    CHECK(j["read"]["bw_agg"] == 0.0);
}

TEST_CASE("under --rate lat_ns is each direction's response time, clat_ns its service time") {
    model::PhaseResult p = random_phase();
    p.counters.keep_response_by_direction();
    // Sized but nothing scheduled (--replay-speed 0): service time still.
    CHECK(report::fio_jsonplus(document_of(p))["jobs"][0]["read"]["lat_ns"]["min"] == 10'000);
    for (int i = 0; i < 700; ++i) {
        p.counters.response_by_direction[model::PhaseCounters::kResponseRead].record(90'000);
        p.counters.response_latency.record(90'000);
    }
    const Json job = report::fio_jsonplus(document_of(p, 0))["jobs"][0];
    CHECK(job["read"]["clat_ns"]["max"] == 10'699);
    CHECK(job["read"]["lat_ns"]["min"] == 90'000);
    CHECK(job["read"]["lat_ns"]["N"] == 700);
    CHECK(job["write"]["lat_ns"]["N"] == 0);  // none recorded for writes here
}

TEST_CASE("printed as fio prints: two-space levels, \"key\" : value, six decimals") {
    const model::PhaseResult p = random_phase();
    const report::FioDocument d = document_of(p);
    const std::string text = report::fio_jsonplus_text(d);
    CHECK(text.rfind("{\n  \"fio version\" : \"drivestress 0.1.0 (fio-3.33 JSON+ layout)\",\n",
                     0) == 0);
    CHECK(text.find("\n  \"jobs\" : [\n    {\n      \"jobname\" : \"random\",\n") !=
          std::string::npos);
    CHECK(text.find("\"iops\" : 700.000000,") != std::string::npos);
    CHECK(text.find("\"99.000000\" : ") != std::string::npos);
    CHECK(text.back() == '\n');
    CHECK(Json::parse(text) == six_decimals(report::fio_jsonplus(d)));
}

namespace {

model::RunConfig plain_config() {
    model::RunConfig c;
    c.target = "/mnt/test";
    c.file_bytes = 64ULL << 20;
    c.files = 4;
    c.qd = 16;
    c.read_pct = 70;
    c.rand_time_s = 10;
    return c;
}

model::RunResult result_with(const model::PhaseResult& p) {
    model::RunResult r;
    r.seed = 1234;
    r.direct_io = true;
    r.wall_seconds = 3;
    model::TargetResult t;
    t.info.directory = "/mnt/test";
    r.targets.push_back(t);
    r.merged_phases.push_back(p);
    return r;
}

std::string option(const std::vector<std::pair<std::string, std::string>>& o,
                   const std::string& key) {
    for (const auto& [k, v] : o)
        if (k == key) return v;
    return "(absent)";
}

}  // namespace

TEST_CASE("a plain run is one job, its workload in fio's words") {
    const model::PhaseResult p = random_phase();
    const model::RunConfig cfg = plain_config();
    const model::RunResult r = result_with(p);
    const auto end =
        std::chrono::system_clock::time_point(std::chrono::milliseconds(1'796'545'482'801));
    const report::FioDocument d = report::fio_document({{"random", &cfg, &r}}, end);
    CHECK(d.version.rfind("drivestress ", 0) == 0);
    CHECK(d.version.find("(fio-3.33 JSON+ layout)") != std::string::npos);
    CHECK(d.end_ms == 1'796'545'482'801);
    CHECK(d.time.size() == 24);  // ctime's "Sun Dec  6 08:24:42 2026"
    CHECK(d.global_options ==
          std::vector<std::pair<std::string, std::string>>{{"directory", "/mnt/test"}});
    REQUIRE(d.jobs.size() == 1);
    const report::FioJob& job = d.jobs[0];
    CHECK(job.name == "random");
    CHECK(job.group == 0);
    CHECK(job.error == 0);
    CHECK(job.copies == 4);
    CHECK(job.depth == 16);
    CHECK(job.phase == &r.merged_phases[0]);
    CHECK(job.desc.find("every read verified: 0 mismatches") != std::string::npos);
    const auto& o = job.options;
    CHECK(o.front() == std::pair<std::string, std::string>{"name", "random"});
    CHECK(option(o, "rw") == "randrw");
    CHECK(option(o, "rwmixread") == "70");
    CHECK(option(o, "bs") == "4k");
    CHECK(option(o, "ioengine") == "io_uring");
    CHECK(option(o, "iodepth") == "16");
    CHECK(option(o, "direct") == "1");
    CHECK(option(o, "size") == "64m");
    CHECK(option(o, "numjobs") == "4");
    CHECK(option(o, "time_based") == "1");
    CHECK(option(o, "runtime") == "10");
    CHECK(option(o, "randseed") == "1234");
    CHECK(option(o, "rate_iops") == "(absent)");
    CHECK(job.desc.find("RWF_ATOMIC") == std::string::npos);
    // --atomic: fio 3.33 has no option for it; the desc says it.
    model::RunConfig atomic = cfg;
    atomic.atomic = true;
    const report::FioDocument a = report::fio_document({{"random", &atomic, &r}}, end);
    CHECK(a.jobs[0].desc.find(", every write RWF_ATOMIC (--atomic)") != std::string::npos);
}

TEST_CASE("fio's options for the sync backend, a size mix, a rate, a distribution, flushes") {
    model::RunConfig cfg = plain_config();
    cfg.rand_block = 4096;
    cfg.rand_mix = {{4096, 60}, {16384, 20}, {131072, 20}};
    cfg.rate = 2000;
    cfg.arrivals = model::Arrivals::poisson;
    cfg.distribution = stats::parse_distribution("zoned:60/10,40/90");
    cfg.sync = model::SyncMethod::fdatasync;
    cfg.sync_every = 8;
    cfg.rand_ops = 1000;
    cfg.read_pct = 100;
    model::RunResult r = result_with(random_phase());
    r.backend.used = io::BackendKind::sync;
    cfg.qd = 2;
    const auto o = report::fio_job_options("random", cfg, r, {});
    CHECK(option(o, "rw") == "randread");
    CHECK(option(o, "rwmixread") == "(absent)");
    CHECK(option(o, "bssplit") == "4k/60:16k/20:128k/20");
    CHECK(option(o, "ioengine") == "psync");
    CHECK(option(o, "iodepth") == "1");
    CHECK(option(o, "numjobs") == "8");  // 4 workers x 2 threads
    CHECK(option(o, "number_ios") == "125");
    CHECK(option(o, "runtime") == "(absent)");
    CHECK(option(o, "rate_iops") == "250");  // 2000/s over 8 threads
    CHECK(option(o, "rate_process") == "poisson");
    CHECK(option(o, "random_distribution") == "zoned:60/10:40/90");
    CHECK(option(o, "fdatasync") == "8");
    CHECK(report::fio_distribution(stats::parse_distribution("normal:5%")) == "normal:5");
    CHECK(report::fio_distribution(stats::parse_distribution("zipf:1.2")) == "zipf:1.2");
    CHECK(report::fio_distribution(stats::DistributionSpec{}) == "random");
    CHECK(report::fio_duration(0.5) == "500ms");
    CHECK(report::fio_duration(90) == "90");
    CHECK(report::fio_size(1000) == "1000");
    CHECK(report::fio_size(1ULL << 30) == "1g");
}

TEST_CASE("a sweep's points are a job and a group each; a run without a random phase has none") {
    model::RunConfig cfg = plain_config();
    cfg.sweep = model::Sweep{model::SweepParam::qd, {1, 4}, false};
    model::RunResult r = result_with(random_phase());
    r.sweep.param = model::SweepParam::qd;
    r.sweep.points.push_back({1, random_phase()});
    r.sweep.points.push_back({4, random_phase()});
    const auto now = std::chrono::system_clock::now();
    const report::FioDocument d = report::fio_document({{"random", &cfg, &r}}, now);
    REQUIRE(d.jobs.size() == 2);
    CHECK(d.jobs[0].name == "random qd=1");
    CHECK(d.jobs[1].name == "random qd=4");
    CHECK(d.jobs[0].group == 0);
    CHECK(d.jobs[1].group == 1);
    CHECK(option(d.jobs[1].options, "iodepth") == "4");
    CHECK(d.jobs[1].phase == &r.sweep.points[1].random);

    model::RunConfig seq = plain_config();
    model::RunResult none = result_with(random_phase());
    none.merged_phases[0].phase = model::Phase::seq_write;
    const report::FioDocument two =
        report::fio_document({{"seq", &seq, &none}, {"rows", &cfg, &r}}, now);
    CHECK(two.jobs.size() == 2);
    CHECK(two.jobs[0].name == "rows qd=1");
    CHECK(two.jobs[0].group == 0);
}

TEST_CASE("a job's error: the first failure's errno, EILSEQ for data found wrong") {
    const model::RunConfig cfg = plain_config();
    model::PhaseResult p = random_phase();
    p.counters.mismatches[static_cast<std::size_t>(pattern::MismatchClass::stale)] = 2;
    model::RunResult r = result_with(p);
    const auto now = std::chrono::system_clock::now();
    CHECK(report::fio_document({{"random", &cfg, &r}}, now).jobs[0].error == EILSEQ);
    model::MismatchRecord io;
    io.phase = model::Phase::random;
    io.cls = pattern::MismatchClass::io_error;
    io.error = EIO;
    r.mismatch_records.push_back(io);
    const report::FioDocument d = report::fio_document({{"random", &cfg, &r}}, now);
    CHECK(d.jobs[0].error == EIO);
    CHECK(d.jobs[0].desc.find("2 mismatches") != std::string::npos);
}
