// The engine's batch size: how many completions one wait asks for.
#include "run/engine.h"

#include <doctest/doctest.h>

using ds::run::BatchSizer;

TEST_CASE("a batch starts at one completion and grows while waits are quick") {
    BatchSizer s;
    CHECK(s.want(32) == 1);
    for (int i = 0; i < 20; ++i)
        s.waited(5'000, s.want(32));  // 5 us: quick
    CHECK(s.want(32) == 8);           // a quarter of what is in flight, no more
}

TEST_CASE("the limit grows only when it was what held the batch back") {
    BatchSizer s;
    for (int i = 0; i < 50; ++i)
        s.waited(5'000, s.want(32));
    // At QD 32 the quarter (8) held every batch from its eighth wait on, so
    // the limit stopped at 9: a deeper queue does not get a batch that was
    // never shown to be quick.
    CHECK(s.want(128) == 9);
}

TEST_CASE("a slow wait halves the batch, down to one completion") {
    BatchSizer s;
    for (int i = 0; i < 20; ++i)
        s.waited(5'000, s.want(32));
    REQUIRE(s.want(32) == 8);
    s.waited(80'000, 8);  // 80 us for 8: a slow device
    CHECK(s.want(32) == 4);
    s.waited(80'000, 4);
    s.waited(80'000, 2);
    CHECK(s.want(32) == 1);
    s.waited(80'000, 1);
    CHECK(s.want(32) == 1);  // never zero
    CHECK(s.want(2) == 1);   // and at least one, however little is in flight
}

TEST_CASE("a wait between half the bound and the bound leaves the batch as it is") {
    BatchSizer s;
    for (int i = 0; i < 3; ++i)
        s.waited(5'000, s.want(32));
    const unsigned before = s.want(32);
    s.waited(40'000, before);  // 40 us: not quick, not over the 50 us bound
    CHECK(s.want(32) == before);
}
