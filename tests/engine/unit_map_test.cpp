// The unit map and the busy units: claims and releases (shared reads, sole
// writes) through growth, generations past 255, and trimmed units.
#include "engine/unit_map.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

using ds::engine::BusyUnits;
using ds::engine::UnitMap;

TEST_CASE("busy units: what was claimed is busy until released, whatever collides") {
    BusyUnits b;
    CHECK_FALSE(b.contains(0));
    b.insert(0);
    b.insert(64);  // the table starts with 64 slots: neighbours and wrap-arounds
    b.insert(BusyUnits::kMaxUnit);
    CHECK(b.contains(0));
    CHECK(b.contains(64));
    CHECK(b.contains(BusyUnits::kMaxUnit));
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

TEST_CASE("busy units: reads share a unit, a write has it alone") {
    BusyUnits b;
    b.insert(5, true);
    b.insert(5, true);  // a second read of the same unit
    CHECK(b.contains(5));
    CHECK_FALSE(b.claimed_alone(5));  // another read may join them; a write may not
    b.erase(5, true);
    CHECK(b.contains(5));
    b.erase(5, true);
    CHECK_FALSE(b.contains(5));
    b.insert(5);
    CHECK(b.claimed_alone(5));
    b.erase(5);
    CHECK(b.size() == 0);
}

TEST_CASE("busy units: shared and sole claims agree with a multiset, through growth") {
    // Many reads of a few hot units make long runs of equal units on one
    // probe path; erasing one claim must leave the others and every other
    // unit findable.
    for (std::uint64_t range : {std::uint64_t{20}, std::uint64_t{1} << 40}) {
        std::mt19937_64 rng(range + 1);
        BusyUnits b;
        std::multiset<std::pair<std::uint64_t, bool>> ref;
        std::vector<std::pair<std::uint64_t, bool>> in;
        auto sole = [&](std::uint64_t u) { return ref.count({u, false}) == 1; };
        auto any = [&](std::uint64_t u) { return sole(u) || ref.count({u, true}) > 0; };
        for (int step = 0; step < 200000; ++step) {
            const bool add = in.size() < 40 || (in.size() < 300 && rng() % 2) || rng() % 3 == 0;
            const std::uint64_t u = rng() % range;
            const bool shared = rng() % 4 != 0;
            if (add && (shared ? !sole(u) : !any(u))) {
                b.insert(u, shared);
                ref.insert({u, shared});
                in.emplace_back(u, shared);
            } else if (!in.empty()) {
                const std::size_t i = rng() % in.size();
                b.erase(in[i].first, in[i].second);
                ref.erase(ref.find(in[i]));
                in[i] = in.back();
                in.pop_back();
            }
            const std::uint64_t probe = rng() % range;
            REQUIRE(b.contains(probe) == any(probe));
            REQUIRE(b.claimed_alone(probe) == sole(probe));
            REQUIRE(b.size() == ref.size());
        }
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

TEST_CASE("unit map: the units a byte range touches, none for no bytes") {
    UnitMap m(1 << 20, 4096);
    auto units = [&](std::uint64_t offset, std::uint64_t length) {
        const auto r = m.units_in(offset, length);
        return std::pair{r.first, r.end};
    };
    CHECK(units(0, 4096) == std::pair<std::uint64_t, std::uint64_t>{0, 1});
    CHECK(units(4096, 8192) == std::pair<std::uint64_t, std::uint64_t>{1, 3});
    // Unaligned: every unit a byte of the range lies in.
    CHECK(units(4095, 2) == std::pair<std::uint64_t, std::uint64_t>{0, 2});
    CHECK(units(1000, 1) == std::pair<std::uint64_t, std::uint64_t>{0, 1});
    // Empty, wherever it is (a flush has no bytes).
    const auto none = m.units_in(8192, 0);
    CHECK(none.first == none.end);
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

TEST_CASE("trimmed units keep their generation until written again; a failure forgets both") {
    UnitMap m(16 * 4096, 4096);
    CHECK_FALSE(m.trims());
    m.advance(0, 8 * 4096);
    m.trim(4096, 2 * 4096);
    CHECK(m.trims());
    CHECK_FALSE(m.trimmed(0));
    CHECK(m.trimmed(1));
    CHECK(m.trimmed(2));
    CHECK_FALSE(m.trimmed(3));
    CHECK(m.generation(1) == 1);  // the last content written, for an unspecified promise
    m.advance(4096, 4096);        // a write after the trim
    CHECK_FALSE(m.trimmed(1));
    CHECK(m.generation(1) == 2);
    m.forget(2 * 4096, 4096);  // a failed or cancelled trim
    CHECK_FALSE(m.trimmed(2));
    CHECK(m.generation(2) == ds::pattern::kUnknownGeneration);
    m.trim(5 * 4096, 4096);
    m.reset();
    CHECK_FALSE(m.trimmed(5));
}
