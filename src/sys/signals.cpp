#include "sys/signals.h"
#include "sys/clock.h"
#include "units/diag.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <csignal>

namespace ds::sys {

namespace {

std::atomic<int> g_first_signal{0};
std::atomic<std::uint64_t> g_first_ns{0};
// The registered files, one array per target of the run: an array never
// moves while registered (its owner reserves it in full), only its count
// grows.  Slots are taken and given back by the main thread only.
struct EmergencySet {
    std::atomic<const EmergencyFile*> files{nullptr};
    std::atomic<std::size_t> count{0};
};
EmergencySet g_sets[kMaxEmergencySets];
std::atomic<bool> g_files_kept{false};             // --keep files exist (the second signal says so)
std::atomic<std::uint64_t> g_pending_at_first{0};  // signal_bit mask

// Signals whose default action ends the process and that arrive from
// outside (kill, the terminal, a timer): a stop request.  SIGPIPE and
// SIGXFSZ are also what the kernel raises in a thread whose own write hit a
// closed pipe or the file size limit; that one is told apart in the handler
// (self_inflicted) and left to the write's EPIPE / EFBIG.
constexpr int kStopSignals[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGTERM,   SIGUSR1,
                                SIGUSR2, SIGALRM, SIGIO,     SIGVTALRM, SIGPROF,
                                SIGPWR,  SIGXCPU, SIGSTKFLT, SIGPIPE,   SIGXFSZ};
// Calls f(sig) for every stop signal: the list above and the real-time ones.
template <typename F>
void for_each_stop_signal(F f) {
    for (int sig : kStopSignals)
        f(sig);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig)
        f(sig);
}

// Signals a crash raises: a stop request when sent with kill, else the
// files go and the process dies as it would have.
constexpr int kFaultSignals[] = {SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGBUS, SIGSEGV, SIGSYS};
struct sigaction g_previous[65];

// Whether any files are registered; then removes them.
bool remove_registered_files() {
    bool any = false;
    for (const EmergencySet& set : g_sets) {
        const std::size_t n = set.count.load();
        const EmergencyFile* files = set.files.load();
        any = any || files != nullptr;
        for (std::size_t i = 0; files && i < n; ++i) {
            struct stat st {};
            if (::fstatat(files[i].dirfd, files[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                st.st_dev == files[i].dev && st.st_ino == files[i].ino)
                ::unlinkat(files[i].dirfd, files[i].name, 0);
        }
    }
    return any;
}

void say(const char* text, std::size_t len) {
    ssize_t ignored = ::write(STDERR_FILENO, text, len);
    (void)ignored;
}

// The signals sent to this thread or the process and not yet taken by a
// thread, among those this thread blocks (in the handler: every stop
// signal, see install_signal_handlers), as a signal_bit mask.  sigpending
// is async-signal-safe.
std::uint64_t pending_signals() {
    sigset_t set;
    if (sigpending(&set) != 0) return 0;
    std::uint64_t mask = 0;
    for (int sig = 1; sig <= 64; ++sig)
        if (sigismember(&set, sig) == 1) mask |= signal_bit(sig);
    return mask;
}

void on_stop_signal(int sig) {
    const std::uint64_t now = monotonic_ns();
    std::uint64_t none = 0;
    if (g_first_ns.compare_exchange_strong(none, now)) {
        g_first_signal.store(sig);
        g_pending_at_first.store(pending_signals());
        return;
    }
    // The same keypress delivered twice (terminal and wrapper) is one request.
    if (same_stop_request(now, none, g_pending_at_first.load(), sig)) return;
    const bool files = remove_registered_files();
    static const char removed[] = "second signal, files removed, exiting now\n";
    static const char kept[] = "second signal, exiting now (files kept)\n";
    static const char bare[] = "second signal, exiting now\n";
    say(units::kProgramPrefix.data(), units::kProgramPrefix.size());
    if (files)
        say(removed, sizeof removed - 1);
    else if (g_files_kept.load())
        say(kept, sizeof kept - 1);
    else
        say(bare, sizeof bare - 1);
    int first = g_first_signal.load();
    // The raw exit_group, not _exit(): the workers are still running (or
    // finished, unjoined) and a sanitizer's _exit interceptor would run its
    // end-of-process checks from inside this handler and call them a leak.
    ::syscall(SYS_exit_group, 128 + (first ? first : sig));
    __builtin_unreachable();
}

// A SIGPIPE or SIGXFSZ the kernel raised because a write of this process
// failed.  The kernel sends those with send_sig(sig, current, 0): si_code
// SI_USER and si_pid the writer's own process id (kernel/signal.c,
// SEND_SIG_NOINFO).  `kill -PIPE` from anyone else carries the sender's pid.
bool self_inflicted(int sig, const siginfo_t* info) {
    return (sig == SIGPIPE || sig == SIGXFSZ) && info && info->si_code == SI_USER &&
           info->si_pid == ::getpid();
}

void on_stop_info(int sig, siginfo_t* info, void* context) {
    (void)context;
    if (self_inflicted(sig, info)) return;  // the write reports EPIPE / EFBIG
    on_stop_signal(sig);
}

void on_fault_signal(int sig, siginfo_t* info, void* context) {
    // Sent with kill (or sigqueue, tgkill), but not abort()'s own SIGABRT:
    // a stop request like any other.
    if (info && info->si_code <= 0 && sig != SIGABRT) {
        on_stop_signal(sig);
        return;
    }
    remove_registered_files();
    // Die as we would have: the previous action (a sanitizer's report, or
    // the default core dump).  A fault re-executes the faulting instruction
    // and lands there; abort()'s signal is raised again.
    (void)context;
    sigaction(sig, &g_previous[sig], nullptr);
    if (!info || info->si_code <= 0) ::raise(sig);
}

}  // namespace

void install_signal_handlers() {
    struct sigaction sa {};
    sa.sa_sigaction = on_stop_info;
    // Every stop signal is blocked while the handler runs: then sigpending()
    // in it (which reports only blocked signals) sees the others already
    // sent, and a second handler cannot interrupt the first.
    sigemptyset(&sa.sa_mask);
    for_each_stop_signal([&](int sig) { sigaddset(&sa.sa_mask, sig); });
    // No SA_RESTART: blocking waits return EINTR and see the flag.
    sa.sa_flags = SA_SIGINFO;
    for_each_stop_signal([&](int sig) {
        struct sigaction old {};
        sigaction(sig, nullptr, &old);
        if (old.sa_handler == SIG_IGN && sig != SIGINT) {
            // Ignored by whoever started us (nohup: SIGHUP): keep it so.
            return;
        }
        sigaction(sig, &sa, nullptr);
    });

    // A crash that is a stack overflow can only be handled on another
    // stack (SA_ONSTACK below): this thread's, installed once.
    static bool alt_stack = false;
    if (!alt_stack) {
        alignas(16) static char stack_bytes[64 * 1024];
        stack_t ss{};
        ss.ss_sp = stack_bytes;
        ss.ss_size = sizeof stack_bytes;
        alt_stack = ::sigaltstack(&ss, nullptr) == 0;
    }

    struct sigaction fault {};
    fault.sa_sigaction = on_fault_signal;
    sigemptyset(&fault.sa_mask);
    fault.sa_flags = SA_SIGINFO | SA_ONSTACK;
    for (int sig : kFaultSignals)
        sigaction(sig, &fault, &g_previous[sig]);
}

int stop_signal() {
    return g_first_signal.load(std::memory_order_relaxed);
}

void set_files_kept(bool kept) {
    g_files_kept.store(kept);
}

void set_emergency_files(const EmergencyFile* files, std::size_t count) {
    if (!files) return;
    EmergencySet* free_set = nullptr;
    for (EmergencySet& set : g_sets) {
        if (set.files.load() == files) {
            set.count.store(count);
            return;
        }
        if (!free_set && !set.files.load()) free_set = &set;
    }
    if (!free_set) return;  // more targets than slots: the normal exit still removes them
    free_set->count.store(0);
    free_set->files.store(files);
    free_set->count.store(count);
}

void clear_emergency_files(const EmergencyFile* files) {
    if (!files) return;
    for (EmergencySet& set : g_sets)
        if (set.files.load() == files) {
            set.count.store(0);
            set.files.store(nullptr);
        }
}

}  // namespace ds::sys
