#include "run/session.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <tuple>

#include "io/backend_factory.h"
#include "model/errors.h"
#include "pattern/compressibility.h"
#include "pattern/duplicates.h"
#include "pattern/unit.h"
#include "run/atomic_promise.h"
#include "run/placement.h"
#include "run/trim_promise.h"
#include "sys/memory.h"
#include "sys/signals.h"
#include "units/diag.h"
#include "units/units.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::engine;
using namespace ds::targets;
using namespace ds::sys;

namespace {

// Which backend the run uses (recorded in `res`); throws SetupError when one
// asked for does not work here.
io::BackendKind pick_backend(const RunConfig& cfg, RunResult& res) {
    BackendInfo& info = res.backend;
    info.requested = cfg.backend;
    const std::optional<io::BackendKind> asked = io::backend_named(to_string(cfg.backend));
    const io::BackendSelection sel = io::select_backend(asked, cfg.sqpoll || cfg.iopoll || cfg.nop);
    if (!sel.refusal.empty())
        // --compare-backends asks for io_uring itself: name what the user gave.
        throw SetupError(std::string(cfg.compare_backends ? "--compare-backends needs io_uring"
                                     : cfg.nop            ? "--backend nop"
                                     : asked              ? "--backend io_uring"
                                     : cfg.sqpoll         ? "--sqpoll"
                                                          : "--iopoll") +
                         ": " + sel.refusal);
    info.used = sel.used;
    info.fallback_reason = sel.fallback_reason;
    return sel.used;
}

// Per worker: three generation maps of four bytes per unit (the unit map,
// the acknowledged and the snapshot maps), the buffers in flight, and with
// --io-log the worker's ring of records.
constexpr std::uint64_t kMapBytesPerUnit = 3 * sizeof(pattern::Generation);
constexpr std::uint64_t kIoLogRingBytes = output::kIoLogRingRecords * sizeof(output::IoRecord);

std::uint64_t worker_memory_bytes(const RunConfig& cfg, const RunPlan& plan) {
    const std::uint64_t units = cfg.file_bytes / cfg.rand_block;
    return kMapBytesPerUnit * units + plan.worker_buffer_bytes(cfg.seq_block) +
           (cfg.io_log.empty() ? 0 : kIoLogRingBytes);
}

std::string memory_need_text(const RunConfig& cfg, const RunPlan& plan) {
    return std::to_string(cfg.workers()) + " x " +
           units::format_bytes(worker_memory_bytes(cfg, plan)) + " of unit maps and buffers" +
           (cfg.io_log.empty() ? "" : " and an io-log ring") + " (" +
           std::to_string(kMapBytesPerUnit) + " bytes per " + units::format_bytes(cfg.rand_block) +
           " unit)";
}

// Refused before any file exists, rather than a std::bad_alloc later.
// `trace_bytes`: --replay -'s standard input, held in memory already.
const RunPlan& checked_memory(const RunConfig& cfg, const RunPlan& plan,
                              std::uint64_t trace_bytes) {
    const std::uint64_t avail = available_memory_bytes();
    const std::uint64_t need = worker_memory_bytes(cfg, plan) * cfg.workers() + trace_bytes;
    if (avail && need > avail) {
        // Exact bytes where rounding would show the need fitting.
        const bool hidden = units::format_bytes_against(need, avail) != units::format_bytes(need);
        throw SetupError(
            "not enough memory: the run needs " + memory_need_text(cfg, plan) +
            (trace_bytes ? " and " + units::format_bytes(trace_bytes) +
                               " of trace from standard input (--replay -)"
                         : std::string()) +
            (hidden ? ", " + std::to_string(need) + " bytes in all" : "") + ", " +
            (hidden ? units::format_bytes_against(avail, need) : units::format_bytes(avail)) +
            " available; lower --size or --files, or raise --rand-block" +
            (trace_bytes ? "; give the trace as a file (streamed)" : ""));
    }
    return plan;
}

// --keep: the new files' sizes and names are made durable before anything
// written to them can be acknowledged; a flush that fails ends the run
// before it starts (a durability test cannot vouch for anything then).
void sync_new_files(const TargetSet& target) {
    for (std::size_t i = 0; i < target.file_count(); ++i)
        if (::fsync(target.fd(i)) != 0)
            throw SetupError(target.path(i) + ": fsync: " + std::strerror(errno));
    if (::fsync(target.dir_fd()) != 0)
        throw SetupError(target.info().directory +
                         ": fsync of the directory: " + std::strerror(errno));
}

// --replay: the trace read through, and what the workers need to know of it
// before they exist (their buffers hold its largest operation).
std::unique_ptr<ReplayTrace> read_replay(RunConfig& cfg) {
    if (cfg.replay.empty()) return nullptr;
    auto r = std::make_unique<ReplayTrace>(cfg);
    cfg.replay_block = r->largest_piece();
    cfg.replay_trims = r->info().trims > 0;
    return r;
}

std::uint64_t state_bytes(const RunConfig& cfg) {
    return cfg.keep ? state_file_bytes(cfg.files, cfg.file_bytes / cfg.rand_block,
                                       256 * std::size_t{cfg.files})
                    : 0;
}

// The run's plan: of a job file's jobs (modes/job_file_run.h: their files
// the run's, sized), of the configuration's one job, or of the jobs a test
// gave (TestHooks::jobs), whose files are the run's ("drivestress-N.dat";
// 0 bytes: --size's).  Those run on one target, without what keeps or
// replays per file.
RunPlan plan_of(const RunConfig& cfg, const TestHooks& hooks) {
    if (cfg.jobs) return make_run_plan(cfg, *cfg.jobs, {usable_cpus()});
    if (hooks.jobs.empty()) return make_run_plan(cfg, {usable_cpus()});
    if (cfg.keep || cfg.recreate || !cfg.replay.empty() || cfg.sweep || !cfg.io_log.empty() ||
        cfg.target_count() > 1)
        throw SetupError(
            "test jobs: not with --keep, --recreate, --replay, a sweep, --io-log "
            "or several targets");
    std::vector<JobSpec> jobs = hooks.jobs;
    for (JobSpec& j : jobs)
        for (FileSpec& f : j.files)
            if (f.bytes == 0) f.bytes = cfg.file_bytes;
    return make_run_plan(cfg, std::move(jobs), {usable_cpus()});
}

// The run's file each worker tests: its file's number N in its name
// ("drivestress-N.dat", as jobs_from_config names a plain run's; read by
// the targets' own reader of that name) within its target.  A plain run's
// worker i: file i.
std::vector<unsigned> worker_files(const RunPlan& plan, const TargetSet& target) {
    std::vector<unsigned> out;
    for (const WorkerPlan& w : plan.workers) {
        const std::string& name = plan.files.at(w.file).name;
        const long n = data_file_index(name, "drivestress-");
        const std::size_t file = target.first(w.target) + static_cast<std::size_t>(n);
        if (n < 0 || static_cast<std::size_t>(n) >= target.at(w.target).file_count() ||
            file >= target.file_count())
            throw SetupError("job file " + name + ": not one of the run's files");
        out.push_back(static_cast<unsigned>(file));
    }
    return out;
}

}  // namespace

