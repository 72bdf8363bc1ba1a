// The --keep state file: what a later `drivestress --verify-only STATE` needs
// to tell a unit the drive acknowledged as durable from one written after the
// last acknowledgement, after a power cut or a kill -9.
//
// Layout (little endian; every block a multiple of 4 KiB):
//   header       magic "DSSTATE1", format version, seed, run id (random per
//                run: the units' header; the seed keys their data), geometry,
//                the bound, the file paths, a check over all of it.  Written
//                once, before any test file is written, and fdatasync()ed.
//   regions      per file two copies (A, B) of its acknowledgement record:
//                magic, file index, sequence number (= records so far),
//                unit count, a check, the bound (how many writes a unit may
//                have taken since this record: 0 after a phase end, the
//                running phase's bound while it writes), then one
//                generation per unit (4 bytes, pattern::Generation: 1 MiB
//                per copy per GiB of file at 4 KiB units).  Acknowledgement
//                n goes to copy n % 2, so a torn write
//                of the state file damages only the copy being written and
//                the other one still holds the previous acknowledgement.
// Each file's copies sit at fixed offsets: workers never write the same bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/durability.h"
#include "pattern/unit.h"
#include "sys/unique_fd.h"
#include "targets/owned_file.h"

namespace ds::targets {

// 3: four-byte generations (2 had one byte each, which wrapped).
// 4: the run id is random per run (3 derived it from the seed, so another
//    run with the same seed wrote units that passed for this run's).
// 5: format 4 plus the units' shape (--compress: bytes of stream per
//    sector) at byte 68; written only when the data is compressible, so an
//    incompressible run's file stays format 4, readable by the release
//    before, and a release that cannot reproduce compressible units refuses
//    the file instead of calling every unit corrupt.
// 6: format 5 with --dedupe's share in the shape word (pattern::UnitShape)
//    at byte 68; written only when some units are duplicates, for the same
//    reason: a release that cannot reproduce them refuses the file.
// 7: format 5 or 6 (the shape word at byte 68, always) whose generations may
//    carry model::kTrimmedBit (--trim-pct); written only by a run that trims.
inline constexpr std::uint32_t kStateFormatVersion = 4;
inline constexpr std::uint32_t kStateFormatCompressible = 5;
inline constexpr std::uint32_t kStateFormatDedupe = 6;
inline constexpr std::uint32_t kStateFormatTrims = 7;

// Bytes of the state file of `files` files of `units` units each (it is
// preallocated, so the free-space check counts it).
std::uint64_t state_file_bytes(std::size_t files, std::uint64_t units, std::size_t name_bytes);

// How many writes a unit may have received after its last acknowledgement
// (1.., or kAnyNewerBound).  With only phase-end acknowledgements a random
// phase may overwrite a unit any number of times (kAnyNewerBound: any later
// generation, never an earlier one); with a flush every `sync_every`
// writes (0 = none) a unit can take at most the writes since the flush
// before last was issued: two flush intervals plus what was in flight.
std::uint32_t unacked_write_bound(const model::RunConfig& cfg, std::uint64_t sync_every);

// Writes the state file for a run and records acknowledgements in it.
class StateFile final : public model::DurabilityListener {
  public:
    // Creates `path` (never replacing anything there: the state file of an
    // earlier --keep run is evidence) preallocated, with nothing
    // acknowledged, fdatasync()s it and its directory; it gets its name only
    // once its header is on disk (targets/owned_file.h).  Throws SetupError.
    StateFile(std::string path, model::StateGeometry geo);
    // Removes the state file (a setup error before the run started).
    void remove() noexcept { (void)file_.remove(); }

