// --verify-only's classifier: each class, with the bound, torn units and the
// generation cycle; and a whole verification of real files.
// suite threads: a whole verification runs verify-only's reader threads
#include "run/verify_only.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

using namespace ds;
using model::UnitClass;

namespace {

constexpr std::uint32_t kUnit = 4096;
const std::uint64_t kRunId = pattern::data_id_from_seed(99);

pattern::UnitIdentity unit(pattern::Generation g, std::uint64_t offset = 3 * kUnit,
                           std::uint32_t file = 1) {
    return {kRunId, file, offset, g, kUnit};
}

std::vector<std::byte> content(const pattern::UnitIdentity& id) {
    std::vector<std::byte> v(id.unit_bytes);
    pattern::fill_unit(v, id);
    return v;
}

// Sectors [from, to) of `dst` replaced by those of `src`.
void splice(std::vector<std::byte>& dst, const std::vector<std::byte>& src, std::size_t from,
            std::size_t to) {
    std::memcpy(dst.data() + from * 512, src.data() + from * 512, (to - from) * 512);
}

}  // namespace

TEST_CASE("within_bound: acked < g <= acked + bound, never an earlier generation") {
    CHECK(run::within_bound(5, 6, 1));
    CHECK_FALSE(run::within_bound(5, 5, 1));
    CHECK_FALSE(run::within_bound(5, 7, 1));
    CHECK(run::within_bound(5, 7, 2));
    CHECK_FALSE(run::within_bound(0, 1, 254));
    CHECK_FALSE(run::within_bound(5, 0, model::kAnyNewerBound));
    // An earlier generation, however far back, is never "newer": the
    // one-byte cycle made 4 (and 5 - 255 = 5, 5 - 256 = 4) look newer.
    CHECK_FALSE(run::within_bound(5, 4, 254));
    CHECK_FALSE(run::within_bound(5, 4, model::kAnyNewerBound));
    CHECK_FALSE(run::within_bound(300, 45, model::kAnyNewerBound));  // 255 back
    CHECK_FALSE(run::within_bound(300, 44, model::kAnyNewerBound));  // 256 back
    CHECK(run::within_bound(300, 301, model::kAnyNewerBound));
    CHECK(run::within_bound(300, 555, 255));
    CHECK(run::within_bound(300, 556, 256));
    CHECK_FALSE(run::within_bound(300, 557, 256));
    // Exact past one byte's range.
    CHECK(run::within_bound(1, 1001, 1000));
    CHECK_FALSE(run::within_bound(1, 1002, 1000));
    // At the top of the range: no overflow, and no wrap (a stated limit:
    // a unit written 2^32 - 1 times wraps to 1, which reads as older).
    const pattern::Generation top = pattern::kLastGeneration;
    CHECK(run::within_bound(top - 1, top, 1));
    CHECK(run::within_bound(top - 1, top, model::kAnyNewerBound));
    CHECK(run::within_bound(1, top, model::kAnyNewerBound));
    CHECK_FALSE(run::within_bound(top, pattern::next_generation(top), model::kAnyNewerBound));
    CHECK_FALSE(run::within_bound(top, 1, model::kAnyNewerBound));
}

TEST_CASE("next_generation counts up to 2^32 - 1 and skips 0 on the wrap") {
    CHECK(pattern::next_generation(pattern::kUnknownGeneration) == 1);
    CHECK(pattern::next_generation(255) == 256);
    CHECK(pattern::next_generation(256) == 257);
    CHECK(pattern::next_generation(0xFFFFFFFEU) == 0xFFFFFFFFU);
    CHECK(pattern::next_generation(pattern::kLastGeneration) == 1);
    CHECK(pattern::previous_generation(1) == pattern::kLastGeneration);
    CHECK(pattern::previous_generation(256) == 255);
}

TEST_CASE("classify: a rollback to any earlier generation is lost (stale)") {
    for (pattern::Generation back : {1U, 254U, 255U, 256U, 510U, 1000U}) {
        CAPTURE(back);
        for (std::uint32_t bound : {0U, 1U, 254U, 1000U, model::kAnyNewerBound}) {
            CAPTURE(bound);
            auto v = run::classify_unit(content(unit(2000 - back)), unit(2000), bound);
            CHECK(v.cls == UnitClass::lost);
            REQUIRE(v.diagnosis);
            CHECK(v.diagnosis->cls == pattern::MismatchClass::stale);
            CHECK(v.diagnosis->found->generation == 2000 - back);
        }
    }
}

