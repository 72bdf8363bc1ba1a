// The seam between the worker's flushes and whoever records what is durable
// (the --keep state file).  The worker knows when a flush completed and which
// writes it covered; the listener decides what to do with that.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pattern/unit.h"

namespace ds::model {

// The bound (see StateGeometry::bound) of a phase that may overwrite a unit
// any number of times before the next acknowledgement (only phase ends are
// acknowledged): any generation after the acknowledged one is allowed.
inline constexpr std::uint32_t kAnyNewerBound = 0xFFFFFFFFU;

// --trim-pct: in an acknowledged map (and a state file of format 6), a unit
// a trim covered, or is about to cover: it may read back as trimmed (a
// file's hole: zeros) or as the generation in the low bits (its previous
// content; 0: none known).  A run that trims records the bit before the trim
// is issued, so a power cut at any instant finds every trimmed unit named.
// It limits a trimming run's units to 2^31 - 1 writes each (a stated limit).
inline constexpr pattern::Generation kTrimmedBit = 0x80000000U;
inline constexpr bool acked_trimmed(pattern::Generation g) {
    return (g & kTrimmedBit) != 0;
}
inline constexpr pattern::Generation acked_generation(pattern::Generation g) {
    return g & ~kTrimmedBit;
}

// What a --keep run's state file records of the run: enough to name every
// unit of every file and its content (targets/state_file.h writes it).
struct StateGeometry {
    std::uint64_t seed = 0;
    std::uint64_t run_id = 0;
    std::uint64_t file_bytes = 0;
    std::uint32_t unit_bytes = 0;
    std::uint32_t bound = 1;  // writes a unit may take past its last acknowledgement
    pattern::UnitShape shape = pattern::kSectorBytes;  // the units' shape (--compress, --dedupe)
    bool trims = false;              // --trim-pct: acknowledged generations may carry kTrimmedBit
    std::vector<std::string> paths;  // one per file, absolute or as given
    std::uint64_t units() const { return file_bytes / unit_bytes; }
};

class DurabilityListener {
  public:
    virtual ~DurabilityListener() = default;
    // A flush of file `file_index` completed.  `acked` holds, for every unit
    // of that file, the generation now acknowledged as durable: the content
    // of writes that had completed before the flush was issued
    // (kUnknownGeneration for a unit never written, or whose write failed).
    // Called on the worker's own thread, so calls for different files may
    // run concurrently; one file's calls never overlap.
    virtual void acknowledged(unsigned file_index, std::span<const pattern::Generation> acked) = 0;
};

}  // namespace ds::model
