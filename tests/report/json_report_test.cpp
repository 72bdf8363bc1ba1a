#include "report/json_report.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "io/backend.h"
#include "model/config.h"
#include "model/results.h"
#include "pattern/unit.h"
#include "report/backend_comparison.h"
#include "report/preset_report.h"
#include "report/verify_report.h"
#include "stats/histogram.h"
#include "tests/report/schema_path.h"  // DS_SCHEMA_PATH, written by tests/report/meson.build
#include "units/units.h"

using nlohmann::json;
using namespace ds;

namespace {

constexpr std::uint64_t MiB = 1024 * 1024;

// Latency samples of the synthetic phases, nanoseconds.
std::vector<std::uint64_t> write_samples() {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 1; i <= 16; ++i)
        v.push_back(i * 10'000);  // 10 us .. 160 us
    return v;
}
const std::vector<std::uint64_t> kReadSamples{100, 200, 300, 400, 5'000};

model::RunConfig make_config() {
    model::RunConfig c;
    c.target = "/mnt/test";
    c.file_bytes = 8 * MiB;
    c.files = 2;
    c.qd = 16;
    c.seq_block = 1 * MiB;
    c.rand_block = 4096;
    c.read_pct = 70;
    c.rand_time_s = 2;
    c.iterations = 1;
    c.seed = 42;
    c.seed_given = true;
    return c;
}

report::HostInfo make_host() {
    report::HostInfo h;
    h.hostname = "testhost";
    h.kernel = "6.1.0-18-amd64";
    h.machine = "x86_64";
    h.cpu_model = "Test CPU";
    h.cpus = 8;
    h.memory_bytes = 16ULL << 30;
    h.simd_path = "avx2";
    return h;
}

model::MismatchRecord make_record() {
    model::MismatchRecord m;
    m.iteration = 1;
    m.phase = model::Phase::seq_read;
    m.file_index = 1;
    m.path = "/mnt/test/drivestress-1.dat";
    m.unit_offset = 7 * 4096;
    m.offset = 7 * 4096 + 100;
    m.length = 4096;
    m.cls = pattern::MismatchClass::corrupt;
    m.bad_bytes = 17;
    m.expected_generation = 1;
    m.found = pattern::ParsedHeader{
        .run_id = 0x1234, .offset = 7 * 4096, .file_index = 1, .generation = 1, .unit_bytes = 4096};
    m.op = io::OpKind::read;
    return m;
}

// One iteration: seq-write (16 MiB in 0.5 s) and seq-read (16 MiB in 0.25 s,
// verified); with `mismatch`, one corrupt unit found by the read.
model::RunResult make_result(bool mismatch) {
    model::RunResult r;
    r.document_id = "0123456789abcdef";
    r.seed = 42;
    r.run_id = 0x1234;
    r.backend.requested = model::BackendChoice::automatic;
    r.backend.used = io::BackendKind::io_uring;
    r.backend.uring.setup_flags = {"SINGLE_ISSUER", "DEFER_TASKRUN"};
    r.backend.uring.fixed_files = true;
    r.backend.uring.fixed_buffers = false;
    r.backend.uring.notes = {"registered buffers off: io_uring_register_buffers: ENOMEM"};
    r.backend.uring.sq_entries = 16;
    r.backend.effective_qd = 16;
    r.backend.seq_qd = 8;
    r.target = {.directory = "/mnt/test",
                .filesystem = "ext4",
                .device = "/dev/vdb",
                .free_bytes = 10ULL << 30};
    r.direct_io = true;
    r.file_paths = {"/mnt/test/drivestress-0.dat", "/mnt/test/drivestress-1.dat"};
    r.wall_seconds = 0.8;
    r.started_at = "2025-01-31T12:00:00Z";

    r.begin_iteration(1, 0);

    model::PhaseResult w;
    w.phase = model::Phase::seq_write;
    w.workers = 2;
    w.seconds = 0.5;
    w.cpu = {.user_s = 0.1, .system_s = 0.2};
    w.counters.write_ops = 16;
    w.counters.write_bytes = 16 * MiB;
    for (auto ns : write_samples())
        w.counters.write_latency.record(ns);
    r.add_phase(w);

    model::PhaseResult rd;
    rd.phase = model::Phase::seq_read;
    rd.workers = 2;
    rd.seconds = 0.25;
    rd.cpu = {.user_s = 0.05, .system_s = 0.05};
    rd.counters.read_ops = 16;
    rd.counters.read_bytes = 16 * MiB;
    rd.counters.verified_bytes = 16 * MiB;
    for (auto ns : kReadSamples)
        rd.counters.read_latency.record(ns);
    if (mismatch) {
        rd.counters.mismatches[static_cast<std::size_t>(pattern::MismatchClass::corrupt)] = 1;
        r.mismatch_records.push_back(make_record());
        r.mismatch_totals[static_cast<std::size_t>(pattern::MismatchClass::corrupt)] = 1;
    }
    r.add_phase(rd);
    return r;
}

// The document as a file holds it: result_json with the iterations that
// document_text adds, parsed back.
json document(const model::RunConfig& cfg, const model::RunResult& r,
              const report::HostInfo& host) {
    return json::parse(report::document_text(report::result_json(cfg, r, host), &r));
}

json load_schema() {
    std::ifstream f(DS_SCHEMA_PATH);
    REQUIRE_MESSAGE(f.good(), "cannot open " DS_SCHEMA_PATH);
    std::stringstream text;
    text << f.rdbuf();
    json s = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    REQUIRE_MESSAGE(!s.is_discarded(), DS_SCHEMA_PATH " is not valid JSON");
    return s;
}

// A JSON Schema (2020-12) validator for the keywords result.schema.json
// uses.  A keyword it does not know is reported as an error, so the schema
// cannot quietly rely on something this test does not check.
class SchemaValidator {
  public:
    explicit SchemaValidator(json root) : root_(std::move(root)) {}

    std::vector<std::string> errors(const json& doc) const {
        std::vector<std::string> out;
        check(root_, doc, "$", out);
        return out;
    }

  private:
    const json& resolve(const std::string& ref, const std::string& path,
                        std::vector<std::string>& out) const {
        static const json kFalse = false;
        const std::string prefix = "#/$defs/";
        if (ref.rfind(prefix, 0) != 0 || !root_["$defs"].contains(ref.substr(prefix.size()))) {
            out.push_back(path + ": unresolvable $ref " + ref);
            return kFalse;
        }
        return root_["$defs"][ref.substr(prefix.size())];
    }

    static bool has_type(const json& v, const std::string& t) {
        if (t == "null") return v.is_null();
        if (t == "boolean") return v.is_boolean();
        if (t == "object") return v.is_object();
        if (t == "array") return v.is_array();
        if (t == "string") return v.is_string();
        if (t == "number") return v.is_number();
        if (t == "integer")
            return v.is_number_integer() ||
                   (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
        return false;
    }

    void check(const json& s, const json& v, const std::string& path,
               std::vector<std::string>& out) const {
        if (s.is_boolean()) {
            if (!s.get<bool>()) out.push_back(path + ": not allowed here");
            return;
        }
        static const std::set<std::string> kAnnotations{"$schema", "$id",     "$comment",
                                                        "$defs",   "title",   "description",
                                                        "format",  "default", "examples"};
        static const std::set<std::string> kKeywords{"$ref",
                                                     "type",
                                                     "enum",
                                                     "const",
                                                     "minimum",
                                                     "maximum",
                                                     "exclusiveMinimum",
                                                     "minLength",
                                                     "pattern",
                                                     "required",
                                                     "properties",
                                                     "additionalProperties",
                                                     "prefixItems",
                                                     "items",
                                                     "minItems",
                                                     "maxItems",
                                                     "anyOf",
                                                     "not"};
        for (const auto& [k, _] : s.items())
            if (!kAnnotations.count(k) && !kKeywords.count(k))
                out.push_back(path + ": schema keyword '" + k + "' unknown to this validator");

        if (s.contains("$ref")) check(resolve(s["$ref"], path, out), v, path, out);
        if (s.contains("type")) {
            bool ok = false;
            if (s["type"].is_string())
                ok = has_type(v, s["type"]);
            else
                for (const auto& t : s["type"])
                    ok = ok || has_type(v, t);
            if (!ok) out.push_back(path + ": " + v.dump() + " is not of type " + s["type"].dump());
        }
        if (s.contains("enum") &&
            std::find(s["enum"].begin(), s["enum"].end(), v) == s["enum"].end())
            out.push_back(path + ": " + v.dump() + " is not one of " + s["enum"].dump());
        if (s.contains("const") && s["const"] != v)
            out.push_back(path + ": " + v.dump() + " is not " + s["const"].dump());
        if (v.is_number()) {
            const double d = v.get<double>();
            if (s.contains("minimum") && d < s["minimum"].get<double>())
                out.push_back(path + ": " + v.dump() + " is below the minimum");
            if (s.contains("maximum") && d > s["maximum"].get<double>())
                out.push_back(path + ": " + v.dump() + " is above the maximum");
            if (s.contains("exclusiveMinimum") && d <= s["exclusiveMinimum"].get<double>())
                out.push_back(path + ": " + v.dump() + " is not above the exclusive minimum");
        }
        if (v.is_string()) {
            const auto& str = v.get_ref<const std::string&>();
            if (s.contains("minLength") && str.size() < s["minLength"].get<std::size_t>())
                out.push_back(path + ": string too short");
            if (s.contains("pattern") &&
                !std::regex_search(str, std::regex(s["pattern"].get<std::string>())))
                out.push_back(path + ": " + v.dump() + " does not match " + s["pattern"].dump());
        }
        if (v.is_object()) {
            if (s.contains("required"))
                for (const auto& k : s["required"])
                    if (!v.contains(k.get<std::string>()))
                        out.push_back(path + ": required key " + k.dump() + " is missing");
            for (const auto& [k, value] : v.items()) {
                const std::string sub = path + "." + k;
                if (s.contains("properties") && s["properties"].contains(k))
                    check(s["properties"][k], value, sub, out);
                else if (s.contains("additionalProperties"))
                    check(s["additionalProperties"], value, sub, out);
            }
        }
        if (v.is_array()) {
            std::size_t first_item = 0;
            if (s.contains("prefixItems")) {
                const auto& prefix = s["prefixItems"];
                for (std::size_t i = 0; i < prefix.size() && i < v.size(); ++i)
                    check(prefix[i], v[i], path + "[" + std::to_string(i) + "]", out);
                first_item = prefix.size();
            }
            if (s.contains("items"))
                for (std::size_t i = first_item; i < v.size(); ++i)
                    check(s["items"], v[i], path + "[" + std::to_string(i) + "]", out);
            if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>())
                out.push_back(path + ": fewer items than minItems");
            if (s.contains("maxItems") && v.size() > s["maxItems"].get<std::size_t>())
                out.push_back(path + ": more items than maxItems");
        }
        if (s.contains("anyOf")) {
            bool any = false;
            for (const auto& alt : s["anyOf"]) {
                std::vector<std::string> sub;
                check(alt, v, path, sub);
                any = any || sub.empty();
            }
            if (!any) out.push_back(path + ": matches none of anyOf");
        }
        if (s.contains("not")) {
            std::vector<std::string> sub;
            check(s["not"], v, path, sub);
            if (sub.empty()) out.push_back(path + ": matches a schema it must not (\"not\")");
        }
    }

    json root_;
};

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& e : v)
        s += e + "\n";
    return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every key that names a unit or a rate holds a number (nullable only where listed).
void check_numbers_are_numbers(const json& j, const std::string& path) {
    static const std::set<std::string> kNullable{"rand_time_s",
                                                 "rand_ops",
                                                 "seq_time_s",
                                                 "duration_s",
                                                 "logical_block_bytes",
                                                 "physical_block_bytes",
                                                 "rate_iops",
                                                 "closed_loop_iops",
                                                 "kernel_io_threads_cpu_s",
                                                 "trim_ops",
                                                 "trim_bytes",
                                                 "trimmed_units_read",
                                                 "trim_not_honoured_units"};
    if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            check_numbers_are_numbers(j[i], path + "[" + std::to_string(i) + "]");
        return;
    }
    if (!j.is_object()) return;
    for (const auto& [k, v] : j.items()) {
        const std::string sub = path + "." + k;
        const bool unit_key = ends_with(k, "_bytes") || ends_with(k, "_ns") || ends_with(k, "_s") ||
                              ends_with(k, "_bytes_per_sec") || ends_with(k, "_pct") ||
                              ends_with(k, "iops") || ends_with(k, "_ops") || k == "count";
        if (unit_key && v.is_object()) {  // e.g. percentiles_ns: every value in the unit
            for (const auto& [name, x] : v.items()) {
                CAPTURE(sub);
                CAPTURE(name);
                CHECK(x.is_number());
            }
        } else if (unit_key) {
            CAPTURE(sub);
            CHECK((v.is_number() || (kNullable.count(k) && v.is_null())));
        }
        check_numbers_are_numbers(v, sub);
    }
}