void collect_records(std::vector<std::unique_ptr<Worker>>& workers, RunResult& res) {
    for (auto& w : workers) {
        for (auto& r : w->records())
            res.mismatch_records.push_back(std::move(r));
        w->records().clear();
    }
    std::sort(res.mismatch_records.begin(), res.mismatch_records.end(),
              [](const MismatchRecord& a, const MismatchRecord& b) {
                  return std::tie(a.iteration, a.phase, a.file_index, a.offset) <
                         std::tie(b.iteration, b.phase, b.file_index, b.offset);
              });
    if (res.mismatch_records.size() > RunResult::kMaxRecords)
        res.mismatch_records.resize(RunResult::kMaxRecords);
}

RunSession::RunSession(RunConfig& c, RunResult& r, RunObserver& o)
    : cfg(c),
      res(r),
      observer(o),
      hooks(test_hooks()),
      replay(read_replay(c)),
      target(c, state_bytes(c)),
      kind(pick_backend(c, r)),
      plan(checked_memory(c, plan_of(c, hooks), replay ? replay->held_bytes() : 0)),
      worker_file_(worker_files(plan, target)) {
    if (replay) {
        std::vector<std::string> names;
        for (std::size_t t = 0; t < target.count(); ++t)
            names.push_back(target.at(t).info().path);
        replay->place(target.count(), cfg.files, cfg.file_bytes, names, target.at(0).raw());
        res.replay = replay->info();
    }
    install_signal_handlers();
    hooks.pause_if(hooks.stop_before_create);
    create_files();
    res.target = target.info();
    res.direct_io = target.direct_io();
    res.direct_io_note = target.direct_io_note();
    if (cfg.iopoll && !target.direct_io())
        throw SetupError("--iopoll: needs O_DIRECT: " + target.direct_io_note());
    for (std::size_t i = 0; i < target.file_count(); ++i)
        res.file_paths.push_back(target.path(i));
    describe_targets();
    measure_data();
    res.plan = plan;
    res.jobs = job_results(plan);
    res.backend.effective_qd = plan.rand_depth();
    res.backend.seq_qd = plan.seq_depth();
}

