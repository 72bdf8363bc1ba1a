// /proc/self/mountinfo, parsed once for everyone who asks where a path is
// mounted: the target's filesystem and device, whether a raw device is
// mounted, an overlay's upper directory.
//
// A line reads "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3
// /dev/root rw,errors=continue": mount id, parent id, major:minor, the root
// of the mount within its filesystem, the mount point, mount options, any
// number of optional fields, "-", then the filesystem type, the source and
// the superblock options.  The kernel escapes space, tab, newline and
// backslash in paths as \ooo.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ds::sys {

struct MountEntry {
    std::uint64_t id = 0;
    std::uint64_t parent = 0;
    dev_t dev = 0;              // the filesystem's st_dev
    std::string root;           // unescaped
    std::string mount_point;    // unescaped
    std::string fstype;         // "ext4", "overlay", ...
    std::string source;         // unescaped ("/dev/vda1", "overlay", "tmpfs")
    std::string super_options;  // as the kernel wrote them (overlay escapes ',' inside)
};

// The entries of a mountinfo text; a malformed line is skipped.
std::vector<MountEntry> parse_mountinfo(std::string_view text);

// This process's mount table; nullopt when /proc/self/mountinfo cannot be read.
std::optional<std::vector<MountEntry>> read_mountinfo();

// The mount of a path: by mount id when statx reports one (btrfs subvolumes
// and overlays have anonymous st_dev numbers), else by device number.
const MountEntry* find_mount(const std::vector<MountEntry>& table,
                             std::optional<std::uint64_t> mount_id, dev_t dev);

// \ooo escapes decoded, and a backslash before any other character (as
// overlay escapes ',' ':' and '\' inside its options) dropped.
std::string unescape_mount_field(std::string_view s);

}  // namespace ds::sys
