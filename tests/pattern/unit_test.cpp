// Tests of the verification unit: layout, fast check and diagnosis.
#include "pattern/unit.h"

#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "pattern/generator.h"

namespace {

using ds::pattern::Diagnosis;
using ds::pattern::MismatchClass;
using ds::pattern::UnitIdentity;
using Bytes = std::vector<std::byte>;

const std::uint64_t kRun = ds::pattern::data_id_from_seed(12345);

UnitIdentity identity(std::uint32_t unit_bytes = 4096) {
    return UnitIdentity{.run_id = kRun,
                        .file_index = 3,
                        .offset = 7ULL * unit_bytes,
                        .generation = 5,
                        .unit_bytes = unit_bytes};
}

Bytes content(const UnitIdentity& id) {
    Bytes out(id.unit_bytes);
    ds::pattern::fill_unit(out, id);
    return out;
}

// Plain reference for first_bad_byte and bad_bytes.
struct Difference {
    std::size_t first;
    std::size_t count;
};
Difference difference(const Bytes& actual, const Bytes& expected) {
    Difference d{actual.size(), 0};
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (actual[i] != expected[i]) {
            if (d.count == 0) d.first = i;
            ++d.count;
        }
    }
    return d;
}

template <typename T>
T field(const Bytes& unit, std::size_t at) {
    T v;
    std::memcpy(&v, unit.data() + at, sizeof v);
    return v;
}

// diagnose() plus the checks every diagnosis must pass: the exact first bad
// byte and count against the expected content, and `found` as parsed.
Diagnosis diagnosed(const Bytes& actual, const UnitIdentity& id) {
    const Diagnosis d = ds::pattern::diagnose(actual, id);
    const Difference want = difference(actual, content(id));
    CHECK(d.first_bad_byte == want.first);
    CHECK(d.bad_bytes == want.count);
    CHECK(d.found.has_value() == ds::pattern::parse_header(actual).has_value());
    CHECK(ds::pattern::first_mismatch(actual, id) == want.first);
    return d;
}

}  // namespace

TEST_CASE("run id: deterministic, never 0, different per seed") {
    CHECK(ds::pattern::data_id_from_seed(1) == ds::pattern::data_id_from_seed(1));
    CHECK(ds::pattern::data_id_from_seed(1) != ds::pattern::data_id_from_seed(2));
    for (std::uint64_t seed = 0; seed < 1000; ++seed)
        CHECK(ds::pattern::data_id_from_seed(seed) != 0);
}

TEST_CASE("layout: header fields at their offsets, then the stream of the unit key") {
    const UnitIdentity id = identity();
    const Bytes unit = content(id);
    CHECK(std::string(reinterpret_cast<const char*>(unit.data()), 8) == "DSTRUNIT");
    CHECK(field<std::uint64_t>(unit, 0) == ds::pattern::kUnitMagic);
    CHECK(field<std::uint64_t>(unit, 8) == id.run_id);
    CHECK(field<std::uint64_t>(unit, 16) == id.offset);
    CHECK(field<std::uint32_t>(unit, 24) == id.file_index);
    CHECK(field<std::uint32_t>(unit, 28) == id.generation);
    CHECK(field<std::uint32_t>(unit, 32) == id.unit_bytes);
    CHECK(field<std::uint32_t>(unit, 36) == ds::pattern::kFormatVersion);

    Bytes stream(id.unit_bytes);
    ds::pattern::generate(ds::pattern::unit_key(id), stream);
    CHECK(std::memcmp(unit.data() + 48, stream.data() + 48, id.unit_bytes - 48) == 0);
    CHECK(std::memcmp(unit.data(), stream.data(), 48) != 0);
}

TEST_CASE("layout: golden values (a change here changes the on-disk format)") {
    const UnitIdentity id{.run_id = ds::pattern::data_id_from_seed(1),
                          .file_index = 2,
                          .offset = 3 * 4096,
                          .generation = 4,
                          .unit_bytes = 4096};
    CHECK(id.run_id == 0xF39375D08F8E23D3ULL);
    CHECK(ds::pattern::unit_key(id) == 0xF54DB28B08D58070ULL);
    const Bytes unit = content(id);
    CHECK(field<std::uint64_t>(unit, 40) == 0xCE68B727856B28A7ULL);    // header check
    CHECK(field<std::uint64_t>(unit, 64) == 0x56BB92019A192002ULL);    // first payload word
    CHECK(field<std::uint64_t>(unit, 4088) == 0x944A3442A9BCF91DULL);  // last word
}

