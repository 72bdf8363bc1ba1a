// One worker: one file, one backend, its own generation map.  It runs one
// phase at a time with up to `depth` operations in flight, verifies every
// read right after its completion while the others stay in flight, and
// counts what it saw.  Nothing here is shared with other workers, so the hot
// loop takes no lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/aligned_buffer.h"
#include "io/backend.h"
#include "pattern/unit.h"
#include "run/config.h"
#include "run/damage.h"
#include "run/durability.h"
#include "run/results.h"

namespace ds::run {

// What the coordinator asks of a worker for one phase.
struct PhasePlan {
    Phase phase = Phase::seq_write;
    std::uint64_t iteration = 1;
    std::uint64_t op_limit = 0;        // random phase: this worker's share of --rand-ops (0 = none)
    std::uint64_t deadline_ns = 0;     // random phase: monotonic deadline (0 = none)
    std::uint64_t stop_after_ops = 0;  // test hook: SIGSTOP the process after this many completions
    unsigned depth = 0;                // random phase: in-flight limit (0 = geometry's)
    std::uint32_t rand_block = 0;      // random phase: block, a multiple of the unit (0 = unit)
    std::uint64_t intervals_from_ns = 0;  // --timeseries: phase start; 0 = no per-second stats
};

struct WorkerGeometry {
    std::uint64_t file_bytes;
    std::uint32_t seq_block;
    std::uint32_t rand_block;      // = unit size
    std::uint32_t max_rand_block;  // largest random block (a sweep's), multiple of the unit
    unsigned seq_depth;
    unsigned rand_depth;
    unsigned read_pct;
    bool verify;
    SyncMethod sync = SyncMethod::none;
    std::uint64_t sync_every = 1;  // writes per flush / per listener call
    unsigned batch = 1;            // SQEs prepared per submission
};

// Sequential phases keep at most this many bytes in flight per worker, so
// `--qd 256 --seq-block 1M` does not need 256 MiB of buffers per worker.
inline constexpr std::uint64_t kSeqInflightBytes = 8ULL << 20;

WorkerGeometry make_geometry(const RunConfig& cfg, unsigned backend_depth);

class Worker {
  public:
    Worker(const WorkerGeometry& geo, unsigned file_index, std::string path, int fd,
           std::uint64_t seed, std::uint64_t run_id, std::atomic<bool>& stop);

    // Creates the backend for `fd`; call on the thread that runs the phases
    // (again after the file was recreated).  With uring.iopoll, writes one
    // block at offset 0 to check that the device polls (throws SetupError
    // naming --iopoll when it cannot).
    void open_backend(io::BackendKind kind, int fd, io::UringOptions uring = {});
    // Raw-device mode: this worker's region starts here on the device;
    // backends add it to every offset, records report absolute offsets.
    void set_base_offset(std::uint64_t base) { base_ = base; }
    // Releases the backend (its ring, registered file and buffers); call on
    // the thread that opened it.
    void close_backend() { backend_.reset(); }
    // Or use one made elsewhere (tests wrap backends to inject faults).
    void set_backend(std::unique_ptr<io::Backend> backend) { backend_ = std::move(backend); }
    const io::Backend* backend() const { return backend_.get(); }
    std::span<std::byte> buffer_arena() const { return arena_.span(); }

    struct Outcome {
        PhaseCounters counters;
        bool completed = true;  // false when stopped early
        // Set when a write found the filesystem full: counted as a write
        // error and the phase goes on, but the run ends after it (a setup
        // problem, not the drive's fault: exit 1).
        std::optional<std::uint64_t> no_space_at;
        bool no_space_in_flush = false;  // it was a flush that found it full
        // Set when the kernel refused a read or write as invalid (EINVAL):
        // with O_DIRECT, an alignment the target does not take.  A setup
        // problem, never a drive error: the run stops at once (exit 1).
        std::optional<io::Request> invalid;
    };
    Outcome run(const PhasePlan& plan);

