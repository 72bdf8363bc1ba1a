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

using model::MismatchRecord;
using model::Phase;
using model::PhaseCounters;

namespace {

// Whether the worker's file has other workers on it (its map is then the
// file's, shared).
bool shares_file(const model::RunPlan& run, const model::WorkerPlan& w) {
    return w.file < run.files.size() && run.files[w.file].shared();
}

// What the random phase draws, as the worker's plan says (it outlives the phase).
RandomMix mix_of(const model::WorkerPlan& p) {
    return {p.read_pct, &p.distribution, p.rand_mix, p.trim_pct, p.rand_align};
}

// The counters a phase counts in again after its ramp: none, shaped as
// `c` (its sizes, its response times by direction).
PhaseCounters emptied_like(const PhaseCounters& c) {
    PhaseCounters fresh;
    for (const model::SizeCounters& s : c.sizes)
        fresh.sizes.push_back(model::SizeCounters{s.bytes});
    if (!c.response_by_direction.empty()) fresh.keep_response_by_direction();
    return fresh;
}

// What `ramp` found rather than measured, into `c`: its mismatches, the
// bytes it verified, its failed writes and units left unknown, its trimmed
// units read back, its cancelled operations.
void add_findings(PhaseCounters& c, const PhaseCounters& ramp) {
    c.verified_bytes += ramp.verified_bytes;
    c.unverified_units += ramp.unverified_units;
    c.cancelled_ops += ramp.cancelled_ops;
    for (std::size_t i = 0; i < c.mismatches.size(); ++i)
        c.mismatches[i] += ramp.mismatches[i];
    c.write_errors += ramp.write_errors;
    c.trimmed_units_read += ramp.trimmed_units_read;
    if (c.trim_not_honoured == 0) c.first_not_honoured = ramp.first_not_honoured;
    c.trim_not_honoured += ramp.trim_not_honoured;
}

// The workload phase's ramp (WorkerPlan::ramp_ns, fio's ramp_time): the
// phase runs until `ramp_end` (or its own end), every operation verified as
// ever; then its counters start again from none, keeping what the ramp
// found (mismatches, verified bytes, failed writes): what completed in the
// ramp is not in its figures, nor in its throughput series (started again
// at the ramp's end: what its figure's interval is made of).  Per-interval
// statistics (the live view, --timeseries) go on counting from where they
// were.  `mine` is the order the phase reads, its deadline the ramp's
// meanwhile.
EngineTally run_ramp(Engine& engine, PhaseWork& phase, const EngineOptions& opts, PhaseOrder& mine,
                     std::uint64_t ramp_end, PhaseOutcome& out, IntervalRecorder& intervals) {
    const std::uint64_t deadline = mine.deadline_ns;
    mine.deadline_ns = deadline ? std::min(deadline, ramp_end) : ramp_end;
    const EngineTally t = engine.run(phase, opts);
    mine.deadline_ns = deadline;
    PhaseCounters ramp = std::exchange(out.counters, emptied_like(out.counters));
    intervals.rebase(ramp);
    if (mine.series_from_ns) out.series.start(monotonic_ns());
    add_findings(out.counters, ramp);
    return t;
}

// The engine over the phase, through its ramp first when it has one (a
// `ramp_end`; 0: none).
EngineTally run_engine(Engine& engine, PhaseWork& phase, const EngineOptions& opts,
                       PhaseOrder& mine, std::uint64_t ramp_end, PhaseOutcome& out,
                       IntervalRecorder& intervals) {
    EngineTally t;
    if (ramp_end) t = run_ramp(engine, phase, opts, mine, ramp_end, out, intervals);
    if (t.stopped) return t;
    const EngineTally rest = engine.run(phase, opts);
    t.retries += rest.retries;
    t.stopped = rest.stopped;
    return t;
}

}  // namespace

Worker::Worker(const model::RunPlan& run, unsigned index, std::string path, int fd,
               std::uint64_t seed, std::uint64_t run_id, std::atomic<bool>& stop)
    : plan_(run.workers.at(index)),
      worker_index_(index),
      file_index_(plan_.file),
      job_name_(plan_.job < run.jobs.size() ? run.jobs[plan_.job].name : std::string()),
      path_(std::move(path)),
      fd_(fd),
      seed_(seed),
      run_id_(run_id),
      stop_(stop),
      units_(shares_file(run, plan_) ? 0 : plan_.file_bytes, plan_.unit),
      arena_(run.worker_buffer_bytes(plan_.seq_block), io::AlignedBuffer::Pages::huge_if_large),
      slots_(std::max(run.max_seq_depth, run.max_rand_depth)) {
    const std::uint64_t units = plan_.file_bytes / plan_.unit;
    durable_.acked.assign(units, pattern::kUnknownGeneration);
    durable_.snapshot.assign(units, pattern::kUnknownGeneration);
    durable_.file_index = index;
}

