// The lock that makes a run (or --verify-only) the one user of its target
// directory while it lasts.
//
// Not an flock on the directory itself: anyone who can open the directory
// could take that and keep root's run out, and an overlay's merged
// directory and its upper directory are two inodes, so two runs would each
// get their own lock and replace each other's files.  The lock is a file in
// a directory only the run's owner can write (/run/drivestress for root,
// else $XDG_RUNTIME_DIR/drivestress, /run/user/UID/drivestress and
// /tmp/drivestress-UID, each checked to be a directory of ours that nobody
// else may write; a user's run locks in every one of these it can use, so
// runs with different environments still see each other), named by the directory's st_dev:st_ino,
// so every name of the directory (bind mounts, /proc/self/root paths, symbolic links) finds the
// same lock.  On overlayfs the upper directory's identity is locked too (from the mount's upperdir=
// in /proc/self/mountinfo).  The lock files are flock()ed, so the lock dies with the process; a
// second run is refused naming the first one's pid.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "sys/unique_fd.h"

namespace ds::targets {

class TargetLock {
  public:
    TargetLock() = default;
    TargetLock(TargetLock&&) noexcept = default;
    TargetLock& operator=(TargetLock&&) noexcept;
    TargetLock(const TargetLock&) = delete;
    TargetLock& operator=(const TargetLock&) = delete;
    ~TargetLock();

    // Locks the directory open at `dirfd` (`dir` names it in messages).
    // Throws SetupError "target DIR: in use by another drivestress run (pid
    // N)ADVICE" while another run holds it, or naming the lock directory
    // when that cannot be used.
    static TargetLock acquire(int dirfd, const std::string& dir,
                              const std::string& advice = "; one run per directory");

  private:
    struct LockDir {
        sys::UniqueFd fd;  // a lock directory, open
        std::string path;  // its path, for messages
    };
    struct Held {
        sys::UniqueFd fd;  // the lock file, flock()ed
        std::string name;  // its name in the lock directory
        dev_t dev = 0;     // its identity, to unlink only our own
        ino_t ino = 0;
        std::size_t dir = 0;  // which of lock_dirs_ it is in
    };
    // Locks the lock file of identity (dev, ino) in lock_dirs_[at]; throws
    // as acquire().
    void take(std::size_t at, dev_t dev, ino_t ino, const std::string& dir,
              const std::string& advice);
    void release() noexcept;

    std::vector<LockDir> lock_dirs_;
    std::vector<Held> held_;
};

// The directory the lock files go in, for messages and tests.
std::string lock_directory();

}  // namespace ds::targets
