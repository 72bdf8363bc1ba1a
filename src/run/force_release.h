// --verify-only STATE --cleanup --force: the way out when STATE cannot be
// read.  A damaged state file (a power cut took its header) protects the
// files beside it, since nothing can say which ones it kept; a run into
// that directory is refused (targets/target.h, kept_files).  This removes
// it and the files at its names that are provably this tool's, unverified,
// but never a file another state file of the directory may keep.
#pragma once

#include <sys/stat.h>

#include <string>
#include <vector>

#include "sys/unique_fd.h"
#include "targets/target_lock.h"

namespace ds::run {

// What --force removes, decided before anything is removed (the caller
// says so first), then done.
class ForceRelease {
  public:
    // Plans the release of STATE: locks its directory (held until this
    // object goes) and checks every file beside it named `<stem><n>.dat`
    // (targets::state_stem; n in canonical decimal).  One is to be removed
    // when it is provably drivestress's file n (targets/ownership.h) and no
    // other state file of the directory keeps it: none that can be read
    // names it (by name or identity), and none that cannot be read has
    // its stem (it may have kept it).  Removes nothing.  Throws SetupError
    // when STATE's name does not end in ".state", when it can be read
    // (verify it: --cleanup removes its files after a PASS), when it is
    // another version's state file (targets::other_version_format: that
    // version may read it) or is provably not a state file.
    explicit ForceRelease(const std::string& state_path);

    const std::string& state() const { return state_; }
    const std::string& why() const { return why_; }  // why it cannot be read
    // The data files to be removed (paths), and "PATH: why" for the files at
    // its names that stay.
    const std::vector<std::string>& to_remove() const { return to_remove_; }
    const std::vector<std::string>& left() const { return left_; }

    // Removes the planned files and STATE, each only while its name still
    // is the file checked; returns the files removed.  A file or STATE
    // that could not be removed is added to left().
    std::vector<std::string> carry_out();
    // Whether STATE itself was left (after carry_out).
    bool state_left() const { return state_left_; }

  private:
    void plan_files();

    std::string state_, why_, dir_path_, state_name_;
    sys::UniqueFd dir_;
    targets::TargetLock lock_;
    std::vector<std::string> names_;  // to_remove_'s names in dir_
    std::vector<std::string> to_remove_, left_;
    std::vector<struct stat> checked_;  // to_remove_'s identities
    struct stat state_st_ {};
    bool state_left_ = false;
};

}  // namespace ds::run
