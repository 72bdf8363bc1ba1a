// The unit map of a file several workers test at once (several jobs, or a
// job's copies): one for the file, owned by the run, its claims atomic.
//
// Each unit has a generation (as UnitMap's) and a claim word beside it: the
// number of reads in flight on the unit, or kWriter while a write or trim
// is.  An operation claims every unit it covers, in ascending order, each
// with one compare-and-swap: a write takes a unit nothing holds, a read one
// no write holds.  When a unit cannot be taken the claims taken so far are
// released and the caller draws again (random) or waits (a sequential
// stream, which keeps its order): nothing ever waits while holding a claim,
// so no two workers can deadlock.  No read races a write of any worker.
//
// The generations themselves are plain words: a write changes a unit's only
// while it holds the unit alone, and a read looks at it only while it holds
// its shared claim, so the claim's acquire and release order every access
// (a claim taken is acquire, a claim released is release).  What is not a
// unit's own is atomic: the highest generation handed out, the floor an
// unknown unit's next generation follows, the trimmed bits (64 units a
// word, written by several workers).
//
// A file with one worker keeps the worker's own UnitMap (unit_map.h): no
// atomic on its path.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/unit_map.h"
#include "pattern/unit.h"

namespace ds::engine {

class SharedUnitMap {
  public:
    static constexpr std::uint32_t kWriter = 0x8000'0000U;

    SharedUnitMap(std::uint64_t file_bytes, std::uint32_t unit_bytes);

    std::uint32_t unit_bytes() const { return unit_bytes_; }
    unsigned unit_shift() const { return unit_shift_; }
    std::uint64_t units() const { return gens_.size(); }
    std::uint64_t unit_of(std::uint64_t offset) const { return offset >> unit_shift_; }
    UnitMap::UnitRange units_in(std::uint64_t offset, std::uint64_t length) const {
        if (length == 0) return {0, 0};
        return {unit_of(offset), unit_of(offset + length - 1) + 1};
    }

    // Claims units [first, end): alone (`write`) or shared.  All or none:
    // false when one of them is held in a way that excludes it.
    bool try_claim(std::uint64_t first, std::uint64_t end, bool write);
    // Releases what try_claim took.
    void release(std::uint64_t first, std::uint64_t end, bool write);
    // Whether anything holds the unit (for tests and between phases).
    std::uint32_t claim_word(std::uint64_t unit) const {
        return claims_[unit].load(std::memory_order_acquire);
    }

    // As UnitMap's; the caller holds the units' claims (or no other worker runs).
    pattern::Generation generation(std::uint64_t unit) const { return gens_[unit]; }
    void advance(std::uint64_t offset, std::uint32_t length);
    void forget(std::uint64_t offset, std::uint32_t length);
    void forget_unit(std::uint64_t unit);
    pattern::Generation highest() const { return high_.load(std::memory_order_relaxed); }
    void reset();
    void trim(std::uint64_t offset, std::uint32_t length);
    bool trimmed(std::uint64_t unit) const {
        return (trimmed_[unit >> 6].load(std::memory_order_relaxed) >> (unit & 63) & 1) != 0;
    }
    bool trims() const { return trims_.load(std::memory_order_relaxed); }
    std::span<const pattern::Generation> generations() const { return gens_; }
    void prefetch(std::uint64_t unit) const { __builtin_prefetch(&gens_[unit]); }

  private:
    void untrim(std::uint64_t first, std::uint64_t last);

    std::uint32_t unit_bytes_;
    unsigned unit_shift_;
    std::vector<pattern::Generation> gens_;
    std::unique_ptr<std::atomic<std::uint32_t>[]> claims_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> trimmed_;
    std::uint64_t trimmed_words_;
    std::atomic<pattern::Generation> high_{pattern::kUnknownGeneration};
    std::atomic<pattern::Generation> floor_{pattern::kUnknownGeneration};
    std::atomic<bool> trims_{false};
};

}  // namespace ds::engine
