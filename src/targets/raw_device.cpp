#include "targets/raw_device.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "model/errors.h"
#include "sys/mountinfo.h"
#include "sys/system_tree.h"
#include "sys/unique_fd.h"
#include "units/units.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

std::string prefix(const std::string& path, const char* option = "--raw-device") {
    return std::string(option) + " " + path + ": ";
}

dev_t block_rdev(const std::string& path, const char* option = "--raw-device") {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw SetupError(prefix(path, option) + std::strerror(errno));
    if (!S_ISBLK(st.st_mode)) throw SetupError(prefix(path, option) + "is not a block device");
    return st.st_rdev;
}

std::string devno_text(dev_t d) {
    return std::to_string(major(d)) + ":" + std::to_string(minor(d));
}

std::string read_first_line(const std::string& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// One block device of interest: the device itself or one of its partitions.
struct Node {
    dev_t dev;
    std::string name;    // kernel name, e.g. "loop0p1"
    std::string sysdir;  // /sys/dev/block/M:m resolved
};

// The device and its partitions, from sysfs.
std::vector<Node> device_and_partitions(const std::string& path, dev_t dev) {
    std::vector<Node> nodes;
    std::string link = sys::system_tree().sys_path("dev/block/" + devno_text(dev));
    char real[PATH_MAX];
    if (!::realpath(link.c_str(), real))
        throw SetupError(prefix(path) + "not in /sys/dev/block (" + std::strerror(errno) +
                         "); cannot prove it is unused");
    std::string dir = real;
    nodes.push_back({dev, dir.substr(dir.rfind('/') + 1), dir});
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d)) {
            std::string sub = dir + "/" + e->d_name;
            if (e->d_name[0] == '.' || ::access((sub + "/partition").c_str(), F_OK) != 0) continue;
            unsigned ma = 0, mi = 0;
            char colon = 0;
            std::istringstream in(read_first_line(sub + "/dev"));
            if (in >> ma >> colon >> mi && colon == ':')
                nodes.push_back({makedev(ma, mi), e->d_name, sub});
        }
        ::closedir(d);
    }
    return nodes;
}

const Node* find(const std::vector<Node>& nodes, dev_t dev) {
    for (const auto& n : nodes)
        if (n.dev == dev) return &n;
    return nullptr;
}

// The block device a path names, if it is one.
bool rdev_of(const std::string& path, dev_t& out) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return false;
    out = st.st_rdev;
    return true;
}

}  // namespace

bool same_block_device(const std::string& a, const std::string& b) {
    return block_rdev(a) == block_rdev(b, "--destroy-data");
}

std::uint64_t block_device_bytes(const std::string& path) {
    block_rdev(path);
    sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) throw SetupError(prefix(path) + "cannot open: " + std::strerror(errno));
    std::uint64_t bytes = 0;
    if (::ioctl(fd.get(), BLKGETSIZE64, &bytes) != 0)
        throw SetupError(prefix(path) + "cannot read its size: " + std::strerror(errno));
    return bytes;
}

std::uint64_t raw_region_bytes(const std::string& path, std::uint64_t device_bytes, unsigned files,
                               std::uint64_t requested, std::uint64_t align) {
    std::uint64_t region = requested;
    if (!region) region = device_bytes / files / align * align;
    if (region == 0)
        throw SetupError(prefix(path) + units::format_bytes_against(device_bytes, files * align) +
                         " is too small for " + std::to_string(files) + " regions of at least " +
                         units::format_bytes(align) + " (the sequential block)");
    std::uint64_t need = 0;
    const bool overflow = __builtin_mul_overflow(region, std::uint64_t{files}, &need);
    if (overflow || need > device_bytes) {
        // Exact bytes where rounding would show the regions fitting.
        const bool hidden = !overflow && units::format_bytes_against(need, device_bytes) !=
                                             units::format_bytes(need);
        throw SetupError(prefix(path) + std::to_string(files) + " x --size " +
                         units::format_bytes(region) +
                         (hidden ? " (" + std::to_string(need) + " bytes in all)" : "") +
                         " is more than the device's " +
                         (hidden ? units::format_bytes_against(device_bytes, need)
                                 : units::format_bytes(device_bytes)));
    }
    return region;
}

