// A run with several targets: the header's line per target, and the table
// of each target's own figures and verdict with the total, and the slow
// drive named.
#pragma once

#include <string>

#include "model/config.h"
#include "model/exit_status.h"
#include "model/results.h"
#include "units/units.h"

namespace ds::report {

// "target 2 /dev/loop5 (raw device, 64 MiB)  2 regions x 16 MiB  O_DIRECT", one per target.
std::string target_header_lines(const model::RunConfig& cfg, const model::RunResult& r);
// The row per target and the total (empty for one target), then a line
// per slow target.
std::string target_table(const model::RunConfig& cfg, const model::RunResult& r,
                         model::ExitStatus code, units::ByteUnits u = units::ByteUnits::iec);
// "loop3: random 41 % below the median of 4 (1.2k IOPS, median 2.1k)".
std::string slow_text(const model::TargetResult& t, units::ByteUnits u = units::ByteUnits::iec);

}  // namespace ds::report
