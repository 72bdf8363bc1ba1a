#include "targets/owned_file.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "model/errors.h"
#include "output/output_file.h"

namespace ds::targets {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

// One line, "WHAT: strerror" (a SetupError: our own type, so nothing about
// the error needs the C++ runtime's type information, which the sanitizers
// cannot check when the process is out of file descriptors).
[[noreturn]] void throw_errno(int err, const std::string& what) {
    throw SetupError(what + ": " + std::strerror(err));
}

std::string hidden_name(const std::string& name) {
    return "." + name + "." + output::unpredictable_suffix() + ".new";
}

// Why the entry at `name` may not be replaced ("" when it may): anything
// but a regular file is refused without being opened (opening a device
// node can have effects of its own); a regular file is opened without
// following links and handed to `replaceable`.
std::string refusal(int dirfd, const std::string& name, const OwnedFile::Replaceable& replaceable) {
    struct stat st {};
    if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? "" : std::strerror(errno);
    if (S_ISLNK(st.st_mode)) return "is a symbolic link";
    if (!S_ISREG(st.st_mode)) return "is not a regular file";
    sys::UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat now {};
    if (!fd.valid() || ::fstat(fd.get(), &now) != 0) return std::strerror(errno);
    if (now.st_dev != st.st_dev || now.st_ino != st.st_ino) return "changed while being checked";
    return replaceable(fd.get());
}

// Gives the unnamed file `fd` the name `tmp` (a fresh hidden name).
void link_unnamed(int fd, int dirfd, const std::string& tmp) {
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    if (::linkat(AT_FDCWD, proc.c_str(), dirfd, tmp.c_str(), AT_SYMLINK_FOLLOW) == 0) return;
    // Without /proc: AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
    if (errno == ENOENT && ::linkat(fd, "", dirfd, tmp.c_str(), AT_EMPTY_PATH) == 0) return;
    throw_errno(errno, "linkat");
}

// Publishes the prepared file under `name`.  `hidden` is its temporary
// name, or "" for an unnamed (O_TMPFILE) file.
void publish(int fd, int dirfd, const std::string& name, std::string& hidden,
             const std::string& shown, const OwnedFile::Replaceable& replaceable) {
    // First try: a name that does not exist yet, without replacing anything.
    int ret;
    if (hidden.empty()) {
        const std::string proc = "/proc/self/fd/" + std::to_string(fd);
        ret = ::linkat(AT_FDCWD, proc.c_str(), dirfd, name.c_str(), AT_SYMLINK_FOLLOW);
        if (ret != 0 && errno == ENOENT) ret = ::linkat(fd, "", dirfd, name.c_str(), AT_EMPTY_PATH);
    } else {
        ret = ::renameat2(dirfd, hidden.c_str(), dirfd, name.c_str(), RENAME_NOREPLACE);
        if (ret != 0 && errno == EINVAL) {  // no RENAME_NOREPLACE here: link, then drop
            ret = ::linkat(dirfd, hidden.c_str(), dirfd, name.c_str(), 0);
            if (ret == 0) ::unlinkat(dirfd, hidden.c_str(), 0);
        }
        if (ret == 0) hidden.clear();
    }
    if (ret == 0) return;
    if (errno != EEXIST) throw_errno(errno, shown + ": cannot create");
    if (std::string why = refusal(dirfd, name, replaceable); !why.empty())
        throw SetupError(shown + ": " + why + "; refusing to replace it");
    if (hidden.empty()) {
        hidden = hidden_name(name);
        link_unnamed(fd, dirfd, hidden);
    }
    if (::renameat(dirfd, hidden.c_str(), dirfd, name.c_str()) != 0)
        throw_errno(errno, shown + ": cannot replace the earlier file");
    hidden.clear();
}

}  // namespace

OwnedFile OwnedFile::create(int dirfd, const std::string& name, const std::string& shown_path,
                            int flags, const Prepare& prepare, const Replaceable& replaceable,
                            int* open_error) {
    OwnedFile f;
    f.dirfd_ = dirfd;
    f.name_ = name;
    std::string hidden;
    f.fd_.reset(::openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC | flags, 0644));
    if (!f.fd_.valid()) {
        if (open_error && errno == EINVAL) {  // the caller decides (O_DIRECT refused)
            *open_error = EINVAL;
            return f;
        }
        if (errno != EOPNOTSUPP && errno != EISDIR)
            throw_errno(errno, shown_path + ": cannot create");
        hidden = hidden_name(name);
        f.fd_.reset(::openat(dirfd, hidden.c_str(),
                             O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | flags, 0644));
        if (!f.fd_.valid() && open_error && errno == EINVAL) {
            *open_error = EINVAL;
            return f;
        }
        if (!f.fd_.valid()) throw_errno(errno, shown_path + ": cannot create");
    }
    // From its first descriptor on, no output may be this file (an output
    // named /dev/fd/N, a hard link, a bind mount: output/output_file.h).
    struct stat st {};
    if (::fstat(f.fd_.get(), &st) != 0) throw_errno(errno, shown_path + ": fstat");
    output::protect_from_outputs(st.st_dev, st.st_ino, shown_path);
    try {
        prepare(f.fd_.get());
        publish(f.fd_.get(), dirfd, name, hidden, shown_path, replaceable);
    } catch (...) {
        if (!hidden.empty()) ::unlinkat(dirfd, hidden.c_str(), 0);
        output::forget_own_file(st.st_dev, st.st_ino);
        throw;
    }
    f.dev_ = st.st_dev;
    f.ino_ = st.st_ino;
    return f;
}

int OwnedFile::remove() noexcept {
    if (!fd_.valid()) return 0;
    int err = 0;
    // The descriptor stays open until the name is gone, so the inode number
    // compared cannot have been reused by another file meanwhile.
    struct stat st {};
    if (::fstatat(dirfd_, name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        err = errno;
    else if (st.st_dev != dev_ || st.st_ino != ino_)
        err = ENOENT;
    else if (::unlinkat(dirfd_, name_.c_str(), 0) != 0)
        err = errno;
    output::forget_own_file(dev_, ino_);
    fd_.reset();
    return err;
}

}  // namespace ds::targets
