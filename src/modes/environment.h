// What the command line asks for, checked against the system right before
// the run (parsing, cli/command_line.h, never touches it): that the result files
// can be written at the end, and for --raw-device that --destroy-data names
// the same device, that it is unused, and the size of each region.
#pragma once

#include "cli/command_line.h"

namespace ds::modes {

// Fills in what the system decides (a raw device's region size) and
// throws model::SetupError naming the option and path that cannot work.
void check_environment(cli::ParsedCommandLine& cmd);

}  // namespace ds::modes
