// --compare-backends: the same workload on io_uring and on sync, side by side.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "run/config.h"
#include "run/results.h"

namespace ds::report {

// A table with one row per phase: MiB/s, IOPS and p99 for each backend and
// the io_uring/sync ratio.
std::string comparison_table(const run::RunResult& uring, const run::RunResult& sync);
// The "compare_backends" section: the sync run's phases and the ratios.
nlohmann::json comparison_json(const run::RunConfig& cfg, const run::RunResult& uring,
                               const run::RunResult& sync);

}  // namespace ds::report
