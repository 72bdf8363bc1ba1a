// The one write loop: whole writes across short ones, and how far a write
// that fails got (a full file, a pipe with no room left).
#include "sys/full_io.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "sys/unique_fd.h"

using ds::sys::UniqueFd;
using ds::sys::write_full;

TEST_CASE("write_full says how many bytes went out before a full file stopped it") {
    char name[] = "/tmp/full_io_test.XXXXXX";
    UniqueFd fd(::mkstemp(name));
    REQUIRE(fd.valid());
    ::unlink(name);
    const std::string data(10000, 'x');
    rlimit old{};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &old) == 0);
    struct sigaction ignore {
    }, before{};
    ignore.sa_handler = SIG_IGN;
    REQUIRE(::sigaction(SIGXFSZ, &ignore, &before) == 0);
    const rlimit small{4000, old.rlim_max};  // a file system that fills at 4000 bytes
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    std::size_t done = 0;
    const bool ok = write_full(fd.get(), data, &done);
    const int err = errno;
    ::setrlimit(RLIMIT_FSIZE, &old);
    ::sigaction(SIGXFSZ, &before, nullptr);
    CHECK_FALSE(ok);
    CHECK(err == EFBIG);
    CHECK(done == 4000);
    CHECK(::lseek(fd.get(), 0, SEEK_END) == 4000);
}

TEST_CASE("write_full on a full non-blocking pipe: EAGAIN, and what went in") {
    int p[2];
    REQUIRE(::pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
    UniqueFd rd(p[0]), wr(p[1]);
    const long room = ::fcntl(wr.get(), F_GETPIPE_SZ);
    REQUIRE(room > 0);
    const std::string data(static_cast<std::size_t>(room) + 12345, 'y');
    std::size_t done = 0;
    CHECK_FALSE(write_full(wr.get(), data, &done));
    CHECK(errno == EAGAIN);
    CHECK(done == static_cast<std::size_t>(room));
    // Whole: every byte, and `done` says so.
    char buf[4096];
    while (::read(rd.get(), buf, sizeof buf) > 0) {
    }
    CHECK(write_full(wr.get(), "line\n", &done));
    CHECK(done == 5);
}
