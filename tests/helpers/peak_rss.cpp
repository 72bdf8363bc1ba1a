// peak_rss PROG ARGS...: runs PROG, then says on stderr how much memory it
// held at most ("peak_rss_kib N": its ru_maxrss) and exits as PROG did (a
// signal that killed PROG kills this too).  A test cannot take that figure
// from its own wait4(): a child forked from the test's interpreter counts
// the interpreter's resident size too (ru_maxrss spans exec).  This program
// is small, so what it forks starts small.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: peak_rss PROG ARGS...\n");
        return 2;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "peak_rss: fork: %s\n", std::strerror(errno));
        return 2;
    }
    if (pid == 0) {
        ::execv(argv[1], argv + 1);
        std::fprintf(stderr, "peak_rss: %s: %s\n", argv[1], std::strerror(errno));
        ::_exit(127);
    }
    // Signals meant for PROG (the test's SIGINT, SIGTERM) reach it through
    // the process group or its pid; this one waits.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGTERM, SIG_IGN);
    int status = 0;
    rusage usage{};
    while (::wait4(pid, &status, 0, &usage) < 0)
        if (errno != EINTR) {
            std::fprintf(stderr, "peak_rss: wait4: %s\n", std::strerror(errno));
            return 2;
        }
    std::fprintf(stderr, "peak_rss_kib %ld\n", usage.ru_maxrss);
    if (WIFSIGNALED(status)) {
        ::signal(WTERMSIG(status), SIG_DFL);
        ::raise(WTERMSIG(status));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
