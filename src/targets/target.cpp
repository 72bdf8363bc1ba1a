#include "targets/target.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "io/aligned_buffer.h"
#include "model/errors.h"
#include "pattern/unit.h"
#include "sys/errno_text.h"
#include "sys/memory.h"
#include "sys/mountinfo.h"
#include "sys/signals.h"
#include "sys/system_tree.h"
#include "targets/atomic_facts.h"
#include "targets/device_signature.h"
#include "targets/ownership.h"
#include "targets/raw_device.h"
#include "targets/state_file.h"
#include "targets/target_lock.h"
#include "units/diag.h"
#include "units/units.h"
#include "units/utf8.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::sys;

namespace {

using sys::errno_text;

// Filesystem type and source device of the mount holding `dir`: matched by
// mount id (statx), which also finds btrfs subvolumes whose st_dev is an
// anonymous device, else by device number.
void read_mount_info(const std::string& dir, TargetInfo& info) {
    struct statx stx {};
    std::optional<std::uint64_t> id;
    if (::statx(AT_FDCWD, dir.c_str(), 0, STATX_MNT_ID, &stx) == 0 && (stx.stx_mask & STATX_MNT_ID))
        id = stx.stx_mnt_id;
    struct stat st {};
    if (!id && ::stat(dir.c_str(), &st) != 0) return;
    const auto table = sys::read_mountinfo();
    if (!table) return;
    if (const sys::MountEntry* m = sys::find_mount(*table, id, st.st_dev)) {
        info.filesystem = m->fstype;
        info.device = m->source;
    }
}

// Logical block size of the block device holding a filesystem (sysfs;
// partitions have no queue/ of their own).  0 when unknown.
std::uint32_t logical_block_size(dev_t dev) {
    if (major(dev) == 0) return 0;  // tmpfs, overlay, btrfs subvolume: no single device
    const std::string base = system_tree().sys_path("dev/block/" + std::to_string(major(dev)) +
                                                    ":" + std::to_string(minor(dev)));
    for (const char* rel : {"/queue/logical_block_size", "/../queue/logical_block_size"}) {
        std::ifstream f(base + rel);
        std::uint32_t v = 0;
        if (f >> v && v) return v;
    }
    return 0;
}

// A file at one of our names may be replaced when it is a plain file of
// ours that starts with a drivestress unit header (a leftover of an
// earlier run, whatever instant that run died at).
std::string replaceable_leftover(int fd) {
    return not_our_data_file(fd, {});
}

bool ends_with(const std::string& s, const char* tail) {
    const std::size_t n = std::strlen(tail);
    return s.size() > n && s.compare(s.size() - n, n, tail) == 0;
}

bool under(const std::string& path, const char* root) {
    std::size_t n = std::strlen(root);
    return path.compare(0, n, root) == 0 && (path.size() == n || path[n] == '/');
}

}  // namespace

Target::Target(const RunConfig& cfg, std::uint64_t extra_bytes)
    : file_bytes_(cfg.file_bytes),
      unit_bytes_(cfg.rand_block),
      unit_option_(cfg.sweep && cfg.sweep->param == SweepParam::rand_block ? "--sweep rand-block"
                                                                           : "--rand-block"),
      atomic_sizes_(cfg.atomic ? model::write_sizes(cfg) : std::vector<model::WriteSize>{}),
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
        info_.path = dev;
        info_.filesystem = "raw device";
        info_.free_bytes = bytes;
        info_.previous_contents = device_signatures(dev);  // read before anything is written
        atomic_ = raw_atomic_promise(dev, system_tree().sys);
        check_atomic(cfg.file_bytes);
        if (cfg.trims()) trim_promise_ = raw_device_trim_promise(dev);
        for (unsigned i = 0; i < cfg.files; ++i)
            paths_.push_back(dev);
        return;
    }
    check_directory(cfg);
    check_names(cfg);
    check_space(cfg, extra_bytes);
    sweep_leftovers();
    emergency_.resize(names_.size());
}

