#include "report/json_report.h"

#include "drivestress_version.h"
#include "pattern/unit.h"

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

json phase_json(const run::PhaseResult& p, const run::RunConfig& cfg) {
    const auto& c = p.counters;
    const double s = p.seconds;
    stats::LatencyHistogram all = c.read_latency;
    all.merge(c.write_latency);
    json j;
    j["phase"] = std::string(run::to_string(p.phase));
    j["interrupted"] = p.interrupted;
    j["elapsed_s"] = s;
    j["read_bytes"] = c.read_bytes;
    j["write_bytes"] = c.write_bytes;
    j["read_ops"] = c.read_ops;
    j["write_ops"] = c.write_ops;
    j["bandwidth_bytes_per_sec"] = per_second(c.read_bytes + c.write_bytes, s);
    j["read_bandwidth_bytes_per_sec"] = per_second(c.read_bytes, s);
    j["write_bandwidth_bytes_per_sec"] = per_second(c.write_bytes, s);
    j["iops"] = per_second(c.read_ops + c.write_ops, s);
    j["read_iops"] = per_second(c.read_ops, s);
    j["write_iops"] = per_second(c.write_ops, s);
    j["verified_bytes"] = c.verified_bytes;
    j["unverified_units"] = c.unverified_units;
    j["retries"] = c.retries;
    j["workers"] = p.workers;
    double cpu_total = p.cpu.user_s + p.cpu.system_s;
    j["cpu"] = {
        {"user_s", p.cpu.user_s},
        {"system_s", p.cpu.system_s},
        {"user_pct", s > 0 ? 100.0 * p.cpu.user_s / s : 0.0},
        {"system_pct", s > 0 ? 100.0 * p.cpu.system_s / s : 0.0},
        {"ops_per_cpu_s", cpu_total > 0 ? (c.read_ops + c.write_ops) / cpu_total : 0.0},
        {"bytes_per_cpu_s", cpu_total > 0 ? (c.read_bytes + c.write_bytes) / cpu_total : 0.0}};
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
    j["flush_ops"] = c.flush_ops;
    j["flush_latency"] = latency_json(c.flush_latency);
    j["write_errors"] = c.write_errors;
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

}  // namespace

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

namespace {

const char* status_name(int code) {
    return code == 2 ? "failed" : code == 0 ? "passed" : code == 1 ? "error" : "interrupted";
}

}  // namespace

