// The NUMA layout a run places its workers by, read from sysfs: the nodes
// and their CPUs, and the node a block device hangs off.  The tree is a
// directory laid out as /sys, so a test hands it a fake two-node tree of
// its making (as ninja's DiskInterface is abstract "so it can be mocked out
// for tests"); the run reads the real /sys.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ds::sys {

class SysfsTree {
  public:
    explicit SysfsTree(std::string root = "/sys") : root_(std::move(root)) {}
    // The file at `rel` (e.g. "devices/system/node/node0/cpulist"), its
    // trailing newline removed; nullopt when it cannot be read.
    std::optional<std::string> read(const std::string& rel) const;
    // The names in directory `rel` (none when it cannot be read).
    std::vector<std::string> list(const std::string& rel) const;

  private:
    std::string root_;
};

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}; empty for a malformed list.
std::vector<unsigned> parse_cpulist(std::string_view text);

struct NumaNode {
    int node = 0;
    std::vector<unsigned> cpus;
};
// The nodes with CPUs (devices/system/node/nodeN/cpulist), by number.
std::vector<NumaNode> numa_nodes(const SysfsTree& sysfs);

// How many CPUs this process may run on (taskset, a cgroup's cpuset); 1
// when the kernel will not say.
unsigned usable_cpus();

// The node of block device `dev` ("/dev/nvme0n1", or a partition of it:
// its disk's), from class/block/NAME/device/numa_node; nullopt when sysfs
// does not say (a loop device, a VM's single node: -1).
std::optional<int> device_numa_node(const SysfsTree& sysfs, const std::string& dev);

}  // namespace ds::sys
