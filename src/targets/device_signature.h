// What a block device held before --raw-device overwrites it, read off the
// signatures wipefs lists: filesystem superblocks (ext2/3/4, xfs, btrfs,
// vfat, ntfs, exfat; with label and UUID), swap, LVM2 physical volumes,
// LUKS volumes, md RAID members (superblock 1.1/1.2), partition tables, an
// earlier drivestress run's units.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace ds::targets {

// Bytes from the start of a device that signatures_of() looks at (btrfs's
// superblock is at 64 KiB).
constexpr std::size_t kSignatureBytes = 68 * 1024;

// Each signature found in `head` (the device's first bytes, up to
// kSignatureBytes), in words: `ext4 filesystem, label "data", UUID
// 0b1c...`, `dos partition table`.  Empty when none is recognised.
std::vector<std::string> signatures_of(std::span<const unsigned char> head);

// signatures_of() the device at `path`'s first bytes; a device that cannot
// be read says so in the one entry.
std::vector<std::string> device_signatures(const std::string& path);

}  // namespace ds::targets
