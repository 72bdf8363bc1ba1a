// UringBackend::cancel on a real ring: reads of an empty pipe wait in
// io_uring itself (armed poll), which is what a cancel can reach.
#include "io/uring_backend.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
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

namespace {

// A read of `fds[0]` reaped by a ring that spins `spin_us` (at its making, or
// set after it: the ring then lacks TASKRUN_FLAG and enters on every turn),
// the pipe written `after_us` after the wait began: the read's bytes.
std::string spun_read(unsigned made_spin_us, unsigned spin_us, unsigned after_us) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::string got;
    {
        io::AlignedBuffer arena(4096);
        io::UringOptions options;
        options.spin_us = made_spin_us;
        io::UringBackend ring(fds[0], 1, {}, options);
        ring.set_spin_us(spin_us);
        io::Request req{io::OpKind::read, 5, 0, arena.data(), 0, 0, 0};
        ring.prepare(req);
        std::thread writer([&] {
            std::this_thread::sleep_for(std::chrono::microseconds(after_us));
            CHECK(::write(fds[1], "hello", 5) == 5);
        });
        std::array<io::Completion, 1> out{};
        std::size_t n = 0;
        for (int waits = 0; n == 0 && waits < 100; ++waits)  // a signal may end a wait early
            n = ring.reap(out, 1);
        writer.join();
        REQUIRE(n == 1);
        CHECK(out[0].req == &req);
        REQUIRE(out[0].result == 5);
        got.assign(reinterpret_cast<const char*>(arena.data()), 5);
    }
    ::close(fds[0]);
    ::close(fds[1]);
    return got;
}

}  // namespace

TEST_CASE("a spinning wait takes a completion that comes during the spin or after it") {
    if (!io::probe_io_uring().usable) {
        MESSAGE("io_uring unusable here: skipped");
        return;
    }
    CHECK(spun_read(0, 0, 1000) == "hello");       // sleeps at once
    CHECK(spun_read(5000, 5000, 200) == "hello");  // found by the spin (TASKRUN_FLAG)
    CHECK(spun_read(50, 50, 20'000) == "hello");   // the spin ends, the sleep finds it
    CHECK(spun_read(0, 5000, 200) == "hello");     // made to sleep, spun later: every turn
    CHECK(spun_read(0, 20, 20'000) == "hello");    // ... and its spin ends too
}

TEST_CASE("spins that end empty in a row rest the spin for a number of waits") {
    if (!io::probe_io_uring().usable) {
        MESSAGE("io_uring unusable here: skipped");
        return;
    }
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    {
        io::AlignedBuffer arena(4096);
        io::UringOptions options;
        options.spin_us = 20;
        io::UringBackend ring(fds[0], 1, {}, options);
        // One read of one byte, the byte written `after_us` into the wait
        // (0: before it).
        auto read_one = [&](unsigned after_us) {
            io::Request req{io::OpKind::read, 1, 0, arena.data(), 0, 0, 0};
            if (after_us == 0) REQUIRE(::write(fds[1], "x", 1) == 1);
            ring.prepare(req);
            std::thread writer([&] {
                if (after_us == 0) return;
                std::this_thread::sleep_for(std::chrono::microseconds(after_us));
                CHECK(::write(fds[1], "x", 1) == 1);
            });
            std::array<io::Completion, 1> out{};
            std::size_t n = 0;
            for (int waits = 0; n == 0 && waits < 100; ++waits)
                n = ring.reap(out, 1);
            writer.join();
            REQUIRE(n == 1);
            CHECK(out[0].result == 1);
        };
        for (unsigned k = 0; k < io::UringBackend::kMissesToRest; ++k)
            read_one(20'000);  // each spin ends 20 us in, 20 ms early
        CHECK(ring.spins() == io::UringBackend::kMissesToRest);
        CHECK(ring.spin_hits() == 0);
        for (unsigned k = 0; k < io::UringBackend::kRestWaits; ++k)
            read_one(0);  // resting: no spin
        CHECK(ring.spins() == io::UringBackend::kMissesToRest);
        read_one(0);  // the spin is tried again, and finds it
        CHECK(ring.spins() == io::UringBackend::kMissesToRest + 1);
        CHECK(ring.spin_hits() == 1);
    }
    ::close(fds[0]);
    ::close(fds[1]);
}
