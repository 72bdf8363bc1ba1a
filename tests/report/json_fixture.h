// What the tests of the --json document share (json_report_test and the
// json_*_test beside it): a synthetic run (configuration, host, results with
// a mismatch or without), the document a file holds of it, the schema and a
// validator for the keywords it uses, and checks of a latency object.
#pragma once

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

namespace ds::test::json_doc {

using nlohmann::json;

constexpr std::uint64_t MiB = 1024 * 1024;

// Latency samples of the synthetic phases, nanoseconds.
inline std::vector<std::uint64_t> write_samples() {
    std::vector<std::uint64_t> v;
    for (std::uint64_t i = 1; i <= 16; ++i)
        v.push_back(i * 10'000);  // 10 us .. 160 us
    return v;
}
inline const std::vector<std::uint64_t> kReadSamples{100, 200, 300, 400, 5'000};

inline model::RunConfig make_config() {
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

inline report::HostInfo make_host() {
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

inline model::MismatchRecord make_record() {
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
inline model::RunResult make_result(bool mismatch) {
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
inline json document(const model::RunConfig& cfg, const model::RunResult& r,
                     const report::HostInfo& host) {
    return json::parse(report::document_text(report::result_json(cfg, r, host), &r));
}

inline json load_schema() {
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

inline std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& e : v)
        s += e + "\n";
    return s;
}

inline bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Every key that names a unit or a rate holds a number (nullable only where listed).
inline void check_numbers_are_numbers(const json& j, const std::string& path) {
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

inline std::uint64_t bucket_sum(const json& latency) {
    std::uint64_t sum = 0;
    for (const auto& b : latency["histogram"]["buckets"])
        sum += b[1].get<std::uint64_t>();
    return sum;
}

// Lower bounds of the buckets `samples` fall into, ascending and distinct.
inline std::vector<std::uint64_t> expected_lowers(const std::vector<std::uint64_t>& samples) {
    std::set<std::uint64_t> s;
    for (auto ns : samples)
        s.insert(stats::LatencyHistogram::bucket_lower(stats::LatencyHistogram::bucket_of(ns)));
    return {s.begin(), s.end()};
}

inline std::uint64_t exact_percentile(std::vector<std::uint64_t> v, double p) {
    std::sort(v.begin(), v.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

inline void check_latency(const json& l, const std::vector<std::uint64_t>& samples) {
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

inline void check_empty_latency(const json& l) {
    CHECK(l["count"] == 0);
    CHECK(l["min_ns"] == 0);
    CHECK(l["max_ns"] == 0);
    CHECK(l["mean_ns"] == 0);
    CHECK(l["percentiles_ns"]["p50"] == 0);
    CHECK(l["histogram"]["buckets"].empty());
}

inline std::size_t class_index(pattern::MismatchClass c) {
    return static_cast<std::size_t>(c);
}

}  // namespace ds::test::json_doc
