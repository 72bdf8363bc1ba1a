// Tests of duplicate units (--dedupe): which units are duplicates, what they
// hold, how a damaged one is diagnosed, and the count the report quotes.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <vector>

#include "pattern/duplicates.h"
#include "pattern/generator.h"
#include "pattern/unit.h"

namespace {

using ds::pattern::MismatchClass;
using ds::pattern::UnitIdentity;
using Bytes = std::vector<std::byte>;

const std::uint64_t kData = ds::pattern::data_id_from_seed(4242);

UnitIdentity unit_at(std::uint32_t file, std::uint64_t index, std::uint32_t share,
                     std::uint32_t sector_random = ds::pattern::kSectorBytes) {
    return UnitIdentity{.run_id = 0x1234567890ULL,
                        .file_index = file,
                        .offset = index * 4096,
                        .generation = 3,
                        .unit_bytes = 4096,
                        .data_id = kData,
                        .shape = ds::pattern::make_shape(sector_random, share)};
}

Bytes content(const UnitIdentity& id) {
    Bytes out(id.unit_bytes);
    ds::pattern::fill_unit(out, id);
    return out;
}

// The first unit from `index` on in `file` that copies a source (or, with
// want_source false, that is a unit of its own).
UnitIdentity find_unit(std::uint32_t share, bool want_source, std::uint64_t index = 1,
                       std::uint32_t file = 0) {
    for (;; ++index) {
        const UnitIdentity id = unit_at(file, index, share);
        if (ds::pattern::dedupe_source(id).has_value() == want_source) return id;
    }
}

// Diagnosis plus the first-bad-byte agreement with first_mismatch.
ds::pattern::Diagnosis diagnosed(const Bytes& actual, const UnitIdentity& id) {
    const ds::pattern::Diagnosis d = ds::pattern::diagnose(actual, id);
    CHECK(ds::pattern::first_mismatch(actual, id) == d.first_bad_byte);
    CHECK(d.first_bad_byte < actual.size());
    return d;
}

}  // namespace

TEST_CASE("dedupe: the shape word is sector_random itself without duplicates") {
    CHECK(ds::pattern::make_shape(248, 0) == 248);
    CHECK(ds::pattern::sector_random_of(ds::pattern::make_shape(248, 1000)) == 248);
    CHECK(ds::pattern::dedupe_share_of(ds::pattern::make_shape(248, 1000)) == 1000);
    CHECK_FALSE(ds::pattern::dedupe_source(unit_at(0, 5, 0)).has_value());
}

TEST_CASE("dedupe: units of their own are byte for byte those of a run without --dedupe") {
    unsigned own = 0;
    for (std::uint64_t index = 0; index < 200; ++index) {
        const UnitIdentity id = unit_at(1, index, 300);
        if (ds::pattern::dedupe_source(id)) continue;
        ++own;
        CHECK(content(id) == content(unit_at(1, index, 0)));
    }
    CHECK(own > 100);
    // Unit 0 is a file's mark: never a duplicate, even at 100 %.
    CHECK_FALSE(ds::pattern::dedupe_source(unit_at(2, 0, 1000)).has_value());
    CHECK(ds::pattern::dedupe_source(unit_at(2, 1, 1000)).has_value());
}

TEST_CASE("dedupe: copies of one source are identical across offsets, files, generations, runs") {
    for (const std::uint32_t kept : {512U, 248U}) {
        CAPTURE(kept);
        std::map<unsigned, Bytes> first;
        unsigned copies = 0;
        for (std::uint32_t file = 0; file < 3; ++file) {
            for (std::uint64_t index = 1; index < 300; ++index) {
                UnitIdentity id = unit_at(file, index, 500, kept);
                const auto source = ds::pattern::dedupe_source(id);
                if (!source) continue;
                id.generation = static_cast<std::uint32_t>(index % 7 + 1);
                id.run_id ^= index;  // the run is not in a duplicate's bytes
                const Bytes unit = content(id);
                const auto [at, fresh] = first.emplace(*source, unit);
                if (!fresh && at->second != unit) FAIL("file " << file << " unit " << index);
                copies += fresh ? 0 : 1;
                CHECK(ds::pattern::first_mismatch(unit, id) == unit.size());
                Bytes streamed(unit.size());
                ds::pattern::fill_unit_streaming(streamed, id);
                ds::pattern::stream_fence();
                CHECK(streamed == unit);
                const auto h = ds::pattern::parse_dupe_header(unit);
                REQUIRE(h.has_value());
                CHECK(h->source == *source);
                CHECK(h->data_id == kData);
                CHECK_FALSE(ds::pattern::parse_header(unit).has_value());
                if (kept < 512) CHECK(unit[kept] == std::byte{0});
            }
        }
        CHECK(first.size() == ds::pattern::kDedupeSources);
        CHECK(copies > 300);
        CHECK(first.at(0) != first.at(1));
    }
}

