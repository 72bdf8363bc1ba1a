#include "run/target.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "pattern/unit.h"
#include "run/errors.h"
#include "run/raw_device.h"
#include "run/signals.h"
#include "units/units.h"

namespace ds::run {

namespace {

std::string errno_text(int err) {
    return std::strerror(err);
}

// Parent directory of a path prefix ("/a/b/pre" -> "/a/b", "pre" -> ".").
std::string parent_of(const std::string& prefix) {
    auto slash = prefix.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return prefix.substr(0, slash);
}

// Filesystem type and source device of the mount holding `dir`, from
// /proc/self/mountinfo (matched by device number).
void read_mount_info(const std::string& dir, TargetInfo& info) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return;
    std::string want = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    std::ifstream mi("/proc/self/mountinfo");
    std::string line;
    while (std::getline(mi, line)) {
        std::istringstream in(line);
        std::string id, parent, devno;
        in >> id >> parent >> devno;
        if (devno != want) continue;
        auto dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        std::istringstream tail(line.substr(dash + 3));
        tail >> info.filesystem >> info.device;
        // Keep scanning: a later mount of the same device (bind) says the same.
        break;
    }
}

// True when the file at `path` begins with a valid drivestress unit header,
// i.e. it is a leftover of an earlier run that may be replaced.
bool starts_with_unit_header(const std::string& path) {
    io::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid()) return false;
    std::array<std::byte, pattern::kHeaderBytes> head{};
    if (::pread(fd.get(), head.data(), head.size(), 0) != static_cast<ssize_t>(head.size()))
        return false;
    return pattern::parse_header(head).has_value();
}

}  // namespace

std::string Target::file_path(const std::string& target, bool target_is_dir, unsigned index) {
    std::string base = target;
    if (target_is_dir) {
        if (base.empty() || base.back() != '/') base += '/';
        base += "drivestress-";
    }
    return base + std::to_string(index) + ".dat";
}

