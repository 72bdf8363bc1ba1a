// Is the file at a name drivestress's own?  The one answer for every path
// that replaces or removes a file it did not create in this process: a
// run's leftovers (targets/target.cpp), --verify-only --cleanup
// (run/verify_only.cpp) and --verify-only --cleanup --force
// (run/force_release.cpp).
//
// Ours means: a regular file of the caller's effective user with a single
// link (a second name is someone's copy, and removing one name would not
// remove the data), whose first bytes are a drivestress unit header, when
// asked the unit 0 of a given file index and run.  It is checked through a
// descriptor opened without following links and without blocking (a FIFO
// planted at the name is never waited on), and removed only while the
// name still is the inode checked (remove_checked).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

namespace ds::targets {

// The checks every replaceable earlier file passes: a regular file of the
// caller's effective user with a single link.  "" when it passes, else why
// not ("is owned by uid 1000", "has 2 links").
std::string plain_own_file(int fd);

// What a data file's first unit must say: any drivestress unit header when
// nothing is set; with `index`, unit 0 of that file; with `run_id`, of that
// run too.
struct DataFileMark {
    std::optional<std::uint64_t> index;
    std::optional<std::uint64_t> run_id;
};

// Why the file open at `fd` is not a data file of ours with `mark` ("" when
// it is): plain_own_file's reasons, or "is not a drivestress file",
// "does not start with drivestress's unit 0 of file N", "does not carry
// this run's data".
std::string not_our_data_file(int fd, const DataFileMark& mark);

// A name checked: what is there, and whether it is ours.
struct CheckedFile {
    bool missing = false;  // nothing at the name (removed already)
    std::string refusal;   // why it is not ours; "" when it is (or is missing)
    struct stat st {};     // its identity, when it was opened
    bool ours() const { return !missing && refusal.empty(); }
};

// Checks `name` in the directory `dirfd` (AT_FDCWD with a path) against
// `mark`; a symbolic link is "is a symbolic link".
CheckedFile check_data_file(int dirfd, const std::string& name, const DataFileMark& mark);

// Unlinks `name` in `dirfd` only while it still is the file `checked`
// (same device and inode): true when it was removed.
bool remove_checked(int dirfd, const std::string& name, const struct stat& checked);

}  // namespace ds::targets
