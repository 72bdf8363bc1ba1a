#include "sys/numa.h"

#include <dirent.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace ds::sys {

std::optional<std::string> SysfsTree::read(const std::string& rel) const {
    std::ifstream in(root_ + "/" + rel);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
        s.pop_back();
    return s;
}

std::vector<std::string> SysfsTree::list(const std::string& rel) const {
    std::vector<std::string> names;
    DIR* d = ::opendir((root_ + "/" + rel).c_str());
    if (!d) return names;
    while (const dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    ::closedir(d);
    std::sort(names.begin(), names.end());
    return names;
}

namespace {

std::optional<unsigned> number(std::string_view s) {
    unsigned v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

}  // namespace

std::vector<unsigned> parse_cpulist(std::string_view text) {
    std::vector<unsigned> cpus;
    while (!text.empty()) {
        const auto comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        const auto dash = item.find('-');
        const auto lo = number(item.substr(0, dash));
        const auto hi = dash == std::string_view::npos ? lo : number(item.substr(dash + 1));
        if (!lo || !hi || *hi < *lo || *hi - *lo > 65536) return {};
        for (unsigned c = *lo; c <= *hi; ++c)
            cpus.push_back(c);
    }
    return cpus;
}

std::vector<NumaNode> numa_nodes(const SysfsTree& sysfs) {
    std::vector<NumaNode> nodes;
    for (const auto& name : sysfs.list("devices/system/node")) {
        if (name.rfind("node", 0) != 0) continue;
        const auto n = number(std::string_view(name).substr(4));
        if (!n) continue;
        const auto list = sysfs.read("devices/system/node/" + name + "/cpulist");
        auto cpus = list ? parse_cpulist(*list) : std::vector<unsigned>{};
        if (!cpus.empty()) nodes.push_back({static_cast<int>(*n), std::move(cpus)});
    }
    std::sort(nodes.begin(), nodes.end(),
              [](const NumaNode& a, const NumaNode& b) { return a.node < b.node; });
    return nodes;
}

std::optional<int> device_numa_node(const SysfsTree& sysfs, const std::string& dev) {
    if (dev.rfind("/dev/", 0) != 0) return std::nullopt;
    const std::string name = dev.substr(dev.rfind('/') + 1);
    // A partition's own directory has no device/; its disk is the parent
    // directory under class/block (block/DISK/PART), read as DISK.
    for (const std::string& rel : {"class/block/" + name + "/device/numa_node",
                                   "class/block/" + name + "/../device/numa_node"}) {
        const auto text = sysfs.read(rel);
        if (!text) continue;
        int node = -1;
        const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), node);
        if (ec != std::errc{} || node < 0) return std::nullopt;
        return node;
    }
    return std::nullopt;
}

unsigned usable_cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
    return static_cast<unsigned>(CPU_COUNT(&set));
}

}  // namespace ds::sys
