#include "report/json_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "drivestress_version.h"
#include "io/output_file.h"
#include "model/drift.h"
#include "pattern/unit.h"
#include "report/figures.h"
#include "units/utf8.h"

namespace ds::report {

using nlohmann::json;

namespace {

constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}};

double per_second(std::uint64_t v, double s) {
    return s > 0 ? static_cast<double>(v) / s : 0.0;
}

json class_counts(const run::ClassCounts& counts) {
    json j = json::object();
    for (std::size_t i = 0; i < counts.size(); ++i)
        j[std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i)))] = counts[i];
    return j;
}

// --rate's figures of a phase (null for a closed-loop one): latency above
// is service time; response_latency counts from when each was due.
json rate_json(const run::PhaseResult& p, const run::RunConfig& cfg) {
    if (p.requested_rate <= 0) return nullptr;
    const auto& c = p.counters;
    return {{"requested_iops", p.requested_rate},
            {"achieved_iops", p.iops()},
            {"arrivals", std::string(run::to_string(cfg.arrivals))},
            {"met", p.rate_met()},
            {"late_ops", c.late_ops},
            {"max_lateness_ns", c.max_lateness_ns},
            {"late_beyond_tolerance_ops", c.late_beyond_tolerance_ops},
            {"lateness_tolerance_ns", p.lateness_tolerance_ns()},
            {"response_latency", latency_json(c.response_latency)},
            {"issue_error", latency_json(c.issue_error)}};
}

json top_foreign_json(const sys::HostLoad& h) {
    json out = json::array();
    for (const auto& f : h.top_foreign)
        out.push_back({{"pid", f.pid}, {"comm", f.comm}, {"cpu_s", f.cpu_s}});
    return out;
}

// The figures report/figures.h describes, each under its key.
void add_phase_figures(json& j, const run::PhaseResult& p) {
    for (const PhaseFigure& f : phase_figures()) {
        if (!f.shown_for(p))
            j[f.key] = nullptr;
        else if (f.kind == PhaseFigure::Kind::count)
            j[f.key] = static_cast<std::uint64_t>(f.value(p));
        else
            j[f.key] = f.value(p);
    }
}

}  // namespace

json phase_json(const run::PhaseResult& p, const run::RunConfig& cfg) {
    const auto& c = p.counters;
    const double s = p.seconds;
    stats::LatencyHistogram all = c.read_latency;
    all.merge(c.write_latency);
    json j;
    j["phase"] = std::string(run::to_string(p.phase));
    j["interrupted"] = p.interrupted;
    const std::string too_short = p.too_short();  // see run::kMinMeasuredSeconds
    j["too_short"] = !too_short.empty();
    j["too_short_reason"] = too_short.empty() ? json(nullptr) : json(too_short);
    add_phase_figures(j, p);
    double cpu_total = p.cpu.user_s + p.cpu.system_s;
    j["cpu"] = {
        {"user_s", p.cpu.user_s},
        {"system_s", p.cpu.system_s},
        {"user_pct", s > 0 ? 100.0 * p.cpu.user_s / s : 0.0},
        {"system_pct", s > 0 ? 100.0 * p.cpu.system_s / s : 0.0},
        {"ops_per_cpu_s", cpu_total > 0 ? (c.read_ops + c.write_ops) / cpu_total : 0.0},
        {"bytes_per_cpu_s", cpu_total > 0 ? (c.read_bytes + c.write_bytes) / cpu_total : 0.0}};
    j["host_load"] = {{"cpu_s", p.host.seconds},
                      {"steal_pct", p.host.steal_pct()},
                      {"foreign_pct", p.host.foreign_pct()},
                      {"top_foreign", top_foreign_json(p.host)},
                      {"busy", sys::busy(p.host)}};
    json thresholds = json::array();
    for (double t : cfg.latency_thresholds_s) {
        auto ns = run::seconds_to_ns(t);
        std::uint64_t slower = all.count_above(ns);
        thresholds.push_back({{"threshold_ns", ns},
                              {"slower_count", slower},
                              {"slower_share", all.count() ? double(slower) / all.count() : 0.0}});
    }
    j["latency_thresholds"] = thresholds;
    j["latency"] = latency_json(all);
    j["read_latency"] = latency_json(c.read_latency);
    j["write_latency"] = latency_json(c.write_latency);
    j["mismatches"] = class_counts(c.mismatches);
    j["flush_latency"] = latency_json(c.flush_latency);
    j["rate"] = rate_json(p, cfg);
    if (p.repeats.size() >= 2) {  // --repeat N, N > 1
        const run::RepeatEstimates e = p.estimates();
        j["repeats"] = {{"n", p.repeats.size()},
                        {"iops", estimate_json(e.iops)},
                        {"bandwidth_bytes_per_sec", estimate_json(e.bytes_per_sec)},
                        {"p99_ns", estimate_json(e.p99_ns)}};
    }
    if (p.phase == run::Phase::random && c.write_ops + c.write_errors > 0) {
        // aio_test's figures.  drivestress waits for every write it issued,
        // so none is outstanding when a phase ends.
        j["write_summary"] = {{"writes", c.write_ops},
                              {"errors", c.write_errors},
                              {"failed", c.write_errors},
                              {"outstanding", 0},
                              {"min_ns", c.write_latency.min()},
                              {"mean_ns", c.write_latency.mean()},
                              {"max_ns", c.write_latency.max()},
                              {"elapsed_s", s},
                              {"written_bytes", c.write_bytes},
                              {"writes_per_sec", per_second(c.write_ops, s)},
                              {"bytes_per_sec", per_second(c.write_bytes, s)}};
    }
    return j;
}

