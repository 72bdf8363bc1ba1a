// The compact table that ends a --preset run: one row per test.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "run/results.h"

namespace ds::report {

using PresetResults = std::vector<std::pair<std::string, run::RunResult>>;

// Read and write figures of one test: the random phase when it ran,
// otherwise seq-read and seq-write.
struct PresetRow {
    double read_bytes_per_sec = 0, write_bytes_per_sec = 0;
    double read_iops = 0, write_iops = 0;
    std::uint64_t p99_ns = 0;
    std::uint64_t mismatches = 0;
};
PresetRow preset_row(const run::RunResult& r);

std::string preset_table(const std::string& name, const PresetResults& results);
nlohmann::json preset_json(const std::string& name, const PresetResults& results);

}  // namespace ds::report
