#include "targets/target_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "model/errors.h"
#include "sys/mountinfo.h"
#include "sys/system_tree.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

// Where the lock files may go, best first.  Root's is a directory of
// root's under /run; a user's is under its runtime directory, or /tmp.
std::vector<std::string> lock_directory_candidates() {
    const uid_t uid = ::geteuid();
    std::vector<std::string> out;
    if (uid == 0) out.push_back("/run/drivestress");
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    if (uid != 0 && xdg && xdg[0] == '/') out.push_back(std::string(xdg) + "/drivestress");
    if (uid != 0) out.push_back("/run/user/" + std::to_string(uid) + "/drivestress");
    out.push_back("/tmp/drivestress-" + std::to_string(uid));
    return out;
}

// Why `st` is no directory only the owner controls ("" when it is one).
std::string not_ours(const struct stat& st, bool parent) {
    const uid_t uid = ::geteuid();
    if (!S_ISDIR(st.st_mode)) return "is not a directory";
    if (parent) {
        // Its entries can be renamed by whoever may write it: only its
        // owner (us or root), or others only where it is sticky (/tmp).
        if (st.st_uid != uid && st.st_uid != 0) return "belongs to another user";
        if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) return "can be written by other users";
        return "";
    }
    if (st.st_uid != uid) return "belongs to another user";
    if (st.st_mode & 077) return "can be used by other users (mode is not 0700)";
    return "";
}