// The units are a pure function of their identity, so the sample is
// generated here rather than copied off the write path (verification holds
// the drive to these very bytes); 256 units cost a few milliseconds.  The
// duplicates are counted off every unit's identity, no byte generated: at
// most 2^22 units (16 GiB of 4 KiB units), 50 ms here; a default run's
// 2^18, 3 ms.
void RunSession::measure_data() {
    constexpr unsigned kSampledUnits = 256;
    constexpr std::uint64_t kCountedUnits = std::uint64_t{1} << 22;
    const pattern::UnitIdentity base{
        res.run_id,      0, 0, 1, cfg.rand_block, pattern::data_id_from_seed(cfg.seed),
        cfg.unit_shape()};
    const pattern::CompressEstimate e =
        pattern::estimate_units(base, cfg.file_bytes, cfg.files, kSampledUnits);
    res.data = DataCompressibility{cfg.compress, e.ratio, e.units};
    if (cfg.dedupe == 0) return;
    const pattern::DuplicateCount d =
        pattern::count_duplicates(base, cfg.file_bytes, cfg.files, kCountedUnits);
    res.data->dedupe_pct = cfg.dedupe_pct();
    res.data->counted_units = d.units;
    res.data->duplicate_units = d.duplicates;
    res.data->dedupe_sources = d.sources;
    res.data->dedupe_ratio = d.ratio();
}

// One TargetResult per target, in the order given: its name, device and
// workers (the figures come as phases end).
void RunSession::describe_targets() {
    for (std::size_t t = 0; t < target.count(); ++t) {
        const Target& one = target.at(t);
        TargetResult r;
        r.raw = one.raw();
        r.info = one.info();
        r.name = target_name(r.info, r.raw);
        r.device_kind = device_kind(r.raw ? r.info.path : r.info.device);
        r.first_file = static_cast<unsigned>(target.first(t));
        r.files = static_cast<unsigned>(one.file_count());
        r.capacity_bytes = cfg.file_bytes * r.files;
        r.direct_io = one.direct_io();
        if (cfg.trims()) {
            const TrimPromiseOf p = trim_promise_of(one);
            r.trim_promise = p.promise;
            r.trims = p.words;
        }
        r.atomic = atomic_promise_of(one);
        res.targets.push_back(std::move(r));
    }
}

void RunSession::create_files() {
    try {
        target.create_files(res.run_id, pattern::data_id_from_seed(cfg.seed), cfg.unit_shape());
        if (!cfg.keep) return;
        sync_new_files(target);
        StateGeometry sg;
        sg.seed = cfg.seed;
        sg.run_id = res.run_id;
        sg.file_bytes = cfg.file_bytes;
        sg.unit_bytes = cfg.rand_block;
        sg.shape = cfg.unit_shape();
        sg.trims = cfg.trims();
        // Without --sync, acknowledgements come only at phase ends.
        sg.bound = unacked_write_bound(cfg, cfg.sync == SyncMethod::none ? 0 : cfg.sync_every);
        for (std::size_t i = 0; i < target.file_count(); ++i)
            sg.paths.push_back(target.path(i));
        state = std::make_unique<StateFile>(target.state_path(), std::move(sg));
        res.state_path = target.state_path();
    } catch (...) {
        target.remove_files();  // even with --keep: nothing worth keeping yet
        throw;
    }
}

