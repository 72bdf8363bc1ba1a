// The seam between the worker's flushes and whoever records what is durable
// (the --keep state file).  The worker knows when a flush completed and which
// writes it covered; the listener decides what to do with that.
#pragma once

#include <span>

#include "pattern/unit.h"

namespace ds::run {

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

}  // namespace ds::run
