// Where the test files live, the safety checks before anything is written,
// and the files' lifecycle.
//
// What a run owns, and how it makes sure of it:
//  - The target directory, exclusively, while the run lasts: a lock that
//    dies with the process, keyed by the directory's identity and taken
//    where only the run's owner can write (targets/target_lock.h).  A second
//    run is refused, naming the first one's pid.
//  - Its own files only.  They are created unnamed, sized and marked with a
//    unit header before they get their name (targets/owned_file.h), so a run
//    killed at any instant leaves files the next run recognises and
//    replaces.  A file at one of our names is replaced only when it is a
//    plain file of ours (our user, one link, a drivestress unit header),
//    checked through a descriptor opened without following links.
//  - Never the files of a --keep run: while a state file names them they
//    are refused until `--verify-only STATE --cleanup` removes them.
//  - Units no smaller than what O_DIRECT needs on the target (statx
//    STATX_DIOALIGN, or the device's logical block size), checked before
//    the first I/O.
//  - What the target promises of atomic writes (targets/atomic_facts.h),
//    read before the first I/O too; with --atomic a write size it does not
//    promise refuses the run there.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/atomic_writes.h"
#include "model/config.h"
#include "model/results.h"
#include "pattern/trim.h"
#include "sys/signals.h"
#include "sys/unique_fd.h"
#include "targets/owned_file.h"
#include "targets/target_lock.h"

namespace ds::targets {

// A file a --keep state file in the target directory names: its name, and
// its identity when it exists (a hard link under another name is the same
// evidence).
struct KeptFile {
    std::string name;
    std::string state;  // the state file's path
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
};
// The names in the directory open at `dirfd` ("." and ".." included).
std::vector<std::string> directory_entries(int dirfd);
// n of `<stem><n>.dat` with n in canonical decimal (what std::to_string
// makes: no sign, no leading zero, no other base), else -1: the names a
// run makes.  drivestress-05.dat and drivestress-0x5.dat are someone's
// copies, never our names.
long data_file_index(const std::string& name, const std::string& stem);
// Every file named by a state file (`*.state` with the state magic) in the
// directory open at `dirfd`, whose path is `directory`.  Throws SetupError
// for a damaged state file (it still protects what it kept).
// A file that may be a damaged state file (state_file.h,
// damaged_state_reason; `own_state` names this run's own state file) is
// refused the same way: we cannot read what it protects.
std::vector<KeptFile> kept_files(int dirfd, const std::string& directory,
                                 const std::string& own_state = "drivestress.state");
// The refusal for a state file that cannot be read: why, and how to
// release the files (--verify-only STATE --cleanup --force); for another
// version's state file (state_file.h, other_version_format), that the
// version that wrote it verifies them.
std::string damaged_state_advice(const std::string& state, const std::string& why);
// The stem of the data files a state file's run names `<stem><n>.dat`:
// "drivestress-" for drivestress.state, PREFIX for PREFIX.state, "" for a
// name that is not a state file's.
std::string state_stem(const std::string& state_name);
// What one state file in a directory claims.
struct StateClaim {
    std::string state;       // its path
    std::string stem;        // state_stem of its name
    std::string unreadable;  // why it cannot be read ("": it can), though it may be a state file
    std::vector<KeptFile> kept;  // the files it names (when it can be read)
};
// The claim of the `*.state` file `name` in the directory open at `dirfd`
// (whose path is `directory`); nullopt when it is provably not a state
// file.  `own`: the name a run's own state file has there (an empty or
// all-zero file may be one; state_file.h, damaged_state_reason).
std::optional<StateClaim> state_claim(int dirfd, const std::string& directory,
                                      const std::string& name, bool own);
// What to do about the files `state` kept (in `directory`): verify, then
// --cleanup after a PASS, or, after a loss, the `rm` command that removes
// them once inspected.  Starts with "; ".
std::string kept_advice(const std::string& state, const std::vector<KeptFile>& kept,
                        const std::string& directory);

class Target {
  public:
    // Validates the target, takes the directory lock and checks everything
    // that would be overwritten; throws SetupError naming the problem.
    // `extra_bytes` is what else the run will write there (the state file).
    // Creates nothing.
    explicit Target(const model::RunConfig& cfg, std::uint64_t extra_bytes = 0);
    ~Target();
    Target(const Target&) = delete;
    Target& operator=(const Target&) = delete;

