// UringBackend::cancel on a real ring: reads of an empty pipe wait in
// io_uring itself (armed poll), which is what a cancel can reach.
#include "io/uring_backend.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <vector>

#include "io/aligned_buffer.h"
#include "io/probe.h"

using namespace ds;

TEST_CASE(
    "cancel: every waiting request completes with -ECANCELED, the cancel's own answer unseen") {
    if (!io::probe_io_uring().usable) {
        MESSAGE("io_uring unusable here: skipped");
        return;
    }
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    {
        io::AlignedBuffer arena(4 * 4096);
        io::UringBackend ring(fds[0], 4, {});
        std::array<io::Request, 4> reqs{};
        std::vector<io::Request*> in_flight;
        for (unsigned i = 0; i < reqs.size(); ++i) {
            reqs[i] = {io::OpKind::read, 4096, 0, arena.data() + i * 4096, 0, i, 0};
            ring.prepare(reqs[i]);
            in_flight.push_back(&reqs[i]);
        }
        CHECK(ring.submit() == 4);
        CHECK(ring.cancel(in_flight));
        std::array<io::Completion, 8> out{};
        std::size_t got = 0;
        for (int waits = 0; got < reqs.size() && waits < 100; ++waits)
            got += ring.reap(std::span(out).subspan(got), 1);
        REQUIRE(got == reqs.size());  // the cancel's own completion is not among them
        for (std::size_t i = 0; i < got; ++i) {
            CHECK(out[i].result == -ECANCELED);
            CHECK(out[i].req >= &reqs[0]);
            CHECK(out[i].req <= &reqs[3]);
        }
    }
    ::close(fds[0]);
    ::close(fds[1]);
}

TEST_CASE("a backend's flags say what it can do; names ask for a kind") {
    using namespace ds::io;
    CHECK(backend_flags(BackendKind::io_uring) == (kCancels | kRing));
    CHECK(backend_flags(BackendKind::sync) == kBlockingCalls);
    CHECK(backend_named("io_uring") == BackendKind::io_uring);
    CHECK(backend_named("sync") == BackendKind::sync);
    CHECK_FALSE(backend_named("auto").has_value());
    CHECK_FALSE(backend_named("nop").has_value());
    CHECK(BackendKind{} == BackendKind::io_uring);  // the defaults of the results rely on it
}
