// The versioned result document (`--json`).  Keys carry their unit (_ns,
// _bytes, _bytes_per_sec, _s); numbers are numbers; no diagnostics inside.
// schema/result.schema.json describes it; bump kSchemaVersion on any
// incompatible change.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/host_info.h"
#include "run/config.h"
#include "run/results.h"
#include "stats/histogram.h"

namespace ds::report {

inline constexpr int kSchemaVersion = 1;

// The keys every document starts with: schema_version, tool, run_id (random,
// new for every document), started_at, host.
nlohmann::json document_head(const std::string& started_at, const HostInfo& host);
nlohmann::json latency_json(const stats::LatencyHistogram& h);
// target.drive: what sysfs tells about the disk, null where it does not.
nlohmann::json drive_json(const DriveInfo& d);
// One mismatch record ("mismatches" items; also --verify-only's lost units).
nlohmann::json mismatch_json(const run::MismatchRecord& m);
nlohmann::json result_json(const run::RunConfig& cfg, const run::RunResult& r,
                           const HostInfo& host);

// The verdict word of an exit status: passed (0), error (1), failed (2),
// interrupted (128+N).
const char* verdict_word(int exit_code);

// A document that stands for several runs (--preset, --compare-backends)
// carries their combined verdict in summary.status and summary.exit_code.
void set_verdict(nlohmann::json& doc, int exit_code);

}  // namespace ds::report
