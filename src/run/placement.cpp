#include "run/placement.h"

#include <algorithm>

namespace ds::run {

namespace {

// Target t's share of --cpus: the list splits over every worker of the run,
// in order (fio's split policy over its jobs), so 2 targets x 2 workers on
// 0-3 use all four.  Its workers take a cyclic window of the list (the list
// has no repeats): at most one turn of it, worker k on share[k % size].
std::vector<unsigned> cpus_share(const std::vector<unsigned>& list, std::size_t t,
                                 unsigned files_per_target) {
    std::vector<unsigned> share;
    for (unsigned k = 0; k < files_per_target && share.size() < list.size(); ++k)
        share.push_back(list[(t * files_per_target + k) % list.size()]);
    return share;
}

}  // namespace

std::vector<TargetPlacement> place_targets(const std::vector<unsigned>& cli_cpus,
                                           const std::vector<std::string>& devices,
                                           unsigned files_per_target, const sys::SysfsTree& sysfs) {
    const auto nodes = numa_nodes(sysfs);
    std::vector<TargetPlacement> out(devices.size());
    for (std::size_t t = 0; t < devices.size(); ++t) {
        TargetPlacement& p = out[t];
        p.numa_node = sys::device_numa_node(sysfs, devices[t]);
        if (!cli_cpus.empty()) {  // asked for by name: it wins
            p.how = TargetPlacement::How::cpus;
            p.cpus = cpus_share(cli_cpus, t, files_per_target);
            p.cpus_option = cli_cpus;
            continue;
        }
        if (nodes.size() < 2 || !p.numa_node) continue;  // one node: nothing to choose
        for (const auto& n : nodes)
            if (n.node == *p.numa_node) {
                p.how = TargetPlacement::How::numa_node;
                p.cpus = n.cpus;
            }
    }
    return out;
}

std::vector<std::vector<unsigned>> worker_cpu_sets(const std::vector<TargetPlacement>& placement,
                                                   unsigned files_per_target) {
    std::vector<std::vector<unsigned>> sets;
    for (const auto& p : placement)
        for (unsigned k = 0; k < files_per_target; ++k) {
            if (p.how == TargetPlacement::How::cpus)
                sets.push_back({p.cpus[k % p.cpus.size()]});
            else
                sets.push_back(p.cpus);  // the node's, or none
        }
    return sets;
}

namespace {

// "0-3,8" from {0, 1, 2, 3, 8} (in any order).
std::string cpulist_text(std::vector<unsigned> cpus) {
    std::sort(cpus.begin(), cpus.end());
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        if (!out.empty()) out += ',';
        out += std::to_string(cpus[i]);
        if (j > i) out += '-' + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

}  // namespace

std::string placement_text(const TargetPlacement& p) {
    switch (p.how) {
        case TargetPlacement::How::numa_node:
            return "numa node " + std::to_string(*p.numa_node) + " (cpus " + cpulist_text(p.cpus) +
                   ")";
        case TargetPlacement::How::cpus: {
            const std::string all = "--cpus " + cpulist_text(p.cpus_option);
            const std::string own = cpulist_text(p.cpus);
            if (own == cpulist_text(p.cpus_option)) return all;
            return (p.cpus.size() == 1 ? "cpu " : "cpus ") + own + " of " + all;
        }
        case TargetPlacement::How::anywhere:
            break;
    }
    return p.numa_node ? "any cpu (numa node " + std::to_string(*p.numa_node) + ")" : "any cpu";
}

}  // namespace ds::run
