// The engine's batch size: how many completions one wait asks for.
#include "engine/engine.h"

#include <doctest/doctest.h>

using ds::run::BatchSizer;

constexpr std::uint64_t kQuick = BatchSizer::kBoundNs / 10;
constexpr std::uint64_t kSlow = BatchSizer::kBoundNs * 8 / 5;

TEST_CASE("a batch starts at one completion and grows while waits are quick") {
    BatchSizer s;
    CHECK(s.want(32) == 1);
    for (int i = 0; i < 20; ++i)
        s.waited(kQuick, s.want(32));  // a tenth of the bound: quick
    CHECK(s.want(32) == 8);            // a quarter of what is in flight, no more
}

TEST_CASE("the limit grows only when it was what held the batch back") {
    BatchSizer s;
    for (int i = 0; i < 50; ++i)
        s.waited(kQuick, s.want(32));
    // At QD 32 the quarter (8) held every batch from its eighth wait on, so
    // the limit stopped at 9: a deeper queue does not get a batch that was
    // never shown to be quick.
    CHECK(s.want(128) == 9);
}

TEST_CASE("a slow wait halves the batch, down to one completion") {
    BatchSizer s;
    for (int i = 0; i < 20; ++i)
        s.waited(kQuick, s.want(32));
    REQUIRE(s.want(32) == 8);
    s.waited(kSlow, 8);  // over the bound for 8: a slow device
    CHECK(s.want(32) == 4);
    s.waited(kSlow, 4);
    s.waited(kSlow, 2);
    CHECK(s.want(32) == 1);
    s.waited(kSlow, 1);
    CHECK(s.want(32) == 1);  // never zero
    CHECK(s.want(2) == 1);   // and at least one, however little is in flight
}

TEST_CASE("a wait between half the bound and the bound leaves the batch as it is") {
    BatchSizer s;
    for (int i = 0; i < 3; ++i)
        s.waited(kQuick, s.want(32));
    const unsigned before = s.want(32);
    s.waited(BatchSizer::kBoundNs * 4 / 5, before);  // not quick, not over the bound
    CHECK(s.want(32) == before);
}

TEST_CASE("a device as fast as a loop device over tmpfs keeps its quarter batch") {
    // 8 completions at QD 32 in 47 us (170k IOPS): the old 50 us bound
    // halved this batch whenever the host slowed it a little.
    BatchSizer s;
    for (int i = 0; i < 20; ++i)
        s.waited(47'000, s.want(32));
    for (int i = 0; i < 20; ++i)
        s.waited(60'000, s.want(32));
    CHECK(s.want(32) == 8);
}
