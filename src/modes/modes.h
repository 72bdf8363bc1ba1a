// The ways drivestress runs, each putting the run layer's results through
// the report layer: a single run (with its live result files), a preset's
// tests in turn, --compare-backends, --interference, --verify-only.  Each returns the exit
// status; a setup error is thrown (main turns it into one line, exit 1).
#pragma once

#include <cstdio>

#include "cli/command_line.h"
#include "model/exit_status.h"

namespace ds::modes {

// Where the text report and the live status line go.
struct Output {
    std::FILE* text;
    std::FILE* live;                                 // nullptr: no status line
    bool brief = false;                              // --brief
    units::ByteUnits units = units::ByteUnits::iec;  // --units
};
// stdout for the text (stderr when --json - takes stdout); the status line
// on stderr when asked for, or when it is a terminal.
Output output_for(const cli::Outputs& outputs);

model::ExitStatus run_single(const cli::ParsedCommandLine& cmd, const Output& out);
model::ExitStatus run_preset(const cli::ParsedCommandLine& cmd, const Output& out);
model::ExitStatus run_comparison(const cli::ParsedCommandLine& cmd, const Output& out);
model::ExitStatus run_interference(const cli::ParsedCommandLine& cmd, const Output& out);
model::ExitStatus run_verify_only(const cli::ParsedCommandLine& cmd, const Output& out);

}  // namespace ds::modes