void Target::check_directory(const RunConfig& cfg) {
    const std::string& t = cfg.target;
    if (t.empty()) throw SetupError("target: empty path");
    struct stat st {};
    std::string dir = t, prefix;
    if (::stat(t.c_str(), &st) == 0) {
        if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
            throw SetupError("target " + t + ": is a " +
                             (S_ISBLK(st.st_mode) ? "block" : "character") +
                             " device; raw devices are refused to protect their data "
                             "(--raw-device tests a whole device)");
        if (!S_ISDIR(st.st_mode))
            throw SetupError("target " + t + ": exists and is not a directory");
    } else if (errno != ENOENT || !cfg.target_may_be_prefix || t.back() == '/') {
        // A typo must not move the test to another drive: only --path names
        // a prefix.
        throw SetupError("target " + t + ": " + errno_text(errno) +
                         (errno == ENOENT ? " (create the directory, or give --path PREFIX for "
                                            "files named PREFIX<n>.dat)"
                                          : ""));
    } else {
        auto slash = t.rfind('/');
        dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : t.substr(0, slash));
        prefix = t.substr(slash == std::string::npos ? 0 : slash + 1);
    }
    char real[PATH_MAX];
    if (!::realpath(dir.c_str(), real)) throw SetupError("target " + t + ": " + errno_text(errno));
    info_.directory = real;
    info_.prefix = !prefix.empty();
    info_.path = prefix.empty() ? info_.directory
                                : info_.directory + (info_.directory == "/" ? "" : "/") + prefix;
    const std::string& d = info_.directory;
    dir_.reset(::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir_.valid()) throw SetupError("target " + t + ": " + d + ": " + errno_text(errno));

    struct statfs sfs {};
    if (::fstatfs(dir_.get(), &sfs) != 0)
        throw SetupError("target " + t + ": statfs: " + errno_text(errno));
    // Kernel interfaces are not storage, whatever is mounted there (here
    // /sys/fs/cgroup may be a tmpfs).
    if (under(d, "/proc") || under(d, "/sys") || sfs.f_type == PROC_SUPER_MAGIC ||
        sfs.f_type == SYSFS_MAGIC || sfs.f_type == DEBUGFS_MAGIC ||
        sfs.f_type == CGROUP_SUPER_MAGIC || sfs.f_type == CGROUP2_SUPER_MAGIC)
        throw SetupError("target " + t + ": " + d + " is a kernel pseudo-filesystem, not storage");
    info_.in_memory = sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC;
    if (sfs.f_flags & ST_RDONLY)
        throw SetupError("target " + t + ": " + d + " is on a read-only filesystem");
    if (::faccessat(dir_.get(), ".", W_OK | X_OK, AT_EACCESS) != 0)
        throw SetupError("target " + t + ": directory " + d +
                         " is not writable: " + errno_text(errno));
    // One run per directory: two would replace and remove each other's files.
    lock_ = TargetLock::acquire(dir_.get(), d);
    read_mount_info(d, info_);
    state_path_ =
        info_.prefix ? info_.path + ".state" : d + (d == "/" ? "" : "/") + "drivestress.state";
}

// Files a --keep run left for --verify-only are evidence: never opened,
// whichever state file of this directory names them (another prefix reaches
// the same names) and under whatever name (a hard link).
void Target::refuse_kept_names() {
    kept_ = kept_files(dir_.get(), info_.directory, state_path_.substr(state_path_.rfind('/') + 1));
    for (std::size_t i = 0; i < names_.size(); ++i) {
        struct stat id {};
        const bool exists = ::fstatat(dir_.get(), names_[i].c_str(), &id, AT_SYMLINK_NOFOLLOW) == 0;
        for (const auto& k : kept_)
            if (names_[i] == k.name ||
                (exists && k.exists && id.st_dev == k.dev && id.st_ino == k.ino))
                throw SetupError(paths_[i] + ": kept by the --keep run of " + k.state +
                                 kept_advice(k.state, kept_, info_.directory));
    }
}

std::string Target::stem() const {
    return info_.prefix ? info_.path.substr(info_.path.rfind('/') + 1)
                        : std::string("drivestress-");
}