TEST_CASE("classify: intact, newer within the bound, never acknowledged") {
    auto v = run::classify_unit(content(unit(7)), unit(7), 2);
    CHECK(v.cls == UnitClass::intact);
    v = run::classify_unit(content(unit(9)), unit(7), 2);
    CHECK(v.cls == UnitClass::newer);
    CHECK(v.found_generation == 9);
    v = run::classify_unit(content(unit(256)), unit(255), 1);
    CHECK(v.cls == UnitClass::newer);
    v = run::classify_unit(content(unit(5000)), unit(7), model::kAnyNewerBound);
    CHECK(v.cls == UnitClass::newer);
    CHECK(v.found_generation == 5000);
    v = run::classify_unit(content(unit(1)), unit(255), 1);  // no wrap: older
    CHECK(v.cls == UnitClass::lost);
    std::vector<std::byte> zeros(kUnit);
    v = run::classify_unit(zeros, unit(pattern::kUnknownGeneration), 1);
    CHECK(v.cls == UnitClass::never_acked);
}

TEST_CASE("classify: a torn unit of the acknowledged and an allowed newer generation") {
    auto torn = content(unit(7));
    splice(torn, content(unit(8)), 0, 3);  // header sector new, rest old
    auto v = run::classify_unit(torn, unit(7), 1);
    CHECK(v.cls == UnitClass::torn_newer);
    CHECK(v.found_generation == 8);
    // The header sector still old, the rest new.
    auto late = content(unit(8));
    splice(late, content(unit(7)), 0, 1);
    CHECK(run::classify_unit(late, unit(7), 1).cls == UnitClass::torn_newer);
    // Three generations in one unit, all within the bound.
    splice(torn, content(unit(9)), 5, 8);
    CHECK(run::classify_unit(torn, unit(7), 2).cls == UnitClass::torn_newer);
    // ... but not when 9 is beyond it.
    v = run::classify_unit(torn, unit(7), 1);
    CHECK(v.cls == UnitClass::lost);
    // Any newer: the header's generation and its neighbours are tried.
    auto far = content(unit(900));
    splice(far, content(unit(901)), 2, 5);
    splice(far, content(unit(899)), 6, 8);
    v = run::classify_unit(far, unit(7), model::kAnyNewerBound);
    CHECK(v.cls == UnitClass::torn_newer);
    CHECK(v.found_generation == 900);
    // ... never an earlier one than the acknowledged.
    splice(far, content(unit(6)), 7, 8);
    CHECK(run::classify_unit(far, unit(7), model::kAnyNewerBound).cls == UnitClass::lost);
}

TEST_CASE("classify: lost after acknowledgement, with the diagnosis") {
    SUBCASE("older generation (stale)") {
        auto v = run::classify_unit(content(unit(6)), unit(7), 3);
        CHECK(v.cls == UnitClass::lost);
        REQUIRE(v.diagnosis);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::stale);
    }
    SUBCASE("newer than the bound") {
        auto v = run::classify_unit(content(unit(11)), unit(7), 3);
        CHECK(v.cls == UnitClass::lost);
    }
    SUBCASE("zeroed") {
        std::vector<std::byte> zeros(kUnit);
        auto v = run::classify_unit(zeros, unit(7), 254);
        CHECK(v.cls == UnitClass::lost);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::zeroed);
    }
    SUBCASE("another run's data (foreign)") {
        pattern::UnitIdentity other = unit(7);
        other.run_id = pattern::data_id_from_seed(100);
        auto v = run::classify_unit(content(other), unit(7), 254);
        CHECK(v.cls == UnitClass::lost);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::foreign);
    }
    SUBCASE("another offset (misdirected)") {
        auto v = run::classify_unit(content(unit(8, 5 * kUnit)), unit(7), 254);
        CHECK(v.cls == UnitClass::lost);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::misdirected);
    }
    SUBCASE("flipped bytes in an acknowledged unit (corrupt), exact first byte") {
        auto c = content(unit(7));
        c[1000] ^= std::byte{0xff};
        auto v = run::classify_unit(c, unit(7), 254);
        CHECK(v.cls == UnitClass::lost);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::corrupt);
        CHECK(v.diagnosis->first_bad_byte == 1000);
    }
    SUBCASE("flipped bytes in a newer generation are not an allowed newer unit") {
        auto c = content(unit(8));
        c[2000] ^= std::byte{1};
        auto v = run::classify_unit(c, unit(7), 1);
        CHECK(v.cls == UnitClass::lost);
        // Explained against generation 8: the damage is where it is.
        CHECK(v.compared_generation == 8);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::corrupt);
        CHECK(v.diagnosis->first_bad_byte == 2000);
        CHECK(v.diagnosis->bad_bytes == 1);
    }
    SUBCASE("torn with an older generation") {
        auto torn = content(unit(7));
        splice(torn, content(unit(6)), 4, 8);
        auto v = run::classify_unit(torn, unit(7), 254 - 1);
        CHECK(v.cls == UnitClass::lost);
        CHECK(v.diagnosis->cls == pattern::MismatchClass::torn);
    }
}