std::uint64_t bucket_sum(const json& latency) {
    std::uint64_t sum = 0;
    for (const auto& b : latency["histogram"]["buckets"])
        sum += b[1].get<std::uint64_t>();
    return sum;
}

// Lower bounds of the buckets `samples` fall into, ascending and distinct.
std::vector<std::uint64_t> expected_lowers(const std::vector<std::uint64_t>& samples) {
    std::set<std::uint64_t> s;
    for (auto ns : samples)
        s.insert(stats::LatencyHistogram::bucket_lower(stats::LatencyHistogram::bucket_of(ns)));
    return {s.begin(), s.end()};
}

std::uint64_t exact_percentile(std::vector<std::uint64_t> v, double p) {
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

void check_latency(const json& l, const std::vector<std::uint64_t>& samples) {
    REQUIRE(l.is_object());
    CHECK(l["count"] == samples.size());
    CHECK(l["min_ns"].is_number_integer());
    CHECK(l["max_ns"].is_number_integer());
    CHECK(l["mean_ns"].is_number());
    CHECK(l["min_ns"] == *std::min_element(samples.begin(), samples.end()));
    CHECK(l["max_ns"] == *std::max_element(samples.begin(), samples.end()));
    double mean = 0;
    for (auto s : samples)
        mean += static_cast<double>(s);
    mean /= static_cast<double>(samples.size());
    CHECK(l["mean_ns"].get<double>() == doctest::Approx(mean));

    const json& pct = l["percentiles_ns"];
    REQUIRE(pct.is_object());
    const std::pair<const char*, double> kPct[] = {{"p50", 50}, {"p90", 90},     {"p95", 95},
                                                   {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}};
    for (auto [name, p] : kPct) {
        CAPTURE(name);
        REQUIRE(pct.contains(name));
        REQUIRE(pct[name].is_number_integer());
        const auto got = pct[name].get<double>();
        const auto exact = static_cast<double>(exact_percentile(samples, p));
        CHECK(std::abs(got - exact) <= exact * 0.01);
        CHECK(got >= l["min_ns"].get<double>());
        CHECK(got <= l["max_ns"].get<double>());
    }
    CHECK(pct["p50"].get<std::uint64_t>() <= pct["p99"].get<std::uint64_t>());

    const json& h = l["histogram"];
    CHECK(h["scheme"] == "log-linear");
    CHECK(h["sub_bucket_bits"] == stats::LatencyHistogram::kSubBucketBits);
    CHECK(h["relative_error"].get<double>() <= 0.01);
    CHECK(h["relative_error"].get<double>() > 0);
    const json& buckets = h["buckets"];
    REQUIRE(buckets.is_array());
    CHECK(!buckets.empty());
    std::vector<std::uint64_t> lowers;
    for (const auto& b : buckets) {
        REQUIRE(b.is_array());
        REQUIRE(b.size() == 2);
        CHECK(b[0].is_number_integer());
        CHECK(b[1].is_number_integer());
        CHECK(b[1].get<std::uint64_t>() >= 1);
        lowers.push_back(b[0].get<std::uint64_t>());
    }
    CHECK(lowers == expected_lowers(samples));
    CHECK(bucket_sum(l) == samples.size());
}

void check_empty_latency(const json& l) {
    CHECK(l["count"] == 0);
    CHECK(l["min_ns"] == 0);
    CHECK(l["max_ns"] == 0);
    CHECK(l["mean_ns"] == 0);
    CHECK(l["percentiles_ns"]["p50"] == 0);
    CHECK(l["histogram"]["buckets"].empty());
}

std::size_t class_index(pattern::MismatchClass c) {
    return static_cast<std::size_t>(c);
}

}  // namespace