json schema_property(const PhaseFigure& f) {
    const char* type = f.kind == PhaseFigure::Kind::count ? "integer" : "number";
    json j = {{"description", f.meaning}, {"minimum", f.minimum}};
    j["type"] = f.shown ? json::array({type, "null"}) : json(type);
    if (f.minimum == static_cast<double>(static_cast<long long>(f.minimum)))
        j["minimum"] = static_cast<long long>(f.minimum);
    return j;
}

json estimate_json(const stats::Estimate& e) {
    return {{"median", e.median},
            {"min", e.min},
            {"max", e.max},
            {"low", e.low},
            {"high", e.high},
            {"confidence", e.confidence},
            {"n", e.n}};
}

json drive_json(const DriveInfo& d) {
    auto text = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
    auto bytes = [](std::uint32_t v) { return v ? json(v) : json(nullptr); };
    return {{"name", text(d.name)},
            {"model", text(d.model)},
            {"serial", text(d.serial)},
            {"firmware", text(d.firmware)},
            {"logical_block_bytes", bytes(d.logical_block_bytes)},
            {"physical_block_bytes", bytes(d.physical_block_bytes)}};
}

json mismatch_json(const run::MismatchRecord& m) {
    json j;
    j["iteration"] = m.iteration;
    j["phase"] = std::string(run::to_string(m.phase));
    j["file"] = m.path;
    j["file_index"] = m.file_index;
    j["offset_bytes"] = m.offset;
    j["unit_offset_bytes"] = m.unit_offset;
    j["length_bytes"] = m.length;
    j["class"] = std::string(pattern::to_string(m.cls));
    j["op"] = std::string(io::to_string(m.op));
    j["bad_bytes"] = m.bad_bytes;
    j["errno"] = m.error;
    j["expected_generation"] = m.expected_generation;
    if (m.found) {
        j["found"] = {{"run_id", m.found->run_id},
                      {"file_index", m.found->file_index},
                      {"offset_bytes", m.found->offset},
                      {"generation", m.found->generation},
                      {"unit_bytes", m.found->unit_bytes}};
    } else {
        j["found"] = nullptr;
    }
    return j;
}

const char* verdict_word(int code) {
    return run::status_word(static_cast<run::ExitStatus>(code));
}

void set_verdict(json& doc, run::ExitStatus exit_code) {
    json& summary = doc["summary"];
    const bool nothing_verified =
        summary.is_object() && summary.contains("status") && summary["status"] == "no-verdict";
    summary["status"] = run::status_word(exit_code, nothing_verified);
    summary["exit_code"] = run::code_of(exit_code);
}

json latency_json(const stats::LatencyHistogram& h) {
    json j;
    j["count"] = h.count();
    j["min_ns"] = h.min();
    j["mean_ns"] = h.mean();
    j["max_ns"] = h.max();
    json pct = json::object();
    for (auto [name, p] : kPercentiles)
        pct[name] = h.value_at_percentile(p);
    j["percentiles_ns"] = pct;
    json buckets = json::array();
    for (std::size_t i = 0; i < stats::LatencyHistogram::kBucketCount; ++i)
        if (auto n = h.bucket_count(i))
            buckets.push_back({stats::LatencyHistogram::bucket_lower(i), n});
    j["histogram"] = {
        {"scheme", "log-linear"},
        {"sub_bucket_bits", stats::LatencyHistogram::kSubBucketBits},
        {"relative_error", stats::LatencyHistogram::kRelativeError},
        // [lower bound in ns, count]; a bucket spans lower .. lower + width
        // where width = max(1, 2^(floor(log2(lower)) - sub_bucket_bits)).
        {"buckets", buckets},
    };
    return j;
}

json document_head(const std::string& document_id, const std::string& started_at,
                   const HostInfo& host) {
    json doc;
    doc["schema_version"] = kSchemaVersion;
    doc["tool"] = {{"name", "drivestress"}, {"version", DRIVESTRESS_VERSION}};
    // Tells this run apart from any other when several are merged (the
    // data's own run id, found.run_id, follows the seed and may repeat); the
    // same in every rewrite of one run's document.
    doc["run_id"] = document_id;
    doc["started_at"] = started_at;
    doc["host"] = {{"hostname", host.hostname},
                   {"kernel", host.kernel},
                   {"machine", host.machine},
                   {"cpu_model", host.cpu_model},
                   {"cpus", host.cpus},
                   {"memory_bytes", host.memory_bytes},
                   {"generator_simd", host.simd_path}};
    doc["in_progress"] = false;
    return doc;
}

// Where the files were, how they were opened, and the disk under them.
json target_json(const run::RunConfig& cfg, const run::RunResult& r) {
    const std::string path = r.target.path.empty() ? cfg.target : r.target.path;
    json t = {{"path", path},
              {"prefix", r.target.prefix},
              {"directory", r.target.directory},
              {"filesystem", r.target.filesystem},
              {"device", r.target.device},
              {"free_bytes", r.target.free_bytes},
              {"direct_io", r.direct_io},
              {"direct_io_fallback_reason",
               r.direct_io_note.empty() ? json(nullptr) : json(r.direct_io_note)},
              {"files", r.file_paths}};
    if (!r.state_path.empty()) t["state_file"] = r.state_path;
    if (!cfg.raw_device.empty()) t["previous_contents"] = r.target.previous_contents;
    t["drive"] = drive_json(
        DriveInfo::of(r.target.directory.empty() ? path : r.target.directory, r.target.device));
    return t;
}

