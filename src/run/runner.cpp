#include "run/runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>
#include <tuple>

#include "io/backend_factory.h"
#include "io/output_file.h"
#include "pattern/unit.h"
#include "run/errors.h"
#include "run/memory.h"
#include "run/signals.h"
#include "run/state_file.h"
#include "run/sync_compare.h"
#include "run/target.h"
#include "run/worker.h"
#include "stats/knee.h"
#include "units/units.h"

namespace ds::run {

TestHooks TestHooks::from_environment() {
    TestHooks h;
    const char* on_signal = std::getenv("DRIVESTRESS_TEST_STOP_ON_SIGNAL");
    h.stop_on_signal = on_signal && *on_signal == '1';
    if (const char* p = std::getenv("DRIVESTRESS_TEST_SNAPSHOT_S")) {
        char* end = nullptr;
        const double s = std::strtod(p, &end);
        if (end != p && *end == '\0' && s > 0 && s <= 3600) h.snapshot_period_s = s;
    }
    const char* v = std::getenv("DRIVESTRESS_TEST_STOP");
    if (!v || !*v) return h;
    std::string s(v);
    h.stop_before_create = s == "create";
    auto colon = s.find(':');
    h.stop_phase = phase_from_string(s.substr(0, colon));
    if (colon != std::string::npos)
        h.stop_after_ops = std::strtoull(s.c_str() + colon + 1, nullptr, 10);
    return h;
}

BackendInfo choose_backend(const RunConfig& cfg) {
    BackendInfo info;
    info.requested = cfg.backend;
    const bool ring_mode = cfg.sqpoll || cfg.iopoll;
    std::optional<io::BackendKind> asked;
    if (cfg.backend == BackendChoice::sync) asked = io::BackendKind::sync;
    if (cfg.backend == BackendChoice::io_uring) asked = io::BackendKind::io_uring;
    const io::BackendSelection sel = io::select_backend(asked, ring_mode);
    if (!sel.refusal.empty())
        throw SetupError(std::string(asked        ? "--backend io_uring"
                                     : cfg.sqpoll ? "--sqpoll"
                                                  : "--iopoll") +
                         ": " + sel.refusal);
    info.used = sel.used;
    info.fallback_reason = sel.fallback_reason;
    return info;
}

namespace {

// Runs a task on every worker's own thread and lets the coordinator wait for
// all of them with a timeout (so it can watch signals and the clock).
class WorkerPool {
  public:
    using Task = std::function<void(unsigned, Worker&)>;

    explicit WorkerPool(std::vector<std::unique_ptr<Worker>>& workers) : workers_(workers) {
        errors_.resize(workers.size());
        try {
            for (unsigned i = 0; i < workers.size(); ++i)
                threads_.emplace_back([this, i] { loop(i); });
        } catch (const std::system_error& e) {
            // No destructor runs for a half-built pool: stop the threads
            // already started here, or they wait forever on a dead object.
            stop_threads();
            throw SetupError("cannot start worker thread " + std::to_string(threads_.size()) +
                             " of " + std::to_string(workers.size()) + ": " + e.what() +
                             " (ulimit -u or -v?)");
        }
    }
    ~WorkerPool() { stop_threads(); }

    void start(Task task) {
        std::lock_guard lk(m_);
        task_ = std::move(task);
        done_ = 0;
        ++epoch_;
        work_cv_.notify_all();
    }
    // True when every worker finished the task.
    bool wait_for(std::chrono::milliseconds timeout) {
        std::unique_lock lk(m_);
        return done_cv_.wait_for(lk, timeout, [&] { return done_ == workers_.size(); });
    }
    // The first error a worker's task threw, if any (cleared).
    std::exception_ptr take_error() {
        std::lock_guard lk(m_);
        for (auto& e : errors_)
            if (e) return std::exchange(e, nullptr);
        return nullptr;
    }

  private:
    void stop_threads() {
        {
            std::lock_guard lk(m_);
            quit_ = true;
        }
        work_cv_.notify_all();
        for (auto& t : threads_)
            t.join();
        threads_.clear();
    }

