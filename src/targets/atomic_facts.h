// Reading what a target promises of atomic (untorn) writes
// (model/atomic_writes.h): a file's statx, and the atomic-write limits of a
// block device's queue in sysfs (queue/atomic_write_*; a partition's are
// its disk's): a raw device's own, or the device under a file's
// filesystem.  The sysfs root is a parameter so tests can lay out a fake
// tree.  The NVMe namespace's Identify is run/'s to read.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "model/atomic_writes.h"

namespace ds::targets {

// The queue limits of block device major:minor; nullopt with `note` set
// when sysfs has none (major 0: tmpfs, btrfs, NFS; a kernel before 6.11).
std::optional<model::QueueAtomicLimits> read_queue_atomic(unsigned major, unsigned minor,
                                                          const std::string& sysfs_root,
                                                          std::string& note);

// A file's promise, from the open descriptor of one of its files.
model::AtomicPromise file_atomic_promise(int fd, const std::string& sysfs_root);

// A raw device's promise: its queue's limits.
model::AtomicPromise raw_atomic_promise(const std::string& device, const std::string& sysfs_root);

}  // namespace ds::targets