namespace {

const char* drift_kind_name(run::DriftVerdict::Kind k) {
    using K = run::DriftVerdict::Kind;
    switch (k) {
        case K::one_sample:
            return "one_sample";
        case K::too_few:
            return "too_few";
        case K::within_noise:
            return "within_noise";
        case K::better:
            return "better";
        case K::worse:
            return "worse";
    }
    return "one_sample";
}

// The drift table's verdict on the figure (model/drift.h): named only when
// the early and late runs' intervals do not overlap.
json drift_verdict_json(const char* figure, const run::FigureDrift& d, bool higher_better) {
    const run::DriftVerdict v = run::drift_verdict(d, higher_better);
    return {{"figure", figure},
            {"kind", drift_kind_name(v.kind)},
            {"runs_per_side", v.per_side},
            {"change_pct", v.change_pct},
            {"text", run::to_string(v)}};
}

// `whole`: the figure is a whole number (nanoseconds).
json figure_drift_json(const run::FigureDrift& d, bool whole = false) {
    auto value = [&](double v) { return whole ? json(static_cast<std::uint64_t>(v)) : json(v); };
    return {{"first", value(d.first)},
            {"best", value(d.best)},
            {"worst", value(d.worst)},
            {"last", value(d.last)},
            {"first_iteration", d.first_iteration},
            {"best_iteration", d.best_iteration},
            {"worst_iteration", d.worst_iteration},
            {"last_iteration", d.last_iteration}};
}

// Each phase over every iteration: the phase object of its merged counters
// and histograms, how many iterations ran it and its drift (running figures,
// over every iteration, listed or summarised).
json merged_phases_json(const run::RunConfig& cfg, const run::RunResult& r) {
    json out = json::array();
    for (const auto& merged : r.merged_phases) {
        json j = phase_json(merged, cfg);
        j["iterations"] = 0;
        j["drift"] = nullptr;
        for (const auto& d : r.drift) {
            if (d.phase != merged.phase) continue;
            j["iterations"] = d.runs;
            if (d.iterations)
                j["drift"] = {{"iterations", d.iterations},
                              {"bandwidth_bytes_per_sec", figure_drift_json(d.bandwidth)},
                              {"iops", figure_drift_json(d.iops)},
                              {"p99_ns", figure_drift_json(d.p99_ns, true)},
                              {"verdicts",
                               {drift_verdict_json("bandwidth_bytes_per_sec", d.bandwidth, true),
                                drift_verdict_json("iops", d.iops, true),
                                drift_verdict_json("p99_ns", d.p99_ns, false)}}};
        }
        out.push_back(std::move(j));
    }
    return out;
}

// Appends one compact JSON object, "key":value after "key":value.  Written by
// hand rather than through nlohmann::json: a document is rewritten after every
// iteration with every iteration's line, and this takes 8 us an iteration
// (three times less than building and dumping the objects) and allocates no
// tree that grows with the run.
class CompactObject {
  public:
    explicit CompactObject(std::string& out) : out_(out) { out_ += '{'; }
    void add(std::string_view key, std::uint64_t v) {
        name(key);
        char buf[24];
        out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    // Finite values only (figures are guarded against division by zero).
    void add(std::string_view key, double v) {
        name(key);
        char buf[32];
        out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    void add(std::string_view key, bool v) {
        name(key);
        out_ += v ? "true" : "false";
    }
    // `v` needs no escaping (a phase name).
    void add(std::string_view key, std::string_view v) {
        name(key);
        out_ += '"';
        out_ += v;
        out_ += '"';
    }
    void close() { out_ += '}'; }

  private:
    void name(std::string_view key) {
        if (!first_) out_ += ',';
        first_ = false;
        out_ += '"';
        out_ += key;
        out_ += "\":";
    }
    std::string& out_;
    bool first_ = true;
};

// Seconds to the microsecond (their resolution: clock and getrusage), so
// that the shortest representation stays short.
double microseconds(double s) {
    return std::round(s * 1e6) / 1e6;
}

void append_iteration(std::string& out, const run::IterationResult& it) {
    CompactObject o(out);
    o.add("index", it.index);
    out += ",\"phases\":[";
    bool first = true;
    for (const auto& p : it.phases) {
        if (!first) out += ',';
        first = false;
        CompactObject ph(out);
        ph.add("phase", run::to_string(p.phase));
        if (p.interrupted) ph.add("interrupted", true);  // rare: only then, to save bytes
        ph.add("elapsed_s", microseconds(p.seconds));
        if (!p.too_short().empty()) ph.add("too_short", true);  // only then, as interrupted
        ph.add("read_bytes", p.read_bytes);
        ph.add("write_bytes", p.write_bytes);
        ph.add("read_ops", p.read_ops);
        ph.add("write_ops", p.write_ops);
        ph.add("verified_bytes", p.verified_bytes);
        ph.add("mismatch_total", p.mismatches);
        ph.add("p50_ns", p.p50_ns);
        ph.add("p99_ns", p.p99_ns);
        ph.add("max_ns", p.max_ns);
        ph.add("cpu_s", microseconds(p.cpu.user_s + p.cpu.system_s));
        ph.close();
    }
    out += ']';
    o.close();
}

}  // namespace

std::string iteration_line(const run::IterationResult& it) {
    std::string out;
    append_iteration(out, it);
    return out;
}

json iterations_json(const run::RunResult& r) {
    json out = json::array();
    for (const auto& it : r.iterations)
        out.push_back(json::parse(iteration_line(it)));
    return out;
}

namespace {

bool is_flat(const json& array) {
    for (const auto& v : array)
        if (v.is_object() || (v.is_array() && !std::all_of(v.begin(), v.end(), [](const json& x) {
                                  return x.is_primitive();
                              })))
            return false;
    return true;
}

using units::utf8_length;

// A string as JSON text.  A path is any bytes but '/' and NUL; a byte that
// is not part of UTF-8 is written as \udc80..\udcff, as Python's
// os.fsdecode() does (surrogateescape): os.fsencode() of the value gives
// the bytes back, and the document stays valid UTF-8.
std::string string_text(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size() && utf8_length(s, i) != 0)
        i += utf8_length(s, i);
    if (i == s.size()) return json(s).dump();
    std::string out = "\"";
    std::size_t run = 0;  // start of the current run of UTF-8
    auto flush = [&](std::size_t end) {
        if (end > run) {
            const std::string part = json(s.substr(run, end - run)).dump();
            out.append(part, 1, part.size() - 2);
        }
    };
    for (i = 0; i < s.size();) {
        if (const std::size_t n = utf8_length(s, i); n != 0) {
            i += n;
            continue;
        }
        flush(i);
        char esc[8];
        std::snprintf(esc, sizeof esc, "\\udc%02x", static_cast<unsigned char>(s[i]));
        out += esc;
        run = ++i;
    }
    flush(s.size());
    return out + '"';
}

// dump() without spaces, every string through string_text.
void append_compact(std::string& out, const json& j) {
    if (j.is_string()) {
        out += string_text(j.get_ref<const std::string&>());
    } else if (j.is_array()) {
        out += '[';
        for (std::size_t i = 0; i < j.size(); ++i) {
            if (i) out += ',';
            append_compact(out, j[i]);
        }
        out += ']';
    } else if (j.is_object()) {
        out += '{';
        bool first = true;
        for (const auto& [key, value] : j.items()) {
            out += first ? "" : ",";
            first = false;
            out += string_text(key) + ":";
            append_compact(out, value);
        }
        out += '}';
    } else {
        out += j.dump();
    }
}

// Like dump(2), but an array of numbers or strings, or of such arrays (a
// histogram's [lower, count] buckets), on one line: a histogram takes a line
// instead of four lines per bucket.
void append_pretty(std::string& out, const json& j, int depth) {
    const std::string pad(2 * static_cast<std::size_t>(depth + 1), ' ');
    if (j.is_object() && !j.empty()) {
        out += "{\n";
        bool first = true;
        for (const auto& [key, value] : j.items()) {
            out += first ? "" : ",\n";
            first = false;
            out += pad + string_text(key) + ": ";
            append_pretty(out, value, depth + 1);
        }
        out.append("\n").append(pad, 2).append("}");
    } else if (j.is_array() && !j.empty() && !is_flat(j)) {
        out += "[\n";
        for (std::size_t i = 0; i < j.size(); ++i) {
            out.append(i ? ",\n" : "").append(pad);
            append_pretty(out, j[i], depth + 1);
        }
        out.append("\n").append(pad, 2).append("]");
    } else {
        append_compact(out, j);
    }
}

}  // namespace

std::string document_text(const json& doc, const run::RunResult* r) {
    std::string text;
    append_pretty(text, doc, 0);
    if (r) {
        // An object's dump ends with "\n}" ("{}" when empty): "iterations"
        // goes last, one line per iteration.
        const bool empty = text == "{}";
        text.resize(text.size() - (empty ? 1 : 2));
        text.reserve(text.size() + 64 + r->iterations.size() * 1024);
        text += empty ? "\n  \"iterations\": [" : ",\n  \"iterations\": [";
        for (std::size_t i = 0; i < r->iterations.size(); ++i) {
            text += i ? ",\n    " : "\n    ";
            append_iteration(text, r->iterations[i]);
        }
        text += r->iterations.empty() ? "]\n}" : "\n  ]\n}";
    }
    text += '\n';
    return text;
}

void mark_in_progress(json& doc, const run::ProgressSnapshot* live) {
    doc["in_progress"] = true;
    json progress = {{"updated_at", run::utc_now_iso8601()},
                     {"iteration", nullptr},
                     {"phase", nullptr},
                     {"phase_elapsed_s", nullptr},
                     {"phase_fraction_done", nullptr}};
    if (live) {
        progress["iteration"] = live->iteration;
        progress["phase"] = std::string(run::to_string(live->phase));
        progress["phase_elapsed_s"] = live->elapsed_s;
        if (live->fraction_done >= 0)
            progress["phase_fraction_done"] = std::min(1.0, live->fraction_done);
    }
    doc["progress"] = progress;
    doc["summary"]["status"] = "running";
    doc["summary"]["exit_code"] = nullptr;
    doc["summary"]["stop_reason"] = nullptr;
}

namespace {

json number_or_null(double v) {
    return std::isfinite(v) ? json(v) : json(nullptr);
}

// --steady-state: per iteration, the rule, every round's IOPS and the window
// judged (line: iops = intercept_iops + slope_iops_per_round x round index).
json steady_state_json(const run::SteadyStateResult& ss) {
    json window = nullptr;
    if (ss.window) {
        const auto& w = *ss.window;
        window = {{"first_round", w.first},
                  {"last_round", w.last},
                  {"mean_iops", w.mean},
                  {"min_iops", w.min},
                  {"max_iops", w.max},
                  {"range_pct", number_or_null(w.range_pct)},
                  {"slope_iops_per_round", w.slope},
                  {"intercept_iops", w.intercept},
                  {"excursion_pct", number_or_null(w.excursion_pct)},
                  {"range_ok", w.range_ok},
                  {"excursion_ok", w.excursion_ok},
                  {"attained", w.attained}};
    }
    const char* status = ss.status == stats::SteadyStateStatus::attained ? "attained"
                         : ss.status == stats::SteadyStateStatus::max_rounds_reached
                             ? "max-rounds"
                             : "interrupted";
    return {{"iteration", ss.iteration},
            {"metric", "iops"},
            {"round_s", ss.round_s},
            {"rule",
             {{"window_rounds", ss.rule.window_rounds},
              {"max_range_pct", ss.rule.max_range_pct},
              {"max_excursion_pct", ss.rule.max_excursion_pct},
              {"max_rounds", ss.rule.max_rounds}}},
            {"status", status},
            {"attained_at_round", ss.status == stats::SteadyStateStatus::attained
                                      ? json(ss.round_iops.size())
                                      : json(nullptr)},
            {"rounds_iops", ss.round_iops},
            {"window", window}};
}

json intervals_json(const std::vector<stats::ThroughputInterval>& series) {
    json out = json::array();
    for (const auto& iv : series)
        out.push_back({{"seconds", iv.seconds}, {"bytes", iv.bytes}});
    return out;
}

json cliff_step_json(const stats::CliffStep& st) {
    return {{"interval", st.interval},
            {"bytes_before", st.bytes_before},
            {"seconds_before", st.seconds_before},
            {"before_bytes_per_sec", st.before_bytes_per_s},
            {"after_bytes_per_sec", st.after_bytes_per_s},
            {"drop_pct", st.drop_pct}};
}

json sustained_write_json(const run::SustainedWriteResult& sw) {
    json steps = json::array();
    for (const auto& st : sw.cliff.steps)
        steps.push_back(cliff_step_json(st));
    json recovery = nullptr;
    if (sw.recovery) {
        const auto& rec = *sw.recovery;
        recovery = {
            {"idle_s", rec.idle_seconds},
            {"bytes_per_sec", rec.bytes_per_s},
            {"recovered_pct", number_or_null(rec.recovered_pct)},
            {"segment_bytes", rec.segment_bytes},
            {"bytes_to_cliff", rec.bytes_to_cliff ? json(*rec.bytes_to_cliff) : json(nullptr)},
            {"intervals", intervals_json(sw.recovery_series)}};
    }
    return {{"iteration", sw.iteration},
            {"passes", sw.passes},
            {"passes_done", sw.passes_done},
            {"capacity_bytes", sw.capacity_bytes},
            {"interval_s", sw.interval_s},
            {"rule",
             {{"min_level_intervals", sw.rule.min_level_intervals},
              {"min_drop_pct", sw.rule.min_drop_pct}}},
            {"intervals", intervals_json(sw.series)},
            {"cliff",
             {{"long_enough", sw.cliff.long_enough},
              {"found", !sw.cliff.steps.empty()},
              {"total_bytes", sw.cliff.total_bytes},
              {"total_seconds", sw.cliff.total_seconds},
              {"steps", steps}}},
            {"recovery", recovery},
            {"interrupted", sw.interrupted}};
}

json health_log_json(const std::optional<nvme::HealthLog>& log) {
    if (!log) return nullptr;
    const auto& h = *log;
    return {{"critical_warning", h.critical_warning},
            {"composite_temperature_k", h.composite_temperature_k},
            {"available_spare_pct", h.available_spare_pct},
            {"available_spare_threshold_pct", h.available_spare_threshold_pct},
            {"percentage_used", h.percentage_used},
            {"data_units_written", h.data_units_written},
            {"media_errors", h.media_errors},
            {"error_log_entries", h.error_log_entries},
            {"warning_temperature_minutes", h.warning_temperature_minutes},
            {"critical_temperature_minutes", h.critical_temperature_minutes},
            {"thermal_transitions", h.thermal_transitions},
            {"thermal_seconds", h.thermal_seconds}};
}

json phase_health_json(const run::PhaseHealth& p) {
    json findings = json::array();
    json delta = nullptr;
    if (p.change) {
        for (const auto& f : p.change->findings)
            findings.push_back({{"kind", std::string(nvme::finding_name(f.kind))},
                                {"damage", nvme::is_damage(f.kind)},
                                {"before", f.before},
                                {"after", f.after}});
        const auto& d = p.change->delta;
        delta = {{"warnings_set", d.warnings_set},
                 {"media_errors", d.media_errors},
                 {"error_log_entries", d.error_log_entries},
                 {"available_spare_pct", d.available_spare_pct},
                 {"percentage_used", d.percentage_used},
                 {"warning_temperature_minutes", d.warning_temperature_minutes},
                 {"critical_temperature_minutes", d.critical_temperature_minutes},
                 {"thermal_transitions", d.thermal_transitions},
                 {"thermal_seconds", d.thermal_seconds},
                 {"data_units_written", d.data_units_written}};
    }
    const char* thermal =
        p.thermal == nvme::ThermalVerdict::thermal_throttling       ? "thermal-throttling"
        : p.thermal == nvme::ThermalVerdict::throttled_without_loss ? "throttled-without-loss"
                                                                    : "none";
    return {{"iteration", p.iteration},
            {"phase", std::string(run::to_string(p.phase))},
            {"unreadable", p.unreadable.empty() ? json(nullptr) : json(p.unreadable)},
            {"before", health_log_json(p.before)},
            {"after", health_log_json(p.after)},
            {"comparable", p.change ? json(p.change->comparable) : json(nullptr)},
            {"delta", delta},
            {"findings", findings},
            {"damaged", p.change && p.change->damaged()},
            {"thermal", thermal},
            {"reference_bytes_per_sec", p.reference_bytes_per_s},
            {"observed_bytes_per_sec", p.observed_bytes_per_s}};
}

json drive_health_json(const run::DriveHealth& h) {
    json phases = json::array();
    for (const auto& p : h.phases)
        phases.push_back(phase_health_json(p));
    return {{"available", h.available},
            {"reason", h.available ? json(nullptr) : json(h.reason)},
            {"controller", h.controller.empty() ? json(nullptr) : json(h.controller)},
            {"device", h.device.empty() ? json(nullptr) : json(h.device)},
            {"test_fixture", h.fixture},
            {"damaged", h.damaged()},
            {"phases_read", h.phases_read},
            {"phases_damaged", h.phases_damaged},
            {"first_damage", h.first_damage ? phase_health_json(*h.first_damage) : json(nullptr)},
            {"phases", phases}};
}

// The blocks of the drive-endurance work (--steady-state, --sustained-write),
// when asked for.
void add_endurance_blocks(json& doc, const run::RunResult& r) {
    // Target 1's (each target's is in targets[]).
    doc["drive_health"] =
        drive_health_json(r.targets.empty() ? run::DriveHealth{} : r.targets.front().health);
    if (!r.sustained_write.empty()) {
        json all = json::array();
        for (const auto& sw : r.sustained_write)
            all.push_back(sustained_write_json(sw));
        doc["sustained_write"] = all;
    }
    if (!r.steady_state.empty()) {
        json all = json::array();
        for (const auto& ss : r.steady_state)
            all.push_back(steady_state_json(ss));
        doc["steady_state"] = all;
    }
}

json backend_json(const run::BackendInfo& b) {
    json uring = nullptr;
    if (b.used == io::BackendKind::io_uring) {
        uring = {{"setup_flags", b.uring.setup_flags},
                 {"registered_files", b.uring.fixed_files},
                 {"registered_buffers", b.uring.fixed_buffers},
                 {"sq_entries", b.uring.sq_entries},
                 {"notes", b.uring.notes}};
    }
    return {
        {"requested", std::string(run::to_string(b.requested))},
        {"used", std::string(io::to_string(b.used))},
        {"fallback_reason", b.fallback_reason.empty() ? json(nullptr) : json(b.fallback_reason)},
        {"io_uring", uring},
        {"random_qd_per_worker", b.effective_qd},
        {"seq_qd_per_worker", b.seq_qd},
        {"sync_threads_per_worker", b.sync_threads}};
}

json config_json(const run::RunConfig& cfg, std::uint64_t seed) {
    json phases = json::array();
    for (auto p : cfg.phases)
        phases.push_back(std::string(run::to_string(p)));
    return {{"file_size_bytes", cfg.file_bytes},
            {"files", cfg.files},
            {"qd", cfg.qd},
            {"seq_block_bytes", cfg.seq_block},
            {"rand_block_bytes", cfg.rand_block},
            {"unit_bytes", cfg.rand_block},
            {"read_pct", cfg.read_pct},
            {"rand_time_s", cfg.rand_ops ? json(nullptr) : json(cfg.rand_time_s)},
            {"rand_ops", cfg.rand_ops ? json(*cfg.rand_ops) : json(nullptr)},
            {"seq_time_s", cfg.seq_time_s > 0 ? json(cfg.seq_time_s) : json(nullptr)},
            {"iterations", cfg.iterations},
            {"duration_s", cfg.duration_s ? json(*cfg.duration_s) : json(nullptr)},
            {"phases", phases},
            {"seed", seed},
            {"recreate", cfg.recreate},
            {"buffered", cfg.buffered},
            {"verify", cfg.verify},
            {"sync", std::string(run::to_string(cfg.sync))},
            {"sync_every", cfg.sync_every},
            {"batch", cfg.batch},
            {"rate_iops", cfg.rate > 0 ? json(cfg.rate) : json(nullptr)},
            {"arrivals", std::string(run::to_string(cfg.arrivals))},
            {"cpus", cfg.cpus.empty() ? json(nullptr) : json(cfg.cpus)},
            {"sync_compare", cfg.sync_compare}};
}

// The last iterations kept in full (--iteration-detail N), every phase as a
// one-iteration document has it.
json iteration_detail_json(const run::RunConfig& cfg, const run::RunResult& r) {
    json detail = json::array();
    for (const auto& it : r.iteration_detail) {
        json ps = json::array();
        for (const auto& p : it.phases)
            ps.push_back(phase_json(p, cfg));
        detail.push_back({{"index", it.index}, {"phases", ps}});
    }
    return detail;
}

json sweep_json(const run::RunConfig& cfg, const run::SweepResult& sweep) {
    json points = json::array();
    for (const auto& pt : sweep.points) {
        json pj = phase_json(pt.random, cfg);
        pj["value"] = pt.value;
        points.push_back(pj);
    }
    json knee = nullptr;
    if (auto k = sweep.described_knee())
        knee = {{"index", k->index},
                {"value", sweep.points[k->index].value},
                {"axis", std::string(stats::to_string(k->axis))},
                {"iops", k->at.iops},
                {"bandwidth_bytes_per_sec", k->at.bytes_per_sec},
                {"p99_ns", k->at.p99_ns},
                {"next_iops_gain_pct", k->next_iops_gain_pct},
                {"next_bandwidth_gain_pct", k->next_bandwidth_gain_pct},
                {"next_p99_change_pct", k->next_p99_change_pct}};
    const char* verdict = sweep.knee            ? "named"
                          : sweep.knee_in_noise ? "within_noise"
                                                : "not_reached";
    json turn_up = nullptr;
    if (sweep.turn_up) {
        const auto& p = sweep.points[*sweep.turn_up].random;
        turn_up = {{"index", *sweep.turn_up},
                   {"value", sweep.points[*sweep.turn_up].value},
                   {"requested_iops", p.requested_rate},
                   {"achieved_iops", p.iops()},
                   {"rate_met", p.rate_met()},
                   {"response_p99_ns", p.counters.response_latency.value_at_percentile(99)}};
    }
    return {{"parameter", std::string(run::to_string(sweep.param))},
            {"rate_percent", cfg.sweep && cfg.sweep->percent},
            {"closed_loop_iops",
             sweep.closed_loop_iops > 0 ? json(sweep.closed_loop_iops) : json(nullptr)},
            {"turn_up", turn_up},
            {"knee_gain_pct", cfg.knee_gain_pct},
            {"points", points},
            {"knee", knee},
            {"repeats", sweep.repeats()},
            {"knee_verdict", verdict}};
}

// --find-rate: the answer, its bracket and every probe (the sweep's points).
json find_rate_json(const run::FindRateResult& fr) {
    json probes = json::array();
    for (const auto& p : fr.probes)
        probes.push_back({{"requested_iops", p.requested_iops},
                          {"rate_met", p.rate_met},
                          {"passed", p.verdict.passed},
                          {"within_noise", p.verdict.within_noise},
                          {"response_ns", estimate_json(p.verdict.percentile_ns)}});
    auto at = [&](const std::optional<std::size_t>& i, auto field) {
        return i ? json(field(fr.probes[*i])) : json(nullptr);
    };
    auto rate = [](const run::FindRateProbe& p) { return p.requested_iops; };
    auto response = [](const run::FindRateProbe& p) { return p.verdict.percentile_ns.median; };
    return {{"percentile", fr.bound.percentile},
            {"bound_ns", run::seconds_to_ns(fr.bound.bound_s)},
            {"closed_loop_iops", fr.closed_loop_iops},
            {"found_iops", at(fr.found, rate)},
            {"response_ns_at_found", at(fr.found, response)},
            {"lowest_failing_iops", at(fr.failing, rate)},
            {"found_within_noise",
             fr.found ? json(fr.probes[*fr.found].verdict.within_noise) : json(nullptr)},
            {"interrupted", fr.interrupted},
            {"probes", probes}};
}

json sync_compare_json(const run::SyncCompareResult& sc) {
    json rows = json::array();
    for (const auto& row : sc.rows) {
        rows.push_back({{"method", std::string(run::to_string(row.method))},
                        {"write_bytes", row.write_bytes},
                        {"writes_per_op", row.writes_per_op},
                        {"group", row.group},
                        {"available", row.available},
                        {"reason", row.available ? json(nullptr) : json(row.reason)},
                        {"ops", row.ops},
                        {"elapsed_s", row.seconds},
                        {"ops_per_sec", row.ops_per_sec()},
                        {"latency", latency_json(row.latency)},
                        {"verified_bytes", row.verified_bytes},
                        {"mismatches", row.mismatches}});
    }
    return {{"row_s", sc.row_ops ? json(nullptr) : json(sc.row_s)},
            {"row_ops", sc.row_ops ? json(sc.row_ops) : json(nullptr)},
            {"direct_io", sc.direct_io},
            {"interrupted", sc.interrupted},
            {"rows", rows}};
}

// Damaged ranges merged into extents, per file, beside the raw records.
json damage_json(const run::RunResult& r) {
    json files = json::array();
    for (const auto& d : r.damage) {
        json extents = json::array();
        for (const auto& e : d.extents)
            extents.push_back({{"offset_bytes", e.offset},
                               {"length_bytes", e.length},
                               {"class", std::string(pattern::to_string(e.cls))},
                               {"reads", e.reads}});
        files.push_back({{"file_index", d.file_index},
                         {"path", d.path},
                         {"expected_bytes", d.expected_bytes},
                         {"truncated_to_bytes",
                          d.truncated_to_bytes ? json(*d.truncated_to_bytes) : json(nullptr)},
                         {"distinct_units", d.distinct_units},
                         {"extents", extents},
                         {"unmerged_observations", d.unmerged_observations}});
    }
    return {{"distinct_units", r.damaged_units()}, {"files", files}};
}

// A target's share of a phase: its own counts over its own time (CPU is
// the process's: merged_phases has it).
json target_phase_json(const run::PhaseResult& p) {
    const auto& c = p.counters;
    const stats::LatencyHistogram all = p.latency();
    const bool any = all.count() > 0;
    return {{"phase", std::string(run::to_string(p.phase))},
            {"interrupted", p.interrupted},
            {"too_short", !p.too_short().empty()},
            {"elapsed_s", p.seconds},
            {"workers", p.workers},
            {"read_bytes", c.read_bytes},
            {"write_bytes", c.write_bytes},
            {"read_ops", c.read_ops},
            {"write_ops", c.write_ops},
            {"bandwidth_bytes_per_sec", p.bytes_per_sec()},
            {"iops", p.iops()},
            {"verified_bytes", c.verified_bytes},
            {"p50_ns", any ? json(all.value_at_percentile(50)) : json(nullptr)},
            {"p99_ns", any ? json(all.value_at_percentile(99)) : json(nullptr)},
            {"max_ns", any ? json(all.max()) : json(nullptr)},
            {"mismatches", class_counts(c.mismatches)}};
}

json slow_json(const run::TargetResult& t) {
    if (!t.slow) return nullptr;
    const auto& s = *t.slow;
    return {{"phase", std::string(run::to_string(s.phase))},
            {"figure", s.phase == run::Phase::random ? "iops" : "bandwidth_bytes_per_sec"},
            {"value", s.value},
            {"median", s.median},
            {"below_median_pct", s.below_pct},
            {"like_targets", s.like_targets}};
}

json targets_json(const run::RunConfig& cfg, const run::RunResult& r) {
    const run::ExitStatus code = run::exit_status(r);
    json out = json::array();
    for (std::size_t t = 0; t < r.targets.size(); ++t) {
        const auto& tr = r.targets[t];
        const run::RunEvidence e = run::target_evidence(cfg, r, t, code);
        json phases = json::array();
        for (const auto& p : tr.merged_phases)
            phases.push_back(target_phase_json(p));
        out.push_back({{"name", tr.name},
                       {"path", tr.info.path},
                       {"raw_device", tr.raw},
                       {"filesystem", tr.info.filesystem},
                       {"device", tr.info.device},
                       {"device_kind", tr.device_kind},
                       {"files", tr.files},
                       {"first_file", tr.first_file},
                       {"capacity_bytes", tr.capacity_bytes},
                       {"direct_io", tr.direct_io},
                       {"placement",
                        {{"text", tr.placement},
                         {"numa_node", tr.numa_node ? json(*tr.numa_node) : json(nullptr)},
                         {"cpus", tr.cpus}}},
                       {"merged_phases", std::move(phases)},
                       {"verified_bytes", e.verified_bytes},
                       {"mismatch_total", e.mismatches},
                       {"slow", slow_json(tr)},
                       {"drive_health", drive_health_json(tr.health)},
                       {"status", run::status_word(e.status, run::nothing_verified(e))},
                       {"exit_code", run::code_of(e.status)}});
    }
    return out;
}

json summary_json(const run::RunConfig& cfg, const run::RunResult& r) {
    const run::ExitStatus code = run::exit_status(r);
    const char* stop = r.stop == run::StopReason::completed  ? "completed"
                       : r.stop == run::StopReason::duration ? "duration"
                       : r.stop == run::StopReason::error    ? "error"
                                                             : "signal";
    const auto totals = r.totals();
    return {
        {"written_bytes", totals.written},
        {"read_bytes", totals.read},
        {"verified_bytes", totals.verified},
        {"elapsed_s", r.wall_seconds},
        {"iterations_run", r.iterations_run},
        {"iterations_summarised", r.iterations_summarised()},
        {"mismatch_total", r.mismatch_count()},
        {"mismatches", class_counts(r.mismatch_totals)},
        {"damaged_units", r.damaged_units()},
        {"stop_reason", stop},
        {"signal", r.stop_signal ? json(r.stop_signal) : json(nullptr)},
        {"status", run::status_word(code, run::nothing_verified(run::run_evidence(cfg, r, code)))},
        {"error", r.fatal_error.empty() ? json(nullptr) : json(r.fatal_error)},
        {"exit_code", run::code_of(code)}};
}

}  // namespace

json result_json(const run::RunConfig& cfg, const run::RunResult& r, const HostInfo& host) {
    json doc = document_head(r.document_id, r.started_at, host);
    doc["target"] = target_json(cfg, r);
    doc["backend"] = backend_json(r.backend);
    doc["config"] = config_json(cfg, r.seed);
    doc["merged_phases"] = merged_phases_json(cfg, r);
    if (!r.iteration_detail.empty()) doc["iteration_detail"] = iteration_detail_json(cfg, r);
    if (!r.sweep.points.empty()) doc["sweep"] = sweep_json(cfg, r.sweep);
    if (r.find_rate) doc["find_rate"] = find_rate_json(*r.find_rate);
    if (r.sync_compare) doc["sync_compare"] = sync_compare_json(*r.sync_compare);
    add_endurance_blocks(doc, r);
    json mm = json::array();
    for (const auto& m : r.mismatch_records)
        mm.push_back(mismatch_json(m));
    doc["mismatches"] = mm;
    doc["mismatches_truncated"] = r.mismatch_count() > r.mismatch_records.size();
    doc["damage"] = damage_json(r);
    doc["targets"] = targets_json(cfg, r);
    doc["summary"] = summary_json(cfg, r);
    return doc;
}

}  // namespace ds::report