void Target::check_names(const RunConfig& cfg) {
    const std::string base = stem();
    for (unsigned i = 0; i < cfg.files; ++i) {
        names_.push_back(base + std::to_string(i) + ".dat");
        paths_.push_back(info_.directory + (info_.directory == "/" ? "" : "/") + names_.back());
        if (paths_.back().size() >= PATH_MAX || names_.back().size() > NAME_MAX - 24)
            throw SetupError("target " + cfg.target + ": path too long: " + paths_.back());
    }
    refuse_kept_names();
    const std::string state_name = state_path_.substr(state_path_.rfind('/') + 1);
    struct stat st {};
    if (::fstatat(dir_.get(), state_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ||
        errno != ENOENT) {
        if (!has_state_magic(state_path_)) {
            // Not a state file: nothing of ours, unless we are to write one.
            if (cfg.keep)
                throw SetupError(state_path_ +
                                 ": exists and is not a drivestress state file; refusing to "
                                 "replace it");
        } else {
            if (cfg.keep)
                throw SetupError(state_path_ + ": the state file of an earlier --keep run" +
                                 kept_advice(state_path_, kept_, info_.directory));
        }
    }
    // A result file that is one of the run's own would overwrite it (with
    // --keep, the evidence).
    for (const auto& [option, out] : cfg.reserved_paths) {
        auto slash = out.rfind('/');
        std::string dir = slash == std::string::npos ? "." : out.substr(0, slash ? slash : 1);
        char real[PATH_MAX];
        if (!::realpath(dir.c_str(), real)) continue;  // checked when written
        std::string abs = std::string(real) + (std::string(real) == "/" ? "" : "/") +
                          out.substr(slash == std::string::npos ? 0 : slash + 1);
        if (abs == state_path_ || std::find(paths_.begin(), paths_.end(), abs) != paths_.end())
            throw SetupError(option + " " + out +
                             ": is one of the run's own files; give another path");
    }
    // Whatever is at our names: only our own leftovers are replaced.  (The
    // creation checks again through a descriptor; this is the early, clear
    // refusal before anything is written.)
    for (std::size_t i = 0; i < names_.size(); ++i) {
        if (::fstatat(dir_.get(), names_[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT) continue;
            throw SetupError(paths_[i] + ": " + errno_text(errno));
        }
        std::string why = S_ISLNK(st.st_mode)    ? "is a symbolic link"
                          : !S_ISREG(st.st_mode) ? "is not a regular file"
                                                 : "";
        if (why.empty()) {
            sys::UniqueFd fd(::openat(dir_.get(), names_[i].c_str(),
                                      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
            why = fd.valid() ? replaceable_leftover(fd.get()) : errno_text(errno);
        }
        if (!why.empty()) throw SetupError(paths_[i] + ": " + why + "; refusing to replace it");
        info_.reclaimable_bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
    }
}

// What runs killed with -9 leave, removed by the next run in the directory
// when they are provably drivestress's and nobody's evidence: files at the
// names a run with our stem and another --files count makes (exactly
// `<stem><n>.dat`, n in canonical decimal, holding unit 0 of file n; a
// file of another --path prefix is left to a run of that prefix), and new
// files under their hidden temporary name
// (targets/owned_file.h): ".<name>.dat.<16 hex>.new".  Each is a plain file
// of ours (our user, one link) that starts with a drivestress unit header,
// checked through a descriptor opened without following links, and named
// by no state file, by name or identity.  Nobody else's run is in the
// directory: we hold its lock.  Anything else is left alone.
void Target::sweep_leftovers() {
    std::vector<std::string> removed;
    for (const auto& n : directory_entries(dir_.get())) {
        const bool hidden = n.size() > 1 + 4 + 17 + 4 && n[0] == '.' && ends_with(n, ".new") &&
                            n[n.size() - 21] == '.' &&
                            n.find_first_not_of("0123456789abcdef", n.size() - 20) == n.size() - 4;
        const std::string shown = hidden ? n.substr(1, n.size() - 22) : n;
        const long index = data_file_index(shown, stem());
        if (index < 0 || std::find(names_.begin(), names_.end(), n) != names_.end()) continue;
        if (std::any_of(kept_.begin(), kept_.end(), [&](const KeptFile& k) { return k.name == n; }))
            continue;
        const CheckedFile c = check_data_file(dir_.get(), n, {static_cast<std::uint64_t>(index)});
        if (!c.ours()) continue;
        if (std::any_of(kept_.begin(), kept_.end(), [&](const KeptFile& k) {
                return k.exists && k.dev == c.st.st_dev && k.ino == c.st.st_ino;
            }))
            continue;
        if (remove_checked(dir_.get(), n, c.st)) removed.push_back(n);
    }
    if (removed.empty()) return;
    std::string list;
    for (const auto& n : removed)
        list += (list.empty() ? "" : ", ") + n;
    units::info(units::printf_string("%s: removed %zu leftover file%s of earlier runs: %s",
                                     info_.directory.c_str(), removed.size(),
                                     removed.size() == 1 ? "" : "s", list.c_str()));
}

void Target::check_space(const RunConfig& cfg, std::uint64_t extra_bytes) {
    const std::string& d = info_.directory;
    struct statvfs vfs {};
    if (::fstatvfs(dir_.get(), &vfs) != 0)
        throw SetupError("target " + cfg.target + ": statvfs: " + errno_text(errno));
    info_.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
    std::string where = "free space in " + d;
    if (info_.in_memory) {
        // tmpfs with size= above RAM (or ramfs, which reports nothing)
        // would take the machine's memory: count what it really has.
        const std::uint64_t mem = available_memory_bytes();
        if (info_.free_bytes == 0 || mem < info_.free_bytes) {
            info_.free_bytes = mem;
            where = "memory for files on " + d + " (" +
                    (info_.filesystem.empty() ? std::string("in RAM") : info_.filesystem) +
                    ": MemAvailable + SwapFree)";
        }
    }
    std::uint64_t need = 0;
    if (__builtin_mul_overflow(cfg.file_bytes, std::uint64_t{cfg.files}, &need) ||
        __builtin_add_overflow(need, extra_bytes, &need))
        throw SetupError("not enough " + where + ": " + std::to_string(cfg.files) + " x " +
                         units::format_bytes(cfg.file_bytes) + " is more than 16 EiB");
    if (info_.free_bytes + info_.reclaimable_bytes < need)
        throw SetupError(
            "not enough " + where + ": need " +
            units::format_bytes_against(need, info_.free_bytes) + " (" + std::to_string(cfg.files) +
            " x " + units::format_bytes(cfg.file_bytes) +
            (extra_bytes ? " + " + units::format_bytes(extra_bytes) + " state file" : "") + "), " +
            units::format_bytes_against(info_.free_bytes, need) + " available");
}

Target::~Target() {
    if (!keep_) remove_files();
    clear_emergency_files(emergency_.data());
    set_files_kept(false);
}

void Target::open_raw_device() {
    const std::string& dev = paths_.front();
    // O_EXCL on a block device: the kernel refuses it while anything else
    // (a filesystem, swap, device-mapper) holds the device.
    int flags = O_RDWR | O_EXCL | O_CLOEXEC;
    int fd = ::open(dev.c_str(), flags | (want_direct_ ? O_DIRECT : 0));
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
    if (!direct_io_ && !atomic_sizes_.empty())
        throw SetupError("--atomic: " + words() + ": O_DIRECT refused, and RWF_ATOMIC needs it");
    int sector = 0;
    if (direct_io_ && ::ioctl(fd, BLKSSZGET, &sector) == 0 &&
        static_cast<std::uint32_t>(sector) > unit_bytes_)
        throw SetupError(
            unit_option_ + " " + units::format_size_option(unit_bytes_) + ": " + dev + " has " +
            std::to_string(sector) + "-byte logical sectors and O_DIRECT needs whole ones; use " +
            unit_option_ + " " + units::format_size_option(sector) + " or larger, or --buffered");
}

// O_DIRECT transfers must start and end on the target's alignment: a unit
// smaller than that fails every I/O with EINVAL, which must never look like
// a drive error.  Called on the first new file, before any I/O to it.
void Target::check_alignment(int fd) const {
    std::uint32_t align = 0;
    struct statx stx {};
    if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
        (stx.stx_mask & STATX_DIOALIGN)) {
        align = stx.stx_dio_offset_align;
        if (stx.stx_dio_mem_align > io::AlignedBuffer::kAlignment)
            throw SetupError("target " + info_.directory + ": O_DIRECT needs memory aligned to " +
                             std::to_string(stx.stx_dio_mem_align) +
                             " bytes, more than a page; use --buffered");
    } else {
        struct stat st {};
        if (::fstat(fd, &st) == 0) align = logical_block_size(st.st_dev);
    }
    if (align > unit_bytes_)
        throw SetupError(unit_option_ + " " + units::format_size_option(unit_bytes_) +
                         ": O_DIRECT on " + info_.directory + " (" + info_.filesystem + ") needs " +
                         std::to_string(align) + "-byte alignment; use " + unit_option_ + " " +
                         units::format_size_option(align) + " or larger, or --buffered");
}

void Target::check_atomic(std::uint64_t region_bytes) const {
    if (atomic_sizes_.empty()) return;
    const std::string why =
        model::atomic_refusal(atomic_, atomic_sizes_, file_bytes_, region_bytes);
    if (!why.empty()) throw SetupError("--atomic: " + words() + ": " + why);
}

std::string Target::words() const {
    if (raw_) return "--raw-device " + info_.path;
    std::string fs = info_.filesystem.empty() ? std::string("?") : info_.filesystem;
    if (!info_.device.empty() && info_.device != info_.filesystem) fs += " on " + info_.device;
    return "target " + info_.directory + " (" + fs + ")";
}

void Target::create_files(std::uint64_t run_id, std::uint64_t data_id, pattern::UnitShape shape) {
    if (raw_) {
        if (!raw_fd_.valid()) open_raw_device();
        return;
    }
    // The marker: unit 0 as this run would write it, so the file is
    // recognisably ours from the instant it has a name.
    io::AlignedBuffer marker(unit_bytes_);
    for (std::size_t i = 0; i < names_.size(); ++i) {
        auto prepare = [&](int fd) {
            if (i == 0 && direct_io_) check_alignment(fd);
            if (i == 0) {  // before the first write: the promise, and --atomic's check
                atomic_ = file_atomic_promise(fd, system_tree().sys);
                check_atomic(0);
            }
            int ret = ::fallocate(fd, 0, 0, static_cast<off_t>(file_bytes_));
            if (ret != 0 && (errno == EOPNOTSUPP || errno == ENOSYS))
                ret = ::ftruncate(fd, static_cast<off_t>(file_bytes_));
            if (ret != 0) {
                int err = errno;
                if (err == ENOSPC || err == EDQUOT)
                    throw SetupError(paths_[i] + ": no space left for " +
                                     units::format_bytes(file_bytes_) + " (" + errno_text(err) +
                                     ")");
                throw SetupError(paths_[i] + ": cannot size to " +
                                 units::format_bytes(file_bytes_) + ": " + errno_text(err));
            }
            pattern::fill_unit(marker.span(),
                               {run_id, static_cast<std::uint32_t>(i), 0,
                                pattern::next_generation(0), unit_bytes_, data_id, shape});
            if (::pwrite(fd, marker.data(), unit_bytes_, 0) != static_cast<ssize_t>(unit_bytes_))
                throw SetupError(paths_[i] + ": cannot write its first unit: " + errno_text(errno));
        };
        int refused = 0;
        OwnedFile f =
            OwnedFile::create(dir_.get(), names_[i], paths_[i], direct_io_ ? O_DIRECT : 0, prepare,
                              replaceable_leftover, direct_io_ ? &refused : nullptr);
        if (refused) {
            if (!atomic_sizes_.empty())
                throw SetupError("--atomic: " + words() +
                                 ": O_DIRECT refused by the filesystem, and RWF_ATOMIC needs it");
            // The filesystem refuses O_DIRECT: buffered, with eviction.
            direct_io_ = false;
            direct_io_note_ =
                "O_DIRECT refused by " +
                (info_.filesystem.empty() ? std::string("the filesystem") : info_.filesystem) +
                "; using buffered I/O with page-cache eviction";
            --i;
            continue;
        }
        files_.push_back(std::move(f));
        register_emergency();
    }
    if (!want_direct_) direct_io_ = false;
}

void Target::register_emergency() noexcept {
    if (keep_) {  // with --keep not even a second signal removes them
        set_files_kept(true);
        return;
    }
    // Reserved in full by the constructor: the array never moves while the
    // signal handler may read it.
    const std::size_t i = files_.size() - 1;
    emergency_[i] = {dir_.get(), names_[i].c_str(), files_[i].dev(), files_[i].ino()};
    set_emergency_files(emergency_.data(), files_.size());
}

void Target::remove_files() noexcept {
    if (raw_) {  // never unlink a device node
        raw_fd_.reset();
        return;
    }
    clear_emergency_files(emergency_.data());
    for (std::size_t i = 0; i < files_.size(); ++i) {
        // Say so when a file was taken away during the run, or cannot be
        // removed (the filesystem went read-only): someone should know.
        if (int err = files_[i].remove())
            units::warning(paths_[i] + ": " +
                           (err == ENOENT ? "removed or replaced by someone else during the run"
                                          : "cannot remove: " + errno_text(err)));
    }
    files_.clear();
}

std::vector<std::pair<std::size_t, int>> Target::drop_caches() const {
    std::vector<std::pair<std::size_t, int>> failed;
    if (raw_) {
        if (::fdatasync(raw_fd_.get()) != 0) failed.emplace_back(0, errno);
        ::posix_fadvise(raw_fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
        return failed;
    }
    for (std::size_t i = 0; i < files_.size(); ++i) {
        if (::fdatasync(files_[i].fd()) != 0) failed.emplace_back(i, errno);
        ::posix_fadvise(files_[i].fd(), 0, 0, POSIX_FADV_DONTNEED);
    }
    return failed;
}

}  // namespace ds::targets
