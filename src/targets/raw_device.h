// Raw-device mode (--raw-device DEV --destroy-data DEV): the workers split a
// whole block device into equal regions instead of creating files.  Here are
// the checks that make overwriting it acceptable, and its geometry.
#pragma once

#include <cstdint>
#include <string>

#include "pattern/trim.h"

namespace ds::targets {

// True when both paths name the same block device (by st_rdev, so
// /dev/loop0 and /dev/disk/by-id/... agree).  Throws SetupError naming the
// path (as --raw-device A or --destroy-data B) that does not exist or is not
// a block device.
bool same_block_device(const std::string& a, const std::string& b);

// Size of the block device at `path` in bytes (BLKGETSIZE64).  Throws
// SetupError naming the device.
std::uint64_t block_device_bytes(const std::string& path);

// Bytes of each worker's region: `requested`, or when 0 the device size /
// files rounded down to `align`.  Throws SetupError when the regions do not fit
// the device or a region would be smaller than `align`.
std::uint64_t raw_region_bytes(const std::string& path, std::uint64_t device_bytes, unsigned files,
                               std::uint64_t requested, std::uint64_t align);

// Throws SetupError naming the reason when the device at `path`, or any of
// its partitions, backs the root filesystem, is mounted, is active swap or
// has holders (device-mapper, md, LVM).  Reads /proc/self/mountinfo,
// /proc/swaps and /sys/dev/block.
void check_raw_device_unused(const std::string& path);

// What a discarded block of the device at `path` reads back as (--trim-pct).
// Throws SetupError naming the device when it does not discard
// (queue/discard_max_bytes 0).
pattern::TrimPromise raw_device_trim_promise(const std::string& path);

}  // namespace ds::targets
