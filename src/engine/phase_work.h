// What every phase does with the operations the engine runs for it: fill a
// write's buffer with the units' next generations, verify every read against
// the unit map, count bytes, operations and latencies, record what failed,
// and keep --sync's flush groups.  The phases themselves (seq_write_phase,
// seq_read_phase, random_phase) only say which operation comes next.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/engine.h"
#include "engine/interval_recorder.h"
#include "engine/unit_map.h"
#include "engine/write_durability.h"
#include "model/config.h"
#include "model/phase_result.h"
#include "model/plan.h"
#include "output/io_log.h"
#include "pattern/trim.h"
#include "stats/distribution.h"

namespace ds::engine {

class ReplaySource;  // phases.h

// What the coordinator asks of a worker for one phase: the worker's plan
// for it (the run's, or a sweep point's) and the phase's times.
struct PhaseOrder {
    model::Phase phase = model::Phase::seq_write;
    std::uint64_t iteration = 1;
    // The worker's plan (model/plan.h): depth, sizes, workload, rate share.
    // Never null once the coordinator hands the order over.
    const model::WorkerPlan* work = nullptr;
    // Monotonic deadline (0 = none): the random phase's end; with --seq-time,
    // when a sequential phase starts no further pass.
    std::uint64_t deadline_ns = 0;
    // A sequential phase: passes go on until this worker has issued this
    // many operations too (RunConfig::seq_until_measured; 0 = none).
    std::uint64_t min_ops = 0;
    // Test hook (run/test_hooks.h): `pause` after this many completions.
    std::uint64_t pause_after_ops = 0;
    void (*pause)() = nullptr;
    std::uint64_t intervals_from_ns = 0;  // --timeseries: phase start; 0 = no per-interval stats
    std::uint64_t series_from_ns = 0;     // phase start, for PhaseOutcome::series (0: none)
    std::uint64_t interval_ns = 1'000'000'000;  // --interval
    std::uint64_t round = 0;  // --steady-state: the random phase's round (0-based), for its offsets
    // An open loop (--rate, --replay): when the worker's schedule starts
    // (monotonic ns; its plan's rate_offset_ns is already added).
    std::uint64_t rate_start_ns = 0;
    const ReplaySource* replay = nullptr;
};

// How one worker's phase ended.
struct PhaseOutcome {
    model::PhaseCounters counters;
    model::ThroughputSeries series;  // completions over time, from PhaseOrder::series_from_ns
    // The random phase under a skewed --distribution: where its operations landed.
    std::optional<model::SkewResult> skew;
    bool completed = true;  // false when stopped early
    double seconds = 0;     // this worker's own time in the phase (the coordinator's clock)
    // When the coordinator saw it start and end (monotonic ns; 0: it did
    // not run): its job's active interval (model::JobResult).
    std::uint64_t started_ns = 0, ended_ns = 0;
    // Set when a write found the filesystem full: counted as a write error
    // and the phase goes on, but the run ends after it (a setup problem, not
    // the drive's fault: exit 1).
    std::optional<std::uint64_t> no_space_at;
    bool no_space_in_flush = false;  // it was a flush that found it full
    // Set when the kernel refused a read or write as invalid (EINVAL): with
    // O_DIRECT, an alignment the target does not take.  A setup problem,
    // never a drive error: every worker stops at once (exit 1).
    std::optional<io::Request> invalid;
    // Set (to the errno) when the target refused a trim outright: a file
    // system that punches no holes, a device without discard.  A setup
    // problem: every worker stops (exit 1).
    std::optional<int> trim_refused;
};

// Where a phase's mismatches and failed operations go (the worker's
// records, damage extents and truncation note).
class MismatchSink {
  public:
    virtual ~MismatchSink() = default;
    virtual void record(const PhaseOrder& order, model::PhaseCounters& c,
                        model::MismatchRecord rec) = 0;
    // A read found the end of the file early.
    virtual void note_truncation() = 0;
};

// --io-log: where a worker's operations go, and how they are named there.
struct IoLogTap {
    output::IoLog* log = nullptr;  // null: no --io-log
    std::size_t ring = 0;          // the worker's ring
    std::uint16_t target = 0;      // the name its lines carry (IoLog's targets)
    std::uint64_t base = 0;        // added to a file offset: the offset the line says
};

// Everything a phase works on, owned by the worker (the unit map apart: the
// worker's own, or its file's shared one).
struct PhaseContext {
    const PhaseOrder& order;
    std::uint64_t run_id;
    unsigned file_index;
    std::uint64_t file_bytes;
    std::uint32_t block;  // this phase's operation size
    bool verify;
    bool stream_fill;  // fill write buffers through streaming stores (Worker::set_stream_fill)
    PhaseOutcome& out;
    MismatchSink& sink;
    IntervalRecorder& intervals;
    std::atomic<bool>& stop;
    std::atomic<std::uint64_t>& progress_bytes;
    std::atomic<std::uint64_t>& progress_ops;
    std::uint64_t now_ns = 0;   // the clock at the last wait
    std::uint64_t data_id = 0;  // the payload's key (pattern::UnitIdentity::data_id)
    pattern::UnitShape shape = pattern::kSectorBytes;  // the units' shape (--compress, --dedupe)
    // What a trimmed unit of this file may read back as (--trim-pct).
    pattern::TrimPromise trim_promise = pattern::TrimPromise::zeros;
    IoLogTap io_log;
    // Flags every write carries besides --sync's: RWF_ATOMIC (--atomic).
    int write_flags = 0;
    // The worker (file_index names its file): what its draws are seeded from.
    unsigned worker = 0;
    // A unit of this file, offset and generation to be set.
    pattern::UnitIdentity unit(std::uint32_t unit_bytes) const {
        return {run_id, file_index, 0, 1, unit_bytes, data_id, shape};
    }
};

// Fills `buf` with the units of [offset, offset + length) as their current
// generations in `units` say (after units.advance() for a write); `base`
// names the run, file, data and shape.  With `streaming`, through streaming
// stores, fenced (see pattern::stream).  Map: UnitMap or SharedUnitMap.
template <class Map>
void fill_units(const Map& units, pattern::UnitIdentity base, std::byte* buf, std::uint64_t offset,
                std::uint32_t length, bool streaming);

// The engine's view of a phase, with everything phases share, on a file's
// unit map: the worker's own (UnitMap: a file with one worker, no atomic on
// its path) or the file's shared one (SharedUnitMap, shared_unit_map.h).
// Both are compiled (phase_work.cpp): which one is decided once per phase,
// never per operation.
template <class Map>
class BasicIoPhase : public PhaseWork {
  public:
    // `writes` is null for phases that only read.
    BasicIoPhase(PhaseContext& c, Map& units, BasicWriteDurability<Map>* writes)
        : c_(c),
          units_(units),
          writes_(writes),
          tolerance_ns_(model::lateness_tolerance_ns(
              c.order.phase == model::Phase::random ? c.order.work->rate : 0)) {
        // A scheduled phase (--rate, --replay) counts response times by
        // direction too; sized here, never in scheduled_done.
        if (c.order.phase == model::Phase::random && (c.order.work->rate > 0 || c.order.replay))
            c.out.counters.keep_response_by_direction();
    }