TEST_CASE("header: fill_unit then parse_header gives the identity back") {
    const std::array<UnitIdentity, 4> ids = {{
        identity(),
        {.run_id = 1, .file_index = 0, .offset = 0, .generation = 1, .unit_bytes = 512},
        {.run_id = ~0ULL,
         .file_index = 0xFFFFFFFF,
         .offset = 0xFFFFFFFFFFFF0000ULL,
         .generation = 255,
         .unit_bytes = 65536},
        {.run_id = kRun,
         .file_index = 9,
         .offset = 1ULL << 40,
         .generation = 128,
         .unit_bytes = 1 << 20},
    }};
    for (const UnitIdentity& id : ids) {
        const auto h = ds::pattern::parse_header(content(id));
        REQUIRE(h.has_value());
        CHECK(h->run_id == id.run_id);
        CHECK(h->offset == id.offset);
        CHECK(h->file_index == id.file_index);
        CHECK(h->generation == id.generation);
        CHECK(h->unit_bytes == id.unit_bytes);
    }
}

TEST_CASE("fill_unit_streaming: the bytes of fill_unit, aligned or not, every unit size") {
    for (const std::uint32_t u : {512u, 4096u, 65536u, 1u << 20}) {
        const UnitIdentity id = identity(u);
        CAPTURE(u);
        const Bytes want = content(id);
        for (const std::size_t misalign : {0, 16, 48}) {
            CAPTURE(misalign);
            Bytes storage(u + 128, std::byte{0x5A});
            const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
            const std::size_t skip = (64 - base % 64) % 64 + misalign;
            const std::span<std::byte> dst(storage.data() + skip, u);
            ds::pattern::fill_unit_streaming(dst, id);
            ds::pattern::stream_fence();
            CHECK(std::equal(want.begin(), want.end(), dst.begin()));
            CHECK(ds::pattern::first_mismatch(dst, id) == u);
            CHECK(storage[skip + u] == std::byte{0x5A});
        }
    }
}

TEST_CASE("header: any flipped bit in bytes 0..47 makes it unparsable") {
    Bytes unit = content(identity(512));
    std::size_t parsed = 0;
    for (std::size_t bit = 0; bit < 48 * 8; ++bit) {
        unit[bit / 8] ^= std::byte{static_cast<unsigned char>(1u << (bit % 8))};
        parsed += ds::pattern::parse_header(unit).has_value() ? 1 : 0;
        unit[bit / 8] ^= std::byte{static_cast<unsigned char>(1u << (bit % 8))};
    }
    CHECK(parsed == 0);
    CHECK(ds::pattern::parse_header(unit).has_value());
    CHECK_FALSE(ds::pattern::parse_header(std::span(unit).first(47)).has_value());
    CHECK_FALSE(ds::pattern::parse_header(Bytes(512)).has_value());
}

TEST_CASE("first_mismatch: size for an intact unit, the exact index of any damage") {
    for (const std::uint32_t size : {512u, 4096u, 65536u, 1u << 20}) {
        CAPTURE(size);
        const UnitIdentity id = identity(size);
        Bytes unit = content(id);
        CHECK(ds::pattern::first_mismatch(unit, id) == size);
        for (const std::size_t pos :
             {std::size_t{0}, std::size_t{8}, std::size_t{28}, std::size_t{47}, std::size_t{48},
              std::size_t{63}, std::size_t{64}, std::size_t{65}, std::size_t{511},
              std::size_t{size / 2 + 13}, std::size_t{size - 1}}) {
            CAPTURE(pos);
            unit[pos] ^= std::byte{0x08};
            CHECK(ds::pattern::first_mismatch(unit, id) == pos);
            unit[pos] ^= std::byte{0x08};
        }
        // The unit of a neighbouring identity is wrong from the header on.
        UnitIdentity next = id;
        next.generation = ds::pattern::next_generation(id.generation);
        CHECK(ds::pattern::first_mismatch(content(next), id) == 28);
    }
}

