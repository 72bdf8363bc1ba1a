#include "report/json_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "drivestress_version.h"
#include "model/drift.h"
#include "output/output_file.h"
#include "pattern/unit.h"
#include "report/figures.h"
#include "report/json_parts.h"
#include "units/utf8.h"

namespace ds::report {

using nlohmann::json;

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

json mismatch_json(const model::MismatchRecord& m) {
    json j;
    j["iteration"] = m.iteration;
    j["phase"] = std::string(model::to_string(m.phase));
    j["file"] = m.path;
    if (!m.job.empty()) j["job"] = m.job;
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
    return model::status_word(static_cast<model::ExitStatus>(code));
}

void set_verdict(json& doc, model::ExitStatus exit_code) {
    json& summary = doc["summary"];
    const bool nothing_verified =
        summary.is_object() && summary.contains("status") && summary["status"] == "no-verdict";
    summary["status"] = model::status_word(exit_code, nothing_verified);
    summary["exit_code"] = model::code_of(exit_code);
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
json target_json(const model::RunConfig& cfg, const model::RunResult& r) {
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

const char* drift_kind_name(model::DriftVerdict::Kind k) {
    using K = model::DriftVerdict::Kind;
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
json drift_verdict_json(const char* figure, const model::FigureDrift& d, bool higher_better) {
    const model::DriftVerdict v = model::drift_verdict(d, higher_better);
    return {{"figure", figure},
            {"kind", drift_kind_name(v.kind)},
            {"runs_per_side", v.per_side},
            {"basis", v.own_intervals ? "first_and_last_runs" : "runs"},
            {"change_pct", v.change_pct},
            {"text", model::to_string(v)}};
}

// `whole`: the figure is a whole number (nanoseconds).
json figure_drift_json(const model::FigureDrift& d, bool whole = false) {
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
json merged_phases_json(const model::RunConfig& cfg, const model::RunResult& r) {
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

}  // namespace

void mark_in_progress(json& doc, const model::ProgressSnapshot* live) {
    doc["in_progress"] = true;
    json progress = {{"updated_at", model::utc_now_iso8601()},
                     {"iteration", nullptr},
                     {"phase", nullptr},
                     {"phase_elapsed_s", nullptr},
                     {"phase_fraction_done", nullptr}};
    if (live) {
        progress["iteration"] = live->iteration;
        progress["phase"] = std::string(model::to_string(live->phase));
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

json backend_json(const model::BackendInfo& b) {
    json uring = nullptr;
    if (io::backend_flags(b.used) & io::kRing) {
        uring = {{"setup_flags", b.uring.setup_flags},
                 {"registered_files", b.uring.fixed_files},
                 {"registered_buffers", b.uring.fixed_buffers},
                 {"sq_entries", b.uring.sq_entries},
                 {"notes", b.uring.notes}};
    }
    return {
        {"requested", std::string(model::to_string(b.requested))},
        {"used", std::string(io::to_string(b.used))},
        {"fallback_reason", b.fallback_reason.empty() ? json(nullptr) : json(b.fallback_reason)},
        {"io_uring", uring},
        {"random_qd_per_worker", b.effective_qd},
        {"seq_qd_per_worker", b.seq_qd},
        {"sync_threads_per_worker", b.sync_threads}};
}

json config_json(const model::RunConfig& cfg, std::uint64_t seed) {
    json phases = json::array();
    for (auto p : cfg.phases)
        phases.push_back(std::string(model::to_string(p)));
    return {{"file_size_bytes", cfg.file_bytes},
            {"files", cfg.files},
            {"qd", cfg.qd},
            {"seq_block_bytes", cfg.seq_block},
            {"rand_block_bytes", cfg.min_rand_block()},
            {"rand_mix", cfg.rand_mix.size() > 1 ? json(cfg.rand_block_text()) : json(nullptr)},
            {"unit_bytes", cfg.rand_block},
            {"read_pct", cfg.read_pct},
            {"trim_pct", cfg.trim_pct},
            {"distribution", cfg.distribution.text()},
            {"compress", cfg.compress},
            {"dedupe", cfg.dedupe_pct()},
            {"rand_time_s", cfg.rand_ops ? json(nullptr) : json(cfg.rand_time_s)},
            {"rand_ops", cfg.rand_ops ? json(*cfg.rand_ops) : json(nullptr)},
            {"seq_time_s", cfg.seq_time_s > 0 ? json(cfg.seq_time_s) : json(nullptr)},
            {"seq_until_measured", cfg.seq_until_measured},
            {"iterations", cfg.iterations},
            {"duration_s", cfg.duration_s ? json(*cfg.duration_s) : json(nullptr)},
            {"phases", phases},
            {"seed", seed},
            {"recreate", cfg.recreate},
            {"buffered", cfg.buffered},
            {"verify", cfg.verify},
            {"sync", std::string(model::to_string(cfg.sync))},
            {"sync_every", cfg.sync_every},
            {"atomic", cfg.atomic},
            {"batch", cfg.batch},
            {"rate_iops", cfg.rate > 0 ? json(cfg.rate) : json(nullptr)},
            {"arrivals", std::string(model::to_string(cfg.arrivals))},
            {"cpus", cfg.cpus.empty() ? json(nullptr) : json(cfg.cpus)},
            {"sync_compare", cfg.sync_compare}};
}

// The last iterations kept in full (--iteration-detail N), every phase as a
// one-iteration document has it.
json iteration_detail_json(const model::RunConfig& cfg, const model::RunResult& r) {
    json detail = json::array();
    for (const auto& it : r.iteration_detail) {
        json ps = json::array();
        for (const auto& p : it.phases)
            ps.push_back(phase_json(p, cfg));
        detail.push_back({{"index", it.index}, {"phases", ps}});
    }
    return detail;
}

json sweep_json(const model::RunConfig& cfg, const model::SweepResult& sweep) {
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
    return {{"parameter", std::string(model::to_string(sweep.param))},
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
json find_rate_json(const model::FindRateResult& fr) {
    json probes = json::array();
    for (const auto& p : fr.probes)
        probes.push_back({{"requested_iops", p.requested_iops},
                          {"repeats", p.repeats},
                          {"rate_met", p.rate_met},
                          {"passed", p.verdict.passed},
                          {"within_noise", p.verdict.within_noise},
                          {"response_ns", estimate_json(p.verdict.percentile_ns)}});
    auto at = [&](const std::optional<std::size_t>& i, auto field) {
        return i ? json(field(fr.probes[*i])) : json(nullptr);
    };
    auto rate = [](const model::FindRateProbe& p) { return p.requested_iops; };
    auto response = [](const model::FindRateProbe& p) { return p.verdict.percentile_ns.median; };
    return {{"percentile", fr.bound.percentile},
            {"bound_ns", model::seconds_to_ns(fr.bound.bound_s)},
            {"closed_loop_iops", fr.closed_loop_iops},
            {"found_iops", at(fr.found, rate)},
            {"response_ns_at_found", at(fr.found, response)},
            {"lowest_failing_iops", at(fr.failing, rate)},
            {"found_within_noise",
             fr.found ? json(fr.probes[*fr.found].verdict.within_noise) : json(nullptr)},
            {"interrupted", fr.interrupted},
            {"probes", probes}};
}

json sync_compare_json(const model::SyncCompareResult& sc) {
    json rows = json::array();
    for (const auto& row : sc.rows) {
        rows.push_back({{"method", std::string(model::to_string(row.method))},
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
json damage_json(const model::RunResult& r) {
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
json target_phase_json(const model::PhaseResult& p) {
    const auto& c = p.counters;
    const stats::LatencyHistogram all = p.latency();
    const bool any = all.count() > 0;
    return {{"phase", std::string(model::to_string(p.phase))},
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

json slow_json(const model::TargetResult& t) {
    if (!t.slow) return nullptr;
    const auto& s = *t.slow;
    return {{"phase", std::string(model::to_string(s.phase))},
            {"figure", s.phase == model::Phase::random ? "iops" : "bandwidth_bytes_per_sec"},
            {"value", s.value},
            {"median", s.median},
            {"below_median_pct", s.below_pct},
            {"like_targets", s.like_targets},
            {"compared_to", s.compared_to.empty() ? json(nullptr) : json(s.compared_to)}};
}

json targets_json(const model::RunConfig& cfg, const model::RunResult& r) {
    const model::ExitStatus code = model::exit_status(r);
    json out = json::array();
    for (std::size_t t = 0; t < r.targets.size(); ++t) {
        const auto& tr = r.targets[t];
        const model::RunEvidence e = model::target_evidence(cfg, r, t, code);
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
                       {"atomic_writes", atomic_json(tr.atomic, cfg)},
                       {"status", model::status_word(e.status, model::nothing_verified(e))},
                       {"exit_code", model::code_of(e.status)}});
    }
    return out;
}

json summary_json(const model::RunConfig& cfg, const model::RunResult& r) {
    const model::ExitStatus code = model::exit_status(r);
    const char* stop = r.stop == model::StopReason::completed  ? "completed"
                       : r.stop == model::StopReason::duration ? "duration"
                       : r.stop == model::StopReason::error    ? "error"
                                                               : "signal";
    const auto totals = r.totals();
    return {{"written_bytes", totals.written},
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
            {"status",
             model::status_word(code, model::nothing_verified(model::run_evidence(cfg, r, code)))},
            {"error", r.fatal_error.empty() ? json(nullptr) : json(r.fatal_error)},
            {"exit_code", model::code_of(code)}};
}

json replay_json(const model::ReplayInfo& t) {
    return {{"source", t.source},
            {"format", t.format},
            {"events", t.events},
            {"reads", t.reads},
            {"writes", t.writes},
            {"trims", t.trims},
            {"flushes", t.flushes},
            {"fua_writes", t.fua_writes},
            {"read_bytes", t.read_bytes},
            {"write_bytes", t.write_bytes},
            {"trim_bytes", t.trim_bytes},
            {"min_bytes", t.min_bytes},
            {"max_bytes", t.max_bytes},
            {"span_s", t.span_s},
            {"devices", t.devices},
            {"extents", t.extents},
            {"widened", t.widened},
            {"reordered", t.reordered},
            {"skipped_lines", t.skipped},
            {"lost_events", t.lost_events},
            {"other_phase_records", t.other_phases},
            {"placement", t.placement},
            {"speed", t.speed},
            {"loops", t.loops},
            {"wrap", t.wrap}};
}

json io_log_json(const model::IoLogResult& l) {
    return {{"path", l.path},
            {"format", std::string(output::to_string(l.format))},
            {"operations", l.lines},
            {"dropped", l.dropped},
            {"error", l.error.empty() ? json(nullptr) : json(l.error)}};
}

}  // namespace

json result_json(const model::RunConfig& cfg, const model::RunResult& r, const HostInfo& host) {
    json doc = document_head(r.document_id, r.started_at, host);
    doc["target"] = target_json(cfg, r);
    doc["backend"] = backend_json(r.backend);
    doc["config"] = config_json(cfg, r.seed);
    if (!r.plan.workers.empty()) doc["plan"] = plan_json(r.plan);
    doc["jobs"] = jobs_json(r);
    doc["merged_phases"] = merged_phases_json(cfg, r);
    if (!r.iteration_detail.empty()) doc["iteration_detail"] = iteration_detail_json(cfg, r);
    if (!r.sweep.points.empty()) doc["sweep"] = sweep_json(cfg, r.sweep);
    if (r.find_rate) doc["find_rate"] = find_rate_json(*r.find_rate);
    if (r.sync_compare) doc["sync_compare"] = sync_compare_json(*r.sync_compare);
    if (r.data)
        doc["data"] = {{"compress", r.data->asked},
                       {"measured_ratio", r.data->measured},
                       {"sampled_units", r.data->sampled_units},
                       {"dedupe_pct", r.data->dedupe_pct},
                       {"counted_units", r.data->counted_units},
                       {"duplicate_units", r.data->duplicate_units},
                       {"dedupe_sources", r.data->dedupe_sources},
                       {"dedupe_ratio", r.data->dedupe_ratio}};
    if (r.replay) doc["replay"] = replay_json(*r.replay);
    if (r.io_log) doc["io_log"] = io_log_json(*r.io_log);
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