RunSession::~RunSession() {
    pool.reset();  // the threads close their rings first
    workers.clear();
    if (started_ || !state) return;
    target.remove_files();
    state->remove();
}

io::UringOptions RunSession::uring_options() const {
    io::UringOptions u;
    u.sqpoll = cfg.sqpoll;
    u.iopoll = cfg.iopoll;
    u.nop = cfg.nop;
    return u;
}

void RunSession::start_workers() {
    const auto count = static_cast<unsigned>(plan.workers.size());
    try {
        for (unsigned i = 0; i < count; ++i)
            workers.push_back(std::make_unique<Worker>(plan, i, target.path(file_of(i)),
                                                       target.fd(file_of(i)), cfg.seed, res.run_id,
                                                       stop));
        for (const FilePlan& f : plan.files) {
            if (!f.shared()) continue;
            shared_maps.push_back(std::make_unique<SharedUnitMap>(f.bytes, f.unit));
            for (unsigned w : f.workers)
                workers[w]->set_shared_map(shared_maps.back().get());
        }
    } catch (const std::bad_alloc&) {  // e.g. under ulimit -v
        throw SetupError("out of memory allocating " + memory_need_text(cfg, plan) +
                         "; lower --size, --files or --qd, or raise --rand-block");
    }
    for (unsigned i = 0; i < count; ++i) {
        if (state) workers[i]->set_durability_listener(state.get());
        workers[i]->set_base_offset(target.base_offset(file_of(i)));
        workers[i]->set_trim_promise(res.targets[target.target_of(file_of(i))].trim_promise);
        workers[i]->set_stream_fill(target.direct_io());
    }
    wall_start_ = std::chrono::steady_clock::now();
    last_snapshot_ns = monotonic_ns();
    started_ns = last_snapshot_ns;
    if (cfg.duration_s)
        duration_deadline_ns = last_snapshot_ns + static_cast<std::uint64_t>(*cfg.duration_s * 1e9);
    pool = std::make_unique<WorkerPool>(workers, place_workers());
    run_on_workers([&](unsigned i, Worker& w) {
        w.open_backend(kind, target.fd(file_of(i)), uring_options());
    });
    res.backend.uring = workers[0]->backend()->describe().uring;
    res.backend.sync_threads = workers[0]->backend()->describe().sync_threads;
    // The plan was made before auto chose: a sync backend waits in its calls.
    if (io::backend_flags(kind) & io::kBlockingCalls)
        for (WorkerPlan& w : res.plan.workers) {
            w.wait_spin_us = 0;
            w.wait_rule = model::WaitRule::not_ring;
        }
    health.reserve(res.targets.size());
    for (TargetResult& t : res.targets)
        health.emplace_back(t.raw ? t.info.path : t.info.directory, hooks, t.health);
    observer.started(cfg, res);  // may refuse (an output file it cannot create)
    open_io_log();
    started_ = true;
}

// Lines name a target by index and give offsets in its space (its files in
// order; a raw device's own offsets), the space --replay places a trace in.
// fio's format names what fio opens instead: each file, or the raw device.
void RunSession::open_io_log() {
    if (cfg.io_log.empty()) return;
    const bool fio = cfg.io_log_format == output::IoLogFormat::fio;
    std::vector<std::string> names;
    std::vector<IoLogTap> taps(workers.size());
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const std::size_t t = target.target_of(i);
        const bool raw = target.raw(i);
        std::string name = !fio  ? res.targets[t].name
                           : raw ? res.targets[t].info.path
                                 : target.path(i);
        auto at = std::find(names.begin(), names.end(), name);
        if (at == names.end()) at = names.insert(names.end(), std::move(name));
        taps[i].ring = i;
        taps[i].target = static_cast<std::uint16_t>(at - names.begin());
        taps[i].base = raw   ? target.base_offset(i)
                       : fio ? 0
                             : (i - target.first(t)) * cfg.file_bytes;
    }
    try {
        io_log = std::make_unique<output::IoLog>(cfg.io_log, cfg.io_log_format, workers.size(),
                                                 std::move(names), last_snapshot_ns);
    } catch (const std::system_error& e) {
        throw SetupError(std::string("--io-log ") + e.what());
    }
    for (std::size_t i = 0; i < workers.size(); ++i) {
        taps[i].log = io_log.get();
        workers[i]->set_io_log(taps[i]);
    }
    res.io_log = IoLogResult{cfg.io_log, cfg.io_log_format, 0, 0, ""};
}

