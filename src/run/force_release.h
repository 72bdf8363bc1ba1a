// --verify-only STATE --cleanup --force: the way out when STATE cannot be
// read.  A damaged state file (a power cut took its header) protects the
// files beside it, since nothing can say which ones it kept; a run into
// that directory is refused (targets/target.h, kept_files).  This removes
// it and the files at its names that are provably this tool's, unverified.
#pragma once

#include <string>
#include <vector>

namespace ds::run {

struct ForceRelease {
    std::string state;                 // the state file, removed
    std::string why;                   // why it could not be read
    std::vector<std::string> removed;  // data files removed (paths)
    std::vector<std::string> left;     // "PATH: why" for files at its names not removed
};

// Removes STATE and, beside it, every file named `<stem><n>.dat` (stem:
// "drivestress-" for drivestress.state, else STATE's name without
// ".state"; n in canonical decimal) that is a regular file of the caller
// with one link whose first unit is drivestress's unit 0 of file n.
// Holds the directory's lock meanwhile.  Throws SetupError, removing
// nothing, when STATE's name does not end in ".state", when it can be read
// (verify it: --cleanup removes its files after a PASS) or is provably not
// a state file.
ForceRelease force_release(const std::string& state_path);

}  // namespace ds::run