    // Creates (or replaces our leftovers with) every test file at full
    // size, marked with unit 0 of run `run_id` (data `data_id`, shape
    // `shape`); in raw-device mode opens the device exclusively
    // instead (nothing is created or removed).
    // O_DIRECT unless buffered was asked for or the filesystem refuses it
    // (then direct_io() is false and direct_io_note() says why).
    void create_files(std::uint64_t run_id, std::uint64_t data_id, pattern::UnitShape shape);
    // Closes and unlinks every file this object created (also with --keep:
    // --recreate asks for it explicitly).
    void remove_files() noexcept;

    std::size_t file_count() const { return paths_.size(); }
    const std::string& path(std::size_t i) const { return paths_[i]; }
    int fd(std::size_t i) const { return raw_ ? raw_fd_.get() : files_[i].fd(); }
    // The target directory (open for the run; the state file goes here).
    int dir_fd() const { return dir_.get(); }
    // Raw-device mode: every worker's path and fd are the device's, and
    // worker i owns the region starting at base_offset(i).  0 for files.
    bool raw() const { return raw_; }
    // What a trimmed unit reads back as (--trim-pct): a file's hole reads
    // zeros; a raw device's promise comes from its queue (raw_device.h).
    pattern::TrimPromise trim_promise() const { return trim_promise_; }
    std::uint64_t base_offset(std::size_t i) const { return raw_ ? i * file_bytes_ : 0; }
    bool direct_io() const { return direct_io_; }
    // What the target promises of atomic writes: a raw device's from the
    // constructor, a directory's once create_files() made its first file.
    const model::AtomicPromise& atomic_promise() const { return atomic_; }
    const std::string& direct_io_note() const { return direct_io_note_; }
    const model::TargetInfo& info() const { return info_; }
    // Absolute path of the --keep state file of this target.
    const std::string& state_path() const { return state_path_; }

    // For buffered I/O: write back and drop the files' cached pages so the
    // next reads reach the device.  Returns the files whose write-back
    // failed, with the errno (a write the kernel accepted did not reach the
    // device).
    std::vector<std::pair<std::size_t, int>> drop_caches() const;

  private:
    void check_directory(const model::RunConfig& cfg);
    // What a data file's name starts with: "drivestress-", or --path's prefix.
    std::string stem() const;
    void check_names(const model::RunConfig& cfg);
    void refuse_kept_names();
    void sweep_leftovers();
    void check_space(const model::RunConfig& cfg, std::uint64_t extra_bytes);
    void open_raw_device();
    void check_alignment(int fd) const;
    // --atomic: throws SetupError naming the target, the size and the
    // limits when a write size of the run is not promised.
    void check_atomic(std::uint64_t region_bytes) const;
    std::string words() const;  // "target DIR (xfs on /dev/loop3)" or "--raw-device DEV"
    void register_emergency() noexcept;

    std::uint64_t file_bytes_;
    std::uint32_t unit_bytes_;
    std::string unit_option_;  // how the unit was asked for, for messages
    bool raw_ = false;
    pattern::TrimPromise trim_promise_ = pattern::TrimPromise::zeros;
    sys::UniqueFd raw_fd_;  // raw-device mode: one exclusive open, shared by the workers
    sys::UniqueFd dir_;     // the target directory, open while the run lasts
    TargetLock lock_;       // the run's hold on it
    // --atomic: the run's write sizes (empty without it) and the promise.
    std::vector<model::WriteSize> atomic_sizes_;
    model::AtomicPromise atomic_;
    bool want_direct_;
    bool direct_io_ = true;
    std::string direct_io_note_;
    model::TargetInfo info_;
    std::vector<std::string> names_;  // file names in the directory
    std::vector<std::string> paths_;  // absolute paths, for reports
    std::string state_path_;
    std::vector<OwnedFile> files_;
    std::vector<KeptFile> kept_;                 // what the directory's state files keep
    std::vector<sys::EmergencyFile> emergency_;  // files_ for the signal handler (never resized)
    bool keep_ = false;                          // --keep: files stay on every exit
};

}  // namespace ds::targets
