// What a worker knows about every unit of its file (the verification unit,
// --rand-block bytes), four bytes each (1 MiB of map per GiB of file at
// 4 KiB units):
//
//   generation  the content the unit holds: 1, 2, ... (pattern::Generation,
//               32 bits), or 0 when it is unknown (never written, or a write
//               to it failed, or the file was recreated).  It is set when a
//               write is *issued*, since that is when the buffer is filled
//               with it; a failed write makes it unknown again, and an
//               unknown unit is never verified.  A unit written again after
//               being unknown continues past every generation this map had
//               handed out when it became unknown, so no content the run
//               ever wrote to it can come back looking current or newer (a
//               rollback reads as stale).
//   busy        a random operation covers the unit.  A write claims its
//               units alone; reads share theirs (claim_shared): several
//               reads of a unit may be in flight at once, as a hot block's
//               are under a skewed --distribution, but never beside a write.
//               Invariant: a unit being written is never picked again until
//               that write completes, and a unit being read is never
//               written, so a read never races a write of the same unit and
//               a read always finds the generation the map holds (no false
//               mismatch at any queue depth, on any backend).  A random
//               operation is aligned to its size and claims one key: the
//               index of the block of the largest random size that holds
//               it (every operation with one size: its own block), so two
//               operations that overlap always claim the same key
//               (engine/phases.h, RandomPhase).  Sequential phases never
//               overlap themselves and do not mark units, except passes
//               after the first (--seq-time), which claim theirs alone.
//               Busy units are a small set (BusyUnits), not a byte per
//               unit: at most a queue's worth are busy, and a byte per unit
//               of a 2 GiB file was a cache miss on every random issue.
//   trimmed     --trim-pct: a trim covered the unit after its last write (a
//               bit per unit, kept only when the run trims).  Its generation
//               stays the last one written, which an unspecified promise
//               accepts back (pattern/trim.h); the next write clears it, as
//               does a failed or cancelled trim (the unit becomes unknown).
//
// Offsets are bytes within the file (a worker's region on a raw device).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "pattern/unit.h"

namespace ds::engine {

// The units in flight: an open-addressed table (linear probing, deletion by
// backward shift so no tombstones build up) that grows to eight times the
// queue depth and then stays in L1 (8 KiB at QD 128).  Kept at most an eighth
// full, a unit nearly always sits alone at its home slot, so a lookup and an
// erase look at one or two slots: at half full, the erase's walk to the end
// of its cluster was a sixth of the engine's own CPU per NOP operation.
//
// It is a multiset of claims: each slot holds a unit and whether the claim
// is shared (a read) or alone (a write), every claim of a unit on the probe
// path of the unit's home, so a unit read by several operations at once has
// as many slots, one after the other.
class BusyUnits {
  public:
    // A slot keeps the unit and the kind of claim in one word.
    static constexpr std::uint64_t kMaxUnit = (std::uint64_t{1} << 62) - 1;

    BusyUnits();
    // Any claim on the unit.
    bool contains(std::uint64_t unit) const;
    // A claim of the unit alone (a write's).
    bool claimed_alone(std::uint64_t unit) const;
    // Precondition: !contains(unit) when !shared, !claimed_alone(unit) when shared.
    void insert(std::uint64_t unit, bool shared = false);
    // One claim, as inserted.  Precondition: that claim is held.
    void erase(std::uint64_t unit, bool shared = false);
    std::size_t size() const { return size_; }

  private:
    static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
    static constexpr std::size_t kSlotsPerUnit = 8;
    static std::uint64_t key(std::uint64_t unit, bool shared) { return unit << 1 | shared; }
    std::size_t home(std::uint64_t unit) const {
        return static_cast<std::size_t>((unit * 0x9E3779B97F4A7C15ULL) >> shift_);
    }
    std::size_t mask() const { return slots_.size() - 1; }
    void grow();