    // Records `acked` as file `file_index`'s acknowledged generations and
    // fdatasync()s the state file before returning.  Safe to call
    // concurrently for different files.  An I/O failure is counted in
    // write_errors() (the hot path never throws).
    void acknowledged(unsigned file_index, std::span<const pattern::Generation> acked) override;
    // Nothing acknowledged any more (the files are about to be recreated).
    void reset();
    // The bound recorded with the next records (see unacked_write_bound;
    // 0 = nothing may be newer).  With `rewrite`, every file's last record
    // is written again under it at once: called before a phase that writes,
    // so that a cut during the phase finds the phase's bound.  Call only
    // while no worker runs.
    void set_bound(std::uint32_t bound, bool rewrite);
    // A flush of file `file_index` failed: what it covered may be lost, and
    // a later flush could succeed without it.  Its record becomes "nothing
    // acknowledged" and no later record of that file is written.
    void poison(unsigned file_index);

    const std::string& path() const { return path_; }
    std::uint64_t acknowledgements(unsigned file_index) const { return seq_[file_index]; }
    std::uint64_t write_errors() const { return write_errors_; }

  private:
    std::string path_;
    model::StateGeometry geo_;
    sys::UniqueFd dir_;  // the state file's directory (file_ lives in it)
    OwnedFile file_;
    std::uint64_t header_bytes_ = 0;
    std::uint64_t copy_bytes_ = 0;
    std::vector<std::uint64_t> seq_;  // per file; each touched only by that file's caller
    std::vector<std::vector<std::byte>> scratch_;  // per file: one copy being written
    std::atomic<std::uint64_t> write_errors_{0};
    std::atomic<std::uint32_t> bound_{0};
    std::vector<std::uint8_t> poisoned_;  // per file; set between phases or by its own worker
};

// What a state file holds, as read back by --verify-only.
struct LoadedState {
    model::StateGeometry geo;
    struct File {
        std::uint64_t acknowledgements = 0;      // sequence of the copy used (0 = none)
        std::vector<pattern::Generation> acked;  // per unit; 0 = never acknowledged
        // The newer copy was damaged (a torn state write): the older one is
        // used, and a unit may be up to two bounds past it.
        bool used_older_copy = false;
        std::uint32_t bound = 0;  // effective bound for this file (from the record used)
    };
    std::vector<File> files;
};

// Reads and checks a state file.  Throws SetupError naming `path` and what
// is wrong (missing, a symbolic link, not a state file, damaged header,
// impossible geometry, more memory than the machine has, both copies of a
// file's record damaged).
LoadedState load_state_file(const std::string& path);

// True when `path` is a regular file (not followed through a link) that
// begins with the state file magic: a state file, whole or damaged.
bool has_state_magic(const std::string& path);

// The format word of a state file (has_state_magic) whose format this
// drivestress does not read (kStateFormatVersion to kStateFormatTrims) and
// that another version may have written (1 to 65535; 0 or a larger word is damage),
// else nullopt: that version may read it whole, so it is never taken for
// a damaged one (--cleanup --force refuses it).
std::optional<std::uint32_t> other_version_format(const std::string& path);
// What this drivestress reads, for messages: "formats 4 to 7".
std::string readable_formats();

// Why `path` cannot be read as a state file when it may be one a power cut
// or a bad disk damaged, else "".  May be one: a regular file of the
// caller's (not followed through a link) whose header does not load and
// that starts with the state magic or within 2 bytes of it, or is a whole
// number of 4 KiB blocks (as every state file is), or holds an
// acknowledgement record at a block boundary, or, at `own_name` (the name
// the run's own state file would have), is empty or all zero (what a
// filesystem can leave of a file renamed just before a power cut).
// Anything else is provably not one (another user's, text, a link).
std::string damaged_state_reason(const std::string& path, bool own_name);

// The 64-bit check the state file's header and records carry over byte
// ranges, continued from `h`: tells a torn or damaged record from a whole
// one (not a cryptographic hash).  Exposed for tests/fuzz/fuzz_state.cpp,
// which fixes up the checks of the records it mutates.
std::uint64_t state_check(std::uint64_t h, std::span<const std::byte> data);

// The names (no directory) of the files a state file keeps, read from its
// checked header.  Throws SetupError like load_state_file.
std::vector<std::string> state_file_names(const std::string& path);

}  // namespace ds::targets
