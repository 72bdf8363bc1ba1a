#include "targets/atomic_facts.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>

#include "sys/errno_text.h"

namespace ds::targets {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "atomic_write_";

std::optional<std::uint64_t> read_number(const fs::path& p) {
    std::ifstream in(p);
    std::string text;
    if (!std::getline(in, text)) return std::nullopt;
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end == text.data()) return std::nullopt;
    return v;
}

// The disk's directory for a block device's: a partition's parent.
std::optional<fs::path> disk_dir(unsigned major, unsigned minor, const std::string& root) {
    std::error_code ec;
    fs::path dir = fs::canonical(
        fs::path(root) / "dev" / "block" / (std::to_string(major) + ":" + std::to_string(minor)),
        ec);
    if (ec) return std::nullopt;
    if (fs::exists(dir / "partition", ec)) dir = dir.parent_path();
    return dir;
}

}  // namespace

std::optional<model::QueueAtomicLimits> read_queue_atomic(unsigned major, unsigned minor,
                                                          const std::string& sysfs_root,
                                                          std::string& note) {
    const std::string devno = std::to_string(major) + ":" + std::to_string(minor);
    if (major == 0) {
        note = "no block device under the filesystem";
        return std::nullopt;
    }
    const auto disk = disk_dir(major, minor, sysfs_root);
    const fs::path queue = disk ? *disk / "queue" : fs::path();
    const auto unit_max = disk ? read_number(queue / "atomic_write_unit_max_bytes") : std::nullopt;
    if (!unit_max) {
        note = "block device " + devno + ": no queue/atomic_write_unit_max_bytes in sysfs";
        return std::nullopt;
    }
    model::QueueAtomicLimits q;
    q.device = disk->filename().string();
    q.unit_max = static_cast<std::uint32_t>(*unit_max);
    q.unit_min =
        static_cast<std::uint32_t>(read_number(queue / "atomic_write_unit_min_bytes").value_or(0));
    q.max_bytes = read_number(queue / "atomic_write_max_bytes").value_or(0);
    q.boundary = read_number(queue / "atomic_write_boundary_bytes").value_or(0);
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(queue, ec)) {
        const std::string name = e.path().filename().string();
        if (!name.starts_with(kPrefix) || name == "atomic_write_unit_max_bytes" ||
            name == "atomic_write_unit_min_bytes" || name == "atomic_write_max_bytes" ||
            name == "atomic_write_boundary_bytes")
            continue;
        if (auto v = read_number(e.path())) q.other.emplace_back(name, *v);
    }
    std::sort(q.other.begin(), q.other.end());
    return q;
}

model::AtomicPromise file_atomic_promise(int fd, const std::string& sysfs_root) {
    model::AtomicPromise p;
    sys::StatxAtomic s;
    if (sys::read_statx_atomic(fd, s, p.statx_error)) p.statx = s;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        p.queue_note = "fstat: " + sys::errno_text(errno);
        return p;
    }
    p.queue = read_queue_atomic(major(st.st_dev), minor(st.st_dev), sysfs_root, p.queue_note);
    return p;
}

model::AtomicPromise raw_atomic_promise(const std::string& device, const std::string& sysfs_root) {
    model::AtomicPromise p;
    p.raw = true;
    struct stat st {};
    if (::stat(device.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
        p.queue_note = device + ": not a block device";
        return p;
    }
    p.queue = read_queue_atomic(major(st.st_rdev), minor(st.st_rdev), sysfs_root, p.queue_note);
    return p;
}

}  // namespace ds::targets