void Worker::open_backend(io::BackendKind kind, int fd, io::UringOptions uring) {
    backend_.reset();
    single_.reset();
    fd_ = fd;
    const unsigned depth = static_cast<unsigned>(slots_.size());
    uring.spin_us = plan_.wait_spin_us;
    try {
        backend_ = io::make_backend(kind, fd_, depth, arena_.span(), uring, base_);
    } catch (const std::system_error& e) {
        if (io::backend_flags(kind) & io::kBlockingCalls)  // the thread pool could not start
            throw model::SetupError("--qd " + std::to_string(depth) +
                                    " with --backend sync: cannot start " + std::to_string(depth) +
                                    " I/O threads for " + path_ + ": " + e.what() +
                                    " (ulimit -u or -v?)");
        if (!uring.sqpoll && !uring.iopoll) throw;
        throw model::SetupError(std::string(uring.sqpoll ? "--sqpoll" : "--iopoll") +
                                ": the kernel refused the ring: " + e.what());
    }
    // Before any phase: the first write of the run is the probe (the file's
    // content is not known yet; the sequential write overwrites it).
    if (uring.iopoll) {
        std::string why = io::probe_polled_io(*backend_, arena_.data(), plan_.unit);
        if (!why.empty()) throw model::SetupError("--iopoll: " + path_ + ": " + why);
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

void Worker::record(const PhaseOrder& order, PhaseCounters& c, MismatchRecord rec) {
    ++c.mismatches[static_cast<std::size_t>(rec.cls)];
    // A verification mismatch damages its unit; a failed or short transfer
    // the bytes from where it failed to the end of the operation.
    const bool transfer = rec.cls == pattern::MismatchClass::io_error ||
                          rec.cls == pattern::MismatchClass::short_read;
    const std::uint64_t from = transfer ? rec.offset : rec.unit_offset;
    if (rec.length)
        damage_.add(from + base_, rec.unit_offset + rec.length - from, rec.cls, plan_.unit);
    // Past the end of a file that was truncated under us every read fails
    // the same way: the extent and the truncation say it once.
    if (truncated_to_ && rec.cls == pattern::MismatchClass::short_read &&
        rec.unit_offset + base_ >= *truncated_to_)
        return;
    if (records_.size() >= model::RunResult::kMaxRecords) return;
    rec.iteration = order.iteration;
    rec.phase = order.phase;
    rec.file_index = file_index_;
    rec.path = path_;
    rec.job = job_name_;
    rec.offset += base_;  // absolute on a raw device
    rec.unit_offset += base_;
    records_.push_back(std::move(rec));
}

void Worker::note_truncation() {
    if (truncated_to_) return;  // once
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_size) < plan_.file_bytes)
        truncated_to_ = static_cast<std::uint64_t>(st.st_size);
}

// The open loop's due times: a timed replay's own, or --rate's schedule
// (made in `schedule`); null for a closed loop.
DueTimes* Worker::due_times(const PhaseOrder& order, PhaseWork& phase,
                            std::optional<RateSchedule>& schedule) const {
    if (order.phase != Phase::random) return nullptr;
    if (order.replay)  // replayed on a file of its own only (phases.h)
        return order.replay->timed() && !shared_ ? static_cast<ReplayPhase*>(&phase) : nullptr;
    const model::WorkerPlan& p = *order.work;
    if (p.rate <= 0) return nullptr;
    return &schedule.emplace(p.rate, p.arrivals, order.rate_start_ns, 0,
                             seed_ ^ (std::uint64_t{worker_index_} << 40) ^ order.iteration);
}

PhaseOutcome Worker::run(const PhaseOrder& order) {
    if (shared_) return run_on(order, *shared_);
    return run_on(order, units_);
}

template <class Map>
PhaseOutcome Worker::run_on(const PhaseOrder& order, Map& units) {
    PhaseOutcome out;
    PhaseOrder mine = order;  // what the phase reads (its deadline changes after a ramp)
    const model::WorkerPlan& p = *order.work;
    const bool random = order.phase == Phase::random;  // its slots hold its largest operation
    const std::uint32_t block = random ? p.max_rand_block : p.seq_block;
    const unsigned depth = random ? p.rand_depth : p.seq_depth;
    for (std::size_t i = 0; i < slots_.size(); ++i)
        slots_[i].buf = i < depth ? arena_.data() + i * std::size_t{block} : nullptr;
    progress_bytes.store(0, std::memory_order_relaxed);
    progress_ops.store(0, std::memory_order_relaxed);
    intervals_.start(order.intervals_from_ns, order.interval_ns);
    out.series.start(order.series_from_ns);

    PhaseContext ctx{mine,
                     run_id_,
                     file_index_,
                     plan_.file_bytes,
                     block,
                     p.verify,
                     stream_fill_,
                     out,
                     *this,
                     intervals_,
                     stop_,
                     progress_bytes,
                     progress_ops,
                     monotonic_ns(),
                     pattern::data_id_from_seed(seed_),
                     p.shape,
                     trim_promise_,
                     io_log_,
                     p.atomic ? RWF_ATOMIC : 0,
                     worker_index_};
    BasicWriteDurability<Map> writes(p.sync, p.sync_every, units, durable_);
    std::unique_ptr<BasicIoPhase<Map>> phase = make_phase(ctx, units, &writes, mix_of(p), seed_);
    // A sync thread pool asked for one operation at a time (a sweep's QD 1)
    // is the single-threaded baseline, as --qd 1 is: no hand-over to a pool.
    io::Backend* backend = backend_.get();
    if (depth == 1 && (backend->flags() & io::kBlockingCalls) && backend->depth() > 1) {
        if (!single_) single_ = std::make_unique<io::SyncBackend>(fd_, base_);
        backend = single_.get();
    }
    backend->set_spin_us(p.wait_spin_us);
    Engine engine(*backend, slots_, stop_);
    const std::uint64_t calls0 = backend->system_calls();
    std::optional<RateSchedule> schedule;
    DueTimes* due = due_times(order, *phase, schedule);
    const EngineTally t =
        run_engine(engine, *phase,
                   {depth, p.batch, order.pause_after_ops, order.pause, &in_flight, due, p.spin},
                   mine, random && p.ramp_ns ? ctx.now_ns + p.ramp_ns : 0, out, intervals_);
    writes.finish();
    intervals_.finish(out.counters);
    phase->reaped(monotonic_ns());  // the final progress
    out.counters.retries += t.retries;
    out.counters.system_calls = backend->system_calls() - calls0;
    out.completed = !t.stopped;
    return out;
}

}  // namespace ds::engine
