// Where the test files live, the safety checks before anything is written,
// and the files' lifecycle: created exclusively, deleted by their owner's
// destructor and by the second-signal path.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/unique_fd.h"
#include "run/config.h"
#include "run/results.h"

namespace ds::run {

class Target {
  public:
    // Validates the target and everything that would be overwritten; throws
    // SetupError naming the problem.  Creates nothing.
    Target(const RunConfig& cfg);
    ~Target();
    Target(const Target&) = delete;
    Target& operator=(const Target&) = delete;

    // Creates (or, after a crashed run, replaces) every test file at full
    // size; in raw-device mode opens the device exclusively instead (nothing
    // is created or removed).  O_DIRECT unless buffered was asked for or the filesystem
    // refuses it (then direct_io() is false and direct_io_note() says why).
    void create_files();
    // Closes and unlinks every file this object created (also with --keep:
    // --recreate asks for it explicitly).
    void remove_files() noexcept;

    std::size_t file_count() const { return paths_.size(); }
    const std::string& path(std::size_t i) const { return paths_[i]; }
    int fd(std::size_t i) const { return raw_ ? raw_fd_.get() : fds_[i].get(); }
    // Raw-device mode: every worker's path and fd are the device's, and
    // worker i owns the region starting at base_offset(i).  0 for files.
    bool raw() const { return raw_; }
    std::uint64_t base_offset(std::size_t i) const { return raw_ ? i * file_bytes_ : 0; }
    bool direct_io() const { return direct_io_; }
    const std::string& direct_io_note() const { return direct_io_note_; }
    const TargetInfo& info() const { return info_; }

    // For buffered I/O: write back and drop the files' cached pages so the
    // next reads reach the device.
    // Returns the files whose write-back failed, with the errno (a write
    // the kernel accepted did not reach the device).
    std::vector<std::pair<std::size_t, int>> drop_caches() const;

    // Full path of file `index` for a TARGET (directory or path prefix).
    static std::string file_path(const std::string& target, bool target_is_dir, unsigned index);

  private:
    void open_raw_device();

    std::uint64_t file_bytes_;
    bool raw_ = false;
    io::UniqueFd raw_fd_;  // raw-device mode: one exclusive open, shared by the workers
    bool want_direct_;
    bool direct_io_ = true;
    std::string direct_io_note_;
    TargetInfo info_;
    std::vector<std::string> paths_;
    std::vector<const char*> c_paths_;  // for the signal handler
    std::vector<io::UniqueFd> fds_;
    std::size_t created_ = 0;
    bool keep_ = false;  // --keep: files stay on every exit
};

}  // namespace ds::run