TEST_CASE("verify_only over real files: counts per class and the lost unit's offset") {
    char name[] = "/tmp/drivestress-verify-test-XXXXXX";
    REQUIRE(::mkdtemp(name) != nullptr);
    const std::string dir = name;
    struct RemoveAtEnd {  // also when a REQUIRE fails
        std::string dir;
        ~RemoveAtEnd() { std::filesystem::remove_all(dir); }
    } remove_at_end{dir};
    constexpr std::uint64_t kUnits = 32;
    model::StateGeometry geo;
    geo.seed = 99;
    geo.run_id = kRunId;
    geo.file_bytes = kUnits * kUnit;
    geo.unit_bytes = kUnit;
    geo.bound = 1;
    geo.paths = {dir + "/drivestress-0.dat"};
    const std::string state_path = dir + "/drivestress.state";
    {
        targets::StateFile sf(state_path, geo);
        sf.set_bound(1, false);  // recorded mid-phase: one newer write allowed
        std::vector<pattern::Generation> acked(kUnits, 2);
        acked[30] = acked[31] = pattern::kUnknownGeneration;
        sf.acknowledged(0, acked);
    }
    // On disk: generation 2 everywhere, but unit 4 newer (3), unit 9 zeroed,
    // unit 12 stale (1), unit 30 never acknowledged (garbage).
    std::vector<std::byte> data(geo.file_bytes);
    for (std::uint64_t u = 0; u < kUnits; ++u) {
        pattern::Generation g = u == 4 ? 3 : u == 12 ? 1 : 2;
        pattern::fill_unit({data.data() + u * kUnit, kUnit}, {kRunId, 0, u * kUnit, g, kUnit});
    }
    std::memset(data.data() + 9 * kUnit, 0, kUnit);
    std::memset(data.data() + 30 * kUnit, 0x5a, kUnit);
    int fd = ::open(geo.paths[0].c_str(), O_WRONLY | O_CREAT, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::pwrite(fd, data.data(), data.size(), 0) == static_cast<ssize_t>(data.size()));
    ::close(fd);

    auto r = run::verify_only(state_path, /*cleanup=*/true);
    CHECK(r.intact == 27);
    CHECK(r.newer == 1);
    CHECK(r.never_acked == 2);
    CHECK(r.lost == 2);
    CHECK(r.lost_by_class[static_cast<std::size_t>(pattern::MismatchClass::zeroed)] == 1);
    CHECK(r.lost_by_class[static_cast<std::size_t>(pattern::MismatchClass::stale)] == 1);
    REQUIRE(r.lost_records.size() == 2);
    CHECK(r.lost_records[0].offset == 9 * kUnit);
    CHECK(r.lost_records[0].expected_generation == 2);
    CHECK(r.lost_records[1].unit_offset == 12 * kUnit);
    CHECK(model::exit_status(r) == model::ExitStatus::mismatch);
    CHECK_FALSE(r.cleaned_up);  // never after a loss
    CHECK(std::filesystem::exists(state_path));

    // A file shorter than the state says: the missing units are lost.
    REQUIRE(::truncate(geo.paths[0].c_str(), 20 * kUnit) == 0);
    r = run::verify_only(state_path);
    CHECK(r.lost_by_class[static_cast<std::size_t>(pattern::MismatchClass::short_read)] == 12);
}

TEST_CASE("a recorded trim: a hole or the previous content passes, nothing else does") {
    const pattern::Generation trimmed_after_7 = 7 | model::kTrimmedBit;
    const std::vector<std::byte> hole(kUnit);
    CHECK(run::classify_unit(hole, unit(trimmed_after_7), 1).cls == UnitClass::trimmed);
    CHECK(run::classify_unit(content(unit(7)), unit(trimmed_after_7), 1).cls == UnitClass::intact);
    // A write after the trim, within the bound.
    CHECK(run::classify_unit(content(unit(8)), unit(trimmed_after_7), 1).cls == UnitClass::newer);
    // Another unit's data, an older generation: lost, diagnosed against 7.
    const auto other = run::classify_unit(content(unit(7, 5 * kUnit)), unit(trimmed_after_7), 1);
    CHECK(other.cls == UnitClass::lost);
    CHECK(other.diagnosis->cls == pattern::MismatchClass::misdirected);
    CHECK(other.compared_generation == 7);
    CHECK(run::classify_unit(content(unit(6)), unit(trimmed_after_7), 1).cls == UnitClass::lost);
    // Without the record a hole is a zeroed unit, lost.
    const auto zeroed = run::classify_unit(hole, unit(7), 1);
    CHECK(zeroed.cls == UnitClass::lost);
    CHECK(zeroed.diagnosis->cls == pattern::MismatchClass::zeroed);
    // Trimmed with nothing known before it: a hole passes, data is unconstrained.
    CHECK(run::classify_unit(hole, unit(model::kTrimmedBit), 1).cls == UnitClass::trimmed);
    CHECK(run::classify_unit(content(unit(3)), unit(model::kTrimmedBit), 1).cls ==
          UnitClass::never_acked);
}
