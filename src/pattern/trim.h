// What a trimmed unit may read back as, and the check of one that was read.
//
// A trim (--trim-pct: fallocate PUNCH_HOLE on a file, a discard on a block
// device) leaves the unit's content to the target: a file's hole reads
// zeros, a block device reads what its queue or its NVMe namespace promises
// (zeros, 0xFF), or nothing is promised.  The check is sector by sector
// (kSectorBytes), since a device may deallocate in its own granularity and
// leave part of a unit as it was:
//
//   trimmed       every sector holds what the promise allows for a trim
//                 (unspecified: zeros or 0xFF)
//   kept          unspecified promise: every sector is a trimmed sector or
//                 the unit's last written content, some of it the latter
//   not_honoured  the target promises zeros (0xFF) but sectors still hold
//                 the last written content: trim-not-honoured, a warning,
//                 not lost data (the device kept what it was told to drop)
//   wrong         anything else: another unit's data, an older generation,
//                 a foreign pattern: a mismatch like any other (diagnose()
//                 names it against the last written content)
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "pattern/unit.h"

namespace ds::pattern {

enum class TrimPromise {
    zeros,        // a file hole; a device whose namespace reads deallocated blocks as 0
    ones,         // a device whose namespace reads deallocated blocks as 0xFF
    unspecified,  // the device says nothing: zeros, 0xFF or the old content
};
// "zeros", "0xff", "unspecified"
std::string_view to_string(TrimPromise p);

enum class TrimRead { trimmed, kept, not_honoured, wrong };

// Checks a unit read back after a trim.  `last` names the unit's last written
// content (generation kUnknownGeneration: none known, and only trimmed
// sectors pass); `scratch` holds unit_bytes and receives that content.
TrimRead check_trimmed(std::span<const std::byte> actual, const UnitIdentity& last,
                       TrimPromise promise, std::span<std::byte> scratch);

}  // namespace ds::pattern
