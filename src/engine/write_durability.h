// --sync on the write path: how writes are made durable, and what a phase
// may acknowledge as durable to a listener (the --keep state file).
//
//   osync/dsync      every write carries RWF_SYNC/RWF_DSYNC: it is durable
//                    when it completes; the listener hears every `every`
//                    completed writes and at the end of the phase.
//   fsync/fdatasync  flush groups: after `every` writes were issued, nothing
//                    new is issued until those writes completed; then the
//                    flush goes out (new operations with it) and covers
//                    exactly the writes completed before it.  One flush is in
//                    flight at a time and takes one place of the depth.  The
//                    last writes of a phase get their flush too.
//
// A trim is recorded before it is issued (trim_issued): the acknowledged
// map carries kTrimmedBit on its units, so after a power cut a trimmed unit
// may read as trimmed or as its previous content, and nothing else.
//
// The acknowledged map only ever holds generations of completed writes that
// a completed flush (or a synchronous write) made durable: a flush that
// failed may have lost what it covered, and a later flush can succeed
// without it, so those units stay unknown until written again.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/engine.h"
#include "engine/unit_map.h"
#include "model/config.h"
#include "model/durability.h"

namespace ds::engine {

// What the worker keeps across phases for its listener.
struct DurableMaps {
    std::vector<pattern::Generation> acked;     // last acknowledged to the listener
    std::vector<pattern::Generation> snapshot;  // the units when the flush in flight was issued
    model::DurabilityListener* listener = nullptr;
    unsigned file_index = 0;
};

// The unit map as an acknowledged map says it: each unit's generation,
// with kTrimmedBit where a trim covered it after its last write.  `out`
// holds units.units() entries.  Map: UnitMap or SharedUnitMap.
template <class Map>
void acknowledgeable(const Map& units, std::span<pattern::Generation> out);

// On either unit map (phase_work.h's BasicIoPhase says why).
template <class Map>
class BasicWriteDurability {
  public:
    BasicWriteDurability(model::SyncMethod method, std::uint64_t every, Map& units,
                         DurableMaps& maps);

    // RWF_SYNC / RWF_DSYNC for every write, or 0.
    int rw_flags() const { return rw_flags_; }
    // Before any new operation: a flush is due.  Fills `s` with it when the
    // writes of its group have completed (issued), or says to wait.
    std::optional<PhaseWork::Next> flush_first(Slot& s);
    bool flush_due() const { return flush_due_; }
    // The phase has no more writes: the last group gets its flush.
    bool final_flush_pending() const { return flushes_ && group_writes_ > 0; }
    void start_final_flush() { flush_due_ = true; }

    void write_issued();
    // --trim-pct: a trim of [offset, offset + length) is about to be issued.
    // With a listener, units not yet recorded as trimmed get kTrimmedBit in
    // the acknowledged map, and the listener hears of it before the trim
    // goes out (a power cut then finds them named).
    void trim_issued(std::uint64_t offset, std::uint32_t length);
    // A write finished: `ok` when it transferred everything.
    void write_done(const Slot& s, bool ok);
    // A flush finished; false when it found the filesystem full (ENOSPC or
    // EDQUOT: not the drive's fault).  Other failures are for the caller to
    // record as I/O errors.
    bool flush_done(std::int32_t result);
    // End of the phase: the listener hears of the last synchronous writes.
    void finish();

  private:
    const bool flushes_;
    const bool per_write_;
    const int rw_flags_;
    const std::uint64_t every_;
    const io::OpKind kind_;  // the flush: fsync or fdatasync
    Map& units_;
    DurableMaps& maps_;
    std::uint64_t group_writes_ = 0;         // writes issued since the last flush was issued
    std::uint64_t synced_since_notice_ = 0;  // osync/dsync: completed since the listener heard
    unsigned writes_in_flight_ = 0;
    bool flush_due_ = false, flush_in_flight_ = false;
};

using WriteDurability = BasicWriteDurability<UnitMap>;

}  // namespace ds::engine