void set_verdict(json& doc, int exit_code) {
    doc["summary"]["status"] = status_name(exit_code);
    doc["summary"]["exit_code"] = exit_code;
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

json document_head(const std::string& started_at, const HostInfo& host) {
    json doc;
    doc["schema_version"] = kSchemaVersion;
    doc["tool"] = {{"name", "drivestress"}, {"version", DRIVESTRESS_VERSION}};
    doc["started_at"] = started_at;
    doc["host"] = {{"hostname", host.hostname},
                   {"kernel", host.kernel},
                   {"machine", host.machine},
                   {"cpu_model", host.cpu_model},
                   {"cpus", host.cpus},
                   {"memory_bytes", host.memory_bytes},
                   {"generator_simd", host.simd_path}};
    return doc;
}

json result_json(const run::RunConfig& cfg, const run::RunResult& r, const HostInfo& host) {
    json doc = document_head(r.started_at, host);
    doc["target"] = {{"path", r.target.path.empty() ? cfg.target : r.target.path},
                     {"prefix", r.target.prefix},
                     {"directory", r.target.directory},
                     {"filesystem", r.target.filesystem},
                     {"device", r.target.device},
                     {"free_bytes", r.target.free_bytes},
                     {"direct_io", r.direct_io},
                     {"direct_io_fallback_reason",
                      r.direct_io_note.empty() ? json(nullptr) : json(r.direct_io_note)},
                     {"files", r.file_paths}};
    if (!r.state_path.empty()) doc["target"]["state_file"] = r.state_path;
    const auto& b = r.backend;
    json uring = nullptr;
    if (b.used == io::BackendKind::io_uring) {
        uring = {{"setup_flags", b.uring.setup_flags},
                 {"registered_files", b.uring.fixed_files},
                 {"registered_buffers", b.uring.fixed_buffers},
                 {"sq_entries", b.uring.sq_entries},
                 {"notes", b.uring.notes}};
    }
    doc["backend"] = {
        {"requested", std::string(run::to_string(b.requested))},
        {"used", std::string(io::to_string(b.used))},
        {"fallback_reason", b.fallback_reason.empty() ? json(nullptr) : json(b.fallback_reason)},
        {"io_uring", uring},
        {"random_qd_per_worker", b.effective_qd},
        {"seq_qd_per_worker", b.seq_qd}};
    json phases = json::array();
    for (auto p : cfg.phases)
        phases.push_back(std::string(run::to_string(p)));
    doc["config"] = {{"file_size_bytes", cfg.file_bytes},
                     {"files", cfg.files},
                     {"qd", cfg.qd},
                     {"seq_block_bytes", cfg.seq_block},
                     {"rand_block_bytes", cfg.rand_block},
                     {"unit_bytes", cfg.rand_block},
                     {"read_pct", cfg.read_pct},
                     {"rand_time_s", cfg.rand_ops ? json(nullptr) : json(cfg.rand_time_s)},
                     {"rand_ops", cfg.rand_ops ? json(*cfg.rand_ops) : json(nullptr)},
                     {"iterations", cfg.iterations},
                     {"duration_s", cfg.duration_s ? json(*cfg.duration_s) : json(nullptr)},
                     {"phases", phases},
                     {"seed", r.seed},
                     {"recreate", cfg.recreate},
                     {"buffered", cfg.buffered},
                     {"verify", cfg.verify},
                     {"sync", std::string(run::to_string(cfg.sync))},
                     {"sync_every", cfg.sync_every},
                     {"batch", cfg.batch},
                     {"sync_compare", cfg.sync_compare}};
    json iterations = json::array();
    for (const auto& it : r.iterations) {
        json ij;
        ij["index"] = it.index;
        json ps = json::array();
        for (const auto& p : it.phases)
            ps.push_back(phase_json(p, cfg));
        ij["phases"] = ps;
        iterations.push_back(ij);
    }
    doc["iterations"] = iterations;
    if (!r.sweep.points.empty()) {
        json points = json::array();
        for (const auto& pt : r.sweep.points) {
            json pj = phase_json(pt.random, cfg);
            pj["value"] = pt.value;
            points.push_back(pj);
        }
        json knee = nullptr;
        if (auto k = r.sweep.knee) {
            const auto& at = r.sweep.points[*k].random;
            const auto& next = r.sweep.points[*k + 1].random;
            double p99_at = static_cast<double>(at.latency().value_at_percentile(99));
            double p99_next = static_cast<double>(next.latency().value_at_percentile(99));
            knee = {
                {"index", *k},
                {"value", r.sweep.points[*k].value},
                {"iops", at.iops()},
                {"p99_ns", p99_at},
                {"next_iops_gain_pct", at.iops() > 0 ? (next.iops() / at.iops() - 1) * 100 : 0.0},
                {"next_p99_change_pct", p99_at > 0 ? (p99_next / p99_at - 1) * 100 : 0.0}};
        }
        doc["sweep"] = {{"parameter", std::string(run::to_string(r.sweep.param))},
                        {"knee_gain_pct", cfg.knee_gain_pct},
                        {"points", points},
                        {"knee", knee}};
    }
    if (r.sync_compare) {
        const auto& sc = *r.sync_compare;
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
        doc["sync_compare"] = {{"row_s", sc.row_ops ? json(nullptr) : json(sc.row_s)},
                               {"row_ops", sc.row_ops ? json(sc.row_ops) : json(nullptr)},
                               {"direct_io", sc.direct_io},
                               {"interrupted", sc.interrupted},
                               {"rows", rows}};
    }
    json mm = json::array();
    for (const auto& m : r.mismatch_records)
        mm.push_back(mismatch_json(m));
    doc["mismatches"] = mm;
    doc["mismatches_truncated"] = r.mismatch_count() > r.mismatch_records.size();
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
    doc["damage"] = {{"distinct_units", r.damaged_units()}, {"files", files}};
    const int code = run::exit_status(r);
    const char* stop = r.stop == run::StopReason::completed  ? "completed"
                       : r.stop == run::StopReason::duration ? "duration"
                       : r.stop == run::StopReason::error    ? "error"
                                                             : "signal";
    const auto totals = r.totals();
    doc["summary"] = {{"written_bytes", totals.written},
                      {"read_bytes", totals.read},
                      {"verified_bytes", totals.verified},
                      {"elapsed_s", r.wall_seconds},
                      {"iterations_run", r.iterations.size()},
                      {"mismatch_total", r.mismatch_count()},
                      {"mismatches", class_counts(r.mismatch_totals)},
                      {"damaged_units", r.damaged_units()},
                      {"stop_reason", stop},
                      {"signal", r.stop_signal ? json(r.stop_signal) : json(nullptr)},
                      {"status", status_name(code)},
                      {"error", r.fatal_error.empty() ? json(nullptr) : json(r.fatal_error)},
                      {"exit_code", code}};
    return doc;
}

}  // namespace ds::report