// Opens (creating it 0700) the lock directory `path`, or says why not.
sys::UniqueFd open_lock_directory(const std::string& path, std::string& why) {
    const std::string parent = path.substr(0, path.rfind('/'));
    sys::UniqueFd up(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    struct stat st {};
    if (!up.valid() || ::fstat(up.get(), &st) != 0) {
        why = parent + ": " + std::strerror(errno);
        return {};
    }
    if (std::string w = not_ours(st, true); !w.empty()) {
        why = parent + ": " + w;
        return {};
    }
    const std::string leaf = path.substr(path.rfind('/') + 1);
    if (::mkdirat(up.get(), leaf.c_str(), 0700) != 0 && errno != EEXIST) {
        why = path + ": " + std::strerror(errno);
        return {};
    }
    sys::UniqueFd fd(
        ::openat(up.get(), leaf.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0) {
        why = path + ": " + std::strerror(errno);
        return {};
    }
    if (std::string w = not_ours(st, false); !w.empty()) {
        why = path + ": " + w;
        return {};
    }
    return fd;
}

// The pid holding an flock on the inode of `fd`, from /proc/locks (0 when
// it cannot be told).  Lines read "1: FLOCK  ADVISORY  WRITE 1234
// 08:02:1311 0 EOF", the device in hex.
pid_t lock_holder(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return 0;
    std::ifstream locks(sys::system_tree().proc_path("locks"));
    std::string line;
    pid_t inode_only = 0;
    while (std::getline(locks, line)) {
        std::istringstream in(line);
        std::string num, kind, mode, access, dev;
        long pid = 0;
        in >> num >> kind;
        if (kind == "->") continue;  // a waiter, not the holder
        in >> mode >> access >> pid >> dev;
        unsigned ma = 0, mi = 0;
        unsigned long long ino = 0;
        if (kind != "FLOCK" || std::sscanf(dev.c_str(), "%x:%x:%llu", &ma, &mi, &ino) != 3 ||
            ino != st.st_ino)
            continue;
        if (ma == major(st.st_dev) && mi == minor(st.st_dev)) return static_cast<pid_t>(pid);
        inode_only = static_cast<pid_t>(pid);  // btrfs: the lock names the superblock's device
    }
    return inode_only;
}

// On overlayfs: the directory in the upper layer that `dirfd` is, if it
// exists there.  Empty elsewhere.
std::string overlay_upper(int dirfd) {
    struct statx stx {};
    if (::statx(dirfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) != 0 ||
        !(stx.stx_mask & STATX_MNT_ID))
        return "";
    char path[4096];
    const std::string self = "/proc/self/fd/" + std::to_string(dirfd);
    ssize_t n = ::readlink(self.c_str(), path, sizeof path - 1);
    if (n <= 0) return "";
    const std::string dir(path, static_cast<std::size_t>(n));
    const auto table = sys::read_mountinfo();
    if (!table) return "";
    const sys::MountEntry* m = sys::find_mount(*table, stx.stx_mnt_id, 0);
    if (!m || m->fstype != "overlay" || dir.compare(0, m->mount_point.size(), m->mount_point) != 0)
        return "";
    const std::string rel = m->mount_point == "/" ? dir : dir.substr(m->mount_point.size());
    // Options are comma-separated; a comma inside a path is "\,".
    const std::string& opts = m->super_options;
    for (std::size_t at = 0; at < opts.size();) {
        std::size_t end = at;
        while (end < opts.size() && opts[end] != ',')
            end += opts[end] == '\\' ? 2 : 1;
        const std::string opt = opts.substr(at, end - at);
        if (opt.rfind("upperdir=", 0) == 0) return sys::unescape_mount_field(opt.substr(9)) + rel;
        at = end + 1;
    }
    return "";
}

}  // namespace

std::string lock_directory() {
    std::string why;
    for (const auto& path : lock_directory_candidates())
        if (open_lock_directory(path, why).valid()) return path;
    return "";
}

TargetLock& TargetLock::operator=(TargetLock&& o) noexcept {
    if (this != &o) {
        release();
        lock_dirs_ = std::move(o.lock_dirs_);
        held_ = std::move(o.held_);
    }
    return *this;
}

TargetLock::~TargetLock() {
    release();
}

void TargetLock::release() noexcept {
    // Unlinked while still locked: a run that opened the same name and
    // waits sees after its flock that the name is no longer its file, and
    // opens it again (acquire).
    for (auto& h : held_) {
        const int dir = lock_dirs_[h.dir].fd.get();
        struct stat st {};
        if (::fstatat(dir, h.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == h.dev &&
            st.st_ino == h.ino)
            ::unlinkat(dir, h.name.c_str(), 0);
        h.fd.reset();
    }
    held_.clear();
}

void TargetLock::take(std::size_t at, dev_t dev, ino_t ino, const std::string& dir,
                      const std::string& advice) {
    const int lock_dir = lock_dirs_[at].fd.get();
    const std::string name = std::to_string(major(dev)) + ":" + std::to_string(minor(dev)) + ":" +
                             std::to_string(ino) + ".lock";
    for (;;) {
        sys::UniqueFd fd(::openat(lock_dir, name.c_str(),
                                  O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
        if (!fd.valid())
            throw SetupError("target " + dir + ": lock file " + lock_dirs_[at].path + "/" + name +
                             ": " + std::strerror(errno));
        if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
            if (errno != EWOULDBLOCK)
                throw SetupError("target " + dir + ": flock: " + std::strerror(errno));
            pid_t pid = lock_holder(fd.get());
            throw SetupError("target " + dir + ": in use by another drivestress run" +
                             (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string()) +
                             advice);
        }
        // Locked; still the file at that name (not one a finishing run
        // unlinked between our open and our flock)?
        struct stat mine {
        }, now{};
        if (::fstat(fd.get(), &mine) != 0)
            throw SetupError("target " + dir + ": lock file: " + std::strerror(errno));
        if (::fstatat(lock_dir, name.c_str(), &now, AT_SYMLINK_NOFOLLOW) != 0 ||
            now.st_dev != mine.st_dev || now.st_ino != mine.st_ino)
            continue;
        const std::string pid = std::to_string(::getpid()) + "\n";
        if (::ftruncate(fd.get(), 0) == 0 && ::pwrite(fd.get(), pid.data(), pid.size(), 0) < 0) {
            // The pid inside is for people; /proc/locks is what names the holder.
        }
        held_.push_back({std::move(fd), name, mine.st_dev, mine.st_ino, at});
        return;
    }
}

TargetLock TargetLock::acquire(int dirfd, const std::string& dir, const std::string& advice) {
    TargetLock lock;
    // Root's lock directory does not depend on the environment: the first
    // usable one.  A user's does ($XDG_RUNTIME_DIR differs between a login
    // session, sudo, cron and a script that sets it): its runs lock in every
    // usable candidate, so two runs with different environments still meet
    // in /run/user/UID or /tmp.
    const bool every = ::geteuid() != 0;
    std::string whys;
    for (const auto& path : lock_directory_candidates()) {
        std::string why;
        sys::UniqueFd fd = open_lock_directory(path, why);
        if (!fd.valid()) {
            whys += (whys.empty() ? "" : "; ") + why;
            continue;
        }
        lock.lock_dirs_.push_back({std::move(fd), path});
        if (!every) break;
    }
    if (lock.lock_dirs_.empty())
        throw SetupError("target " + dir + ": no directory for its lock: " + whys);
    struct stat st {};
    if (::fstat(dirfd, &st) != 0) throw SetupError("target " + dir + ": " + std::strerror(errno));
    // An overlay's merged directory and its upper directory are two inodes
    // over the same files: a run in either locks the upper one.
    struct stat upper_st {};
    const std::string upper = overlay_upper(dirfd);
    const bool has_upper =
        !upper.empty() && ::stat(upper.c_str(), &upper_st) == 0 && S_ISDIR(upper_st.st_mode);
    for (std::size_t at = 0; at < lock.lock_dirs_.size(); ++at) {
        lock.take(at, st.st_dev, st.st_ino, dir, advice);
        if (has_upper) lock.take(at, upper_st.st_dev, upper_st.st_ino, dir, advice);
    }
    return lock;
}

}  // namespace ds::targets
