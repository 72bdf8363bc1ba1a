// What the files of the result document share (json_report.cpp, json_phase,
// json_text, json_endurance, json_plan, json_jobs, json_atomic).  Not for use outside report/.
#pragma once

#include <nlohmann/json.hpp>

#include "model/results.h"

namespace ds::report {

// Mismatch observations by class name ("stale": 2, ...).
nlohmann::json class_counts(const model::ClassCounts& counts);

// A target's atomic-write promise and its answer for the run's write sizes
// (json_atomic.cpp).
nlohmann::json atomic_json(const model::AtomicPromise& p, const model::RunConfig& cfg);

// A target's drive health: before and after, per phase, the first damage.
nlohmann::json drive_health_json(const model::DriveHealth& h);

// The blocks of the drive-endurance work (--steady-state, --sustained-write,
// drive health), when asked for.
void add_endurance_blocks(nlohmann::json& doc, const model::RunResult& r);

// The run's plan: each worker's depth, sizes and share after every rule.
nlohmann::json plan_json(const model::RunPlan& plan);

// The run's jobs: each one's settings, active interval and figures
// (json_jobs.cpp).
nlohmann::json jobs_json(const model::RunResult& r);

}  // namespace ds::report