    Next next(Slot& s) final;
    bool more() const final;
    void complete(Slot& s, std::int32_t result, std::uint64_t latency_ns) final;
    void reaped(std::uint64_t now_ns) final;
    // Phases that only read get no WriteDurability (a random one may still).
    bool fills_writes() const override { return writes_ != nullptr; }

  protected:
    // Sets s.req's kind, offset and length to the next operation; false
    // when the phase has none left, or (while more_ops()) none that can be
    // issued before an operation in flight completes.
    virtual bool next_op(Slot& s) = 0;
    virtual bool more_ops() const = 0;
    // The operation of `s` is over (whatever its result).
    virtual void released(const Slot&) {}

    PhaseContext& c_;
    Map& units_;

  private:
    void fill(Slot& s);
    void verify(const Slot& s);
    void verify_trimmed(std::span<const std::byte> unit, const pattern::UnitIdentity& id);
    // Records a unit that is not what `id` says, diagnosed.
    void mismatch(std::span<const std::byte> unit, const pattern::UnitIdentity& id);
    void trim_done(Slot& s, std::int32_t result, std::uint64_t latency_ns);
    void flush_done(Slot& s, std::int32_t result, std::uint64_t latency_ns);
    void failed(Slot& s, std::int32_t result, bool is_read);
    void record_failure(const Slot& s, std::int32_t result);
    // --rate: the response time and schedule figures of a completed operation.
    void scheduled_done(const Slot& s, std::uint64_t latency_ns);
    // --io-log: the line of an operation that ended with `result`.
    void log(const Slot& s, std::int32_t result, std::uint64_t latency_ns,
             output::IoLogVerify verify) const;
    // A completed read's outcome, from what verify() counted for it.
    output::IoLogVerify read_outcome(std::uint64_t mismatches_before,
                                     std::uint64_t verified_before) const;

    BasicWriteDurability<Map>* writes_;
    std::vector<std::uint64_t> scratch_;  // a trimmed unit's old content (verify_trimmed)
    // --rate: lateness beyond this counts against rate_met() (model/results.h).
    std::uint64_t tolerance_ns_;
};

// The phases of a file with one worker.
using IoPhase = BasicIoPhase<UnitMap>;

}  // namespace ds::engine
