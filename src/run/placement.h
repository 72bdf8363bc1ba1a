// Where each target's workers run.  On a host of several NUMA nodes, a
// target's workers run on the CPUs of its device's node (sysfs says which;
// for files, the device under the filesystem): a drive is saturated from
// cores near it.  --cpus places them instead (worker i of the run, counted
// target by target, on CPU LIST[i % count]); otherwise they run anywhere.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sys/numa.h"

namespace ds::run {

struct TargetPlacement {
    enum class How { anywhere, numa_node, cpus };
    How how = How::anywhere;
    std::optional<int> numa_node;  // the device's node, when sysfs says
    // numa_node: the node's CPUs; cpus: the target's share of --cpus, in the
    // order its workers take them (worker k on cpus[k % size]).
    std::vector<unsigned> cpus;
    std::vector<unsigned> cpus_option;  // cpus: the whole --cpus list
};

// One per target; `devices[t]` is the block device under target t, which
// runs `files_per_target` workers.
std::vector<TargetPlacement> place_targets(const std::vector<unsigned>& cli_cpus,
                                           const std::vector<std::string>& devices,
                                           unsigned files_per_target, const sys::SysfsTree& sysfs);
// Per worker of the run (files_per_target per target, in target order):
// the CPUs its thread may run on, empty for any.
std::vector<std::vector<unsigned>> worker_cpu_sets(const std::vector<TargetPlacement>& placement,
                                                   unsigned files_per_target);
// "numa node 1 (cpus 8-15)", "--cpus 0,2" (the target has the whole list),
// "cpus 2-3 of --cpus 0-3", "cpu 1 of --cpus 0-1", "any cpu".
std::string placement_text(const TargetPlacement& p);

}  // namespace ds::run
