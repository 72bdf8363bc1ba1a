// What a --preset run ends with: one compact KDiskMark-like table (a row per
// test name, read and write side by side) and the preset section of the
// JSON document, where every test keeps its full figures.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/results.h"
#include "report/host_info.h"
#include "units/units.h"

namespace ds::report {

using PresetResults = std::vector<std::pair<std::string, model::RunResult>>;

// Read and write figures of one test: the random phase when it ran,
// otherwise seq-read and seq-write.
struct PresetRow {
    double read_bytes_per_sec = 0, write_bytes_per_sec = 0;
    double read_iops = 0, write_iops = 0;
    std::uint64_t p99_ns = 0;                         // reads and writes together
    std::uint64_t read_p99_ns = 0, write_p99_ns = 0;  // each direction's own
    bool reads = false, writes = false;               // the phase did operations of that direction
    std::uint64_t mismatches = 0;
    // Why the phase behind the figures was too short to measure, or empty
    // (model::kMinMeasuredSeconds): the table then shows no figure.
    std::string read_too_short, write_too_short;
};
PresetRow preset_row(const model::RunResult& r);

// "RND4K Q32T1 read" and "RND4K Q32T1 write" share the row "RND4K Q32T1":
// reads from the first, writes from the second, as KDiskMark shows them.
std::string preset_table(const std::string& name, const PresetResults& results,
                         units::ByteUnits u = units::ByteUnits::iec);
// `configs`, when given (one per result, in order): each test also keeps
// its config, backend, merged_phases and summary, as a run's document has them.
nlohmann::json preset_json(const std::string& name, const PresetResults& results,
                           const std::vector<model::RunConfig>* configs = nullptr,
                           const HostInfo* host = nullptr);

}  // namespace ds::report
