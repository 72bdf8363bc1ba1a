// Every target of a run (TARGET... and each --raw-device) behind one
// numbering of files: the workers of target t are files [first(t),
// first(t) + files) of the run.  Each target keeps its own safety checks,
// lock, files and cleanup (targets/target.h); a refusal names the target.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/config.h"
#include "model/results.h"
#include "targets/target.h"

namespace ds::targets {

class TargetSet {
  public:
    // Checks and locks every target in order; throws SetupError naming the
    // one refused (those taken before it are released, nothing created).
    // `extra_bytes` goes to the first target (the state file).
    explicit TargetSet(const model::RunConfig& cfg, std::uint64_t extra_bytes = 0);

    // Every target's files (targets/target.h); on a failure the files made
    // so far stay for remove_files().
    void create_files(std::uint64_t run_id, std::uint64_t data_id, pattern::UnitShape shape);
    void remove_files() noexcept;

    std::size_t count() const { return targets_.size(); }
    const Target& at(std::size_t t) const { return *targets_[t]; }
    // The first file of target t, and the target of file i.
    std::size_t first(std::size_t t) const { return t * files_; }
    std::size_t target_of(std::size_t i) const { return i / files_; }

    // Over every file of the run (file i of the run).
    std::size_t file_count() const;
    const std::string& path(std::size_t i) const { return local(i).first->path(local(i).second); }
    int fd(std::size_t i) const { return local(i).first->fd(local(i).second); }
    std::uint64_t base_offset(std::size_t i) const {
        return local(i).first->base_offset(local(i).second);
    }
    bool raw(std::size_t i) const { return local(i).first->raw(); }
    pattern::TrimPromise trim_promise(std::size_t i) const {
        return local(i).first->trim_promise();
    }
    // O_DIRECT on every target (one of them buffered: false).
    bool direct_io() const;
    // Why a target is not O_DIRECT ("" when all are), naming it when there
    // are several.
    std::string direct_io_note() const;
    // The first target's (the one a single-target run has).
    const model::TargetInfo& info() const { return targets_[0]->info(); }
    int dir_fd() const { return targets_[0]->dir_fd(); }
    const std::string& state_path() const { return targets_[0]->state_path(); }
    // Target::drop_caches over every target, by file of the run.
    std::vector<std::pair<std::size_t, int>> drop_caches() const;

  private:
    void check_shared_space(const model::RunConfig& cfg, std::uint64_t extra_bytes) const;
    std::pair<const Target*, std::size_t> local(std::size_t i) const {
        return {targets_[i / files_].get(), i % files_};
    }

    std::size_t files_;  // per target
    std::vector<std::unique_ptr<Target>> targets_;
};

// A short name for target `info` in rows and labels: the device's name for
// a raw device ("loop3"), else the directory's path.
std::string target_name(const model::TargetInfo& info, bool raw);

// The kind of device at `path` by its name: "loop" (/dev/loop3), "nvme"
// (/dev/nvme0n1), "sd" (/dev/sdb), "" when not a /dev name.
std::string device_kind(const std::string& path);

}  // namespace ds::targets
