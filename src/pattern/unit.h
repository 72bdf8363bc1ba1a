// The verification unit: what drivestress writes at every unit offset and how
// a read-back unit is checked and, when it is wrong, diagnosed.
//
// Every unit's content is a pure function of (run, data, file, offset,
// generation), so any unit can be checked alone, in any order, at any queue
// depth.  Two identities: the run id, random for every run, is in the
// header, so a unit another run wrote is `foreign` even with the same seed;
// the data id, from the seed, keys the payload, so --seed reproduces the
// data byte for byte.
//
// Layout of a unit of U bytes (U a power of two, >= 512), little endian:
//   bytes  0..7   magic            kUnitMagic ("DSTRUNIT")
//   bytes  8..15  run id           random per run (never from the seed)
//   bytes 16..23  offset           absolute byte offset of the unit in its file
//   bytes 24..27  file index
//   bytes 28..31  generation       1..2^32-1 (0 is never written: "unknown")
//   bytes 32..35  unit size        U
//   bytes 36..39  format version   kFormatVersion
//   bytes 40..47  header check     hash of bytes 0..39 and a constant
//   bytes 48..63  reserved         copied from the payload stream
//   bytes 64..U-1 payload          stream of unit_key(...) from byte 64 on
// (the whole unit is the stream of unit_key with bytes 0..47 replaced by the
// header: payload bytes depend on the data id, file, offset, generation and
// size; the header's check on the run id too.)
//
// Compressible units (--compress RATIO > 1): the same unit with the tail of
// every 512-byte sector zeroed, keeping its first sector_random bytes
// (512 / RATIO less 8, rounded to 8: sector_random_bytes).  The kept bytes are incompressible and
// the zeros nearly free, so lz4, zstd and zram's lzo-rle all reach about RATIO on any block or page
// of 512 bytes or more; every sector still carries bytes keyed by the generation (torn writes) and
// the header is whole (stale, misdirected, foreign).  RATIO 1 keeps every byte: the unit as ever.
//
// Duplicate units (--dedupe PCT > 0): a fixed hash of (data id, file, offset)
// makes that share of units a copy of one of kDedupeSources sources, the same
// in every phase and for --verify-only.  A duplicate's content is a function
// of (data id, source, unit size, sector_random) alone, so a deduplicating
// device can fold every copy of a source into one block; its header
// (kDupeMagic) has the unit header's shape with the data id where the run id
// is, the source where the offset is, file index and generation 0:
//   bytes  0..7   magic            kDupeMagic ("DSTRDUPE")
//   bytes  8..15  data id          what keys the source (another seed: foreign)
//   bytes 16..23  source           0..kDedupeSources-1
//   bytes 24..31  0                (file index, generation: a duplicate has neither)
//   bytes 32..39  unit size, format version
//   bytes 40..47  header check     as the unit header's
// What this cannot tell apart is stated in the report: a lost, torn or
// misdirected write between two units of one source leaves the same bytes.
// Unit 0 of a file is never a duplicate: it is the mark that says whose the
// file is (target/, --verify-only --cleanup read its header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ds::pattern {

inline constexpr std::uint64_t kUnitMagic = 0x54494e5552545344ULL;  // "DSTRUNIT"
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderBytes = 48;
inline constexpr std::size_t kMinUnitBytes = 512;
// Sector granularity used to recognise torn writes.
inline constexpr std::size_t kSectorBytes = 512;

// --compress accepts 1 to 8: at 8 a sector keeps 56 bytes (the header's
// 48 and a word in sector 0); beyond it, a compressor's overhead per sector
// (5 bytes in lz4, about 14 in lzo-rle) is as large as what is kept, and
// compressors part ways (at 16: 24 kept, lz4 about 17:1, lzo-rle 13:1).
inline constexpr double kMaxCompressRatio = 8;

inline constexpr std::uint64_t kDupeMagic = 0x4550554452545344ULL;  // "DSTRDUPE"
// Sources a duplicate unit copies: few enough that every one recurs often in
// a small file, and a deduplicating device folds the duplicates to almost
// nothing (16 units of storage).
inline constexpr unsigned kDedupeSources = 16;
// --dedupe's share is kept in tenths of a percent (PCT with one decimal).
inline constexpr std::uint32_t kDedupeScale = 1000;

// The units' shape: how the written data departs from one incompressible
// unit of its own per offset.  One word, so that everything that carries it
// (the engine's geometry, the state file) carries all of it:
//   bits  0..15  stream bytes kept per 512-byte sector (sector_random_bytes,
//                --compress; kSectorBytes: every byte)
//   bits 16..31  share of duplicate units in 1/kDedupeScale (--dedupe; 0: none)
// With no duplicates the word is sector_random itself: a plain run's shape is
// kSectorBytes, as it was before --dedupe.
using UnitShape = std::uint32_t;
constexpr UnitShape make_shape(std::uint32_t sector_random, std::uint32_t dedupe_share) {
    return sector_random | dedupe_share << 16;
}
constexpr std::uint32_t sector_random_of(UnitShape s) {
    return s & 0xFFFFU;
}
constexpr std::uint32_t dedupe_share_of(UnitShape s) {
    return s >> 16;
}