TEST_CASE("dedupe: the share of duplicates over 10^5 units is within a point of PCT") {
    for (const std::uint32_t share : {1U, 125U, 300U, 500U, 999U}) {
        CAPTURE(share);
        std::uint64_t dupes = 0;
        for (std::uint64_t k = 0; k < 100000; ++k)
            dupes += ds::pattern::dedupe_source(
                         unit_at(static_cast<std::uint32_t>(k % 4), k / 4 + 1, share))
                         ? 1
                         : 0;
        CHECK(std::abs(static_cast<double>(dupes) / 1000 - share / 10.0) < 1);
    }
}

TEST_CASE("dedupe: a damaged duplicate is diagnosed") {
    const UnitIdentity dup = find_unit(300, true);
    const Bytes good = content(dup);

    Bytes flipped = good;
    flipped[2000] ^= std::byte{0x04};
    const auto flip = diagnosed(flipped, dup);
    CHECK(flip.cls == MismatchClass::corrupt);
    CHECK(flip.first_bad_byte == 2000);
    CHECK(flip.bad_bytes == 1);
    Bytes header_hit = good;
    header_hit[9] ^= std::byte{0x01};  // the data id: the header check fails
    CHECK(diagnosed(header_hit, dup).cls == MismatchClass::corrupt);

    CHECK(diagnosed(Bytes(4096), dup).cls == MismatchClass::zeroed);
    CHECK(diagnosed(Bytes(4096, std::byte{0xFF}), dup).cls == MismatchClass::uniform_fill);

    // Another source where this one belongs: a write meant for another unit.
    UnitIdentity other = dup;
    for (other.offset += 4096;; other.offset += 4096) {
        const auto s = ds::pattern::dedupe_source(other);
        if (s && s != ds::pattern::dedupe_source(dup)) break;
    }
    CHECK(diagnosed(content(other), dup).cls == MismatchClass::misdirected);

    // A unit of its own (this run's) written onto a duplicate: misdirected,
    // and its header says where it belonged.
    const UnitIdentity own = find_unit(300, false);
    const auto mis = diagnosed(content(own), dup);
    CHECK(mis.cls == MismatchClass::misdirected);
    REQUIRE(mis.found.has_value());
    CHECK(mis.found->offset == own.offset);

    // Another seed's source: foreign.  This unit as a run without --dedupe
    // writes it: corrupt (the shape disagrees, nothing was misplaced).
    UnitIdentity other_seed = dup;
    other_seed.data_id ^= 1;
    while (!ds::pattern::dedupe_source(other_seed))
        other_seed.offset += 4096;  // a copy under the other seed's pick
    CHECK(diagnosed(content(other_seed), dup).cls == MismatchClass::foreign);
    UnitIdentity undeduped = dup;
    undeduped.shape = ds::pattern::kSectorBytes;
    CHECK(diagnosed(content(undeduped), dup).cls == MismatchClass::corrupt);
}

TEST_CASE("dedupe: a duplicate where a unit of its own belongs is misdirected") {
    const UnitIdentity own = find_unit(300, false);
    const UnitIdentity dup = find_unit(300, true);
    const auto d = diagnosed(content(dup), own);
    CHECK(d.cls == MismatchClass::misdirected);
    CHECK(d.first_bad_byte == 4);  // "DSTRUNIT" and "DSTRDUPE" part after "DSTR"
    // A lost write to a unit of its own is still stale.
    UnitIdentity older = own;
    older.generation = 1;
    CHECK(diagnosed(content(older), own).cls == MismatchClass::stale);
}

TEST_CASE("dedupe: between two units of one source nothing can be told (the stated blind spot)") {
    const UnitIdentity a = find_unit(300, true);
    UnitIdentity b = a;
    for (b.offset += 4096; ds::pattern::dedupe_source(b) != ds::pattern::dedupe_source(a);)
        b.offset += 4096;
    CHECK(ds::pattern::first_mismatch(content(a), b) == 4096);  // a misdirected write: passes
    UnitIdentity older = a;
    older.generation = 1;
    CHECK(ds::pattern::first_mismatch(content(older), a) == 4096);  // a lost write: passes
}

TEST_CASE("dedupe: the count the report quotes") {
    const UnitIdentity base = unit_at(0, 0, 250);
    const std::uint64_t file_bytes = 4096ULL * 10000;
    const ds::pattern::DuplicateCount all =
        ds::pattern::count_duplicates(base, file_bytes, 4, 1 << 22);
    CHECK(all.units == 40000);
    std::uint64_t direct = 0;
    for (std::uint32_t f = 0; f < 4; ++f)
        for (std::uint64_t i = 0; i < 10000; ++i)
            direct += ds::pattern::dedupe_source(unit_at(f, i, 250)) ? 1 : 0;
    CHECK(all.duplicates == direct);
    CHECK(all.sources == ds::pattern::kDedupeSources);
    CHECK(all.ratio() == doctest::Approx(40000.0 / static_cast<double>(40000 - direct + 16)));
    // Spread evenly when there are more units than the limit.
    const auto some = ds::pattern::count_duplicates(base, file_bytes, 4, 4000);
    CHECK(some.units == 4000);
    CHECK(static_cast<double>(some.duplicates) / 4000 == doctest::Approx(0.25).epsilon(0.1));
    CHECK(ds::pattern::count_duplicates(unit_at(0, 0, 0), file_bytes, 4, 1 << 22).duplicates == 0);
}
