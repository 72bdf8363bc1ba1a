// Signals during a run.  Every signal whose default action ends the process
// (SIGHUP from a closed ssh session, SIGINT, SIGQUIT, SIGTERM, SIGUSR1/2,
// SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT, SIGXCPU, SIGPIPE,
// SIGXFSZ, the real-time signals, and SIGILL/SIGTRAP/SIGFPE/SIGBUS/SIGSEGV/
// SIGSYS when sent with kill) is a stop request, handled like SIGTERM:
//   first signal: stop issuing new I/O, drain what is in flight, report the
//     partial phase, clean up, exit 128+n (the run loop polls stop_signal());
//   a later signal: remove the test files and leave at once, from the
//     handler itself (fstatat, unlinkat, write and exit_group are
//     async-signal-safe).  Signals within kSameRequestNs of the first, or
//     already pending when the first was handled, are the same request (a
//     terminal and a wrapper both forwarding one Ctrl+C), not a second one:
//     on a loaded machine the thread a second signal went to may run its
//     handler long after the first (a QD 256 sync pool is 512 threads).
// A real crash (SIGSEGV from a bad access, abort()) removes the test files
// and then dies as it would have (the previous handler, e.g. a sanitizer's,
// still reports it).  A SIGPIPE or SIGXFSZ the kernel raises for one of our
// own writes (a closed stdout pipe under `--json - | head`, a file past
// `ulimit -f`) is not a stop request: it is told from `kill -PIPE` by its
// sender (si_code SI_USER with our own pid), and the failing write reports
// EPIPE / EFBIG as an error, exit 1.  Sent by anyone else, both are a stop
// like the others, exit 141 / 153.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace ds::sys {

// Signals closer together than this are one stop request (nanoseconds).
inline constexpr std::uint64_t kSameRequestNs = 250'000'000;

// Bit n-1 stands for signal n (1..64), as the kernel's sigset does.
constexpr std::uint64_t signal_bit(int sig) {
    return sig >= 1 && sig <= 64 ? std::uint64_t{1} << (sig - 1) : 0;
}

// Whether signal `sig`, handled at `now_ns`, belongs to the stop request
// whose first signal was handled at `first_ns` with `pending_at_first` (the
// signals then pending, signal_bit mask) still to come.
constexpr bool same_stop_request(std::uint64_t now_ns, std::uint64_t first_ns,
                                 std::uint64_t pending_at_first, int sig) {
    return now_ns - first_ns < kSameRequestNs || (pending_at_first & signal_bit(sig)) != 0;
}

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
// The files a second signal or a crash removes: files[0, count), beside
// those of every other array registered (one per target of the run, up to
// kMaxEmergencySets).  The array must stay where it is while registered
// (calls with the same array may only grow the count) until cleared.
inline constexpr std::size_t kMaxEmergencySets = 256;
void set_emergency_files(const EmergencyFile* files, std::size_t count);
// The array registered as `files` no longer removed by a second signal.
void clear_emergency_files(const EmergencyFile* files);
// Whether files a second signal leaves in place exist (--keep): its message
// says "files kept" only then.
void set_files_kept(bool kept);

}  // namespace ds::sys
