#include "engine/worker.h"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>
#include <utility>

#include "engine/phases.h"
#include "io/backend_factory.h"
#include "io/probe.h"
#include "io/sync_backend.h"
#include "model/errors.h"
#include "model/results.h"
#include "sys/atomic_write.h"
#include "sys/signals.h"

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::sys;

WorkerGeometry make_geometry(const RunConfig& cfg, unsigned backend_depth) {
    WorkerGeometry g{};
    g.file_bytes = cfg.file_bytes;
    g.seq_block = cfg.seq_block;
    g.rand_block = cfg.rand_block;
    g.max_rand_block = cfg.max_rand_block();
    g.rand_mix = cfg.rand_mix;
    std::uint64_t units = cfg.file_bytes / cfg.rand_block;
    std::uint64_t seq_cap = std::max<std::uint64_t>(1, kSeqInflightBytes / cfg.seq_block);
    std::uint64_t blocks = (cfg.file_bytes + cfg.seq_block - 1) / cfg.seq_block;
    g.seq_depth = static_cast<unsigned>(std::min<std::uint64_t>(
        {cfg.qd, backend_depth, seq_cap, std::max<std::uint64_t>(1, blocks)}));
    // At most half the units in flight, so picking a free unit stays cheap.
    g.rand_depth = static_cast<unsigned>(
        std::min<std::uint64_t>({cfg.qd, backend_depth, std::max<std::uint64_t>(1, units / 2)}));
    g.read_pct = cfg.read_pct;
    g.trim_pct = cfg.trim_pct;
    g.distribution = cfg.distribution;
    g.shape = cfg.unit_shape();
    g.verify = cfg.verify;
    g.sync = cfg.sync;
    g.sync_every = cfg.sync_every;
    g.batch = cfg.batch;
    g.atomic = cfg.atomic;
    return g;
}

Worker::Worker(const WorkerGeometry& geo, unsigned file_index, std::string path, int fd,
               std::uint64_t seed, std::uint64_t run_id, std::atomic<bool>& stop)
    : geo_(geo),
      file_index_(file_index),
      path_(std::move(path)),
      fd_(fd),
      seed_(seed),
      run_id_(run_id),
      stop_(stop),
      units_(geo.file_bytes, geo.rand_block),
      arena_(std::max<std::uint64_t>(std::uint64_t{geo.seq_depth} * geo.seq_block,
                                     std::uint64_t{geo.rand_depth} * geo.max_rand_block),
             io::AlignedBuffer::Pages::huge_if_large),
      slots_(std::max(geo.seq_depth, geo.rand_depth)) {
    durable_.acked.assign(units_.units(), pattern::kUnknownGeneration);
    durable_.snapshot.assign(units_.units(), pattern::kUnknownGeneration);
    durable_.file_index = file_index;
}

void Worker::open_backend(io::BackendKind kind, int fd, io::UringOptions uring) {
    backend_.reset();
    single_.reset();
    fd_ = fd;
    const unsigned depth = static_cast<unsigned>(slots_.size());
    try {
        backend_ = io::make_backend(kind, fd_, depth, arena_.span(), uring, base_);
    } catch (const std::system_error& e) {
        if (io::backend_flags(kind) & io::kBlockingCalls)  // the thread pool could not start
            throw SetupError("--qd " + std::to_string(depth) +
                             " with --backend sync: cannot start " + std::to_string(depth) +
                             " I/O threads for " + path_ + ": " + e.what() + " (ulimit -u or -v?)");
        if (!uring.sqpoll && !uring.iopoll) throw;
        throw SetupError(std::string(uring.sqpoll ? "--sqpoll" : "--iopoll") +
                         ": the kernel refused the ring: " + e.what());
    }
    // Before any phase: the first write of the run is the probe (the file's
    // content is not known yet; the sequential write overwrites it).
    if (uring.iopoll) {
        std::string why = io::probe_polled_io(*backend_, arena_.data(), geo_.rand_block);
        if (!why.empty()) throw SetupError("--iopoll: " + path_ + ": " + why);
    }
}

std::span<const pattern::Generation> Worker::acknowledge_all() {
    acknowledgeable(units_, durable_.acked);
    return durable_.acked;
}

void Worker::reset_generations() {
    units_.reset();
    std::fill(durable_.acked.begin(), durable_.acked.end(), pattern::kUnknownGeneration);
}