// After the last phase: every line written, the file closed; a drop or a
// failure is said once.
void RunSession::close_io_log() {
    if (!io_log) return;
    res.io_log->error = io_log->finish();
    res.io_log->lines = io_log->written();
    res.io_log->dropped = io_log->dropped();
    // After a failure the rest is not written, and the failure is the message.
    if (const std::string d = io_log->drop_summary(); !d.empty() && res.io_log->error.empty())
        units::warning(d);
}

// Each target's workers on its device's NUMA node, or on --cpus
// (run/placement.h); recorded in the target's result.
std::vector<std::vector<unsigned>> RunSession::place_workers() {
    std::vector<std::string> devices;
    for (const auto& t : res.targets)
        devices.push_back(t.raw ? t.info.path : t.info.device);
    const auto placement = place_targets(cfg.cpus, devices, cfg.files, sys::SysfsTree{});
    for (std::size_t t = 0; t < placement.size(); ++t) {
        res.targets[t].placement = placement_text(placement[t]);
        res.targets[t].numa_node = placement[t].numa_node;
        res.targets[t].cpus = placement[t].cpus;
    }
    return worker_cpu_sets(placement, cfg.files);
}

// Said the moment the coordinator sees a stop signal: on a slow device the
// operations in flight can take minutes to come back.  io_uring cancels
// what has not reached the device yet; a sync pread/pwrite cannot be
// cancelled, so the thread pool waits for them.
void RunSession::announce_stop(int sig) const {
    unsigned in_flight = 0;
    for (const auto& w : workers)
        in_flight += w->in_flight.load(std::memory_order_relaxed);
    const char* abbrev = sigabbrev_np(sig);
    const std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
    units::info(units::printf_string("stopping (%s): %u operation%s in flight, %s", name.c_str(),
                                     in_flight, in_flight == 1 ? "" : "s",
                                     in_flight == 0 ? "finishing"
                                     : io::backend_flags(kind) & io::kCancels
                                         ? "cancelling"
                                         : "waiting for them (sync I/O cannot be cancelled)"));
}

bool RunSession::check_stop() {
    if (stop.load()) return true;
    if (int sig = stop_signal()) {
        res.stop = StopReason::signal;
        res.stop_signal = sig;
        stop.store(true);
        announce_stop(sig);
        hooks.pause_if(hooks.stop_on_signal);  // a test sends a later, second signal
    } else if (duration_deadline_ns && monotonic_ns() >= duration_deadline_ns) {
        res.stop = StopReason::duration;
        stop.store(true);
    }
    return stop.load();
}

void RunSession::run_on_workers(WorkerPool::Task task, const std::function<void()>& tick) {
    pool->start(std::move(task));
    while (!pool->wait_for(std::chrono::milliseconds(100))) {
        check_stop();
        if (tick) tick();
    }
    check_stop();
    if (auto err = pool->take_error()) std::rethrow_exception(err);
}

double RunSession::wall_seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
}

void RunSession::snapshot(const ProgressSnapshot* live) {
    const std::uint64_t now = monotonic_ns();
    // Between phases only: a worker owns its records and damage map while
    // it runs.
    if (!live) {
        collect_records(workers, res);
        collect_damage();
        // As iterations end: the first, then at most one per period.
        const double since_s = static_cast<double>(now - last_snapshot_ns) / 1e9;
        if (snapshots_ > 0 && since_s < hooks.checkpoint_period_s) return;
    }
    last_snapshot_ns = now;
    ++snapshots_;
    res.wall_seconds = wall_seconds();
    observer.run_so_far(res, live);
}

