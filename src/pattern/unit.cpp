// The unit: header layout, per-unit key, fast check and diagnosis.  The
// layout is documented in unit.h; the hashes below are part of the on-disk
// format (tests/pattern/unit_test.cpp pins golden values).
#include "pattern/unit.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <vector>

#include "pattern/generator.h"
#include "pattern/generator_impl.h"

namespace ds::pattern {
namespace {

using detail::kGoldenGamma;
using detail::splitmix64_mix;

static_assert(std::endian::native == std::endian::little, "the unit layout is little endian");

// Header field offsets (see the layout in unit.h).
constexpr std::size_t kMagicAt = 0;
constexpr std::size_t kRunIdAt = 8;
constexpr std::size_t kOffsetAt = 16;
constexpr std::size_t kFileIndexAt = 24;
constexpr std::size_t kGenerationAt = 28;
constexpr std::size_t kUnitBytesAt = 32;
constexpr std::size_t kVersionAt = 36;
constexpr std::size_t kCheckAt = 40;
static_assert(kCheckAt + 8 == kHeaderBytes);
static_assert(kHeaderBytes <= kStepBytes, "the header lies within the stream's first step");

// Salts keep the uses of splitmix64 here (run id, unit key, header check)
// from producing related values for related inputs.
constexpr std::uint64_t kRunIdSalt = 0x6472697665737472ULL;  // "drivestr"
constexpr std::uint64_t kKeySalts[4] = {0x756e69742d6b6579ULL, 0xD1B54A32D192ED03ULL,
                                        0x8CB92BA72F3D8DD7ULL, 0xABC98388FB8FAC03ULL};
constexpr std::uint64_t kCheckSalts[6] = {0x6864722d63686b31ULL, 0xF1357AEA2E62A9C5ULL,
                                          0x9E6C63D0676A9A99ULL, 0xCA5A826395121157ULL,
                                          0xE7037ED1A0B428DBULL, 0x8EBC6AF09C88C6E3ULL};
// A duplicate source's stream key, and the pick of which units are duplicates.
constexpr std::uint64_t kDupeSalts[4] = {0x647570652d6b6579ULL, 0xA24BAED4963EE407ULL,
                                         0x9FB21C651E98DF25ULL, 0xC13FA9A902A6328FULL};
constexpr std::uint64_t kPickSalts[3] = {0x647570652d706b31ULL, 0x91E10DA5C79E7B1DULL,
                                         0xD6E8FEB86659FD93ULL};

template <typename T>
T load(const std::byte* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <typename T>
void put(std::byte* p, T v) {
    std::memcpy(p, &v, sizeof v);
}

// Hash of header bytes 0..39: each word mixed with its own salt, the five
// results XOR-ed and mixed once more.  A change confined to one word always
// changes the check (the mix is a bijection); the tree is two mixes deep
// rather than five, since it runs once per unit written or verified.
std::uint64_t header_check(const std::byte* header) {
    std::uint64_t h = kCheckSalts[5];
    for (std::size_t w = 0; w < 5; ++w) {
        h ^= splitmix64_mix(load<std::uint64_t>(header + 8 * w) ^ kCheckSalts[w]);
    }
    return splitmix64_mix(h);
}

// What keys the payload: the data id, or the run id for a unit built without one.
std::uint64_t data_key(const UnitIdentity& id) {
    return id.data_id ? id.data_id : id.run_id;
}

void write_header(std::byte* dst, const UnitIdentity& id) {
    put<std::uint64_t>(dst + kMagicAt, kUnitMagic);
    put<std::uint64_t>(dst + kRunIdAt, id.run_id);
    put<std::uint64_t>(dst + kOffsetAt, id.offset);
    put<std::uint32_t>(dst + kFileIndexAt, id.file_index);
    put<std::uint32_t>(dst + kGenerationAt, id.generation);
    put<std::uint32_t>(dst + kUnitBytesAt, id.unit_bytes);
    put<std::uint32_t>(dst + kVersionAt, kFormatVersion);
    put<std::uint64_t>(dst + kCheckAt, header_check(dst));
}

// A duplicate's header: the unit header's shape, with the data id for the
// run id, the source for the offset, and 0 for file index and generation.
void write_dupe_header(std::byte* dst, const UnitIdentity& id, unsigned source) {
    put<std::uint64_t>(dst + kMagicAt, kDupeMagic);
    put<std::uint64_t>(dst + kRunIdAt, data_key(id));
    put<std::uint64_t>(dst + kOffsetAt, source);
    put<std::uint32_t>(dst + kFileIndexAt, 0);
    put<std::uint32_t>(dst + kGenerationAt, 0);
    put<std::uint32_t>(dst + kUnitBytesAt, id.unit_bytes);
    put<std::uint32_t>(dst + kVersionAt, kFormatVersion);
    put<std::uint64_t>(dst + kCheckAt, header_check(dst));
}

// A duplicate source's stream key: data, source and unit size, nothing of
// the run, the file, the offset or the generation, so every copy is equal.
std::uint64_t dupe_key(const UnitIdentity& id, unsigned source) {
    const std::uint64_t h = splitmix64_mix(data_key(id) ^ kDupeSalts[0]) ^
                            splitmix64_mix(std::uint64_t{source} ^ kDupeSalts[1]) ^
                            splitmix64_mix(std::uint64_t{id.unit_bytes} ^ kDupeSalts[2]);
    return splitmix64_mix(h ^ kDupeSalts[3]);
}

// What a unit's bytes are made of: its stream's key and the header laid
// over the stream's first 48 bytes (a duplicate's, or the unit's own).
struct Recipe {
    std::uint64_t key;
    std::optional<unsigned> source;  // the source copied; nothing: a unit of its own
};

// Without --dedupe the share is 0 and no unit is hashed for the pick.
Recipe recipe(const UnitIdentity& id) {
    if (dedupe_share_of(id.shape) != 0) {
        if (const auto source = dedupe_source(id)) return {dupe_key(id, *source), source};
    }
    return {unit_key(id), std::nullopt};
}

void write_recipe_header(std::byte* dst, const UnitIdentity& id, const Recipe& r) {
    if (r.source) {
        write_dupe_header(dst, id, *r.source);
    } else {
        write_header(dst, id);
    }
}

// Index of the first byte where a and b differ within n bytes, or n.
std::size_t first_difference(const std::byte* a, const std::byte* b, std::size_t n) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        if (const auto diff = load<std::uint64_t>(a + i) ^ load<std::uint64_t>(b + i); diff != 0) {
            return i + static_cast<std::size_t>(std::countr_zero(diff)) / 8;
        }
    }
    for (; i < n; ++i) {
        if (a[i] != b[i]) return i;
    }
    return n;
}

bool compressible(const UnitIdentity& id) {
    return sector_random_of(id.shape) < kSectorBytes;
}

// Zeroes every sector's bytes past the first `keep` (the compressible shape).
void zero_sector_tails(std::byte* unit, std::size_t size, std::size_t keep) {
    for (std::size_t at = 0; at < size; at += kSectorBytes)
        std::memset(unit + at + keep, 0, kSectorBytes - keep);
}

// first_mismatch for a compressible unit: one sector at a time, as written,
// continuing the lane state (a sector is eight steps), and compared whole.
std::size_t first_mismatch_compressible(std::span<const std::byte> actual, const UnitIdentity& id,
                                        const Recipe& r) {
    detail::LaneState state = detail::seed_lanes(r.key);
    alignas(64) std::byte sector[kSectorBytes];
    for (std::size_t at = 0; at < actual.size(); at += kSectorBytes) {
        detail::generate(state, sector);
        if (at == 0) write_recipe_header(sector, id, r);
        zero_sector_tails(sector, kSectorBytes, sector_random_of(id.shape));
        if (const std::size_t d = first_difference(actual.data() + at, sector, kSectorBytes);
            d != kSectorBytes) {
            return at + d;
        }
    }
    return actual.size();
}

std::vector<std::byte> unit_content(const UnitIdentity& id) {
    std::vector<std::byte> content(id.unit_bytes);
    fill_unit(content, id);
    return content;
}

bool equal_bytes(std::span<const std::byte> a, std::span<const std::byte> b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

// True when every kSectorBytes sector of `actual` equals the same sector of
// `expected` or of `other`, with at least one sector of each.
bool is_torn(std::span<const std::byte> actual, std::span<const std::byte> expected,
             std::span<const std::byte> other) {
    if (actual.size() != expected.size() || actual.size() != other.size()) return false;
    bool any_expected = false;
    bool any_other = false;
    for (std::size_t at = 0; at < actual.size(); at += kSectorBytes) {
        const std::size_t n = std::min(kSectorBytes, actual.size() - at);
        const auto sector = actual.subspan(at, n);
        if (equal_bytes(sector, expected.subspan(at, n))) {
            any_expected = true;
        } else if (equal_bytes(sector, other.subspan(at, n))) {
            any_other = true;
        } else {
            return false;
        }
    }
    return any_expected && any_other;
}

}  // namespace

// A compressor spends a few bytes per sector on the match that covers its
// zeros and the literal run before it (lz4 about 5, zram's lzo-rle about
// 14); keeping 8 fewer bytes than 512 / ratio puts the common compressors on
// both sides of the ratio asked instead of all below it.
// measured: docs/workloads.md, Compressible data
std::uint32_t sector_random_bytes(double ratio) {
    if (!(ratio > 1)) return kSectorBytes;
    constexpr double kOverhead = 8;
    constexpr double kFloor = 56;  // the header's 48 bytes and one word
    const double keep = std::round((static_cast<double>(kSectorBytes) / ratio - kOverhead) / 8) * 8;
    return static_cast<std::uint32_t>(std::clamp(keep, kFloor, static_cast<double>(kSectorBytes)));
}

std::uint64_t data_id_from_seed(std::uint64_t seed) {
    const std::uint64_t id = splitmix64_mix(seed ^ kRunIdSalt);
    // The mix is a bijection: exactly one seed maps to 0; give it another id.
    return id != 0 ? id : kGoldenGamma;
}

// The run id is not in the key (it is in the header): the payload follows
// the seed.  Each identity word mixed with its own salt, XOR-ed, mixed again: a change
// in any one field changes every bit of the key with probability 1/2, and the
// per-unit cost is two mixes deep (it runs once per 4 KiB unit).
std::uint64_t unit_key(const UnitIdentity& id) {
    const std::uint64_t h =
        splitmix64_mix(data_key(id) ^ kKeySalts[0]) ^ splitmix64_mix(id.offset ^ kKeySalts[1]) ^
        splitmix64_mix((std::uint64_t{id.file_index} | std::uint64_t{id.unit_bytes} << 32) ^
                       kKeySalts[2]) ^
        (std::uint64_t{id.generation} * kGoldenGamma);
    return splitmix64_mix(h ^ kKeySalts[3]);
}

// The pick: the high half of a hash of (data, file, offset), scaled to
// [0, kDedupeScale), falls below the share for that share of the units; its
// low bits name the source.  A fixed function, so the same units are
// duplicates in every phase, every generation and for --verify-only.
std::optional<unsigned> dedupe_source(const UnitIdentity& id) {
    const std::uint32_t share = dedupe_share_of(id.shape);
    if (share == 0 || id.offset == 0) return std::nullopt;
    const std::uint64_t h = splitmix64_mix(
        splitmix64_mix(data_key(id) ^ kPickSalts[0]) ^ splitmix64_mix(id.offset ^ kPickSalts[1]) ^
        splitmix64_mix(std::uint64_t{id.file_index} ^ kPickSalts[2]));
    if (((h >> 32) * kDedupeScale >> 32) >= share) return std::nullopt;
    return static_cast<unsigned>(h % kDedupeSources);
}

void fill_unit(std::span<std::byte> dst, const UnitIdentity& id) {
    assert(dst.size() == id.unit_bytes);
    const Recipe r = recipe(id);
    generate(r.key, dst);
    if (dst.size() >= kHeaderBytes) write_recipe_header(dst.data(), id, r);
    if (compressible(id)) zero_sector_tails(dst.data(), dst.size(), sector_random_of(id.shape));
}

// The first step (the header's cache line) through cached stores so the
// header lands on it in cache; the rest continues the same lane state.  A
// compressible unit is filled through cached stores: its zeros are written
// over the stream, which streaming stores would have sent to memory first.
void fill_unit_streaming(std::span<std::byte> dst, const UnitIdentity& id) {
    assert(dst.size() == id.unit_bytes);
    if (dst.size() < kStepBytes || compressible(id)) {
        fill_unit(dst, id);
        return;
    }
    const Recipe r = recipe(id);
    detail::LaneState state = detail::seed_lanes(r.key);
    detail::generate(state, dst.first(kStepBytes));
    write_recipe_header(dst.data(), id, r);
    detail::stream(state, dst.subspan(kStepBytes));
}

// The unit is its stream with bytes 0..47 replaced by the header.  The first
// 64-byte step is materialised on the stack (header over stream bytes
// 0..47, stream bytes 48..63 as they are) and compared; the rest goes through
// the fused mismatch kernel, continuing the same lane state from step 1.
std::size_t first_mismatch(std::span<const std::byte> actual, const UnitIdentity& id) {
    assert(actual.size() == id.unit_bytes);
    // A buffer of another size is never the unit: report it at byte 0.
    if (actual.size() != id.unit_bytes || actual.size() < kStepBytes) return 0;
    const Recipe r = recipe(id);
    if (compressible(id)) return first_mismatch_compressible(actual, id, r);
    detail::LaneState state = detail::seed_lanes(r.key);
    alignas(64) std::byte first[kStepBytes];
    detail::generate(state, first);
    write_recipe_header(first, id, r);
    if (const std::size_t at = first_difference(actual.data(), first, kStepBytes);
        at != kStepBytes) {
        return at;
    }
    return kStepBytes + detail::mismatch(state, actual.subspan(kStepBytes));
}

std::optional<ParsedHeader> parse_header(std::span<const std::byte> unit) {
    if (unit.size() < kHeaderBytes) return std::nullopt;
    const std::byte* h = unit.data();
    if (load<std::uint64_t>(h + kMagicAt) != kUnitMagic ||
        load<std::uint32_t>(h + kVersionAt) != kFormatVersion ||
        load<std::uint64_t>(h + kCheckAt) != header_check(h)) {
        return std::nullopt;
    }
    const auto generation = load<std::uint32_t>(h + kGenerationAt);
    return ParsedHeader{
        .run_id = load<std::uint64_t>(h + kRunIdAt),
        .offset = load<std::uint64_t>(h + kOffsetAt),
        .file_index = load<std::uint32_t>(h + kFileIndexAt),
        .generation = generation,
        .unit_bytes = load<std::uint32_t>(h + kUnitBytesAt),
    };
}

std::optional<DupeHeader> parse_dupe_header(std::span<const std::byte> unit) {
    if (unit.size() < kHeaderBytes) return std::nullopt;
    const std::byte* h = unit.data();
    if (load<std::uint64_t>(h + kMagicAt) != kDupeMagic ||
        load<std::uint32_t>(h + kVersionAt) != kFormatVersion ||
        load<std::uint64_t>(h + kCheckAt) != header_check(h)) {
        return std::nullopt;
    }
    return DupeHeader{
        .data_id = load<std::uint64_t>(h + kRunIdAt),
        .source = static_cast<unsigned>(load<std::uint64_t>(h + kOffsetAt)),
        .unit_bytes = load<std::uint32_t>(h + kUnitBytesAt),
    };
}

std::string_view to_string(MismatchClass c) {
    switch (c) {
        case MismatchClass::stale:
            return "stale";
        case MismatchClass::misdirected:
            return "misdirected";
        case MismatchClass::foreign:
            return "foreign";
        case MismatchClass::zeroed:
            return "zeroed";
        case MismatchClass::uniform_fill:
            return "uniform-fill";
        case MismatchClass::torn:
            return "torn";
        case MismatchClass::corrupt:
            return "corrupt";
        case MismatchClass::io_error:
            return "io-error";
        case MismatchClass::short_read:
            return "short-read";
    }
    return "unknown";
}

namespace {

// A duplicate source's header where `expected` belongs: another seed's
// source is foreign; the source expected, damaged, corrupt; any other source
// (or a source where a unit of its own belongs) misdirected.
MismatchClass dupe_class(const DupeHeader& h, const UnitIdentity& expected) {
    if (h.data_id != data_key(expected)) return MismatchClass::foreign;
    const std::optional<unsigned> want = dedupe_source(expected);
    if (want && *want == h.source && h.unit_bytes == expected.unit_bytes)
        return MismatchClass::corrupt;
    return MismatchClass::misdirected;
}

// A unit header where `expected` belongs: foreign, misdirected, or for this
// very unit stale, torn or corrupt (a duplicate has no older content: the
// header of this unit's own where a source belongs is corrupt).
MismatchClass unit_class(std::span<const std::byte> actual, std::span<const std::byte> want,
                         const ParsedHeader& h, const UnitIdentity& expected) {
    if (h.run_id != expected.run_id) return MismatchClass::foreign;
    if (h.offset != expected.offset || h.file_index != expected.file_index ||
        h.unit_bytes != expected.unit_bytes) {
        return MismatchClass::misdirected;
    }
    if (dedupe_source(expected)) return MismatchClass::corrupt;
    UnitIdentity other_id = expected;
    other_id.generation = h.generation != expected.generation
                              ? h.generation
                              : previous_generation(expected.generation);
    const std::vector<std::byte> other = unit_content(other_id);
    if (h.generation != expected.generation && equal_bytes(actual, other))
        return MismatchClass::stale;
    if (is_torn(actual, want, other)) return MismatchClass::torn;
    return MismatchClass::corrupt;
}

}  // namespace

// Classification, in order: zeroed and uniform-fill by content alone; then,
// when the header parses, foreign (other run), misdirected (other offset,
// file or unit size), stale (whole unit is another generation g' of this
// unit), torn (every sector is either the expected generation or the other
// one: g' when the header names another generation, else the previous one);
// a duplicate source's header is classed by dupe_class; anything else is
// corrupt.  first_bad_byte and bad_bytes always compare
// against the expected content, whatever the class (bytes missing from or
// beyond a buffer of the wrong size count as bad); an intact unit, which the
// caller should not pass, comes back as corrupt with no bad byte and
// first_bad_byte == actual.size().
Diagnosis diagnose(std::span<const std::byte> actual, const UnitIdentity& expected) {
    Diagnosis d;
    d.found = parse_header(actual);

    const std::vector<std::byte> want = unit_content(expected);
    const std::size_t common = std::min(actual.size(), want.size());
    d.first_bad_byte = first_difference(actual.data(), want.data(), common);
    d.bad_bytes = std::max(actual.size(), want.size()) - common;
    for (std::size_t i = d.first_bad_byte; i < common; ++i) {
        d.bad_bytes += actual[i] != want[i] ? 1 : 0;
    }

    if (actual.empty()) {
        d.cls = MismatchClass::corrupt;
        return d;
    }
    const std::byte first = actual[0];
    if (std::all_of(actual.begin(), actual.end(), [first](std::byte b) { return b == first; })) {
        d.cls = first == std::byte{0} ? MismatchClass::zeroed : MismatchClass::uniform_fill;
        return d;
    }
    d.cls = MismatchClass::corrupt;
    if (d.found) {
        d.cls = unit_class(actual, want, *d.found, expected);
    } else if (const auto dupe = parse_dupe_header(actual)) {
        d.cls = dupe_class(*dupe, expected);
    }
    return d;
}

}  // namespace ds::pattern
