// Tests of the compressibility estimate: random data does not compress, runs
// do, and units of every --compress ratio measure about that ratio.
#include "pattern/compressibility.h"

#include <doctest/doctest.h>

#include <vector>

#include "pattern/generator.h"

namespace {

using Bytes = std::vector<std::byte>;

}  // namespace

TEST_CASE("lz estimate: random bytes stay about their size, runs shrink to a few bytes") {
    Bytes random(64 * 1024);
    ds::pattern::generate(42, random);
    const double r = ds::pattern::lz_ratio(random);
    CHECK(r > 0.99);
    CHECK(r <= 1.0);
    // 4 KiB of one byte: a literal and one match per page (lz4: 1 + 1 + 2 +
    // 16 length bytes).
    const Bytes zeros(4096);
    CHECK(ds::pattern::lz_compressed_bytes(zeros) < 32);
    CHECK(ds::pattern::lz_ratio(Bytes(16384)) > 100);
    // A repeated 64-byte block compresses; the estimate is exact for a
    // hand-costed case: 64 literals (token, 1 length byte) and one match of
    // 4032 bytes (2-byte offset, 16 length bytes), then an empty literal run.
    Bytes repeated(4096);
    ds::pattern::generate(7, std::span(repeated).first(64));
    for (std::size_t i = 64; i < repeated.size(); ++i)
        repeated[i] = repeated[i - 64];
    CHECK(ds::pattern::lz_compressed_bytes(repeated) == 1 + 1 + 64 + 2 + 16 + 1);
}

TEST_CASE("lz estimate: units of each --compress ratio measure about it") {
    ds::pattern::UnitIdentity base{.run_id = 1, .unit_bytes = 4096, .data_id = 99};
    const auto one = ds::pattern::estimate_units(base, 1 << 20, 2, 64);
    CHECK(one.units == 64);
    CHECK(one.ratio == doctest::Approx(1.0).epsilon(0.01));
    for (const double ratio : {1.5, 2.0, 4.0, 8.0}) {
        CAPTURE(ratio);
        base.shape = ds::pattern::sector_random_bytes(ratio);
        const auto e = ds::pattern::estimate_units(base, 1 << 20, 2, 64);
        CHECK(e.ratio == doctest::Approx(ratio).epsilon(0.05));
    }
    // Fewer units than asked: every unit once.
    CHECK(ds::pattern::estimate_units(base, 16384, 1, 256).units == 4);
}
