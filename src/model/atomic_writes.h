// Untorn (atomic) writes: what a target promises and where the promise
// comes from, what it means for a write of a given size, and when --atomic
// cannot run.  The facts are read by targets/ (statx, the block queue) and
// run/ (NVMe Identify); the report words them.
//
// A file's promise is statx's (STATX_WRITE_ATOMIC).  Which writes the device
// does itself (hardware) and which the filesystem does out of place
// (software: XFS since 6.16 writes them elsewhere and remaps them in one
// transaction) is read off the device under the filesystem: its queue's
// atomic_write_unit_max_bytes, and statx's unit_max_opt where the kernel
// fills it.  A raw device's promise is its queue's; the block layer has no
// software path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/config.h"
#include "nvme/atomic_identify.h"
#include "sys/atomic_write.h"

namespace ds::model {

// A block device queue's atomic-write limits (sysfs queue/atomic_write_*),
// bytes; all 0: the device has none.
struct QueueAtomicLimits {
    std::string device;  // the disk whose queue it is ("loop3", "nvme0n1")
    std::uint32_t unit_min = 0;
    std::uint32_t unit_max = 0;
    std::uint64_t max_bytes = 0;  // atomic_write_max_bytes
    std::uint64_t boundary = 0;   // atomic_write_boundary_bytes (0: none)
    // Any other queue/atomic_write_* file (a kernel's hw_ limits), as found.
    std::vector<std::pair<std::string, std::uint64_t>> other;
};

// What the NVMe namespace under a target says (Identify), or why not.
struct NvmeAtomicFacts {
    std::string device;  // "/dev/nvme0n1"
    std::optional<nvme::AtomicIdentify> identify;
    std::string reason;  // when identify is empty
};

enum class AtomicSource { none, statx, block_queue };
std::string_view to_string(AtomicSource s);  // "none", "statx", "block_queue"

enum class AtomicPath { hardware, software, unknown };
std::string_view to_string(AtomicPath p);  // "hardware", "software", "unknown"

struct AtomicPromise {
    bool raw = false;                       // a raw device: the queue is the promise
    std::optional<sys::StatxAtomic> statx;  // a file's, when statx answered
    std::string statx_error;                // statx failed
    // A raw device's own queue, or the device under a file's filesystem.
    std::optional<QueueAtomicLimits> queue;
    std::string queue_note;               // why there is none ("tmpfs: no block device")
    std::optional<NvmeAtomicFacts> nvme;  // the target is on an NVMe namespace

    AtomicSource source() const;
    bool supported() const;
    // Why not, from what was read ("statx: not supported on this file;
    // loop4's queue: none").
    std::string why_unsupported() const;
    std::uint32_t unit_min() const;
    std::uint32_t unit_max() const;
    // Writes up to this many bytes are the device's own atomic writes
    // (hardware-optimised); 0: none.  (A file's unit_max when every
    // promised write is.)
    std::uint32_t hardware_max() const;
};

// The promise for one write size.
struct AtomicAnswer {
    std::uint32_t bytes = 0;
    bool promised = false;
    AtomicPath path = AtomicPath::unknown;  // of a promised write
    std::string why_not;                    // "above 1 MiB", "not a power of two", ...
};
AtomicAnswer atomic_answer(const AtomicPromise& p, std::uint32_t bytes);

// A write size the run issues, and the option that sets it.
struct WriteSize {
    std::uint32_t bytes = 0;
    std::string option;  // "--seq-block", "--rand-block", "--sweep rand-block", "--size"
};
// Every write size of the run, ascending, each once (the first option
// naming it): the sequential block (and the shorter last block when --size
// is not a multiple of it), the random phase's write sizes when it writes;
// --sync-compare's rows instead of them.
std::vector<WriteSize> write_sizes(const RunConfig& cfg);

// Why --atomic cannot run on a target with promise `p` ("" when it can):
// a write size not promised, the sizes and limits named.  `sizes` are
// write_sizes() of a run of files of `file_bytes`; `region_bytes` is a raw
// device's region size, whose multiples its writes start at (0: files).
std::string atomic_refusal(const AtomicPromise& p, const std::vector<WriteSize>& sizes,
                           std::uint64_t file_bytes, std::uint64_t region_bytes = 0);

}  // namespace ds::model
