#include "nvme/controller.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <vector>

#include "sys/unique_fd.h"

namespace ds::nvme {

namespace fs = std::filesystem;

namespace {

// Digits at the start of `s`, and what follows them.
std::optional<std::pair<unsigned, std::string_view>> leading_number(std::string_view s) {
    unsigned v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end == s.data()) return std::nullopt;
    return std::pair{v, s.substr(static_cast<std::size_t>(end - s.data()))};
}

// "nvme3" -> 3: a controller's name.
std::optional<unsigned> controller_number(std::string_view name) {
    if (!name.starts_with("nvme")) return std::nullopt;
    auto n = leading_number(name.substr(4));
    if (!n || !n->second.empty()) return std::nullopt;
    return n->first;
}

// "nvme0n1": a namespace's block device (not "nvme0c0n1", a hidden path of a
// multipath namespace, nor "nvme0n1p2", a partition).
bool is_namespace_name(std::string_view name) {
    if (!name.starts_with("nvme")) return false;
    auto c = leading_number(name.substr(4));
    if (!c || !c->second.starts_with("n")) return false;
    auto ns = leading_number(c->second.substr(1));
    return ns && ns->second.empty();
}

std::string first_line(const fs::path& p) {
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    return line;
}

std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string devno_text(unsigned major, unsigned minor) {
    return std::to_string(major) + ":" + std::to_string(minor);
}

// From a block device's sysfs directory down to the NVMe namespace under
// it: a partition's parent, or the one device under a dm/md device
// ("slaves").  Sets `reason` and returns nullopt when there is none.
std::optional<fs::path> namespace_dir(fs::path dir, const std::string& what, std::string& reason) {
    for (int depth = 0; depth < 8; ++depth) {
        std::error_code ec;
        if (fs::exists(dir / "partition", ec)) dir = dir.parent_path();
        const std::string name = dir.filename().string();
        if (is_namespace_name(name)) return dir;
        const std::vector<std::string> under = entries(dir / "slaves");
        if (under.size() == 1) {
            dir = fs::canonical(dir / "slaves" / under[0], ec);
            if (ec) break;
            continue;
        }
        if (under.size() > 1) {
            std::string list;
            for (const auto& u : under)
                list += (list.empty() ? "" : ", ") + u;
            reason = what + " (" + name + ") spans " + std::to_string(under.size()) + " devices (" +
                     list + "), not one NVMe namespace";
        } else {
            reason = what + " (" + name + ") is not an NVMe namespace";
        }
        return std::nullopt;
    }
    reason = what + ": no NVMe namespace found under it in sysfs";
    return std::nullopt;
}

// The controller above a namespace directory: its parent (nvmeX), or with
// native multipath the first controller the subsystem (nvme-subsysY) lists.
std::optional<fs::path> controller_dir(const fs::path& ns_dir, std::string& reason) {
    const fs::path parent = ns_dir.parent_path();
    const std::string pname = parent.filename().string();
    if (controller_number(pname)) return parent;
    if (pname.starts_with("nvme-subsys")) {
        std::optional<std::pair<unsigned, std::string>> first;
        for (const auto& e : entries(parent))
            if (auto n = controller_number(e); n && (!first || *n < first->first)) first = {*n, e};
        std::error_code ec;
        if (first) {
            fs::path dir = fs::canonical(parent / first->second, ec);
            if (!ec) return dir;
        }
    }
    reason = "namespace " + ns_dir.filename().string() + ": no controller found above it in " +
             parent.string();
    return std::nullopt;
}

// temp1_input of the controller's hwmon device: under the controller
// (kernels that register hwmon on it) or under its PCI device (older ones).
std::string hwmon_temperature(const fs::path& ctrl_dir) {
    for (const fs::path& base : {ctrl_dir, ctrl_dir / "device" / "hwmon"}) {
        for (const auto& e : entries(base)) {
            if (!e.starts_with("hwmon")) continue;
            const fs::path dir = base / e;
            std::error_code ec;
            if (first_line(dir / "name") == "nvme" && fs::exists(dir / "temp1_input", ec))
                return (dir / "temp1_input").string();
        }
    }
    return "";
}

}  // namespace

ControllerLookup find_nvme_controller_of(unsigned major, unsigned minor,
                                         const std::string& sysfs_root) {
    ControllerLookup out;
    const std::string what = "block device " + devno_text(major, minor);
    if (major == 0) {
        out.reason = "device " + devno_text(major, minor) +
                     " is not a block device (tmpfs, overlayfs, btrfs, NFS...)";
        return out;
    }
    std::error_code ec;
    const fs::path link = fs::path(sysfs_root) / "dev" / "block" / devno_text(major, minor);
    const fs::path dir = fs::canonical(link, ec);
    if (ec) {
        out.reason = what + ": " + link.string() + ": " + ec.message();
        return out;
    }
    const auto ns = namespace_dir(dir, what, out.reason);
    if (!ns) return out;
    const auto ctrl = controller_dir(*ns, out.reason);
    if (!ctrl) return out;
    NvmeController c;
    c.name = ctrl->filename().string();
    c.namespace_name = ns->filename().string();
    c.device = "/dev/" + c.name;
    c.namespace_device = "/dev/" + c.namespace_name;
    c.sysfs_dir = ctrl->string();
    c.temperature_input = hwmon_temperature(*ctrl);
    out.controller = std::move(c);
    return out;
}

ControllerLookup find_nvme_controller(const std::string& target, const std::string& sysfs_root) {
    struct stat st {};
    ControllerLookup out;
    if (::stat(target.c_str(), &st) != 0) {
        out.reason = target + ": " + std::strerror(errno);
        return out;
    }
    const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        out.reason = target + ": not a file, directory or block device";
        return out;
    }
    out = find_nvme_controller_of(::major(dev), ::minor(dev), sysfs_root);
    if (!out.controller) out.reason = target + ": " + out.reason;
    return out;
}

std::optional<double> read_temperature_celsius(const std::string& temp_input) {
    sys::UniqueFd fd(::open(temp_input.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return std::nullopt;
    char buf[32];
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    long millidegrees = 0;
    auto [end, ec] = std::from_chars(buf, buf + n, millidegrees);
    if (ec != std::errc() || end == buf) return std::nullopt;
    return static_cast<double>(millidegrees) / 1000;
}

}  // namespace ds::nvme