// A file several workers test (jobs sharing it): one FileDamage, their
// maps merged (an extent of one worker's counts as one observation there).
void RunSession::collect_damage() {
    res.damage.clear();
    for (const FilePlan& f : plan.files) {
        const unsigned first = f.workers.front();
        if (f.workers.back() >= workers.size()) continue;  // not started
        const Worker& w = *workers[first];
        DamageMap merged;
        std::optional<std::uint64_t> truncated = w.truncated_to();
        std::uint64_t overflow = w.damage().overflow_observations();
        for (std::size_t k = 1; k < f.workers.size(); ++k) {
            const Worker& other = *workers[f.workers[k]];
            if (k == 1)
                for (const DamageExtent& e : w.damage().extents())
                    merged.add(e.offset, e.length, e.cls, f.unit);
            for (const DamageExtent& e : other.damage().extents())
                merged.add(e.offset, e.length, e.cls, f.unit);
            if (!truncated) truncated = other.truncated_to();
            overflow += other.damage().overflow_observations();
        }
        const DamageMap& map = f.shared() ? merged : w.damage();
        if (map.empty() && !truncated) continue;
        FileDamage d;
        d.file_index = file_of(first);
        d.path = target.path(d.file_index);
        d.expected_bytes = f.bytes;  // a job file's files have sizes of their own
        d.truncated_to_bytes = truncated;
        d.distinct_units = map.distinct_units(f.unit);
        d.extents = map.extents();
        d.unmerged_observations = overflow;
        res.damage.push_back(std::move(d));
    }
}

void RunSession::recreate_files() {
    if (state) state->reset();  // nothing of the old files is durable any more
    // The rings go first: until then their registered files keep the old
    // files' blocks allocated, and the new files may not fit.
    run_on_workers([](unsigned, Worker& w) { w.close_backend(); });
    target.remove_files();
    target.create_files(res.run_id, pattern::data_id_from_seed(cfg.seed), cfg.unit_shape());
    if (state) sync_new_files(target);
    run_on_workers([&](unsigned i, Worker& w) {
        w.reset_generations();
        w.open_backend(kind, target.fd(i), uring_options());
    });
}

void RunSession::writeback_failed(const std::vector<std::pair<std::size_t, int>>& failed,
                                  std::uint64_t iteration, Phase phase, PhaseResult* pr) {
    for (auto [i, err] : failed) {
        // With --keep nothing of that file is vouched for any more.
        if (state) state->poison(static_cast<unsigned>(i));
        if (err == ENOSPC || err == EDQUOT) {
            if (res.fatal_error.empty())
                res.fatal_error = target.path(i) +
                                  ": no space left on device writing back cached writes (the "
                                  "filesystem filled up during the run)";
            res.stop = StopReason::error;
            stop.store(true);
            continue;
        }
        MismatchRecord rec;
        rec.iteration = iteration;
        rec.phase = phase;
        rec.file_index = static_cast<unsigned>(i);
        rec.path = target.path(i);
        rec.cls = pattern::MismatchClass::io_error;
        rec.error = err;
        rec.op = io::OpKind::fdatasync;
        if (pr)  // added to the run's totals with the phase's own counts
            ++pr->counters.mismatches[static_cast<std::size_t>(rec.cls)];
        else
            ++res.mismatch_totals[static_cast<std::size_t>(rec.cls)];
        res.mismatch_records.push_back(std::move(rec));
    }
}

void RunSession::finish() {
    close_io_log();
    collect_records(workers, res);
    collect_damage();
    flag_slow_targets(res.targets);
    if (!stop.load() && stop_signal()) {  // arrived after the last phase: still counts
        res.stop = StopReason::signal;
        res.stop_signal = stop_signal();
    }
    if (state && (state->write_errors() || state_sync_errors) && res.fatal_error.empty()) {
        res.fatal_error = "--keep: " + std::to_string(state->write_errors() + state_sync_errors) +
                          " acknowledgements could not be recorded (fsync of a test file or "
                          "write of " +
                          state->path() + " failed)";
        res.stop = StopReason::error;
    }
    res.wall_seconds = wall_seconds();
}

}  // namespace ds::run
