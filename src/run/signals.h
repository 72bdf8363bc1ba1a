// Signals during a run.  Every signal whose default action ends the process
// (SIGHUP from a closed ssh session, SIGINT, SIGQUIT, SIGTERM, SIGUSR1/2,
// SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, the
// real-time signals, and SIGILL/SIGTRAP/SIGFPE/SIGBUS/SIGSEGV/SIGSYS when
// sent with kill) is a stop request, handled like SIGTERM:
//   first signal: stop issuing new I/O, drain what is in flight, report the
//     partial phase, clean up, exit 128+n (the run loop polls stop_signal());
//   a later signal: remove the test files and leave at once, from the
//     handler itself (fstatat, unlinkat, write and exit_group are
//     async-signal-safe).  Signals within kSameRequestNs of the first are
//     the same request (a terminal and a wrapper both forwarding one
//     Ctrl+C), not a second one.
// A real crash (SIGSEGV from a bad access, abort()) removes the test files
// and then dies as it would have (the previous handler, e.g. a sanitizer's,
// still reports it).  SIGPIPE and SIGXFSZ are ignored: the failing write
// reports them.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace ds::run {

// Signals closer together than this are one stop request (nanoseconds).
inline constexpr std::uint64_t kSameRequestNs = 250'000'000;

void install_signal_handlers();
// Signal number of the first stop request, 0 if none.
int stop_signal();

// A file the emergency path may remove: the name in `dirfd` is unlinked
// only while it still is the inode (dev, ino) created by the run.
struct EmergencyFile {
    int dirfd;
    const char* name;
    dev_t dev;
    ino_t ino;
};
// The files a second signal or a crash removes: files[0, count).  The array
// must stay where it is while registered (calls with the same array may
// only grow the count); nullptr/0 removes nothing (also --keep).
void set_emergency_files(const EmergencyFile* files, std::size_t count);

}  // namespace ds::run