TEST_CASE("first_mismatch: every byte of a 512-byte unit is checked") {
    const UnitIdentity id = identity(512);
    Bytes unit = content(id);
    std::size_t wrong = 0;
    for (std::size_t pos = 0; pos < unit.size(); ++pos) {
        unit[pos] ^= std::byte{0x80};
        wrong += ds::pattern::first_mismatch(unit, id) != pos ? 1 : 0;
        unit[pos] ^= std::byte{0x80};
    }
    CHECK(wrong == 0);
}

TEST_CASE("content: generations, offsets, files, runs and sizes all give different payloads") {
    const UnitIdentity base = identity();
    const Bytes ref = content(base);
    std::vector<UnitIdentity> others(5, base);
    others[0].generation = 6;
    others[1].offset += base.unit_bytes;
    others[2].file_index = 4;
    others[3].run_id = ds::pattern::data_id_from_seed(12346);
    others[4].unit_bytes = 8192;
    for (const UnitIdentity& other : others) {
        Bytes b = content(other);
        b.resize(ref.size());
        // Random payloads agree on ~1/256 of their bytes; allow 1/64.
        std::size_t same = 0;
        for (std::size_t i = 48; i < ref.size(); ++i)
            same += ref[i] == b[i] ? 1 : 0;
        CHECK(same < (ref.size() - 48) / 64);
        CHECK(ds::pattern::unit_key(other) != ds::pattern::unit_key(base));
    }
}

TEST_CASE("names of the mismatch classes") {
    CHECK(ds::pattern::to_string(MismatchClass::stale) == "stale");
    CHECK(ds::pattern::to_string(MismatchClass::misdirected) == "misdirected");
    CHECK(ds::pattern::to_string(MismatchClass::foreign) == "foreign");
    CHECK(ds::pattern::to_string(MismatchClass::zeroed) == "zeroed");
    CHECK(ds::pattern::to_string(MismatchClass::uniform_fill) == "uniform-fill");
    CHECK(ds::pattern::to_string(MismatchClass::torn) == "torn");
    CHECK(ds::pattern::to_string(MismatchClass::corrupt) == "corrupt");
    CHECK(ds::pattern::to_string(MismatchClass::io_error) == "io-error");
    CHECK(ds::pattern::to_string(MismatchClass::short_read) == "short-read");
}

TEST_CASE("diagnose: one flipped payload bit is corrupt, one bad byte at its index") {
    for (const std::uint32_t size : {512u, 4096u}) {
        const UnitIdentity id = identity(size);
        for (const std::size_t pos : {std::size_t{48}, std::size_t{100}, std::size_t{size - 1}}) {
            Bytes unit = content(id);
            unit[pos] ^= std::byte{0x04};
            const Diagnosis d = diagnosed(unit, id);
            CHECK(d.cls == MismatchClass::corrupt);
            CHECK(d.first_bad_byte == pos);
            CHECK(d.bad_bytes == 1);
            REQUIRE(d.found.has_value());
            CHECK(d.found->generation == id.generation);
        }
    }
}

TEST_CASE("diagnose: one flipped header bit is corrupt and the header does not parse") {
    const UnitIdentity id = identity();
    Bytes unit = content(id);
    unit[20] ^= std::byte{0x01};  // inside the offset field
    const Diagnosis d = diagnosed(unit, id);
    CHECK(d.cls == MismatchClass::corrupt);
    CHECK(d.first_bad_byte == 20);
    CHECK(d.bad_bytes == 1);
    CHECK_FALSE(d.found.has_value());
}

TEST_CASE("diagnose: an intact unit has no bad byte") {
    const UnitIdentity id = identity();
    const Diagnosis d = ds::pattern::diagnose(content(id), id);
    CHECK(d.bad_bytes == 0);
    CHECK(d.first_bad_byte == id.unit_bytes);
    REQUIRE(d.found.has_value());
    CHECK(d.found->offset == id.offset);
}

TEST_CASE("diagnose: random garbage is corrupt") {
    const UnitIdentity id = identity();
    Bytes unit(id.unit_bytes);
    ds::pattern::generate(0xBADBADBAD, unit);
    const Diagnosis d = diagnosed(unit, id);
    CHECK(d.cls == MismatchClass::corrupt);
    CHECK_FALSE(d.found.has_value());
    CHECK(d.bad_bytes > id.unit_bytes * 9 / 10);
}