TEST_CASE("document header: schema version, tool, host, target") {
    json d = document(make_config(), make_result(false), make_host());
    CHECK(d["schema_version"].is_number_integer());
    CHECK(d["schema_version"] == 5);
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

namespace {

// A --sweep qd=1,4,16 result: IOPS 1000, 3000, 3100 (knee at qd 4).
model::RunResult make_sweep_result() {
    model::RunResult r = make_result(false);
    r.sweep.param = model::SweepParam::qd;
    const std::uint64_t values[] = {1, 4, 16};
    const std::uint64_t ops[] = {1000, 3000, 3100};
    const std::uint64_t lat[] = {100'000, 300'000, 900'000};
    for (int i = 0; i < 3; ++i) {
        model::SweepPoint pt;
        pt.value = values[i];
        pt.random.phase = model::Phase::random;
        pt.random.workers = 2;
        pt.random.seconds = 1.0;
        // ops[i] operations in 1 s: all but 10 reads, each taking lat[i].
        pt.random.counters.read_ops = ops[i] - 10;
        pt.random.counters.read_bytes = (ops[i] - 10) * 4096;
        pt.random.counters.verified_bytes = (ops[i] - 10) * 4096;
        pt.random.counters.write_ops = 10;
        pt.random.counters.write_bytes = 10 * 4096;
        for (std::uint64_t n = 0; n < ops[i] - 10; ++n)
            pt.random.counters.read_latency.record(lat[i]);
        for (std::uint64_t n = 0; n < 10; ++n)
            pt.random.counters.write_latency.record(lat[i]);
        r.sweep.points.push_back(pt);
    }
    r.sweep.knee = 1;
    return r;
}

model::RunConfig make_sweep_config() {
    model::RunConfig cfg = make_config();
    cfg.sweep = model::Sweep{.param = model::SweepParam::qd, .values = {1, 4, 16}};
    cfg.qd = 16;
    cfg.knee_gain_pct = 5;
    return cfg;
}

}  // namespace

TEST_CASE("sweep: one random phase per value, and the knee") {
    json d = document(make_sweep_config(), make_sweep_result(), make_host());
    REQUIRE(d.contains("sweep"));
    const json& sw = d["sweep"];
    CHECK(sw["parameter"] == "qd");
    CHECK(sw["knee_gain_pct"] == 5.0);
    REQUIRE(sw["points"].size() == 3);
    CHECK(sw["points"][0]["value"] == 1);
    CHECK(sw["points"][1]["value"] == 4);
    CHECK(sw["points"][2]["value"] == 16);
    CHECK(sw["points"][1]["phase"] == "random");
    CHECK(sw["points"][1]["iops"].get<double>() == doctest::Approx(3000.0));
    CHECK(sw["points"][1]["latency"]["count"] == 3000);
    REQUIRE(sw["knee"].is_object());
    CHECK(sw["knee"]["index"] == 1);
    CHECK(sw["knee"]["value"] == 4);
    CHECK(sw["knee"]["iops"].get<double>() == doctest::Approx(3000.0));
    CHECK(std::abs(sw["knee"]["p99_ns"].get<double>() - 300'000.0) <= 3'000.0);
    CHECK(sw["knee"]["next_iops_gain_pct"].get<double>() == doctest::Approx(100.0 / 30.0));
    CHECK(sw["knee"]["next_p99_change_pct"].get<double>() == doctest::Approx(200.0).epsilon(0.02));
    CHECK(sw["knee"]["axis"] == "iops");
    CHECK(sw["knee"]["bandwidth_bytes_per_sec"].get<double>() ==
          doctest::Approx(sw["points"][1]["bandwidth_bytes_per_sec"].get<double>()));

    model::RunResult r = make_sweep_result();
    r.sweep.knee.reset();
    d = document(make_sweep_config(), r, make_host());
    CHECK(d["sweep"]["knee"].is_null());

    // Without a sweep there is no "sweep" key at all.
    CHECK(!document(make_config(), make_result(false), make_host()).contains("sweep"));
}

TEST_CASE("sweep: a block-size sweep's knee is chosen and described by bandwidth") {
    model::RunResult r = make_sweep_result();
    r.sweep.param = model::SweepParam::rand_block;
    json d = document(make_sweep_config(), r, make_host());
    const json& k = d["sweep"]["knee"];
    REQUIRE(k.is_object());
    CHECK(k["axis"] == "bandwidth");
    const json& pts = d["sweep"]["points"];
    const double bw1 = pts[1]["bandwidth_bytes_per_sec"].get<double>();
    const double bw2 = pts[2]["bandwidth_bytes_per_sec"].get<double>();
    CHECK(k["bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(bw1));
    CHECK(k["next_bandwidth_gain_pct"].get<double>() == doctest::Approx((bw2 / bw1 - 1) * 100));
    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
}

TEST_CASE("sweep and backend comparison documents validate against the schema") {
    SchemaValidator v(load_schema());
    SUBCASE("sweep with a knee") {
        auto errors = v.errors(document(make_sweep_config(), make_sweep_result(), make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("sweep without a knee") {
        model::RunResult r = make_sweep_result();
        r.sweep.knee.reset();
        auto errors = v.errors(document(make_sweep_config(), r, make_host()));
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("--compare-backends") {
        model::RunConfig cfg = make_config();
        cfg.compare_backends = true;
        model::RunResult uring = make_result(false);
        model::RunResult sync = make_result(false);
        sync.backend.requested = model::BackendChoice::sync;
        sync.backend.used = io::BackendKind::sync;
        sync.backend.effective_qd = sync.backend.seq_qd = 1;
        sync.merged_phases[0].seconds = 1.0;  // half the io_uring rate
        sync.backend.sync_threads = 0;
        sync.merged_phases[0].cpu.context_switches = 300;
        sync.merged_phases[0].counters.system_calls = 100;
        json d = document(cfg, uring, make_host());
        model::BackendComparison cmp;
        cmp.runs.push_back({"io_uring", cfg, uring, true});
        cmp.runs.push_back({"sync", cfg, sync, true});
        cmp.runs.push_back({"sync qd 1", cfg, sync, false});  // never ran: no row
        d["compare_backends"] = report::comparison_json(cmp);
        const json& rows = d["compare_backends"]["rows"];
        REQUIRE(rows.size() == 2);
        CHECK(rows[0]["phase"] == "seq-write");
        CHECK(rows[0]["bandwidth_ratio"].get<double>() == doctest::Approx(2.0));
        CHECK(d["compare_backends"]["sync"]["backend"]["used"] == "sync");
        const json& runs = d["compare_backends"]["runs"];
        REQUIRE(runs.size() == 2);
        CHECK(runs[1]["label"] == "sync");
        const json& ph = runs[1]["phases"][0];
        const double ops = ph["ops"].get<double>();
        REQUIRE(ops > 0);
        CHECK(ph["context_switches_per_op"].get<double>() == doctest::Approx(300 / ops));
        CHECK(ph["system_calls_per_op"].get<double>() == doctest::Approx(100 / ops));
        CHECK(d["compare_backends"]["sweep"].is_null());
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("--compare-backends --sweep qd: both curves and the crossover") {
        model::RunConfig cfg = make_sweep_config();
        cfg.compare_backends = true;
        model::RunResult uring = make_sweep_result();
        model::RunResult sync = make_sweep_result();
        sync.backend.used = io::BackendKind::sync;
        // sync keeps pace at the first point and falls behind from the second on.
        for (std::size_t i = 1; i < sync.sweep.points.size(); ++i)
            sync.sweep.points[i].random.seconds *= 2;
        model::BackendComparison cmp;
        cmp.runs.push_back({"io_uring", cfg, uring, true});
        cmp.runs.push_back({"sync", cfg, sync, true});
        json d = document(cfg, uring, make_host());
        d["compare_backends"] = report::comparison_json(cmp);
        const json& sw = d["compare_backends"]["sweep"];
        REQUIRE(sw.is_object());
        REQUIRE(sw["points"].size() == uring.sweep.points.size());
        REQUIRE(uring.sweep.points.size() >= 2);
        CHECK(sw["crossover_qd"] == uring.sweep.points[1].value);
        CHECK(sw["points"][1]["iops_ratio"].get<double>() == doctest::Approx(2.0));
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
    }
}

TEST_CASE("the schema keeps sweep-only and comparison keys where they belong") {
    SchemaValidator v(load_schema());
    json d = document(make_sweep_config(), make_sweep_result(), make_host());
    REQUIRE(v.errors(d).empty());

    json bad = d;
    bad["merged_phases"][0]["value"] = 4;  // "value" belongs to sweep points
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["sweep"]["points"][0]["drift"] = nullptr;  // and drift to merged phases
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["sweep"]["points"][0].erase("value");
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["sweep"]["parameter"] = "depth";
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["merged_phases"][0]["latency_thresholds"][0]["slower_share"] = 1.5;
    CHECK(!v.errors(bad).empty());

    bad = d;
    bad["compare_backends"] = {{"baseline", "io_uring"}, {"rows", json::array()}};
    CHECK(!v.errors(bad).empty());
}

// The summary is the whole run: the sweep's random phases read, wrote and
// verified too (their mismatches already count in summary.mismatches).
TEST_CASE("summary totals include the sweep points") {
    json d = document(make_sweep_config(), make_sweep_result(), make_host());
    const json& sm = d["summary"];
    CHECK(sm["written_bytes"] == 16 * MiB + 3 * 10 * 4096);
    CHECK(sm["read_bytes"] == 16 * MiB + (1000 + 3000 + 3100 - 3 * 10) * 4096);
    CHECK(sm["verified_bytes"] == 16 * MiB + (1000 + 3000 + 3100 - 3 * 10) * 4096);
}

TEST_CASE("preset section: one row per test, validated by the schema") {
    report::PresetResults results;
    results.emplace_back("SEQ1M Q8T1", make_result(false));
    results.emplace_back("RND4K Q32T1 read", make_result(true));
    json d = document(make_config(), results.front().second, make_host());
    d["preset"] = report::preset_json("desktop", results);

    const json& p = d["preset"];
    CHECK(p["name"] == "desktop");
    REQUIRE(p["tests"].size() == 2);
    const json& seq = p["tests"][0];
    CHECK(seq["label"] == "SEQ1M Q8T1");
    // No random phase: seq-read and seq-write figures.
    CHECK(seq["read_bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.25));
    CHECK(seq["write_bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(16.0 * MiB / 0.5));
    CHECK(seq["read_iops"].get<double>() == doctest::Approx(64.0));
    CHECK(seq["write_iops"].get<double>() == doctest::Approx(32.0));
    CHECK(seq["p99_ns"].is_number_integer());
    CHECK(seq["exit_code"] == 0);
    CHECK(seq["mismatch_total"] == 0);
    CHECK(p["tests"][1]["exit_code"] == 2);
    CHECK(p["tests"][1]["mismatch_total"] == 1);

    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());

    d["preset"]["name"] = "turbo";
    CHECK(!v.errors(d).empty());
}

TEST_CASE("a --verify-only document validates; a run's keys in it do not") {
    SchemaValidator v(load_schema());
    model::VerifyOnlyResult r;
    r.state_path = "/mnt/t/drivestress.state";
    r.started_at = "2025-01-31T12:00:00Z";
    r.geo.seed = 7;
    r.geo.file_bytes = 8 << 20;
    r.geo.unit_bytes = 4096;
    r.geo.bound = model::kAnyNewerBound;  // only phase ends acknowledged
    r.geo.paths = {"/mnt/t/drivestress-0.dat"};
    model::VerifyFileResult f;
    f.path = r.geo.paths[0];
    f.acknowledgements = 3;
    f.bound = model::kAnyNewerBound;
    f.intact = 2000;
    f.newer = 47;
    f.lost = 1;
    r.files = {f};
    r.intact = 2000;
    r.newer = 47;
    r.lost = 1;
    r.lost_by_class[static_cast<std::size_t>(pattern::MismatchClass::zeroed)] = 1;
    model::MismatchRecord m;
    m.path = f.path;
    m.offset = m.unit_offset = 12288;
    m.length = 4096;
    m.cls = pattern::MismatchClass::zeroed;
    m.bad_bytes = 4090;
    m.expected_generation = 70000;  // generations are 32 bits
    r.lost_records = {m};
    r.document_id = "fedcba9876543210";
    json d = report::verify_json(r, make_host());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
    CHECK(d["summary"]["exit_code"] == 2);
    CHECK(d["summary"]["status"] == "failed");
    CHECK(d["mismatches"][0]["phase"] == "verify-only");
    CHECK(d["mismatches"][0]["iteration"] == 0);
    CHECK(d["verify_only"]["written_after_ack_units"] == 47);

    json bad = d;
    bad["config"] = json::object();  // a run's section in a verify document
    CHECK(!v.errors(bad).empty());
    json run_doc = document(make_config(), make_result(true), make_host());
    run_doc["verify_only"] = d["verify_only"];  // and the other way round
    CHECK(!v.errors(run_doc).empty());
}

namespace {

// Three iterations of one seq-write phase: 16 MiB in 0.16 s, 0.08 s and
// 0.32 s (100, 200 and 50 MiB/s), 16 writes each taking 1, 2 and 4 ms.
model::RunResult make_three_iterations(std::uint64_t detail) {
    model::RunResult r = make_result(false);
    r.iterations.clear();
    r.iterations_run = 0;
    r.merged_phases.clear();
    r.drift.clear();
    const double seconds[] = {0.16, 0.08, 0.32};
    for (std::uint64_t i = 1; i <= 3; ++i) {
        r.begin_iteration(i, detail);
        model::PhaseResult w;
        w.phase = model::Phase::seq_write;
        w.workers = 2;
        w.seconds = seconds[i - 1];
        w.counters.write_ops = 16;
        w.counters.write_bytes = 16 * MiB;
        for (int n = 0; n < 16; ++n)
            w.counters.write_latency.record((1ULL << (i - 1)) * 1'000'000);
        r.add_phase(w);
    }
    return r;
}

}  // namespace

TEST_CASE("a long run lists its last iterations and summarises the earlier ones") {
    model::RunResult r = make_three_iterations(0);
    const std::uint64_t n = model::RunResult::kIterationWindow + 7;
    for (std::uint64_t i = 4; i <= n; ++i) {
        r.begin_iteration(i, 0);
        model::PhaseResult w;
        w.phase = model::Phase::seq_write;
        w.seconds = 0.16;
        w.counters.write_ops = 16;
        w.counters.write_bytes = 16 * MiB;
        r.add_phase(w);
    }
    CHECK(r.iterations.size() == model::RunResult::kIterationWindow);
    json d = document(make_config(), r, make_host());
    REQUIRE(d["iterations"].size() == model::RunResult::kIterationWindow);
    CHECK(d["iterations"][0]["index"] == 8);
    CHECK(d["iterations"].back()["index"] == n);
    CHECK(d["summary"]["iterations_run"] == n);
    CHECK(d["summary"]["iterations_summarised"] == 7);
    CHECK(d["summary"]["written_bytes"] == n * 16 * MiB);
    const json& m = d["merged_phases"][0];
    CHECK(m["iterations"] == n);
    CHECK(m["write_bytes"] == n * 16 * MiB);
    // Drift over every iteration, the summarised ones included.
    const json& bw = m["drift"]["bandwidth_bytes_per_sec"];
    CHECK(m["drift"]["iterations"] == n);
    CHECK(bw["first_iteration"] == 1);
    CHECK(bw["best_iteration"] == 2);
    CHECK(bw["worst_iteration"] == 3);
    CHECK(bw["last_iteration"] == n);
    SchemaValidator v(load_schema());
    CHECK(v.errors(d).empty());
}

TEST_CASE("merged phases: every iteration added up, histograms merged, and the drift") {
    const model::RunResult r = make_three_iterations(0);
    json d = document(make_config(), r, make_host());
    REQUIRE(d["iterations"].size() == 3);
    REQUIRE(d["merged_phases"].size() == 1);
    const json& m = d["merged_phases"][0];
    CHECK(m["phase"] == "seq-write");
    CHECK(m["iterations"] == 3);
    CHECK(m["write_bytes"] == 48 * MiB);
    CHECK(m["write_ops"] == 48);
    CHECK(m["elapsed_s"].get<double>() == doctest::Approx(0.56));
    CHECK(m["bandwidth_bytes_per_sec"].get<double>() == doctest::Approx(48.0 * MiB / 0.56));
    CHECK(m["latency"]["count"] == 48);
    CHECK(m["latency"]["min_ns"] == 1'000'000);
    CHECK(m["latency"]["max_ns"] == 4'000'000);
    CHECK(m["latency"]["histogram"]["buckets"].size() == 3);

    const json& bw = m["drift"]["bandwidth_bytes_per_sec"];
    CHECK(m["drift"]["iterations"] == 3);
    CHECK(bw["first"].get<double>() == doctest::Approx(100.0 * MiB));
    CHECK(bw["first_iteration"] == 1);
    CHECK(bw["best"].get<double>() == doctest::Approx(200.0 * MiB));
    CHECK(bw["best_iteration"] == 2);
    CHECK(bw["worst"].get<double>() == doctest::Approx(50.0 * MiB));
    CHECK(bw["worst_iteration"] == 3);
    CHECK(bw["last_iteration"] == 3);
    const json& p99 = m["drift"]["p99_ns"];
    CHECK(p99["best"].is_number_integer());
    CHECK(p99["best_iteration"] == 1);  // 1 ms is the lowest
    CHECK(p99["worst_iteration"] == 3);
    CHECK(m["drift"]["iops"]["best"].get<double>() == doctest::Approx(200.0));
    CHECK(!d.contains("iteration_detail"));

    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
}

TEST_CASE("iteration_detail: the last N iterations in full, on request") {
    const model::RunResult r = make_three_iterations(2);
    json d = document(make_config(), r, make_host());
    REQUIRE(d.contains("iteration_detail"));
    const json& detail = d["iteration_detail"];
    REQUIRE(detail.size() == 2);
    CHECK(detail[0]["index"] == 2);
    CHECK(detail[1]["index"] == 3);
    CHECK(detail[1]["phases"][0]["latency"]["max_ns"] == 4'000'000);
    CHECK(!detail[1]["phases"][0].contains("drift"));

    SchemaValidator v(load_schema());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
    d["iteration_detail"][0]["phases"][0]["iterations"] = 1;  // merged phases only
    CHECK(!v.errors(d).empty());
}

TEST_CASE("a document in progress: marked, no verdict yet, and validated") {
    SchemaValidator v(load_schema());
    const model::RunResult r = make_three_iterations(0);
    auto in_progress = [&](const model::ProgressSnapshot* live) {
        json head = report::result_json(make_config(), r, make_host());
        report::mark_in_progress(head, live);
        return json::parse(report::document_text(head, &r));
    };
    SUBCASE("between iterations") {
        const json d = in_progress(nullptr);
        CHECK(d["in_progress"] == true);
        CHECK(d["summary"]["status"] == "running");
        CHECK(d["summary"]["exit_code"].is_null());
        CHECK(d["summary"]["stop_reason"].is_null());
        CHECK(d["progress"]["iteration"].is_null());
        CHECK(d["progress"]["phase"].is_null());
        CHECK(d["progress"]["updated_at"].is_string());
        CHECK(d["iterations"].size() == 3);
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
    }
    SUBCASE("while a phase runs") {
        model::ProgressSnapshot live{4, model::Phase::reverify, 0.25, 12.5, 1 << 20, 1};
        json d = in_progress(&live);
        CHECK(d["progress"]["iteration"] == 4);
        CHECK(d["progress"]["phase"] == "reverify");
        CHECK(d["progress"]["phase_elapsed_s"] == 12.5);
        CHECK(d["progress"]["phase_fraction_done"] == 0.25);
        auto errors = v.errors(d);
        INFO(joined(errors));
        CHECK(errors.empty());
        live.fraction_done = -1;  // unknown
        CHECK(in_progress(&live)["progress"]["phase_fraction_done"].is_null());
        live.fraction_done = 1.02;  // a last write past the estimate
        CHECK(in_progress(&live)["progress"]["phase_fraction_done"] == 1.0);

        d["summary"]["status"] = "passed";  // a verdict before the end
        CHECK(!v.errors(d).empty());
    }
    SUBCASE("a final document is not in progress") {
        const json d = document(make_config(), r, make_host());
        CHECK(d["in_progress"] == false);
        CHECK(!d.contains("progress"));
    }
}

TEST_CASE("an iteration line is about a kilobyte for four phases") {
    auto line_of = [](double seconds, std::uint64_t ops, std::uint64_t bytes, std::uint64_t ns) {
        model::IterationResult it;
        it.index = 12345;
        for (model::Phase p : model::kAllPhases) {
            model::PhaseFigures f;
            f.phase = p;
            f.seconds = seconds + 0.123456789;
            f.cpu = {.user_s = seconds / 3 + 0.123456789, .system_s = seconds / 7 + 0.987654321};
            f.read_ops = f.write_ops = ops;
            f.read_bytes = f.write_bytes = f.verified_bytes = bytes;
            f.p50_ns = ns;
            f.p99_ns = 10 * ns + 12345;
            f.max_ns = 100 * ns + 12345;
            it.phases.push_back(f);
        }
        return report::iteration_line(it);
    };
    // A default run: 4 x 256 MiB, 10 s of random I/O at 100k IOPS.
    CHECK(line_of(10, 1'000'000, 4'096'000'000, 1'234'567).size() <= 1024);
    // Hours of a fast drive: 100 TB and 10^11 operations in one phase.
    const std::string big = line_of(12345, 123'456'789'012, 123'456'789'012'345, 123'456'789);
    CHECK(big.size() <= 1200);
    const json j = json::parse(big);
    CHECK(j["phases"][3]["elapsed_s"] == 12345.123457);  // to the microsecond
    CHECK(j["phases"][3]["max_ns"] == 12'345'691'245);
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

TEST_CASE("--find-rate: the answer, its bracket and every probe; validates against the schema") {
    SchemaValidator v(load_schema());
    model::RunConfig cfg = make_config();
    cfg.find_rate = model::FindRate{99.9, 0.002};
    cfg.sweep = model::Sweep{model::SweepParam::rate, {}, false};
    model::RunResult res = make_result(false);
    res.sweep.param = model::SweepParam::rate;
    res.sweep.closed_loop_iops = 1000;
    model::FindRateResult fr;
    fr.bound = *cfg.find_rate;
    fr.closed_loop_iops = 1000;
    for (const auto& [rate, ns] : {std::pair{1000.0, 9e6}, {500.0, 1e6}, {750.0, 3e6}}) {
        model::SweepPoint pt;
        pt.value = static_cast<std::uint64_t>(rate);
        pt.random.phase = model::Phase::random;
        pt.random.workers = 1;
        pt.random.seconds = 1;
        pt.random.requested_rate = rate;
        pt.random.counters.read_ops = static_cast<std::uint64_t>(rate);
        pt.random.counters.response_latency.record(static_cast<std::uint64_t>(ns));
        res.sweep.points.push_back(pt);
        const std::vector<double> one{ns};
        fr.probes.push_back({rate, 1, true, stats::judge_probe(one, 2e6, true)});
    }
    fr.found = 1;
    fr.failing = 2;
    res.find_rate = fr;
    const json d = document(cfg, res, make_host());
    auto errors = v.errors(d);
    INFO(joined(errors));
    CHECK(errors.empty());
    const json& j = d["find_rate"];
    CHECK(j["percentile"] == 99.9);
    CHECK(j["bound_ns"] == 2'000'000);
    CHECK(j["found_iops"] == 500.0);
    CHECK(j["lowest_failing_iops"] == 750.0);
    CHECK(j["response_ns_at_found"] == 1e6);
    CHECK(j["found_within_noise"] == false);
    CHECK(j["interrupted"] == false);
    REQUIRE(j["probes"].size() == 3);
    CHECK(j["probes"][0]["passed"] == false);
    CHECK(j["probes"][1]["passed"] == true);
    CHECK(j["probes"][2]["response_ns"]["n"] == 1);
    CHECK(d["sweep"]["points"].size() == 3);
    CHECK(d["sweep"]["rate_percent"] == false);

    res.find_rate->found.reset();  // none passed: nulls
    const json none = document(cfg, res, make_host());
    CHECK(v.errors(none).empty());
    CHECK(none["find_rate"]["found_iops"].is_null());
    CHECK(none["find_rate"]["response_ns_at_found"].is_null());
}