    // Forget all content (the file was recreated).
    void reset_generations();
    std::span<const pattern::Generation> generations() const { return gens_; }

    // Told, on this worker's thread, what is durable after every completed
    // flush (--sync fsync/fdatasync) or every sync_every completed writes
    // (--sync osync/dsync) and at the end of a writing phase.  Null: nobody.
    void set_durability_listener(DurabilityListener* l) { listener_ = l; }
    // The generations last acknowledged as durable (what the listener got).
    std::span<const pattern::Generation> acknowledged() const { return acked_; }

    // Worker-local mismatch details (capped), drained by the coordinator.
    std::vector<MismatchRecord>& records() { return records_; }
    // Every mismatch and failed I/O of the run, merged into extents.
    const DamageMap& damage() const { return damage_; }
    // The file's size when a read found it shorter than it should be (the
    // file was truncated under the run), once per run.
    std::optional<std::uint64_t> truncated_to() const { return truncated_to_; }

    // Per-second statistics published so far in this phase (taken by the
    // coordinator while the phase runs; once a second per worker, so the
    // lock is never contended in the hot loop).
    std::vector<IntervalStats> take_intervals();

    // Progress, read by the coordinator while a phase runs.
    std::atomic<std::uint64_t> progress_bytes{0};
    std::atomic<std::uint64_t> progress_ops{0};

  private:
    struct Slot {
        io::Request req;
        std::uint64_t first_offset = 0;  // offset and length as first issued
        std::uint32_t first_length = 0;
        std::byte* first_buf = nullptr;
    };

    void fill_for_write(std::byte* buf, std::uint64_t offset, std::uint32_t length);
    void verify_block(const PhasePlan& plan, const std::byte* buf, std::uint64_t offset,
                      std::uint32_t length, PhaseCounters& c);
    void forget_range(std::uint64_t offset, std::uint32_t length);
    void acknowledge_range(std::uint64_t offset, std::uint32_t length);
    void forget_acked(std::uint64_t offset, std::uint32_t length);
    // Accounts for a completed flush; false when it failed because the
    // filesystem is full (not the drive's fault: no io-error recorded).
    bool flush_done(const PhasePlan& plan, const io::Request& r, std::int32_t res,
                    std::uint64_t now, PhaseCounters& c);
    void record(const PhasePlan& plan, PhaseCounters& c, MismatchRecord rec);
    // A read found the end of the file early: remember its size once.
    void note_truncation();
    std::uint64_t next_random();

    WorkerGeometry geo_;
    unsigned file_index_;
    std::string path_;
    int fd_;
    std::uint64_t seed_;
    std::uint64_t run_id_;
    std::uint64_t base_ = 0;
    std::atomic<bool>& stop_;
    std::uint64_t units_;
    unsigned unit_shift_;  // log2 of the unit size: offsets to unit indexes without a division
    std::vector<pattern::Generation> gens_;
    std::vector<std::uint8_t> unit_in_flight_;
    // Durability (see set_durability_listener): acked_ is what was last
    // acknowledged (osync/dsync: updated by every completed write);
    // snapshot_ is gens_ as it was when the flush in flight was issued,
    // with no write in flight, i.e. exactly the completed writes it covers.
    std::vector<pattern::Generation> acked_;
    std::vector<pattern::Generation> snapshot_;
    DurabilityListener* listener_ = nullptr;
    io::Request flush_req_;
    io::AlignedBuffer arena_;
    std::vector<Slot> slots_;
    std::unique_ptr<io::Backend> backend_;
    std::vector<MismatchRecord> records_;
    DamageMap damage_;
    std::optional<std::uint64_t> truncated_to_;
    std::mutex intervals_mutex_;
    std::vector<IntervalStats> intervals_;
    std::uint64_t rng_state_[2] = {1, 2};
};

std::uint64_t monotonic_ns();

}  // namespace ds::run
