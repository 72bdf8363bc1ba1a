// Every file drivestress writes for the user (--json, --timeseries, --prom)
// goes through here, so that none of them can be turned against the caller:
// a run as root in a world-writable directory must not follow a planted
// symbolic link, write through a planted hard link, or leave a half-written
// document for a dashboard to read.
//
//   - A regular file is never opened in place.  A new file is created beside
//     it with O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, written,
//     fsync()ed and renamed over the path: readers see the old document or
//     the new one, and whatever was at the path (a hard link to someone
//     else's file included) is unlinked, never written.
//   - A symbolic link at the path is refused (naming it), except the
//     standard stream names /dev/stdout, /dev/stderr and /dev/fd/N, which
//     mean the descriptor itself.
//   - A FIFO, a terminal, /dev/null or /dev/full is written directly (a
//     reader is waiting on it); any other device is refused.
#pragma once

#include <string>
#include <string_view>

#include "io/unique_fd.h"

namespace ds::io {

// What kind of destination a path is; see the rules above.  Throws
// std::system_error (errno, "PATH: what") for a refused or unusable path.
enum class OutputKind { regular, stream };
OutputKind check_output_destination(const std::string& path);

// Checks, before a run, that `path` can be written at its end: its kind as
// above, and for a regular file that a temporary file can be created beside
// it (removed again at once).  Throws like check_output_destination.
void check_output_writable(const std::string& path);

// Replaces `path` with `content` (rules above).  Throws std::system_error
// whose what() names the path and the failing step; a temporary file is
// removed on every failure.
void write_file_atomically(const std::string& path, std::string_view content);

// A file written as it goes (--timeseries): an empty regular file created
// exclusively beside `path` and renamed over it before the first byte is
// written, or the stream `path` names.  Throws like write_file_atomically.
UniqueFd create_output_file(const std::string& path);

// 16 hex digits from getrandom(): names of temporary files that another
// user cannot plant in advance.
std::string unpredictable_suffix();

}  // namespace ds::io
