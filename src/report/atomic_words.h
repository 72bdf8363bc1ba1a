// Atomic (untorn) writes in words: what a target promises, what that means
// for the run's write sizes, what an NVMe namespace's Identify says, and
// what --atomic does with each --sync mode.  The header's "atomic" lines and
// the JSON's text fields.
#pragma once

#include <string>
#include <vector>

#include "model/atomic_writes.h"
#include "model/config.h"
#include "model/results.h"

namespace ds::report {

// "4 KiB to 1 MiB, none hardware-optimised (software, out of place)",
// "not supported (statx: not supported on this file; loop4's queue: none)".
std::string atomic_promise_text(const model::AtomicPromise& p);

// "16 KiB writes: promised, software path", "4 MiB writes: not promised
// (above 1 MiB)", one per size, joined by "; ".
std::string atomic_sizes_text(const model::AtomicPromise& p,
                              const std::vector<model::WriteSize>& sizes);

// "nvme0n1: any write up to 16 KiB untorn against other commands (NAWUN),
// up to 4 KiB across a power failure (NAWUPF); no atomic boundaries", or why
// Identify could not be read.
std::string nvme_atomic_text(const model::NvmeAtomicFacts& n);

// --atomic: what every write carries and what is flushed with each --sync
// mode ("nothing flushed: untorn, not durable ...").
std::string atomic_run_text(const model::RunConfig& cfg, bool registered_buffers);

// The header's "atomic   ..." lines: each target's promise and its answer
// for the run's write sizes, its NVMe namespace's, and --atomic's.
std::string atomic_header_lines(const model::RunConfig& cfg, const model::RunResult& r);

}  // namespace ds::report