Target::Target(const RunConfig& cfg)
    : file_bytes_(cfg.file_bytes),
      want_direct_(!cfg.buffered),
      direct_io_(!cfg.buffered),
      keep_(cfg.keep) {
    if (!cfg.raw_device.empty()) {
        // Checked here, right before the run, not only when parsing: a
        // preset runs several tests and the device may be mounted meanwhile.
        raw_ = true;
        const std::string& dev = cfg.raw_device;
        check_raw_device_unused(dev);
        std::uint64_t bytes = block_device_bytes(dev);
        std::uint64_t need = 0;
        if (__builtin_mul_overflow(cfg.file_bytes, std::uint64_t{cfg.files}, &need) || need > bytes)
            throw SetupError("--raw-device " + dev + ": regions larger than the device");
        info_.device = dev;
        info_.filesystem = "raw device";
        info_.free_bytes = bytes;
        for (unsigned i = 0; i < cfg.files; ++i)
            paths_.push_back(dev);
        fds_.resize(paths_.size());
        return;
    }
    const std::string& t = cfg.target;
    if (t.empty()) throw SetupError("target: empty path");
    struct stat st {};
    bool is_dir = false;
    if (::stat(t.c_str(), &st) == 0) {
        if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
            throw SetupError("target " + t + ": is a " +
                             (S_ISBLK(st.st_mode) ? "block" : "character") +
                             " device; raw devices are refused to protect their data");
        if (!S_ISDIR(st.st_mode))
            throw SetupError("target " + t +
                             ": exists and is not a directory (give a directory or a new path "
                             "prefix)");
        is_dir = true;
        info_.directory = t;
    } else if (errno == ENOENT && t.back() == '/') {
        throw SetupError("target " + t + ": no such directory");
    } else if (errno == ENOENT) {
        info_.directory = parent_of(t);
        struct stat pst {};
        if (::stat(info_.directory.c_str(), &pst) != 0)
            throw SetupError("target " + t + ": directory " + info_.directory + ": " +
                             errno_text(errno));
        if (!S_ISDIR(pst.st_mode))
            throw SetupError("target " + t + ": " + info_.directory + " is not a directory");
    } else {
        throw SetupError("target " + t + ": " + errno_text(errno));
    }

    const std::string& dir = info_.directory;
    struct statfs sfs {};
    if (::statfs(dir.c_str(), &sfs) != 0)
        throw SetupError("target " + t + ": statfs: " + errno_text(errno));
    // Kernel interfaces are not storage, whatever is mounted there (here
    // /sys/fs/cgroup may be a tmpfs).
    char real[PATH_MAX];
    std::string canonical = ::realpath(dir.c_str(), real) ? real : dir;
    auto under = [&](const char* root) {
        std::size_t n = std::strlen(root);
        return canonical.compare(0, n, root) == 0 && (canonical.size() == n || canonical[n] == '/');
    };
    if (under("/proc") || under("/sys") || sfs.f_type == PROC_SUPER_MAGIC ||
        sfs.f_type == SYSFS_MAGIC || sfs.f_type == DEBUGFS_MAGIC ||
        sfs.f_type == CGROUP_SUPER_MAGIC || sfs.f_type == CGROUP2_SUPER_MAGIC)
        throw SetupError("target " + t + ": " + dir +
                         " is a kernel pseudo-filesystem, not storage");
    struct statvfs vfs {};
    if (::statvfs(dir.c_str(), &vfs) != 0)
        throw SetupError("target " + t + ": statvfs: " + errno_text(errno));
    if (vfs.f_flag & ST_RDONLY)
        throw SetupError("target " + t + ": " + dir + " is on a read-only filesystem");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw SetupError("target " + t + ": directory " + dir +
                         " is not writable: " + errno_text(errno));
    read_mount_info(dir, info_);

    // Files at our names: replace only our own leftovers, never anything else.
    std::uint64_t reclaimable = 0;
    for (unsigned i = 0; i < cfg.files; ++i) {
        std::string p = file_path(t, is_dir, i);
        if (p.size() >= PATH_MAX) throw SetupError("target " + t + ": path too long: " + p);
        struct stat fst {};
        if (::lstat(p.c_str(), &fst) == 0) {
            if (!S_ISREG(fst.st_mode) || !starts_with_unit_header(p))
                throw SetupError(
                    p + ": exists and is not a drivestress file; refusing to overwrite it");
            reclaimable += static_cast<std::uint64_t>(fst.st_blocks) * 512;
        } else if (errno != ENOENT) {
            throw SetupError(p + ": " + errno_text(errno));
        }
        paths_.push_back(std::move(p));
    }

    info_.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    std::uint64_t need = 0;
    if (__builtin_mul_overflow(cfg.file_bytes, std::uint64_t{cfg.files}, &need))
        throw SetupError("not enough free space in " + dir + ": " + std::to_string(cfg.files) +
                         " x " + units::format_bytes(cfg.file_bytes) + " is more than 16 EiB");
    if (info_.free_bytes + reclaimable < need)
        throw SetupError("not enough free space in " + dir + ": need " + units::format_bytes(need) +
                         " (" + std::to_string(cfg.files) + " x " +
                         units::format_bytes(cfg.file_bytes) + "), " +
                         units::format_bytes(info_.free_bytes) + " available");

    for (auto& p : paths_)
        c_paths_.push_back(p.c_str());
    fds_.resize(paths_.size());
}

Target::~Target() {
    if (!keep_) remove_files();
}

