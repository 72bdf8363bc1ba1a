// The versioned result document (`--json`).  Keys carry their unit (_ns,
// _bytes, _bytes_per_sec, _s); numbers are numbers; no diagnostics inside.
// schema/result.schema.json describes it; bump kSchemaVersion on any
// incompatible change.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/config.h"
#include "model/observer.h"
#include "model/results.h"
#include "report/figures.h"
#include "report/host_info.h"
#include "stats/histogram.h"

namespace ds::report {

// 2: iterations[] hold figures only; histograms are in merged_phases[] (and
// iteration_detail[]); in_progress and progress mark a document rewritten
// while the run goes on.  3: --repeat: a random phase's (and a sweep
// point's) "repeats", the sweep's "knee_verdict", estimates beside the
// figures of --compare-backends; every version-2 key is still there.
// 4: "targets", one object per target with its own figures and verdict
// (several targets in one run); and "rate" in every phase (--rate;
// null in a closed loop); every version-3 key is still there.
// 5: "sizes" in every phase (a --rand-block mix's per-size figures; null
// otherwise), "rand_mix" and "compress" in config, and "data" (the written
// data's compressibility); every version-4 key is still there.  Later in
// 5, added without a bump (new keys, none changed): "dedupe" in config and
// the duplicates' count in "data" (--dedupe); "lost_events" and
// "other_phase_records" in "replay" (--replay).
// 6: "jobs", one object per job of the run (#52: a plain run has one) with
// its group, its active interval on the run's clock and its own figures;
// every version-5 key is still there.
inline constexpr int kSchemaVersion = 6;

// The keys every document starts with: schema_version, tool, run_id,
// started_at, host, in_progress (false).
nlohmann::json document_head(const std::string& document_id, const std::string& started_at,
                             const HostInfo& host);
nlohmann::json latency_json(const stats::LatencyHistogram& h);
// One phase's object (merged_phases[], sweep points, iteration_detail[]).
nlohmann::json phase_json(const model::PhaseResult& p, const model::RunConfig& cfg);
// A described figure's property in the schema's phase object, as
// schema/result.schema.json must spell it (figures_test checks it does).
nlohmann::json schema_property(const PhaseFigure& f);
// A figure over its repeats: {median, min, max, low, high, confidence, n}.
nlohmann::json estimate_json(const stats::Estimate& e);
// target.drive: what sysfs tells about the disk, null where it does not.
nlohmann::json drive_json(const DriveInfo& d);
// One mismatch record ("mismatches" items; also --verify-only's lost units).
nlohmann::json mismatch_json(const model::MismatchRecord& m);
// A run's document but for `iterations`, which document_text adds: what is
// here is bounded by the configuration, however many iterations ran.
nlohmann::json result_json(const model::RunConfig& cfg, const model::RunResult& r,
                           const HostInfo& host);
// One iteration's record in `iterations`: its phases' figures, one line of
// compact JSON of about 230 bytes per phase (a kilobyte for four phases).
std::string iteration_line(const model::IterationResult& it);
// `iterations` as a JSON value (the lines above parsed), e.g. for a section
// of another document.
nlohmann::json iterations_json(const model::RunResult& r);
// The text of a document: `doc` indented by two, and last, when `r` is given,
// "iterations" with one iteration_line per iteration of `r`, so the text
// grows by one line per iteration.  Ends with a newline.
std::string document_text(const nlohmann::json& doc, const model::RunResult* r);
// Marks a document of a run still going on: in_progress true, a progress
// object (now; the phase running, when `live`), summary.status "running"
// with no exit_code or stop_reason yet.
void mark_in_progress(nlohmann::json& doc, const model::ProgressSnapshot* live);

// The verdict word of an exit status: passed (0), error (1), failed (2),
// interrupted (128+N) (model/verdict.h's status_word).
const char* verdict_word(int exit_code);

// A document that stands for several runs (--preset, --compare-backends)
// carries their combined verdict in summary.status and summary.exit_code
// (a document that verified nothing stays "no-verdict" while exit 0).
void set_verdict(nlohmann::json& doc, model::ExitStatus exit_code);

}  // namespace ds::report