    void loop(unsigned i) {
        std::uint64_t seen = 0;
        while (true) {
            Task task;
            {
                std::unique_lock lk(m_);
                work_cv_.wait(lk, [&] { return quit_ || epoch_ != seen; });
                if (quit_) {
                    // A ring is released by the thread that made it
                    // (SINGLE_ISSUER refuses unregistering from others).
                    workers_[i]->close_backend();
                    return;
                }
                seen = epoch_;
                task = task_;
            }
            std::exception_ptr err;
            try {
                task(i, *workers_[i]);
            } catch (...) {
                err = std::current_exception();
            }
            {
                std::lock_guard lk(m_);
                if (err) errors_[i] = err;
                ++done_;
            }
            done_cv_.notify_all();
        }
    }

    std::vector<std::unique_ptr<Worker>>& workers_;
    std::vector<std::thread> threads_;
    std::mutex m_;
    std::condition_variable work_cv_, done_cv_;
    Task task_;
    std::uint64_t epoch_ = 0;
    std::size_t done_ = 0;
    bool quit_ = false;
    std::vector<std::exception_ptr> errors_;
};

// --keep: the new files' sizes and names are made durable before anything
// written to them can be acknowledged; a flush that fails ends the run
// before it starts (a durability test cannot vouch for anything then).
void sync_new_files(const Target& target) {
    for (std::size_t i = 0; i < target.file_count(); ++i)
        if (::fsync(target.fd(i)) != 0)
            throw SetupError(target.path(i) + ": fsync: " + std::strerror(errno));
    if (::fsync(target.dir_fd()) != 0)
        throw SetupError(target.info().directory +
                         ": fsync of the directory: " + std::strerror(errno));
}

// --keep: the state file, with nothing acknowledged yet.  On failure the
// files just created are removed (a setup error leaves nothing behind).
std::unique_ptr<StateFile> create_state_file(const RunConfig& cfg, RunResult& res, Target& target) {
    try {
        sync_new_files(target);
        StateGeometry geo;
        geo.seed = cfg.seed;
        geo.run_id = res.run_id;
        geo.file_bytes = cfg.file_bytes;
        geo.unit_bytes = cfg.rand_block;
        // Without --sync, acknowledgements come only at phase ends.
        geo.bound = unacked_write_bound(cfg, cfg.sync == SyncMethod::none ? 0 : cfg.sync_every);
        for (std::size_t i = 0; i < target.file_count(); ++i)
            geo.paths.push_back(target.path(i));
        auto state = std::make_unique<StateFile>(target.state_path(), std::move(geo));
        res.state_path = target.state_path();
        return state;
    } catch (...) {
        target.remove_files();
        throw;
    }
}

// Per worker: four bytes per unit (generations, in-flight marks, the
// acknowledged and snapshot maps of --keep) and the buffers in flight.
std::uint64_t worker_memory_bytes(const RunConfig& cfg, const WorkerGeometry& geo) {
    const std::uint64_t units = cfg.file_bytes / cfg.rand_block;
    const std::uint64_t arena =
        std::max<std::uint64_t>(std::uint64_t{geo.seq_depth} * geo.seq_block,
                                std::uint64_t{geo.rand_depth} * geo.max_rand_block);
    return 4 * units + arena;
}

std::string memory_need_text(const RunConfig& cfg, const WorkerGeometry& geo) {
    return std::to_string(cfg.files) + " x " + units::format_bytes(worker_memory_bytes(cfg, geo)) +
           " of unit maps and buffers (4 bytes per " + units::format_bytes(cfg.rand_block) +
           " unit)";
}

// Refused before any file exists, rather than a std::bad_alloc later.
void check_memory(const RunConfig& cfg, const WorkerGeometry& geo) {
    const std::uint64_t avail = available_memory_bytes();
    const std::uint64_t need = worker_memory_bytes(cfg, geo) * cfg.files;
    if (avail && need > avail)
        throw SetupError("not enough memory: the run needs " + memory_need_text(cfg, geo) + ", " +
                         units::format_bytes(avail) +
                         " available; lower --size or --files, or raise --rand-block");
}

std::uint64_t random_seed() {
    std::random_device rd;
    std::uint64_t s = (std::uint64_t{rd()} << 32) ^ rd();
    return s ? s : 1;
}

// Moves the workers' mismatch records into the result, which keeps the first
// RunResult::kMaxRecords by iteration, phase, file and offset: done after
// every phase, so that snapshots of the run show them and memory stays
// bounded however many mismatches a long run finds.
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

// The workers' damage maps, per file (cumulative: replaced whole each time).
void collect_damage(const std::vector<std::unique_ptr<Worker>>& workers, const Target& target,
                    const RunConfig& cfg, RunResult& res) {
    res.damage.clear();
    for (unsigned i = 0; i < workers.size(); ++i) {
        const Worker& w = *workers[i];
        if (w.damage().empty() && !w.truncated_to()) continue;
        FileDamage d;
        d.file_index = i;
        d.path = target.path(i);
        d.expected_bytes = cfg.file_bytes;
        d.truncated_to_bytes = w.truncated_to();
        d.distinct_units = w.damage().distinct_units(cfg.rand_block);
        d.extents = w.damage().extents();
        d.unmerged_observations = w.damage().overflow_observations();
        res.damage.push_back(std::move(d));
    }
}

}  // namespace

Runner::Runner(RunConfig cfg, RunObserver* observer) : cfg_(std::move(cfg)), observer_(observer) {
    static RunObserver silent;
    if (!observer_) observer_ = &silent;
}

RunResult Runner::run() {
    RunResult res;
    res.started_at = utc_now_iso8601();
    res.document_id = io::unpredictable_suffix();
    if (!cfg_.seed_given) cfg_.seed = random_seed();
    res.seed = cfg_.seed;
    res.run_id = pattern::run_id_from_seed(cfg_.seed);
    const TestHooks hooks = TestHooks::from_environment();

    // Everything that can refuse the run does so before a file exists.
    Target target(cfg_, cfg_.keep ? state_file_bytes(cfg_.files, cfg_.file_bytes / cfg_.rand_block,
                                                     256 * std::size_t{cfg_.files})
                                  : 0);
    res.backend = choose_backend(cfg_);
    const io::BackendKind kind = res.backend.used;
    const unsigned backend_depth = kind == io::BackendKind::sync ? 1 : cfg_.qd;
    const WorkerGeometry geo = make_geometry(cfg_, backend_depth);
    check_memory(cfg_, geo);
    install_signal_handlers();
    if (hooks.stop_before_create) ::raise(SIGSTOP);
    try {
        target.create_files(res.run_id);
    } catch (...) {
        target.remove_files();  // even with --keep: nothing worth keeping yet
        throw;
    }
    std::unique_ptr<StateFile> state;
    if (cfg_.keep) state = create_state_file(cfg_, res, target);
    // --keep keeps files only once the run is under way: a setup error
    // before the first phase (a refused ring, a failed --iopoll probe)
    // leaves nothing behind, state file included.
    struct KeepUntilStarted {
        Target& target;
        StateFile* state;
        bool started = false;
        ~KeepUntilStarted() {
            if (started || !state) return;
            target.remove_files();
            state->remove();
        }
    } keep_guard{target, state.get()};
    res.target = target.info();
    res.direct_io = target.direct_io();
    res.direct_io_note = target.direct_io_note();
    if (cfg_.iopoll && !target.direct_io())
        throw SetupError("--iopoll: needs O_DIRECT: " + target.direct_io_note());
    for (std::size_t i = 0; i < target.file_count(); ++i)
        res.file_paths.push_back(target.path(i));

    if (cfg_.sync_compare) {
        observer_->started(cfg_, res);
        const auto wall_start = std::chrono::steady_clock::now();
        std::atomic<bool> stop{false};
        // Rows open the file as asked (O_DIRECT unless --buffered), without
        // the fallback: a filesystem refusing it makes them n/a, with why.
        SyncCompareSetup setup{target.path(0),
                               target.fd(0),
                               !cfg_.buffered,
                               target.direct_io(),
                               cfg_.file_bytes,
                               res.run_id,
                               cfg_.sync_compare_row_s,
                               cfg_.sync_compare_row_ops.value_or(0),
                               default_backend_factory(kind)};
        res.sync_compare = run_sync_compare(setup, stop, res.mismatch_records, res.mismatch_totals);
        if (int sig = stop_signal()) {
            res.stop = StopReason::signal;
            res.stop_signal = sig;
        }
        res.wall_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        return res;
    }
    res.backend.effective_qd = geo.rand_depth;
    res.backend.seq_qd = geo.seq_depth;

    std::atomic<bool> stop{false};
    std::vector<std::unique_ptr<Worker>> workers;
    try {
        for (unsigned i = 0; i < cfg_.files; ++i)
            workers.push_back(std::make_unique<Worker>(geo, i, target.path(i), target.fd(i),
                                                       cfg_.seed, res.run_id, stop));
    } catch (const std::bad_alloc&) {  // e.g. under ulimit -v
        throw SetupError("out of memory allocating " + memory_need_text(cfg_, geo) +
                         "; lower --size, --files or --qd, or raise --rand-block");
    }
    if (state)
        for (auto& w : workers)
            w->set_durability_listener(state.get());
    for (unsigned i = 0; i < cfg_.files; ++i)
        workers[i]->set_base_offset(target.base_offset(i));

    const auto wall_start = std::chrono::steady_clock::now();
    const std::uint64_t start_ns = monotonic_ns();
    const std::uint64_t duration_deadline =
        cfg_.duration_s ? start_ns + static_cast<std::uint64_t>(*cfg_.duration_s * 1e9) : 0;

    WorkerPool pool(workers);
    std::atomic<std::uint64_t> state_sync_errors{0};
    // Turns a signal or the end of --duration into a stop request.  Workers
    // see signals themselves at once; this records why the run stopped.
    auto check_stop = [&] {
        if (stop.load()) return true;
        if (int sig = stop_signal()) {
            res.stop = StopReason::signal;
            res.stop_signal = sig;
            stop.store(true);
            if (hooks.stop_on_signal) ::raise(SIGSTOP);  // a test sends a later, second signal
        } else if (duration_deadline && monotonic_ns() >= duration_deadline) {
            res.stop = StopReason::duration;
            stop.store(true);
        }
        return stop.load();
    };
    // Runs a task on all workers; watches signals, the duration and progress
    // meanwhile.  Rethrows a worker's exception.
    auto run_on_workers = [&](WorkerPool::Task task, const std::function<void()>& tick) {
        pool.start(std::move(task));
        while (!pool.wait_for(std::chrono::milliseconds(100))) {
            check_stop();
            if (tick) tick();
        }
        check_stop();
        if (auto err = pool.take_error()) std::rethrow_exception(err);
    };

    // The run so far for the observers (RunObserver::run_so_far): after every
    // iteration, and every hooks.snapshot_period_s while an iteration runs.
    std::uint64_t last_snapshot_ns = monotonic_ns();
    auto snapshot = [&](const ProgressSnapshot* live) {
        last_snapshot_ns = monotonic_ns();
        // Between phases only: a worker owns its damage map while it runs.
        if (!live) collect_damage(workers, target, cfg_, res);
        res.wall_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
        observer_->run_so_far(res, live);
    };

    io::UringOptions uring_options;
    uring_options.sqpoll = cfg_.sqpoll;
    uring_options.iopoll = cfg_.iopoll;
    run_on_workers(
        [&](unsigned i, Worker& w) { w.open_backend(kind, target.fd(i), uring_options); }, {});
    res.backend.uring = workers[0]->backend()->describe().uring;

    observer_->started(cfg_, res);  // may refuse (an output file it cannot create)
    keep_guard.started = true;

    const bool random_enabled = cfg_.has_phase(Phase::random) &&
                                (cfg_.rand_ops ? *cfg_.rand_ops > 0 : cfg_.rand_time_s > 0);

    // Buffered I/O: a write-back that failed means writes the kernel took
    // never reached the device.  A drive error (io-error, exit 2), or a full
    // filesystem (exit 1); with --keep nothing of that file is vouched for.
    auto writeback_failed = [&](const std::vector<std::pair<std::size_t, int>>& failed,
                                std::uint64_t it, Phase phase, PhaseResult* pr) {
        for (auto [i, err] : failed) {
            if (state) state->poison(static_cast<unsigned>(i));
            if (err == ENOSPC || err == EDQUOT) {
                if (res.fatal_error.empty())
                    res.fatal_error = target.path(i) +
                                      ": no space left on device writing back cached writes "
                                      "(the filesystem filled up during the run)";
                res.stop = StopReason::error;
                stop.store(true);
                continue;
            }
            MismatchRecord rec;
            rec.iteration = it;
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
    };

    // Runs one phase on the first `active` workers (all when 0), with the
    // random-phase overrides of a sweep point, and accounts for it.
    auto run_phase = [&](std::uint64_t it, Phase phase, const SweepOverrides& over) {
        if (hooks.stop_phase == phase && hooks.stop_after_ops == 0) ::raise(SIGSTOP);
        if (!target.direct_io()) writeback_failed(target.drop_caches(), it, phase, nullptr);
        // --keep: a phase that writes records its bound before it starts,
        // so a cut during it allows what it may have written.
        if (state && (phase == Phase::seq_write || (phase == Phase::random && cfg_.read_pct < 100)))
            state->set_bound(phase == Phase::seq_write
                                 ? 1
                                 : unacked_write_bound(
                                       cfg_, cfg_.sync == SyncMethod::none ? 0 : cfg_.sync_every),
                             true);
        const unsigned active = over.files ? over.files : cfg_.files;
        const std::uint64_t total_bytes = cfg_.file_bytes * active;

        PhasePlan plan;
        plan.phase = phase;
        plan.iteration = it;
        plan.depth = over.qd;
        plan.rand_block = over.rand_block;
        const std::uint64_t sweep_value = cfg_.sweep && phase == Phase::random
                                              ? (over.qd      ? over.qd
                                                 : over.files ? over.files
                                                              : over.rand_block)
                                              : 0;
        PhaseResult pr;
        pr.phase = phase;
        const auto cpu0 = stats::CpuTime::process_now();
        const std::uint64_t t0 = monotonic_ns();
        // Per-second statistics feed --timeseries, the status line's "p99 of
        // the last second" and the live --prom textfile (one more histogram
        // record per operation).
        const bool timeseries = !cfg_.timeseries_path.empty() ||
                                cfg_.progress != ProgressMode::never || !cfg_.prom_path.empty();
        if (timeseries) plan.intervals_from_ns = t0;
        // Seconds are emitted once every worker has moved past them.
        std::map<std::uint64_t, IntervalStats> pending;
        std::vector<std::uint64_t> worker_second(active, 0);
        std::uint64_t next_second = 0;
        std::uint64_t mismatches_so_far = std::accumulate(
            res.mismatch_totals.begin(), res.mismatch_totals.end(), std::uint64_t{0});
        auto emit_intervals = [&](bool phase_over, double phase_seconds) {
            for (unsigned i = 0; i < active; ++i)
                for (auto& iv : workers[i]->take_intervals()) {
                    worker_second[i] = std::max(worker_second[i], iv.second);
                    auto [slot, fresh] = pending.try_emplace(iv.second, iv);
                    if (!fresh) slot->second.merge(iv);
                }
            std::uint64_t done_before =
                phase_over ? (pending.empty() ? next_second : pending.rbegin()->first + 1)
                           : *std::min_element(worker_second.begin(), worker_second.end());
            for (; next_second < done_before; ++next_second) {
                IntervalStats iv;
                iv.second = next_second;
                if (auto found = pending.find(next_second); found != pending.end()) {
                    iv = std::move(found->second);
                    pending.erase(found);
                }
                mismatches_so_far += iv.mismatches;
                double length = 1.0;
                if (phase_over && next_second + 1 == done_before)
                    length = std::clamp(phase_seconds - static_cast<double>(next_second), 0.0, 1.0);
                observer_->interval_done(it, phase, sweep_value, iv, length, mismatches_so_far);
            }
        };
        if (phase == Phase::random) {
            if (!cfg_.rand_ops)
                plan.deadline_ns = t0 + static_cast<std::uint64_t>(cfg_.rand_time_s * 1e9);
            if (duration_deadline)
                plan.deadline_ns = plan.deadline_ns ? std::min(plan.deadline_ns, duration_deadline)
                                                    : duration_deadline;
        }

        std::vector<Worker::Outcome> outcomes(active);
        auto tick = [&] {
            ProgressSnapshot snap{it, phase, -1, (monotonic_ns() - t0) / 1e9, 0, 0};
            for (unsigned i = 0; i < active; ++i) {
                snap.bytes += workers[i]->progress_bytes.load(std::memory_order_relaxed);
                snap.ops += workers[i]->progress_ops.load(std::memory_order_relaxed);
            }
            if (phase != Phase::random) {
                snap.fraction_done =
                    static_cast<double>(snap.bytes) / static_cast<double>(total_bytes);
            } else if (cfg_.rand_ops) {
                snap.fraction_done =
                    static_cast<double>(snap.ops) / static_cast<double>(*cfg_.rand_ops);
            } else if (plan.deadline_ns) {
                snap.fraction_done = static_cast<double>(monotonic_ns() - t0) /
                                     static_cast<double>(plan.deadline_ns - t0);
            }
            observer_->progress(snap);
            if (timeseries) emit_intervals(false, 0);
            if ((monotonic_ns() - last_snapshot_ns) / 1e9 >= hooks.snapshot_period_s)
                snapshot(&snap);
        };
        run_on_workers(
            [&](unsigned i, Worker& w) {
                if (i >= active) return;
                PhasePlan mine = plan;
                if (phase == Phase::random && cfg_.rand_ops) {
                    std::uint64_t n = *cfg_.rand_ops;
                    mine.op_limit = n / active + (i < n % active ? 1 : 0);
                    if (mine.op_limit == 0) return;  // nothing to do for this worker
                }
                if (i == 0 && hooks.stop_phase == phase) mine.stop_after_ops = hooks.stop_after_ops;
                outcomes[i] = w.run(mine);
            },
            tick);
        // Writes in buffered mode are only done once they reached the device.
        if (!target.direct_io() && phase != Phase::seq_read && phase != Phase::reverify)
            writeback_failed(target.drop_caches(), it, phase, &pr);
        // --keep: whatever a phase wrote is acknowledged once it is on the
        // device (as well as after every flush the workers make themselves).
        // After the phase nothing more is written until the next writing
        // phase: these records allow no newer generation.
        if (state) state->set_bound(0, false);
        if (state && (phase == Phase::seq_write || phase == Phase::random))
            run_on_workers(
                [&](unsigned i, Worker& w) {
                    if (i >= active) return;
                    if (::fsync(target.fd(i)) == 0) {
                        state->acknowledged(i, w.generations());
                    } else {
                        ++state_sync_errors;
                        state->poison(static_cast<unsigned>(i));
                    }
                },
                {});
        pr.seconds = (monotonic_ns() - t0) / 1e9;
        if (timeseries) emit_intervals(true, pr.seconds);
        pr.cpu = stats::CpuTime::process_now() - cpu0;
        pr.workers = active;
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            pr.counters.merge(outcomes[i].counters);
            if (!outcomes[i].completed) pr.interrupted = true;
            if (const auto& bad = outcomes[i].invalid; bad && res.fatal_error.empty()) {
                res.fatal_error =
                    target.path(i) + ": the kernel refused a " + std::to_string(bad->length) +
                    "-byte " + std::string(io::to_string(bad->kind)) + " at offset " +
                    std::to_string(bad->offset + target.base_offset(i)) + " as invalid (EINVAL)" +
                    (target.direct_io() ? "; O_DIRECT alignment? try --buffered" : "");
                res.stop = StopReason::error;
            }
            if (outcomes[i].no_space_at && res.fatal_error.empty()) {
                res.fatal_error =
                    target.path(i) + ": no space left on device " +
                    (outcomes[i].no_space_in_flush
                         ? std::string("flushing its writes")
                         : "writing at offset " + std::to_string(*outcomes[i].no_space_at)) +
                    " (the filesystem filled up during the run)";
                res.stop = StopReason::error;
                stop.store(true);  // this phase counted its failed writes; no more phases
            }
        }
        for (std::size_t m = 0; m < res.mismatch_totals.size(); ++m)
            res.mismatch_totals[m] += pr.counters.mismatches[m];
        collect_records(workers, res);
        return pr;
    };

    for (std::uint64_t it = 1; cfg_.iterations == 0 || it <= cfg_.iterations; ++it) {
        if (check_stop()) break;
        if (it > 1 && cfg_.recreate) {
            if (state) state->reset();  // nothing of the old files is durable any more
            // The rings go first: until then their registered files keep the
            // old files' blocks allocated, and the new files may not fit.
            run_on_workers([](unsigned, Worker& w) { w.close_backend(); }, {});
            target.remove_files();
            target.create_files(res.run_id);
            if (state) sync_new_files(target);
            run_on_workers(
                [&](unsigned i, Worker& w) {
                    w.reset_generations();
                    w.open_backend(kind, target.fd(i), uring_options);
                },
                {});
        }
        res.begin_iteration(it, cfg_.iteration_detail);
        for (Phase phase : kAllPhases) {
            if (!cfg_.has_phase(phase)) continue;
            if (phase == Phase::random && !random_enabled) continue;
            if (check_stop()) break;
            if (phase == Phase::random && cfg_.sweep) {
                // One random phase per sweep point, on the same verified files.
                res.sweep.param = cfg_.sweep->param;
                for (std::uint64_t value : cfg_.sweep->values) {
                    if (check_stop()) break;
                    SweepOverrides over;
                    if (cfg_.sweep->param == SweepParam::qd) over.qd = static_cast<unsigned>(value);
                    if (cfg_.sweep->param == SweepParam::files)
                        over.files = static_cast<unsigned>(value);
                    if (cfg_.sweep->param == SweepParam::rand_block)
                        over.rand_block = static_cast<std::uint32_t>(value);
                    SweepPoint point{value, run_phase(it, phase, over)};
                    observer_->sweep_point_done(cfg_, point);
                    res.sweep.points.push_back(std::move(point));
                }
                std::vector<double> iops, p99;
                for (const auto& pt : res.sweep.points) {
                    iops.push_back(pt.random.iops());
                    p99.push_back(static_cast<double>(pt.random.latency().value_at_percentile(99)));
                }
                res.sweep.knee = stats::find_knee(iops, p99, cfg_.knee_gain_pct);
                continue;
            }
            PhaseResult pr = run_phase(it, phase, SweepOverrides{});
            observer_->phase_done(it, pr);
            res.add_phase(pr);
        }
        observer_->iteration_done(res.iterations.back());
        snapshot(nullptr);
        if (stop.load()) break;
    }

    collect_records(workers, res);
    collect_damage(workers, target, cfg_, res);
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
    res.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return res;  // pool joins, then target removes the files
}

}  // namespace ds::run

namespace ds::run {

BackendComparison compare_backends(RunConfig cfg, RunObserver* uring_observer,
                                   RunObserver* sync_observer) {
    BackendComparison c;
    if (!cfg.seed_given) {
        cfg.seed = random_seed();
        cfg.seed_given = true;
    }
    c.uring_config = cfg;
    c.uring_config.backend = BackendChoice::io_uring;
    c.sync_config = cfg;
    c.sync_config.backend = BackendChoice::sync;
    c.uring = Runner(c.uring_config, uring_observer).run();
    if (c.uring.stop == StopReason::completed || c.uring.stop == StopReason::duration) {
        c.sync = Runner(c.sync_config, sync_observer).run();
        c.sync_ran = true;
    }
    return c;
}

int worse_exit_status(int a, int b) {
    auto rank = [](int code) { return code == 2 ? 3 : code == 1 ? 2 : code != 0 ? 1 : 0; };
    return rank(a) >= rank(b) ? a : b;
}

int exit_status(const BackendComparison& c) {
    return worse_exit_status(exit_status(c.uring), c.sync_ran ? exit_status(c.sync) : 0);
}

}  // namespace ds::run