void Target::open_raw_device() {
    const std::string& dev = paths_.front();
    // O_EXCL on a block device: the kernel refuses it while anything else
    // (a filesystem, swap, device-mapper) holds the device.
    int flags = O_RDWR | O_EXCL | O_CLOEXEC;
    int fd = ::open(dev.c_str(), flags | (want_direct_ ? O_DIRECT : 0));
    // An io_uring ring of ours that just closed (the previous run of
    // --compare-backends or a preset) still holds the device until the
    // kernel finishes tearing it down asynchronously: wait up to 2 s.
    for (int i = 0; i < 100 && fd < 0 && errno == EBUSY; ++i) {
        ::usleep(20'000);
        fd = ::open(dev.c_str(), flags | (want_direct_ ? O_DIRECT : 0));
    }
    if (fd < 0 && errno == EINVAL && want_direct_) {
        direct_io_ = false;
        direct_io_note_ =
            "O_DIRECT refused by " + dev + "; using buffered I/O with page-cache eviction";
        fd = ::open(dev.c_str(), flags);
    }
    if (fd < 0 && errno == EBUSY)
        throw SetupError(
            "--raw-device " + dev +
            ": in use (the kernel refused an exclusive open); refusing to overwrite it");
    if (fd < 0) throw SetupError("--raw-device " + dev + ": cannot open: " + errno_text(errno));
    raw_fd_.reset(fd);
    if (!want_direct_) direct_io_ = false;
}

void Target::create_files() {
    if (raw_) {
        if (!raw_fd_.valid()) open_raw_device();
        return;
    }
    // With --keep not even a second signal removes them.
    if (!keep_) set_emergency_paths(c_paths_.data(), c_paths_.size());
    for (std::size_t i = 0; i < paths_.size(); ++i) {
        const std::string& p = paths_[i];
        // A leftover of an earlier run (checked in the constructor) is replaced.
        if (::unlink(p.c_str()) != 0 && errno != ENOENT)
            throw SetupError(p + ": cannot remove leftover file: " + errno_text(errno));
        int flags = O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW;
        int fd = ::open(p.c_str(), flags | (want_direct_ && direct_io_ ? O_DIRECT : 0), 0644);
        if (fd < 0 && errno == EINVAL && want_direct_ && direct_io_) {
            // The filesystem refuses O_DIRECT (the file may exist already:
            // O_CREAT ran before the check, and O_EXCL proved it is ours).
            direct_io_ = false;
            direct_io_note_ =
                "O_DIRECT refused by " +
                (info_.filesystem.empty() ? std::string("the filesystem") : info_.filesystem) +
                "; using buffered I/O with page-cache eviction";
            ::unlink(p.c_str());
            fd = ::open(p.c_str(), flags, 0644);
        }
        if (fd < 0) throw SetupError(p + ": cannot create: " + errno_text(errno));
        fds_[i].reset(fd);
        created_ = i + 1;
        if (!keep_) set_emergency_created(created_);
        int ret = ::fallocate(fd, 0, 0, static_cast<off_t>(file_bytes_));
        if (ret != 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
            ret = ::ftruncate(fd, static_cast<off_t>(file_bytes_));
        if (ret != 0) {
            int err = errno;
            if (err == ENOSPC || err == EDQUOT)
                throw SetupError(p + ": no space left for " + units::format_bytes(file_bytes_) +
                                 " (" + errno_text(err) + ")");
            throw SetupError(p + ": cannot size to " + units::format_bytes(file_bytes_) + ": " +
                             errno_text(err));
        }
    }
    if (!want_direct_) direct_io_ = false;
}

void Target::remove_files() noexcept {
    if (raw_) {  // never unlink a device node
        raw_fd_.reset();
        return;
    }
    set_emergency_created(0);
    for (std::size_t i = 0; i < created_; ++i) {
        fds_[i].reset();
        // Say so when a file was taken away during the run, or cannot be
        // removed (the filesystem went read-only): someone should know.
        if (::unlink(paths_[i].c_str()) != 0)
            std::fprintf(stderr, "drivestress: %s: %s\n", paths_[i].c_str(),
                         errno == ENOENT ? "removed by someone else during the run"
                                         : ("cannot remove: " + errno_text(errno)).c_str());
    }
    created_ = 0;
}

std::vector<std::pair<std::size_t, int>> Target::drop_caches() const {
    std::vector<std::pair<std::size_t, int>> failed;
    if (raw_) {
        if (::fdatasync(raw_fd_.get()) != 0) failed.emplace_back(0, errno);
        ::posix_fadvise(raw_fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
        return failed;
    }
    for (std::size_t i = 0; i < created_; ++i) {
        if (::fdatasync(fds_[i].get()) != 0) failed.emplace_back(i, errno);
        ::posix_fadvise(fds_[i].get(), 0, 0, POSIX_FADV_DONTNEED);
    }
    return failed;
}

}  // namespace ds::run
