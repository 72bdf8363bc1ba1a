// A file a run owns (a test file, the --keep state file), created so that
// whatever instant the process dies at, the next run can tell it is ours:
//
//   1. it is born unnamed (O_TMPFILE) in the target directory, sized and
//      marked by the caller's `prepare` (a test file gets a unit header at
//      offset 0, the state file its header);
//   2. only then is it linked under its name.  A kill -9 before the link
//      leaves nothing; after it, a file the next run recognises.
//
// An earlier file at the name is replaced only when the caller's
// `replaceable` accepts it, checked through a descriptor opened without
// following links, and the name is then swapped atomically (rename): no
// window in which a planted file could be deleted in its place.  Removal
// unlinks the name only while it still refers to the file created here.
//
// Where the filesystem has no O_TMPFILE, the file is prepared under a
// hidden temporary name (created O_EXCL|O_NOFOLLOW) and renamed; only a
// kill -9 in that short window can leave the hidden name behind.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include "sys/unique_fd.h"

namespace ds::targets {

class OwnedFile {
  public:
    // Makes the new file recognisable (size, marker); throws to abandon it.
    using Prepare = std::function<void(int fd)>;
    // Says whether the file already at the name (a descriptor opened with
    // O_NOFOLLOW, checked as a regular file) may be replaced; returns the
    // reason it may not, or "" when it may.
    using Replaceable = std::function<std::string(int fd)>;

    OwnedFile() = default;
    // Creates `name` in the directory `dirfd` (kept open by the caller
    // while this object lives).  `flags` adds open flags (O_DIRECT).  When
    // the open itself answers EINVAL (a filesystem refusing O_DIRECT) and
    // `open_error` is given, returns an invalid file with *open_error set;
    // every other failure throws SetupError naming `shown_path`.
    static OwnedFile create(int dirfd, const std::string& name, const std::string& shown_path,
                            int flags, const Prepare& prepare, const Replaceable& replaceable,
                            int* open_error = nullptr);

    int fd() const { return fd_.get(); }
    bool valid() const { return fd_.valid(); }
    dev_t dev() const { return dev_; }
    ino_t ino() const { return ino_; }
    // Closes the file and unlinks its name if the name still refers to it.
    // Returns 0, or the errno of the failed unlink (ENOENT: the name was
    // removed or replaced by someone else).
    int remove() noexcept;
    // Closes the file, keeps it on disk (--keep).
    void close() noexcept { fd_.reset(); }

  private:
    int dirfd_ = -1;
    std::string name_;
    sys::UniqueFd fd_;
    dev_t dev_ = 0;
    ino_t ino_ = 0;
};

}  // namespace ds::targets
