// Tests of the trimmed-unit check: what each promise accepts sector by
// sector, and what is never accepted (another unit's data, an older
// generation, a foreign byte).
#include "pattern/trim.h"

#include <doctest/doctest.h>

#include <vector>

namespace {

using ds::pattern::TrimPromise;
using ds::pattern::TrimRead;
using Bytes = std::vector<std::byte>;

ds::pattern::UnitIdentity unit_at(std::uint64_t offset, ds::pattern::Generation g) {
    ds::pattern::UnitIdentity id;
    id.run_id = 7;
    id.offset = offset;
    id.generation = g;
    id.unit_bytes = 4096;
    id.data_id = 11;
    return id;
}

Bytes content(const ds::pattern::UnitIdentity& id) {
    Bytes b(id.unit_bytes);
    ds::pattern::fill_unit(b, id);
    return b;
}

TrimRead check(const Bytes& actual, const ds::pattern::UnitIdentity& last, TrimPromise p) {
    Bytes scratch(last.unit_bytes);
    return ds::pattern::check_trimmed(actual, last, p, scratch);
}

}  // namespace

TEST_CASE("trim: the promised content passes, another promise's does not") {
    const auto last = unit_at(8192, 3);
    const Bytes zeros(4096), ones(4096, std::byte{0xFF});
    CHECK(check(zeros, last, TrimPromise::zeros) == TrimRead::trimmed);
    CHECK(check(ones, last, TrimPromise::ones) == TrimRead::trimmed);
    CHECK(check(zeros, last, TrimPromise::unspecified) == TrimRead::trimmed);
    CHECK(check(ones, last, TrimPromise::unspecified) == TrimRead::trimmed);
    CHECK(check(ones, last, TrimPromise::zeros) == TrimRead::wrong);
    CHECK(check(zeros, last, TrimPromise::ones) == TrimRead::wrong);
}

TEST_CASE("trim: the old content is kept (unspecified) or not honoured (zeros, 0xFF)") {
    const auto last = unit_at(8192, 3);
    const Bytes old = content(last);
    CHECK(check(old, last, TrimPromise::unspecified) == TrimRead::kept);
    CHECK(check(old, last, TrimPromise::zeros) == TrimRead::not_honoured);
    CHECK(check(old, last, TrimPromise::ones) == TrimRead::not_honoured);
    // Part of the unit dropped (a device's own granularity): still judged
    // sector by sector.
    Bytes half = old;
    std::fill(half.begin(), half.begin() + 2048, std::byte{0});
    CHECK(check(half, last, TrimPromise::unspecified) == TrimRead::kept);
    CHECK(check(half, last, TrimPromise::zeros) == TrimRead::not_honoured);
    // A sector's zeros that do not start at a sector boundary are damage.
    Bytes skewed = old;
    std::fill(skewed.begin() + 100, skewed.begin() + 612, std::byte{0});
    CHECK(check(skewed, last, TrimPromise::unspecified) == TrimRead::wrong);
}

TEST_CASE("trim: another unit, an older generation or a flipped bit is wrong") {
    const auto last = unit_at(8192, 3);
    CHECK(check(content(unit_at(4096, 3)), last, TrimPromise::unspecified) == TrimRead::wrong);
    CHECK(check(content(unit_at(8192, 2)), last, TrimPromise::unspecified) == TrimRead::wrong);
    CHECK(check(content(unit_at(4096, 3)), last, TrimPromise::zeros) == TrimRead::wrong);
    Bytes flipped = content(last);
    flipped[3000] ^= std::byte{1};
    CHECK(check(flipped, last, TrimPromise::unspecified) == TrimRead::wrong);
    Bytes zeros(4096);
    zeros[4095] = std::byte{1};
    CHECK(check(zeros, last, TrimPromise::zeros) == TrimRead::wrong);
}

TEST_CASE("trim: with no last content known only a trimmed unit passes") {
    auto unknown = unit_at(8192, ds::pattern::kUnknownGeneration);
    CHECK(check(Bytes(4096), unknown, TrimPromise::zeros) == TrimRead::trimmed);
    CHECK(check(content(unit_at(8192, 1)), unknown, TrimPromise::unspecified) == TrimRead::wrong);
}

TEST_CASE("trim: compressible units are checked the same way") {
    auto last = unit_at(0, 5);
    last.shape = ds::pattern::sector_random_bytes(4);
    CHECK(check(content(last), last, TrimPromise::unspecified) == TrimRead::kept);
    CHECK(check(content(last), last, TrimPromise::zeros) == TrimRead::not_honoured);
    CHECK(check(Bytes(4096), last, TrimPromise::zeros) == TrimRead::trimmed);
}

TEST_CASE("trim: promise names") {
    CHECK(ds::pattern::to_string(TrimPromise::zeros) == "zeros");
    CHECK(ds::pattern::to_string(TrimPromise::ones) == "0xff");
    CHECK(ds::pattern::to_string(TrimPromise::unspecified) == "unspecified");
}
