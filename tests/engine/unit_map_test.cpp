#include "engine/unit_map.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <vector>

using ds::engine::BusyUnits;
using ds::engine::UnitMap;

TEST_CASE("busy units: what was claimed is busy until released, whatever collides") {
    BusyUnits b;
    CHECK_FALSE(b.contains(0));
    b.insert(0);
    b.insert(64);  // the table starts with 64 slots: neighbours and wrap-arounds
    b.insert(~std::uint64_t{0} - 1);
    CHECK(b.contains(0));
    CHECK(b.contains(64));
    CHECK(b.contains(~std::uint64_t{0} - 1));
    CHECK_FALSE(b.contains(1));
    b.erase(0);
    CHECK_FALSE(b.contains(0));
    CHECK(b.contains(64));
    CHECK(b.size() == 2);
}

TEST_CASE("busy units: random claims and releases agree with a std::set, through growth") {
    // Backward-shift deletion moves entries; a wrong move loses one (a busy
    // unit picked again: a read racing a write) or keeps a released one
    // (never picked again).  A small key range makes long probe runs.
    for (std::uint64_t range : {std::uint64_t{100}, std::uint64_t{1} << 40}) {
        std::mt19937_64 rng(range);
        BusyUnits b;
        std::set<std::uint64_t> ref;
        std::vector<std::uint64_t> in;
        for (int step = 0; step < 200000; ++step) {
            // Grow to about 300 in flight, then hover there.
            const bool add = in.size() < 40 || (in.size() < 300 && rng() % 2) || rng() % 3 == 0;
            if (add && in.size() < range / 2) {
                std::uint64_t u;
                do {
                    u = rng() % range;
                } while (ref.count(u));
                b.insert(u);
                ref.insert(u);
                in.push_back(u);
            } else if (!in.empty()) {
                const std::size_t i = rng() % in.size();
                b.erase(in[i]);
                ref.erase(in[i]);
                in[i] = in.back();
                in.pop_back();
            }
            const std::uint64_t probe = rng() % range;
            REQUIRE(b.contains(probe) == (ref.count(probe) == 1));
            REQUIRE(b.size() == ref.size());
        }
        for (std::uint64_t u : in)
            CHECK(b.contains(u));
    }
}

TEST_CASE("unit map: claim, release and generations stay apart") {
    UnitMap m(1 << 20, 4096);
    CHECK(m.units() == 256);
    m.claim(7);
    CHECK(m.busy(7));
    CHECK_FALSE(m.busy(8));
    m.advance(7 * 4096, 8192);
    CHECK(m.generation(7) == ds::pattern::next_generation(ds::pattern::kUnknownGeneration));
    CHECK(m.generation(8) == m.generation(7));
    m.release(7);
    CHECK_FALSE(m.busy(7));
    CHECK(m.generation(7) != ds::pattern::kUnknownGeneration);
}

TEST_CASE("unit map: generations go past 255, and an unknown unit never restarts below") {
    UnitMap m(4 * 4096, 4096);
    for (int i = 0; i < 300; ++i)
        m.advance(0, 4096);
    CHECK(m.generation(0) == 300);  // no wrap at one byte
    CHECK(m.highest() == 300);
    m.advance(4096, 4096);
    CHECK(m.generation(1) == 1);  // never written before: the first generation
    // A failed write: the unit's next content follows every generation the
    // map handed out, so its old content (up to 300) can never look current.
    m.forget(0, 4096);
    CHECK(m.generation(0) == ds::pattern::kUnknownGeneration);
    m.advance(0, 4096);
    CHECK(m.generation(0) == 301);
    // A recreated file: every unit continues past everything written before.
    m.reset();
    m.advance(0, 4 * 4096);
    for (std::uint64_t u = 0; u < 4; ++u)
        CHECK(m.generation(u) == 302);
    m.forget_unit(2);
    m.advance(2 * 4096, 4096);
    CHECK(m.generation(2) == 303);
}