TEST_CASE("diagnose: zeroed and uniform fill") {
    const UnitIdentity id = identity();
    const Bytes expected = content(id);

    const Diagnosis z = diagnosed(Bytes(id.unit_bytes), id);
    CHECK(z.cls == MismatchClass::zeroed);
    CHECK(z.first_bad_byte == 0);  // the magic's 'D'
    std::size_t nonzero = 0;
    for (const std::byte b : expected)
        nonzero += b != std::byte{0} ? 1 : 0;
    CHECK(z.bad_bytes == nonzero);
    CHECK_FALSE(z.found.has_value());

    const Diagnosis u = diagnosed(Bytes(id.unit_bytes, std::byte{0xAB}), id);
    CHECK(u.cls == MismatchClass::uniform_fill);
    CHECK(u.first_bad_byte == 0);
    std::size_t not_ab = 0;
    for (const std::byte b : expected)
        not_ab += b != std::byte{0xAB} ? 1 : 0;
    CHECK(u.bad_bytes == not_ab);
}

TEST_CASE("diagnose: an older generation of the unit is stale") {
    const UnitIdentity id = identity();
    for (const ds::pattern::Generation old :
         {ds::pattern::Generation{4}, ds::pattern::Generation{1}, ds::pattern::Generation{200}}) {
        UnitIdentity old_id = id;
        old_id.generation = old;
        const Diagnosis d = diagnosed(content(old_id), id);
        CHECK(d.cls == MismatchClass::stale);
        CHECK(d.first_bad_byte == 28);  // the generation field
        REQUIRE(d.found.has_value());
        CHECK(d.found->generation == old);
        CHECK(d.bad_bytes > id.unit_bytes * 9 / 10);
    }
    // Wrap-around: expected 1, found 255.
    UnitIdentity one = id;
    one.generation = 1;
    UnitIdentity last = id;
    last.generation = 255;
    CHECK(diagnosed(content(last), one).cls == MismatchClass::stale);
    // A stale unit with a damaged payload is not just stale.
    Bytes damaged = content(last);
    damaged[1000] ^= std::byte{1};
    CHECK(diagnosed(damaged, one).cls == MismatchClass::corrupt);
}

TEST_CASE("diagnose: a unit of another offset or file of this run is misdirected") {
    const UnitIdentity id = identity();
    UnitIdentity other_offset = id;
    other_offset.offset += id.unit_bytes;
    const Diagnosis a = diagnosed(content(other_offset), id);
    CHECK(a.cls == MismatchClass::misdirected);
    CHECK(a.first_bad_byte == 17);  // the offset field: 0x7000 vs 0x8000 differ in byte 17
    REQUIRE(a.found.has_value());
    CHECK(a.found->offset == other_offset.offset);

    UnitIdentity other_file = id;
    other_file.file_index = 0;
    const Diagnosis b = diagnosed(content(other_file), id);
    CHECK(b.cls == MismatchClass::misdirected);
    CHECK(b.first_bad_byte == 24);  // the file index field
    REQUIRE(b.found.has_value());
    CHECK(b.found->file_index == 0);

    // Another file, another generation: still misdirected.
    other_file.generation = 2;
    CHECK(diagnosed(content(other_file), id).cls == MismatchClass::misdirected);
}

TEST_CASE("diagnose: a unit of another run is foreign") {
    const UnitIdentity id = identity();
    UnitIdentity other_run = id;
    other_run.run_id = ds::pattern::data_id_from_seed(999);
    const Diagnosis d = diagnosed(content(other_run), id);
    CHECK(d.cls == MismatchClass::foreign);
    CHECK(d.first_bad_byte == 8);  // the run id field
    REQUIRE(d.found.has_value());
    CHECK(d.found->run_id == other_run.run_id);
}

