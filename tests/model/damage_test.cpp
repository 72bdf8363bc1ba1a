// Damage extents: observations merge into ranges per class; distinct units
// count a unit once however many reads or classes saw it.
#include "model/damage.h"

#include <doctest/doctest.h>

using ds::model::DamageMap;
using ds::pattern::MismatchClass;

TEST_CASE("one unit read wrong by two phases is one extent, one unit, two reads") {
    DamageMap m;
    m.add(8192 + 100, 4096, MismatchClass::corrupt, 4096);  // the first bad byte inside
    m.add(8192, 4096, MismatchClass::corrupt, 4096);
    auto e = m.extents();
    REQUIRE(e.size() == 1);
    CHECK(e[0].offset == 8192);
    CHECK(e[0].length == 2 * 4096);  // 8292 + 4096 reaches into the next unit
    CHECK(e[0].reads == 2);
}

TEST_CASE("adjacent and overlapping ranges of a class merge; other classes stay apart") {
    DamageMap m;
    m.add(0, 4096, MismatchClass::zeroed, 4096);
    m.add(8192, 4096, MismatchClass::zeroed, 4096);  // a gap: two extents
    CHECK(m.extents().size() == 2);
    m.add(4096, 4096, MismatchClass::zeroed, 4096);  // fills the gap: one extent
    auto e = m.extents();
    REQUIRE(e.size() == 1);
    CHECK(e[0].offset == 0);
    CHECK(e[0].length == 3 * 4096);
    CHECK(e[0].reads == 3);
    m.add(4096, 4096, MismatchClass::stale, 4096);  // same unit, another class
    e = m.extents();
    REQUIRE(e.size() == 2);
    CHECK(e[0].cls == MismatchClass::zeroed);
    CHECK(e[1].cls == MismatchClass::stale);
    CHECK(m.distinct_units(4096) == 3);  // the stale unit is one of the three
}

TEST_CASE("a range larger than a unit counts all its units; offsets round out") {
    DamageMap m;
    m.add(10000, 1 << 20, MismatchClass::short_read, 4096);
    auto e = m.extents();
    REQUIRE(e.size() == 1);
    CHECK(e[0].offset == 8192);
    CHECK(e[0].length == (10000 + (1 << 20) + 4095) / 4096 * 4096 - 8192);
    CHECK(m.distinct_units(4096) == e[0].length / 4096);
}

TEST_CASE("beyond the extent cap, new ranges are counted, not kept") {
    DamageMap m;
    for (std::size_t i = 0; i < DamageMap::kMaxExtents + 10; ++i)
        m.add(i * 2 * 512, 512, MismatchClass::corrupt, 512);  // never adjacent
    CHECK(m.extents().size() == DamageMap::kMaxExtents);
    CHECK(m.overflow_observations() == 10);
    CHECK_FALSE(m.empty());
    // A range touching a kept extent still merges into it.
    m.add(512, 512, MismatchClass::corrupt, 512);
    CHECK(m.extents().size() == DamageMap::kMaxExtents - 1);
}
