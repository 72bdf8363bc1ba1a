// When a stop signal is the same request as the first, and when a second one.
#include "sys/signals.h"

#include <doctest/doctest.h>

#include <csignal>

using ds::sys::kSameRequestNs;
using ds::sys::same_stop_request;
using ds::sys::signal_bit;

TEST_CASE("signal bits are the kernel's sigset numbering, and nothing outside 1..64") {
    CHECK(signal_bit(1) == 1);
    CHECK(signal_bit(SIGTERM) == std::uint64_t{1} << (SIGTERM - 1));
    CHECK(signal_bit(64) == std::uint64_t{1} << 63);
    CHECK(signal_bit(0) == 0);
    CHECK(signal_bit(65) == 0);
}

TEST_CASE("a signal soon after the first is the same request") {
    const std::uint64_t first = 5'000'000'000;
    CHECK(same_stop_request(first + 1, first, 0, SIGTERM));
    CHECK(same_stop_request(first + kSameRequestNs - 1, first, 0, SIGTERM));
    CHECK_FALSE(same_stop_request(first + kSameRequestNs, first, 0, SIGTERM));
}

TEST_CASE("a signal already pending at the first is the same request however late it runs") {
    // SIGINT and SIGTERM sent together; the thread SIGTERM went to ran its
    // handler a second later (a loaded machine, hundreds of pool threads).
    const std::uint64_t first = 5'000'000'000;
    const std::uint64_t late = first + 4 * kSameRequestNs;
    CHECK(same_stop_request(late, first, signal_bit(SIGTERM), SIGTERM));
    // Another signal pending then says nothing about this one.
    CHECK_FALSE(same_stop_request(late, first, signal_bit(SIGUSR1), SIGTERM));
    CHECK_FALSE(same_stop_request(late, first, 0, SIGINT));
}