    std::vector<std::uint64_t> slots_;  // a power of two of them; kEmpty = free
    unsigned shift_;                    // 64 - log2(slots_.size())
    std::size_t size_ = 0;
};

class UnitMap {
  public:
    UnitMap(std::uint64_t file_bytes, std::uint32_t unit_bytes);

    std::uint32_t unit_bytes() const { return unit_bytes_; }
    unsigned unit_shift() const { return unit_shift_; }
    std::uint64_t units() const { return gens_.size(); }
    std::uint64_t unit_of(std::uint64_t offset) const { return offset >> unit_shift_; }
    // The units [first, end) that [offset, offset + length) touches (none
    // when length is 0): `for (auto [u, end] = units_in(o, n); u < end; ++u)`.
    struct UnitRange {
        std::uint64_t first, end;
    };
    UnitRange units_in(std::uint64_t offset, std::uint64_t length) const {
        if (length == 0) return {0, 0};
        return {unit_of(offset), unit_of(offset + length - 1) + 1};
    }

    pattern::Generation generation(std::uint64_t unit) const { return gens_[unit]; }
    // Every unit of [offset, offset + length) gets its next generation; the
    // generations are what a write filled in now is about to store.
    void advance(std::uint64_t offset, std::uint32_t length);
    // The units of [offset, offset + length) become unknown (a failed write).
    void forget(std::uint64_t offset, std::uint32_t length);
    // The highest generation handed out so far (0: none).
    pattern::Generation highest() const { return high_; }
    // Everything unknown (the file was recreated).
    void reset();
    // --trim-pct: the units of [offset, offset + length) are trimmed, their
    // generation kept.  The first call makes the map keep the bits.
    void trim(std::uint64_t offset, std::uint32_t length);
    bool trimmed(std::uint64_t unit) const {
        return !trimmed_.empty() && (trimmed_[unit >> 6] >> (unit & 63) & 1) != 0;
    }
    // Whether any unit was ever trimmed (the bits are kept).
    bool trims() const { return !trimmed_.empty(); }
    // One unit becomes unknown (what a failed flush covered).
    void forget_unit(std::uint64_t unit) {
        gens_[unit] = pattern::kUnknownGeneration;
        untrim(unit, unit);
        floor_ = high_;
    }
    std::span<const pattern::Generation> generations() const { return gens_; }

    // Any operation in flight covers the unit: a write may not take it.
    bool busy(std::uint64_t unit) const { return busy_.contains(unit); }
    // A write in flight covers it: a read may not take it either.
    bool busy_for_read(std::uint64_t unit) const { return busy_.claimed_alone(unit); }
    void claim(std::uint64_t unit) { busy_.insert(unit); }
    void release(std::uint64_t unit) { busy_.erase(unit); }
    // A read's claim, beside other reads of the unit.
    void claim_shared(std::uint64_t unit) { busy_.insert(unit, true); }
    void release_shared(std::uint64_t unit) { busy_.erase(unit, true); }
    // Starts loading the generation of a unit an operation picked ahead will
    // use (random units miss every cache; by the time the operation is
    // issued, or verified, the byte is there).
    void prefetch(std::uint64_t unit) const { __builtin_prefetch(&gens_[unit]); }

  private:
    // Clears the trimmed bits of units first..last.
    void untrim(std::uint64_t first, std::uint64_t last);

    std::uint32_t unit_bytes_;
    unsigned unit_shift_;  // log2 of the unit: offsets to units without a division
    std::vector<pattern::Generation> gens_;
    pattern::Generation high_ = pattern::kUnknownGeneration;  // see highest()
    // What an unknown unit's next generation follows: high_ when the last
    // unit became unknown (every unknown unit's old generations are below).
    pattern::Generation floor_ = pattern::kUnknownGeneration;
    std::vector<std::uint64_t> trimmed_;  // a bit per unit; empty until the first trim
    BusyUnits busy_;
};

}  // namespace ds::engine