TEST_CASE("diagnose: sectors of two generations are torn") {
    const UnitIdentity id = identity(4096);
    UnitIdentity old_id = id;
    old_id.generation = ds::pattern::previous_generation(id.generation);
    const Bytes fresh = content(id);
    const Bytes old = content(old_id);
    const std::size_t sector = ds::pattern::kSectorBytes;

    SUBCASE("first sector new, the rest old") {
        Bytes unit = old;
        std::copy(fresh.begin(), fresh.begin() + sector, unit.begin());
        const Diagnosis d = diagnosed(unit, id);
        CHECK(d.cls == MismatchClass::torn);
        CHECK(d.first_bad_byte == sector);  // the old payload differs right away
        CHECK(d.bad_bytes > (id.unit_bytes - sector) * 9 / 10);
        REQUIRE(d.found.has_value());
        CHECK(d.found->generation == id.generation);
    }
    SUBCASE("first sector old, the rest new") {
        Bytes unit = fresh;
        std::copy(old.begin(), old.begin() + sector, unit.begin());
        const Diagnosis d = diagnosed(unit, id);
        CHECK(d.cls == MismatchClass::torn);
        CHECK(d.first_bad_byte == 28);
        CHECK(d.bad_bytes < sector);
        REQUIRE(d.found.has_value());
        CHECK(d.found->generation == old_id.generation);
    }
    SUBCASE("alternating sectors, header old from a much older generation") {
        UnitIdentity older = id;
        older.generation = 1;
        const Bytes ancient = content(older);
        Bytes unit = fresh;
        for (std::size_t at = 0; at < unit.size(); at += 2 * sector) {
            std::copy(ancient.begin() + static_cast<std::ptrdiff_t>(at),
                      ancient.begin() + static_cast<std::ptrdiff_t>(at + sector),
                      unit.begin() + static_cast<std::ptrdiff_t>(at));
        }
        CHECK(diagnosed(unit, id).cls == MismatchClass::torn);
    }
    SUBCASE("a torn unit with a flipped bit is corrupt") {
        Bytes unit = old;
        std::copy(fresh.begin(), fresh.begin() + sector, unit.begin());
        unit[3000] ^= std::byte{0x10};
        CHECK(diagnosed(unit, id).cls == MismatchClass::corrupt);
    }
    SUBCASE("new header over a two-generations-old body is not torn") {
        UnitIdentity older = id;
        older.generation = static_cast<ds::pattern::Generation>(id.generation - 2);
        Bytes unit = content(older);
        std::copy(fresh.begin(), fresh.begin() + sector, unit.begin());
        CHECK(diagnosed(unit, id).cls == MismatchClass::corrupt);
    }
    SUBCASE("a single-sector unit can be stale but never torn") {
        const UnitIdentity small = identity(512);
        UnitIdentity small_old = small;
        small_old.generation = ds::pattern::previous_generation(small.generation);
        CHECK(diagnosed(content(small_old), small).cls == MismatchClass::stale);
    }
}

TEST_CASE("two runs with one seed: the same data, told apart by the run id (issue 37)") {
    const std::uint64_t data = ds::pattern::data_id_from_seed(43);
    UnitIdentity first{.run_id = 0x1111,
                       .file_index = 0,
                       .offset = 8192,
                       .generation = 2048,
                       .unit_bytes = 4096,
                       .data_id = data};
    UnitIdentity second = first;
    second.run_id = 0x2222;
    Bytes a(4096), b(4096);
    ds::pattern::fill_unit(a, first);
    ds::pattern::fill_unit(b, second);
    // The payload follows the seed alone: byte for byte the same past the header.
    CHECK(std::memcmp(a.data() + 64, b.data() + 64, 4096 - 64) == 0);
    CHECK(std::memcmp(a.data(), b.data(), ds::pattern::kHeaderBytes) != 0);
    // The other run's unit, at the same generation or a newer one, is foreign.
    CHECK(ds::pattern::first_mismatch(a, second) < ds::pattern::kHeaderBytes);
    CHECK(ds::pattern::diagnose(a, second).cls == MismatchClass::foreign);
    UnitIdentity older = second;
    older.generation = 7;
    CHECK(ds::pattern::diagnose(a, older).cls == MismatchClass::foreign);
    // Its own run's older generation is still stale.
    Bytes c(4096);
    UnitIdentity own_older = first;
    own_older.generation = 2047;
    ds::pattern::fill_unit(c, own_older);
    CHECK(ds::pattern::diagnose(c, first).cls == MismatchClass::stale);
}

// --compress: every sector keeps sector_random stream bytes, the rest zero.
namespace {

UnitIdentity compressible(double ratio, std::uint32_t unit_bytes = 4096) {
    UnitIdentity id = identity(unit_bytes);
    id.shape = ds::pattern::sector_random_bytes(ratio);
    return id;
}

}  // namespace

