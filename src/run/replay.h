// --replay: the trace a run replays in its random phase.
//
// Before anything is created the trace is read through once: every line is
// checked (a bad one refuses the run, named by its number), and its
// summary, devices and extent are known (model::ReplayInfo).  Standard
// input is read into memory for that, at most --replay-max-bytes of it (a
// file streams; give one for a trace larger than that); a file must be a
// regular one (a FIFO cannot be read twice).  Each worker then streams the
// trace again for the operations that land in its file
// (engine::ReplayFeed), so memory stays bounded however long the trace is.
//
// Placement.  Each traced device goes to the target of its rank (the
// trace's devices and the run's targets in the order given), or, with one
// target, all of them one after the other.  A target's space is its files
// in order (a raw device's regions: its own offsets).  A device reaching
// beyond its target's space refuses the run, unless --replay-wrap folds its
// offsets round.  Each operation is rounded out to whole units (the unit
// is what is verified; the count is reported), cut where it crosses from
// one file into the next, reads and writes into pieces of at most
// kMaxPiece, trims of at most kMaxTrimPiece.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/phases.h"
#include "model/config.h"
#include "model/results.h"
#include "sys/unique_fd.h"

namespace ds::run {

inline constexpr std::uint32_t kMaxPiece = 1U << 20;
inline constexpr std::uint32_t kMaxTrimPiece = 64U << 20;

// Where the trace's operations land: targets of `files_per_target` files
// of `file_bytes` each, verified in units of `unit`.
struct ReplayLayout {
    std::size_t targets = 1;
    std::size_t files_per_target = 1;
    std::uint64_t file_bytes = 0;
    std::uint32_t unit = 4096;
    bool wrap = false;
    // Per traced device: its target and where its space starts in it.
    std::vector<std::size_t> target_of;
    std::vector<std::uint64_t> base;
};

// One piece of an operation, in file `file` (the run's numbering).
struct ReplayPiece {
    std::size_t file = 0;
    engine::ReplayOp op;
};

// The layout of `info`'s devices on `targets` targets (throws SetupError
// when they do not fit, naming the device and the target), and its words.
ReplayLayout replay_layout(const model::ReplayInfo& info, std::size_t targets,
                           std::size_t files_per_target, std::uint64_t file_bytes,
                           std::uint32_t unit, bool wrap, const std::vector<std::string>& names);

// The pieces of one traced operation (appended to `out`); whether it was
// rounded out to whole units.
bool place_operation(const ReplayLayout& l, std::uint32_t device, io::OpKind kind,
                     std::uint64_t offset, std::uint64_t length, bool fua, std::uint64_t due_ns,
                     std::vector<ReplayPiece>& out);

class ReplayTrace final : public engine::ReplaySource {
  public:
    // Reads cfg.replay through; throws SetupError naming the bad line, an
    // empty trace, an unreadable file, one that is not a regular file, or
    // standard input past cfg.replay_max_bytes.
    explicit ReplayTrace(const model::RunConfig& cfg);
    ~ReplayTrace() override;
    ReplayTrace(const ReplayTrace&) = delete;
    ReplayTrace& operator=(const ReplayTrace&) = delete;

    const model::ReplayInfo& info() const { return info_; }
    // Bytes of standard input held in memory (0 for a file).
    std::uint64_t held_bytes() const { return held_bytes_; }
    // Its largest read or write once placed (whole units, at most kMaxPiece).
    std::uint32_t largest_piece() const;
    // Places it on the run's targets (`names` for messages; `raw`: raw
    // devices, whose regions are the device's own offsets); throws SetupError.
    void place(std::size_t targets, std::size_t files_per_target, std::uint64_t file_bytes,
               const std::vector<std::string>& names, bool raw);

    std::unique_ptr<engine::ReplayFeed> open(unsigned file_index) const override;
    bool timed() const override { return info_.speed > 0; }

  private:
    std::string path_;  // what each feed opens: the trace's descriptor, through /proc/self/fd
    sys::UniqueFd fd_;  // the file checked, or standard input's copy in memory
    std::uint64_t held_bytes_ = 0;
    std::uint32_t unit_;
    model::ReplayInfo info_;
    ReplayLayout layout_;
};

}  // namespace ds::run
