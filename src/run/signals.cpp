#include "run/signals.h"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace ds::run {

namespace {

std::atomic<int> g_first_signal{0};
std::atomic<const char* const*> g_paths{nullptr};
std::atomic<std::size_t> g_created{0};

void on_stop_signal(int sig) {
    int expected = 0;
    if (g_first_signal.compare_exchange_strong(expected, sig)) return;
    // Second signal: the user wants out now.  Remove our files, then exit
    // with the code of the first signal.
    const char* const* paths = g_paths.load();
    std::size_t n = g_created.load();
    for (std::size_t i = 0; paths && i < n; ++i)
        ::unlink(paths[i]);
    static const char msg[] = "drivestress: second signal, files removed, exiting now\n";
    static const char kept[] = "drivestress: second signal, exiting now (files kept)\n";
    ssize_t ignored = paths ? ::write(STDERR_FILENO, msg, sizeof msg - 1)
                            : ::write(STDERR_FILENO, kept, sizeof kept - 1);
    (void)ignored;
    ::_exit(128 + g_first_signal.load());
}

}  // namespace

void install_signal_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking waits return EINTR and see the flag
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // A closed stdout pipe (`--json - | head`) must not kill the run before
    // it cleans up; the write fails with EPIPE instead.
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, nullptr);
    // A file size limit (ulimit -f) below --size must fail the write with
    // EFBIG, reported and cleaned up, not kill the process.
    sigaction(SIGXFSZ, &ign, nullptr);
}

int stop_signal() {
    return g_first_signal.load(std::memory_order_relaxed);
}

void set_emergency_paths(const char* const* paths, std::size_t count) {
    g_created.store(0);
    g_paths.store(paths);
    (void)count;
}

void set_emergency_created(std::size_t created) {
    g_created.store(created);
}

}  // namespace ds::run
