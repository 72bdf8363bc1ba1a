#include "sys/mountinfo.h"
#include "sys/system_tree.h"

#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>

namespace ds::sys {

std::string unescape_mount_field(std::string_view s) {
    std::string out;
    // Three octal digits after s[i], all within s.
    auto octal = [&](std::size_t i) {
        if (i + 3 >= s.size()) return false;
        for (std::size_t k = i + 1; k <= i + 3; ++k)
            if (s[k] < '0' || s[k] > '7') return false;
        return true;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && octal(i)) {
            out +=
                static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else if (s[i] == '\\' && i + 1 < s.size()) {
            out += s[++i];
        } else {
            out += s[i];
        }
    }
    return out;
}

namespace {

std::optional<MountEntry> parse_line(const std::string& line) {
    const auto dash = line.find(" - ");
    if (dash == std::string::npos) return std::nullopt;
    std::istringstream head(line.substr(0, dash));
    MountEntry e;
    std::string devno, root, point;
    if (!(head >> e.id >> e.parent >> devno >> root >> point)) return std::nullopt;
    unsigned ma = 0, mi = 0;
    char colon = 0;
    std::istringstream dn(devno);
    if (!(dn >> ma >> colon >> mi) || colon != ':') return std::nullopt;
    e.dev = makedev(ma, mi);
    e.root = unescape_mount_field(root);
    e.mount_point = unescape_mount_field(point);
    std::istringstream tail(line.substr(dash + 3));
    std::string source;
    if (!(tail >> e.fstype >> source)) return std::nullopt;
    e.source = unescape_mount_field(source);
    tail >> e.super_options;
    return e;
}

}  // namespace

std::vector<MountEntry> parse_mountinfo(std::string_view text) {
    std::vector<MountEntry> out;
    std::istringstream in{std::string(text)};
    std::string line;
    while (std::getline(in, line))
        if (auto e = parse_line(line)) out.push_back(std::move(*e));
    return out;
}

std::optional<std::vector<MountEntry>> read_mountinfo() {
    const auto text = system_tree().read_proc("self/mountinfo");
    if (!text) return std::nullopt;
    return parse_mountinfo(*text);
}

const MountEntry* find_mount(const std::vector<MountEntry>& table,
                             std::optional<std::uint64_t> mount_id, dev_t dev) {
    for (const auto& e : table)
        if (mount_id ? e.id == *mount_id : e.dev == dev) return &e;
    return nullptr;
}

}  // namespace ds::sys