// The stream bytes every sector keeps for a compression ratio in [1, 8]:
// 512 / ratio less a compressor's per-sector overhead, rounded to a multiple
// of 8 (the compare's word), 56 to 512; exactly 512 for ratio 1.
std::uint32_t sector_random_bytes(double ratio);

// How many times a unit has been written, as the header and the generation
// map carry it: 32 bits, so that a unit rolled back to any earlier content
// the run wrote reads as older (a byte wrapped after 255 writes, and an old
// generation then looked newer).  It wraps only after 2^32 - 1 writes to
// one unit (a stated limit: past that, an old generation can look new).
using Generation = std::uint32_t;
// Generation 0 marks a unit whose content is unknown (never written, or a
// write to it failed); it is never verified.
inline constexpr Generation kUnknownGeneration = 0;
inline constexpr Generation kLastGeneration = 0xFFFFFFFFU;

// Next generation after g: 1, 2, ... 2^32 - 1, 1, ... (skips 0 on the wrap).
constexpr Generation next_generation(Generation g) {
    return g == kLastGeneration ? Generation{1} : g + 1;
}
constexpr Generation previous_generation(Generation g) {
    return g <= 1 ? kLastGeneration : g - 1;
}

// The data id of a seed: what keys every unit's payload (never 0).
std::uint64_t data_id_from_seed(std::uint64_t seed);

// Identity of one unit: what it must contain is a function of these alone.
struct UnitIdentity {
    std::uint64_t run_id = 0;
    std::uint32_t file_index = 0;
    std::uint64_t offset = 0;  // bytes, multiple of unit_bytes
    Generation generation = 1;
    std::uint32_t unit_bytes = 4096;
    // The payload's key, data_id_from_seed(seed); 0: run_id keys it too (a
    // unit whose run and data identity are one, as unit tests build them).
    std::uint64_t data_id = 0;
    // The units' shape (UnitShape): bytes at the start of every 512-byte
    // sector that carry the stream, the rest of the sector zero
    // (sector_random_bytes(--compress)), and the share of duplicate units
    // (--dedupe).  kSectorBytes: every byte kept, no duplicate.
    UnitShape shape = kSectorBytes;
};

// Key of the unit's pseudorandom stream (a unit of its own, not a duplicate).
std::uint64_t unit_key(const UnitIdentity& id);

// The source this unit copies under its shape's dedupe share, or nothing for
// a unit of its own (always nothing when the share is 0, and at offset 0).
std::optional<unsigned> dedupe_source(const UnitIdentity& id);

// Writes the unit's full content; dst.size() == id.unit_bytes.
void fill_unit(std::span<std::byte> dst, const UnitIdentity& id);

// The same bytes through streaming stores past the first 64 (see
// pattern::stream), for a buffer about to be written to the drive; call
// pattern::stream_fence() after the last unit and before submitting.
void fill_unit_streaming(std::span<std::byte> dst, const UnitIdentity& id);

// The fast check: index of the first byte of `actual` that differs from the
// expected content of `id`, or actual.size() when the unit is intact.
std::size_t first_mismatch(std::span<const std::byte> actual, const UnitIdentity& id);

// The header fields as read back from a unit, when magic, version and check
// are valid.
struct ParsedHeader {
    std::uint64_t run_id;
    std::uint64_t offset;
    std::uint32_t file_index;
    Generation generation;
    std::uint32_t unit_bytes;
};
std::optional<ParsedHeader> parse_header(std::span<const std::byte> unit);

// A duplicate unit's header, when magic, version and check are valid.
struct DupeHeader {
    std::uint64_t data_id;
    unsigned source;
    std::uint32_t unit_bytes;
};
std::optional<DupeHeader> parse_dupe_header(std::span<const std::byte> unit);

enum class MismatchClass {
    stale,         // a valid, older generation of this very unit: a lost write
    misdirected,   // a valid unit of this run, but of another offset or file (or another
                   // duplicate source, or a source where a unit of its own belongs)
    foreign,       // a valid unit of another run (any seed: each run has its own id), or
                   // a duplicate source of another seed's data
    zeroed,        // all zero bytes
    uniform_fill,  // one repeated non-zero byte
    torn,          // some sectors hold the expected generation, others an older one
    corrupt,       // anything else: right header with a damaged payload, flipped bits
    io_error,      // the read or write failed (set by the I/O path, not by diagnose)
    short_read,    // the read returned fewer bytes than asked (set by the I/O path)
};
inline constexpr std::size_t kMismatchClassCount = 9;

// Names as printed and as written in JSON: "stale", "misdirected", "foreign",
// "zeroed", "uniform-fill", "torn", "corrupt", "io-error", "short-read".
std::string_view to_string(MismatchClass c);

struct Diagnosis {
    MismatchClass cls = MismatchClass::corrupt;
    std::size_t first_bad_byte = 0;  // index in the unit of the first byte != expected
    std::size_t bad_bytes = 0;       // how many bytes differ from the expected content
    // What the header says, when it parses (misdirected/foreign/stale/torn).
    std::optional<ParsedHeader> found;
};

// Slow path, called only when first_mismatch() found a difference: explains
// what `actual` holds instead of the content of `expected`.
Diagnosis diagnose(std::span<const std::byte> actual, const UnitIdentity& expected);

}  // namespace ds::pattern