void Worker::record(const PhasePlan& plan, PhaseCounters& c, MismatchRecord rec) {
    ++c.mismatches[static_cast<std::size_t>(rec.cls)];
    // A verification mismatch damages its unit; a failed or short transfer
    // the bytes from where it failed to the end of the operation.
    const bool transfer = rec.cls == pattern::MismatchClass::io_error ||
                          rec.cls == pattern::MismatchClass::short_read;
    const std::uint64_t from = transfer ? rec.offset : rec.unit_offset;
    if (rec.length)
        damage_.add(from + base_, rec.unit_offset + rec.length - from, rec.cls, geo_.rand_block);
    // Past the end of a file that was truncated under us every read fails
    // the same way: the extent and the truncation say it once.
    if (truncated_to_ && rec.cls == pattern::MismatchClass::short_read &&
        rec.unit_offset + base_ >= *truncated_to_)
        return;
    if (records_.size() >= RunResult::kMaxRecords) return;
    rec.iteration = plan.iteration;
    rec.phase = plan.phase;
    rec.file_index = file_index_;
    rec.path = path_;
    rec.offset += base_;  // absolute on a raw device
    rec.unit_offset += base_;
    records_.push_back(std::move(rec));
}

void Worker::note_truncation() {
    if (truncated_to_) return;  // once
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) < geo_.file_bytes)
        truncated_to_ = static_cast<std::uint64_t>(st.st_size);
}

namespace {

// At most half of the random blocks in flight keeps picking one cheap.
unsigned random_depth(const WorkerGeometry& geo, const PhasePlan& plan, std::uint32_t block) {
    const std::uint64_t rand_blocks = geo.file_bytes / block;
    return static_cast<unsigned>(std::min<std::uint64_t>(
        plan.depth ? plan.depth : geo.rand_depth, std::max<std::uint64_t>(1, rand_blocks / 2)));
}

}  // namespace

// The open loop's due times: a timed replay's own, or --rate's schedule
// (made in `schedule`); null for a closed loop.
DueTimes* Worker::due_times(const PhasePlan& plan, IoPhase& phase,
                            std::optional<RateSchedule>& schedule) const {
    if (plan.phase != Phase::random) return nullptr;
    if (plan.replay) return plan.replay->timed() ? static_cast<ReplayPhase*>(&phase) : nullptr;
    if (plan.rate <= 0) return nullptr;
    return &schedule.emplace(plan.rate, plan.arrivals, plan.rate_start_ns, 0,
                             seed_ ^ (std::uint64_t{file_index_} << 40) ^ plan.iteration);
}

Worker::Outcome Worker::run(const PhasePlan& plan) {
    Outcome out;
    const bool random = plan.phase == Phase::random;
    // A random phase's slots hold its largest operation.
    const std::uint32_t block = !random           ? geo_.seq_block
                                : plan.rand_block ? plan.rand_block
                                                  : geo_.max_rand_block;
    const unsigned depth = random ? random_depth(geo_, plan, block) : geo_.seq_depth;
    for (std::size_t i = 0; i < slots_.size(); ++i)
        slots_[i].buf = i < depth ? arena_.data() + i * std::size_t{block} : nullptr;
    progress_bytes.store(0, std::memory_order_relaxed);
    progress_ops.store(0, std::memory_order_relaxed);
    intervals_.start(plan.intervals_from_ns, plan.interval_ns);
    out.series.start(plan.series_from_ns);

    PhaseContext ctx{plan,
                     units_,
                     run_id_,
                     file_index_,
                     geo_.file_bytes,
                     block,
                     geo_.verify,
                     geo_.stream_fill,
                     out,
                     *this,
                     intervals_,
                     stop_,
                     progress_bytes,
                     progress_ops,
                     monotonic_ns(),
                     pattern::data_id_from_seed(seed_),
                     geo_.shape,
                     trim_promise_,
                     io_log_,
                     geo_.atomic ? RWF_ATOMIC : 0};
    WriteDurability writes(geo_.sync, geo_.sync_every, units_, durable_);
    std::unique_ptr<IoPhase> phase = make_phase(
        ctx, &writes, {geo_.read_pct, &geo_.distribution, geo_.rand_mix, geo_.trim_pct}, seed_);
    // A sync thread pool asked for one operation at a time (a sweep's QD 1)
    // is the single-threaded baseline, as --qd 1 is: no hand-over to a pool.
    io::Backend* backend = backend_.get();
    if (depth == 1 && (backend->flags() & io::kBlockingCalls) && backend->depth() > 1) {
        if (!single_) single_ = std::make_unique<io::SyncBackend>(fd_, base_);
        backend = single_.get();
    }
    Engine engine(*backend, slots_, stop_);
    const std::uint64_t calls0 = backend->system_calls();
    std::optional<RateSchedule> schedule;
    DueTimes* due = due_times(plan, *phase, schedule);
    const EngineTally t = engine.run(*phase, {depth, geo_.batch, plan.pause_after_ops, plan.pause,
                                              &in_flight, due, plan.rate_spin});
    writes.finish();
    intervals_.finish(out.counters);
    phase->reaped(monotonic_ns());  // the final progress
    out.counters.retries += t.retries;
    out.counters.system_calls = backend->system_calls() - calls0;
    out.completed = !t.stopped;
    return out;
}

}  // namespace ds::engine
