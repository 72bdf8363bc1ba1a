// One worker: one file (or one region of a raw device), one backend, its own
// unit map.  It runs one phase at a time through the engine with up to
// `depth` operations in flight, verifies every read right after its
// completion while the others stay in flight, and counts what it saw.
// Nothing here is shared with other workers, so the hot loop takes no lock;
// on a file several workers test (jobs sharing it, a job's copies) the unit
// map is the file's, shared, its claims atomic (shared_unit_map.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/interval_recorder.h"
#include "engine/phase_work.h"
#include "engine/rate_schedule.h"
#include "engine/shared_unit_map.h"
#include "engine/unit_map.h"
#include "engine/write_durability.h"
#include "io/aligned_buffer.h"
#include "io/backend.h"
#include "model/config.h"
#include "model/damage.h"
#include "model/durability.h"
#include "model/phase_result.h"
#include "pattern/unit.h"

namespace ds::engine {

class Worker final : private MismatchSink {
  public:
    // Worker `index` of `run` (which tests file run.workers[index].file:
    // a plain run's worker i tests file i), with buffers and slots for the
    // deepest phase of the whole run.  A worker whose file has others on it
    // (RunPlan::files) keeps no map of its own: set_shared_map gives it the
    // file's before its first phase.
    Worker(const model::RunPlan& run, unsigned index, std::string path, int fd, std::uint64_t seed,
           std::uint64_t run_id, std::atomic<bool>& stop);

    // Creates the backend for `fd`; call on the thread that runs the phases
    // (again after the file was recreated).  With uring.iopoll, writes one
    // block at offset 0 to check that the device polls (throws SetupError
    // naming --iopoll when it cannot).
    void open_backend(io::BackendKind kind, int fd, io::UringOptions uring = {});
    // Releases the backend (its ring, registered file and buffers); call on
    // the thread that opened it.
    void close_backend() {
        backend_.reset();
        single_.reset();
    }
    // Raw-device mode: this worker's region starts here on the device;
    // backends add it to every offset, records report absolute offsets.
    void set_base_offset(std::uint64_t base) { base_ = base; }
    // Whether writes are filled through streaming stores: with O_DIRECT the
    // device (or a loop device's worker on another core) reads them, not
    // this core; buffered writes are copied by this thread: cached stores.
    void set_stream_fill(bool on) { stream_fill_ = on; }
    // What a trimmed unit may read back as on this target (--trim-pct).
    void set_trim_promise(pattern::TrimPromise p) { trim_promise_ = p; }
    // The map of its file, shared with the other workers on it (owned by
    // the caller, outliving the worker's phases); null: its own.
    void set_shared_map(SharedUnitMap* map) { shared_ = map; }
    // --io-log: where this worker's operations go (before its phases run).
    void set_io_log(IoLogTap tap) { io_log_ = tap; }
    // Or use one made elsewhere (tests wrap backends to inject faults).
    void set_backend(std::unique_ptr<io::Backend> backend) {
        backend_ = std::move(backend);
        single_.reset();
    }
    const io::Backend* backend() const { return backend_.get(); }
    std::span<std::byte> buffer_arena() const { return arena_.span(); }

    // Runs one phase as `order` says (its plan: order.work).
    PhaseOutcome run(const PhaseOrder& order);

    // Forget all content (the file was recreated).
    void reset_generations();
    std::span<const pattern::Generation> generations() const { return units_.generations(); }
    // A phase end's acknowledgement (--keep, after the file was synced):
    // the generations, with model::kTrimmedBit on units trimmed since their
    // last write, become the acknowledged map (a later record, a trim's,
    // starts from it) and are returned for the listener.
    std::span<const pattern::Generation> acknowledge_all();

    // Told, on this worker's thread, what is durable after every completed
    // flush (--sync fsync/fdatasync) or every sync_every completed writes
    // (--sync osync/dsync) and at the end of a writing phase.  Null: nobody.
    void set_durability_listener(model::DurabilityListener* l) { durable_.listener = l; }
    // The generations last acknowledged as durable (what the listener got).
    std::span<const pattern::Generation> acknowledged() const { return durable_.acked; }

    // Worker-local mismatch details (capped), drained by the coordinator.
    std::vector<model::MismatchRecord>& records() { return records_; }
    // Every mismatch and failed I/O of the run, merged into extents.
    const model::DamageMap& damage() const { return damage_; }
    // The file's size when a read found it shorter than it should be (the
    // file was truncated under the run), once per run.
    std::optional<std::uint64_t> truncated_to() const { return truncated_to_; }

    // Per-second statistics published so far in this phase.
    std::vector<model::IntervalStats> take_intervals() { return intervals_.take(); }

    // Progress, read by the coordinator while a phase runs.
    std::atomic<std::uint64_t> progress_bytes{0};
    std::atomic<std::uint64_t> progress_ops{0};
    // Operations in flight, stored by this worker's engine after each
    // submission and wait, read by whoever announces a stop.  A cache line
    // of its own: no other worker's stores touch it.
    alignas(64) std::atomic<unsigned> in_flight{0};

  private:
    // run() on its own map or its file's shared one.
    template <class Map>
    PhaseOutcome run_on(const PhaseOrder& order, Map& units);
    DueTimes* due_times(const PhaseOrder& order, PhaseWork& phase,
                        std::optional<RateSchedule>& schedule) const;
    void record(const PhaseOrder& order, model::PhaseCounters& c,
                model::MismatchRecord rec) override;
    void note_truncation() override;

    model::WorkerPlan plan_;  // the run's plan of this worker (its file's geometry)
    unsigned worker_index_;
    unsigned file_index_;
    std::string job_name_;  // its job's, for its records ("" outside a plan of jobs)
    std::string path_;
    int fd_;
    std::uint64_t seed_;
    std::uint64_t run_id_;
    std::uint64_t base_ = 0;
    pattern::TrimPromise trim_promise_ = pattern::TrimPromise::zeros;
    bool stream_fill_ = true;
    IoLogTap io_log_;
    std::atomic<bool>& stop_;
    UnitMap units_;  // its file's map (empty when the file's is shared_)
    SharedUnitMap* shared_ = nullptr;
    DurableMaps durable_;
    io::AlignedBuffer arena_;
    std::vector<Slot> slots_;
    std::unique_ptr<io::Backend> backend_;
    // sync: the single-threaded backend for phases at depth 1 when backend_
    // is a thread pool (made on first use).
    std::unique_ptr<io::Backend> single_;
    std::vector<model::MismatchRecord> records_;
    model::DamageMap damage_;
    std::optional<std::uint64_t> truncated_to_;
    IntervalRecorder intervals_;
};

}  // namespace ds::engine