namespace {

std::string dev_name(const Node& n) {
    return "/dev/" + n.name;
}

// The device's node (whole device or a partition) a mount is of, or nullptr.
const Node* mounted_node(const std::vector<Node>& nodes, const sys::MountEntry& m) {
    const Node* n = find(nodes, m.dev);
    dev_t src{};
    // btrfs and others report an anonymous device number: the source counts too.
    if (!n && !m.source.empty() && m.source[0] == '/' && rdev_of(m.source, src))
        n = find(nodes, src);
    return n;
}

void refuse_if_mounted(const std::string& path, const std::vector<Node>& nodes) {
    struct stat root {};
    if (::stat("/", &root) == 0)
        if (const Node* n = find(nodes, root.st_dev))
            throw SetupError(prefix(path) + dev_name(*n) +
                             " backs the root filesystem; refusing to overwrite it");

    const auto table = sys::read_mountinfo();
    if (!table)
        throw SetupError(prefix(path) + "cannot read /proc/self/mountinfo to prove it is unused");
    for (const sys::MountEntry& m : *table) {
        if (const Node* n = mounted_node(nodes, m)) {
            const std::string& where = m.mount_point;
            if (where == "/")
                throw SetupError(prefix(path) + dev_name(*n) +
                                 " backs the root filesystem; refusing to overwrite it");
            throw SetupError(prefix(path) + dev_name(*n) + " is mounted on " + where +
                             "; refusing to overwrite it");
        }
    }
}

void refuse_if_swap(const std::string& path, const std::vector<Node>& nodes) {
    std::ifstream swaps(sys::system_tree().proc_path("swaps"));
    std::string line;
    std::getline(swaps, line);  // header
    while (std::getline(swaps, line)) {
        std::istringstream in(line);
        std::string file;
        in >> file;
        dev_t src{};
        if (rdev_of(sys::unescape_mount_field(file), src))
            if (const Node* n = find(nodes, src))
                throw SetupError(prefix(path) + dev_name(*n) +
                                 " is active swap; refusing to overwrite it");
    }
}

// A loop device over this device (or a partition) does not show as a
// holder: its backing file does.
void refuse_if_loop_backing(const std::string& path, const std::vector<Node>& nodes) {
    const std::string block = sys::system_tree().sys_path("block");
    DIR* d = ::opendir(block.c_str());
    if (!d) return;
    std::string user;
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.' || !user.empty()) continue;
        std::string backing = read_first_line(block + "/" + e->d_name + "/loop/backing_file");
        dev_t src{};
        if (!backing.empty() && rdev_of(backing, src))
            if (const Node* n = find(nodes, src))
                user = dev_name(*n) + " backs loop device /dev/" + e->d_name;
    }
    ::closedir(d);
    if (!user.empty()) throw SetupError(prefix(path) + user + "; refusing to overwrite it");
}

void refuse_if_held(const std::string& path, const std::vector<Node>& nodes) {
    for (const auto& n : nodes) {
        std::string holders;
        if (DIR* d = ::opendir((n.sysdir + "/holders").c_str())) {
            while (dirent* e = ::readdir(d))
                if (e->d_name[0] != '.')
                    holders += (holders.empty() ? "" : ", ") + std::string(e->d_name);
            ::closedir(d);
        }
        if (!holders.empty())
            throw SetupError(prefix(path) + dev_name(n) + " is held by " + holders +
                             " (device-mapper, md or LVM); refusing to overwrite it");
    }
}

}  // namespace

pattern::TrimPromise raw_device_trim_promise(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw SetupError(prefix(path, "--trim-pct") + std::strerror(errno));
    char real[PATH_MAX];
    const std::string link = sys::system_tree().sys_path("dev/block/" + devno_text(st.st_rdev));
    std::string queue;
    if (::realpath(link.c_str(), real)) {
        queue = std::string(real) + "/queue";
        // A partition's queue is its disk's.
        if (::access(queue.c_str(), F_OK) != 0) queue = std::string(real) + "/../queue";
    }
    const std::string max = queue.empty() ? "" : read_first_line(queue + "/discard_max_bytes");
    if (max.empty() || max == "0")
        throw SetupError(
            prefix(path, "--trim-pct") + "the device does not discard (" +
            (max.empty() ? "no queue/discard_max_bytes in sysfs" : "queue/discard_max_bytes is 0") +
            "); drop --trim-pct");
    // The block layer promises nothing about what a discarded block reads
    // back as (queue/discard_zeroes_data is 0 on every kernel since 4.12).
    return pattern::TrimPromise::unspecified;
}

void check_raw_device_unused(const std::string& path) {
    const dev_t dev = block_rdev(path);
    const std::vector<Node> nodes = device_and_partitions(path, dev);
    refuse_if_mounted(path, nodes);
    refuse_if_swap(path, nodes);
    refuse_if_loop_backing(path, nodes);
    refuse_if_held(path, nodes);
}

}  // namespace ds::targets
