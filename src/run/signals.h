// SIGINT/SIGTERM handling for a run.  First signal: stop issuing new I/O,
// drain what is in flight, report, clean up (the run loop polls
// stop_signal()).  Second signal: remove the test files and leave at once,
// from the handler itself (unlink and _exit are async-signal-safe).
#pragma once

#include <cstddef>

namespace ds::run {

void install_signal_handlers();
// Signal number of the first SIGINT/SIGTERM received, 0 if none.
int stop_signal();
// Paths the second signal unlinks: `paths` must stay alive and unchanged
// while registered; entries [0, created) exist on disk.
void set_emergency_paths(const char* const* paths, std::size_t count);
void set_emergency_created(std::size_t created);

}  // namespace ds::run
