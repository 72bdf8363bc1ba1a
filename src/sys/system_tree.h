// Where the system's facts are read: procfs and sysfs.  Every reader asks
// the tree installed here for the path of what it reads (the real /proc and
// /sys unless a test installed directories laid out like them), never an
// absolute path of its own, so a test can hand the program a host of its
// making: an NVMe controller on a machine without one, a loop device's
// backing file, another process's lock.  /proc/self/fd/N, which names one
// of this process's own descriptors rather than a fact about the system,
// is used as it is.  tests/house_test.py holds that no other file of src/
// spells "/proc/" or "/sys/".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ds::sys {

struct SystemTree {
    std::string proc = "/proc";
    std::string sys = "/sys";

    // "meminfo" -> "/proc/meminfo"; "dev/block/8:0" -> "/sys/dev/block/8:0".
    std::string proc_path(std::string_view relative) const;
    std::string sys_path(std::string_view relative) const;
    // The whole file; nullopt when it cannot be read.
    std::optional<std::string> read_proc(std::string_view relative) const;
    std::optional<std::string> read_sys(std::string_view relative) const;
    // The numeric entries of proc: one per process (thread group), ascending.
    std::vector<int> pids() const;
};

// Installs the tree of this process (before anything runs; the tests'
// hooked build does, for a fake sysfs).
void install_system_tree(const SystemTree& tree);
// The tree installed, or the real one.
const SystemTree& system_tree();

// The whole file at `path`; nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);

}  // namespace ds::sys
