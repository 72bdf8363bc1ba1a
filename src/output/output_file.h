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
//     standard stream names /dev/stdout, /dev/stderr and /dev/fd/N (or
//     /proc/self/fd/N), which mean the descriptor itself: a descriptor the
//     caller opened, so N must be open when drivestress starts (checked
//     then, before any file is created), never one the run opened itself.
//   - A FIFO of the caller's own, a terminal, /dev/null or /dev/full is
//     written directly (a reader is waiting on it), opened with O_NONBLOCK
//     and O_NOFOLLOW and checked again through the descriptor.  A FIFO of
//     another user (planted in /tmp for root's document, or to block the
//     run) and any other device are refused.
//   - No output is ever one of the run's own files (test files, the state
//     file), whatever name reaches it: a hard link, a bind mount,
//     /proc/self/root/..., a descriptor.  Those files are compared by
//     device and inode (protect_from_outputs).
//   - A write to a stream never blocks in write(): it waits in poll() and
//     gives up when a stop request arrives (set_stop_request), so a reader
//     that stops reading cannot hold a run that was asked to stop.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "sys/unique_fd.h"

namespace ds::output {

// Where a result goes (--json, --timeseries, --prom): nowhere, the standard
// output (spelled "-" on the command line, --json only), or a path under
// the rules above.  The one place that knows the "-" spelling.
class OutputPath {
  public:
    OutputPath() = default;
    explicit OutputPath(std::string spelled) : text_(std::move(spelled)) {}
    bool none() const { return text_.empty(); }
    bool is_stdout() const { return text_ == "-"; }
    // A path to write through the rules above (it may name a stream).
    bool is_path() const { return !none() && !is_stdout(); }
    // As given: "" (none), "-" (standard output) or the path.
    const std::string& text() const { return text_; }

  private:
    std::string text_;
};

// What kind of destination a path is; see the rules above.  Throws
// std::system_error (errno, "PATH: what") for a refused or unusable path.
enum class OutputKind { regular, stream };
OutputKind check_output_destination(const std::string& path);

// Checks, before a run, that `path` can be written at its end: its kind as
// above, and for a regular file that a temporary file can be created beside
// it (removed again at once).  Throws like check_output_destination.
// Temporary files are named ".BASE.PID-HEX.tmp": those of `path` that a
// killed run left (their process is gone, the file is ours) are removed;
// returns how many.
std::size_t check_output_writable(const std::string& path);

// Whether two output paths name the same file (so one output would be
// lost): the same resolved name, the same name in one directory (compared
// by device and inode: a bind mount), or one pipe or FIFO ("-" and the
// descriptor names mean their descriptor).  Terminals and /dev/null are
// never "the same", nor two hard links: nothing is lost there.
bool same_output(const OutputPath& a, const OutputPath& b);

// Replaces `path` with `content` (rules above).  Throws std::system_error
// whose what() names the path and the failing step; a temporary file is
// removed on every failure.
void write_file_atomically(const std::string& path, std::string_view content);

// A file written as it goes (--timeseries): an empty regular file created
// exclusively beside `path` and renamed over it before the first byte is
// written, or the stream `path` names.  Throws like write_file_atomically.
sys::UniqueFd create_output_file(const std::string& path);

// A file of the run's own (a test file, the state file, a file a
// --verify-only reads): no output may be it.  `shown_path` names it in the
// refusal.  forget_own_file: the file was removed (its inode may be reused).
void protect_from_outputs(dev_t dev, ino_t ino, const std::string& shown_path);
void forget_own_file(dev_t dev, ino_t ino);

// How a write to a stream learns of a stop request: a function returning
// the first stop signal's number, 0 while there is none (main wires in the
// signal handler's).  Without one, stream writes wait for the reader.
void set_stop_request(int (*stop_signal)());

// Writes all of `data` to a stream output (a FIFO, a terminal, a
// descriptor): waits for room in poll(), then writes at most PIPE_BUF bytes
// through sys::write_full.  False with errno set when it cannot; errno
// EINTR when a stop request arrived after the write began, or
// (AfterStop::give_up: a line of a live output, worth less than a prompt
// stop) when the reader leaves no room once a stop was requested.  A write
// that waits on after a stop request is ended by the second signal, which
// leaves at once.  `done`, when given, gets how many bytes went out.
enum class AfterStop { wait, give_up };
bool write_stream(int fd, std::string_view data, AfterStop after_stop = AfterStop::wait,
                  std::size_t* done = nullptr);

// 16 hex digits from getrandom(): names of temporary files that another
// user cannot plant in advance.
std::string unpredictable_suffix();

}  // namespace ds::output