TEST_CASE("compress: bytes kept per sector, 512 exactly at ratio 1") {
    CHECK(ds::pattern::sector_random_bytes(1) == 512);
    CHECK(ds::pattern::sector_random_bytes(1.5) == 336);
    CHECK(ds::pattern::sector_random_bytes(2) == 248);
    CHECK(ds::pattern::sector_random_bytes(4) == 120);
    CHECK(ds::pattern::sector_random_bytes(8) == 56);
    CHECK(ds::pattern::sector_random_bytes(100) == 56);  // never under the header
}

TEST_CASE("compress: the incompressible unit with every sector's tail zeroed") {
    for (const double ratio : {1.5, 2.0, 4.0, 8.0}) {
        CAPTURE(ratio);
        const UnitIdentity id = compressible(ratio, 8192);
        const Bytes full = content(identity(8192));
        const Bytes unit = content(id);
        for (std::size_t i = 0; i < unit.size(); ++i) {
            const bool kept = i % ds::pattern::kSectorBytes < id.shape;
            if (unit[i] != (kept ? full[i] : std::byte{0})) FAIL("byte " << i);
        }
        const auto h = ds::pattern::parse_header(unit);
        REQUIRE(h.has_value());
        CHECK(h->generation == id.generation);
        CHECK(h->offset == id.offset);
        Bytes streamed(unit.size());
        ds::pattern::fill_unit_streaming(streamed, id);
        ds::pattern::stream_fence();
        CHECK(streamed == unit);
        CHECK(ds::pattern::first_mismatch(unit, id) == unit.size());
        // The incompressible check fails it at the first zeroed byte.
        CHECK(ds::pattern::first_mismatch(unit, identity(8192)) == id.shape);
    }
}

TEST_CASE("compress: first_mismatch finds damage in kept bytes and in the zeros") {
    const UnitIdentity id = compressible(2);
    const Bytes good = content(id);
    for (const std::size_t at :
         {std::size_t{0}, std::size_t{47}, std::size_t{200}, std::size_t{247}, std::size_t{248},
          std::size_t{511}, std::size_t{512 * 5 + 300}, std::size_t{4095}}) {
        CAPTURE(at);
        Bytes bad = good;
        bad[at] ^= std::byte{0x10};
        CHECK(ds::pattern::first_mismatch(bad, id) == at);
        const Diagnosis d = diagnosed(bad, id);
        CHECK(d.bad_bytes == 1);
        CHECK(d.cls == MismatchClass::corrupt);
    }
}

TEST_CASE("compress: diagnosis of zeroed, stale, misdirected, foreign and torn units") {
    const UnitIdentity id = compressible(2);
    const Bytes fresh = content(id);
    UnitIdentity old_id = id;
    old_id.generation = 2;
    const Bytes old = content(old_id);

    CHECK(diagnosed(Bytes(id.unit_bytes), id).cls == MismatchClass::zeroed);
    const Diagnosis stale = diagnosed(old, id);
    CHECK(stale.cls == MismatchClass::stale);
    CHECK(stale.found->generation == 2);

    UnitIdentity other = id;
    other.offset += id.unit_bytes;
    const Diagnosis mis = diagnosed(content(other), id);
    CHECK(mis.cls == MismatchClass::misdirected);
    CHECK(mis.first_bad_byte == 17);  // the offset field's second byte: 7 x 4096 vs 8 x 4096
    CHECK(mis.found->offset == other.offset);

    UnitIdentity foreign = id;
    foreign.run_id ^= 1;
    CHECK(diagnosed(content(foreign), id).cls == MismatchClass::foreign);

    // Every sector still carries generation-keyed bytes: a write torn at any
    // sector boundary over the generation before it is told from both.
    old_id.generation = ds::pattern::previous_generation(id.generation);
    const Bytes previous = content(old_id);
    for (std::size_t cut = 1; cut < 8; ++cut) {
        CAPTURE(cut);
        Bytes unit = fresh;
        const auto at = static_cast<std::ptrdiff_t>(cut * ds::pattern::kSectorBytes);
        std::copy(previous.begin() + at, previous.end(), unit.begin() + at);
        const Diagnosis d = diagnosed(unit, id);
        CHECK(d.cls == MismatchClass::torn);
        CHECK(d.first_bad_byte == static_cast<std::size_t>(at));
    }
}
