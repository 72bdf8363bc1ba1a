#include "run/phase_runner.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "stats/cpu_time.h"
#include "sys/errno_text.h"
#include "sys/host_load.h"
#include "sys/numa.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::engine;
using namespace ds::targets;

namespace {

// The workers' per-interval statistics (--interval, a second by default),
// merged: an interval is passed on once every worker has moved past it, in
// order, none skipped.  (Member names say "second" for an interval.)
class IntervalMerger {
  public:
    IntervalMerger(RunSession& s, std::uint64_t iteration, Phase phase, std::uint64_t sweep_value,
                   unsigned active)
        : s_(s),
          iteration_(iteration),
          phase_(phase),
          sweep_value_(sweep_value),
          worker_second_(active, 0),
          mismatches_so_far_(std::accumulate(s.res.mismatch_totals.begin(),
                                             s.res.mismatch_totals.end(), std::uint64_t{0})) {}

    // A group of the workload phase starts (a phase without groups: one of
    // every worker): only its workers hold the intervals back.  An
    // interval the group before ended in may have gone out already: what
    // the new group adds to it goes into the next one (emit).
    void begin_group(const std::vector<unsigned>& group) {
        std::fill(worker_second_.begin(), worker_second_.end(), UINT64_MAX);
        for (unsigned i : group)
            worker_second_[i] = next_second_;
    }

    // `phase_over`: every interval left goes out, the last one as long as
    // what remained of the phase (`phase_seconds` in all).
    void emit(bool phase_over, double phase_seconds) {
        for (unsigned i = 0; i < worker_second_.size(); ++i)
            for (auto& iv : s_.workers[i]->take_intervals()) {
                // A worker publishes a second once it is past it: every
                // second up to this one is done for that worker.  (Never
                // below next_second_ within a group: a later group's.)
                if (worker_second_[i] != UINT64_MAX)
                    worker_second_[i] = std::max(worker_second_[i], iv.index + 1);
                iv.index = std::max(iv.index, next_second_);
                share(i, iv);
                auto [slot, fresh] = pending_.try_emplace(iv.index, iv);
                if (!fresh) slot->second.merge(iv);
            }
        const std::uint64_t done_before =
            phase_over ? (pending_.empty() ? next_second_ : pending_.rbegin()->first + 1)
                       : *std::min_element(worker_second_.begin(), worker_second_.end());
        for (; next_second_ < done_before; ++next_second_) {
            IntervalStats iv;
            iv.index = next_second_;
            if (auto found = pending_.find(next_second_); found != pending_.end()) {
                iv = std::move(found->second);
                pending_.erase(found);
            }
            mismatches_so_far_ += iv.mismatches;
            read_temperatures(iv);
            const double interval_s = s_.cfg.interval_s;
            double length = interval_s;
            if (phase_over && next_second_ + 1 == done_before)
                length = std::clamp(phase_seconds - static_cast<double>(next_second_) * interval_s,
                                    0.0, interval_s);
            s_.observer.interval_done(iteration_, phase_, sweep_value_, iv, length,
                                      mismatches_so_far_);
        }
    }

  private:
    // NVMe targets: the line's temperature is target 1's drive; with
    // several targets each share has its own drive's (each sensor read once).
    void read_temperatures(IntervalStats& iv) const {
        const auto& health = s_.health;
        if (health.size() == 1) iv.temperature_c = health[0].temperature();
        if (health.size() < 2) return;
        iv.targets.resize(health.size());
        for (std::size_t t = 0; t < health.size(); ++t)
            iv.targets[t].temperature_c = health[t].temperature();
        iv.temperature_c = iv.targets[0].temperature_c;
    }

    // Several targets: worker i's interval is its target's share.
    void share(unsigned i, IntervalStats& iv) const {
        const auto& targets = s_.res.targets;
        if (targets.size() < 2) return;
        iv.targets.assign(targets.size(), {});
        iv.targets[s_.target.target_of(s_.file_of(i))] = {iv.read_ops, iv.write_ops, iv.read_bytes,
                                                          iv.write_bytes, iv.mismatches};
    }

    RunSession& s_;
    std::uint64_t iteration_;
    Phase phase_;
    std::uint64_t sweep_value_;
    std::map<std::uint64_t, IntervalStats> pending_;
    std::vector<std::uint64_t> worker_second_;
    std::uint64_t next_second_ = 0;
    std::uint64_t mismatches_so_far_;
};

// --keep: a phase that writes records its bound before it starts, so a cut
// during it allows what it may have written.
void record_bound(RunSession& s, Phase phase) {
    const RunConfig& cfg = s.cfg;
    if (!s.state || !(phase == Phase::seq_write || (phase == Phase::random && cfg.read_pct < 100)))
        return;
    // A sequential write takes one generation per pass: any number with
    // --seq-time.
    s.state->set_bound(
        phase == Phase::seq_write
            ? (cfg.seq_time_s > 0 || cfg.seq_until_measured ? kAnyNewerBound : 1)
            : unacked_write_bound(cfg, cfg.sync == SyncMethod::none ? 0 : cfg.sync_every),
        true);
}

// --keep: whatever a phase wrote is acknowledged once it is on the device
// (as well as after every flush the workers make themselves).  After the
// phase nothing more is written until the next writing phase: these records
// allow no newer generation.
void acknowledge(RunSession& s, Phase phase, unsigned active) {
    if (!s.state) return;
    s.state->set_bound(0, false);
    if (phase != Phase::seq_write && phase != Phase::random) return;
    s.run_on_workers([&](unsigned i, Worker& w) {
        if (i >= active) return;
        if (::fsync(s.target.fd(i)) == 0) {
            s.state->acknowledged(i, w.acknowledge_all());
        } else {
            ++s.state_sync_errors;
            s.state->poison(i);
        }
    });
}

// The phase's order, as every worker shares it: its times and its kind.
PhaseOrder make_order(RunSession& s, std::uint64_t iteration, Phase phase,
                      const SweepOverrides& over, unsigned workers, std::uint64_t t0) {
    PhaseOrder order;
    order.phase = phase;
    order.iteration = iteration;
    order.round = over.round;
    // Per-second statistics feed --timeseries, the status line's "p99 of the
    // last second" and the live --prom textfile (one more histogram record
    // per operation).
    const RunConfig& cfg = s.cfg;
    if (s.observer.wants_intervals()) order.intervals_from_ns = t0;
    order.series_from_ns = t0;
    order.interval_ns = seconds_to_ns(cfg.interval_s);
    // --seq-time: passes until then (the first one whole, however long).
    if (phase != Phase::random && cfg.seq_time_s > 0)
        order.deadline_ns = t0 + seconds_to_ns(cfg.seq_time_s);
    // Without it: passes until the figure can be quoted (the phase's time
    // runs from t0, so its seconds pass the minimum).
    if (phase != Phase::random && cfg.seq_until_measured) {
        order.deadline_ns = t0 + seconds_to_ns(kMinMeasuredSeconds);
        order.min_ops = (kMinMeasuredOps + workers - 1) / workers;
    }
    if (phase != Phase::random) return order;
    // An open loop's schedule (--rate, --replay) starts 1 ms after t0, so
    // every worker thread is in its loop before its first operation is due.
    order.rate_start_ns = t0 + 1'000'000;
    if (s.replay)
        order.replay = s.replay.get();  // the trace decides when the phase ends
    else if (!cfg.rand_ops)
        order.deadline_ns = t0 + seconds_to_ns(over.time_s > 0 ? over.time_s : cfg.rand_time_s);
    if (s.duration_deadline_ns)
        order.deadline_ns = order.deadline_ns ? std::min(order.deadline_ns, s.duration_deadline_ns)
                                              : s.duration_deadline_ns;
    return order;
}

// What the status line shows: the phase's progress so far.
ProgressSnapshot progress_of(RunSession& s, const PhaseOrder& plan, unsigned active,
                             std::uint64_t t0) {
    ProgressSnapshot snap{plan.iteration, plan.phase, -1, (monotonic_ns() - t0) / 1e9, 0, 0};
    for (unsigned i = 0; i < active; ++i) {
        snap.bytes += s.workers[i]->progress_bytes.load(std::memory_order_relaxed);
        snap.ops += s.workers[i]->progress_ops.load(std::memory_order_relaxed);
    }
    if (plan.phase != Phase::random) {
        snap.fraction_done = std::min(
            1.0, static_cast<double>(snap.bytes) / static_cast<double>(s.cfg.file_bytes * active));
        if (plan.deadline_ns)  // --seq-time: done when both the first pass and the time are
            snap.fraction_done =
                std::min(snap.fraction_done, static_cast<double>(monotonic_ns() - t0) /
                                                 static_cast<double>(plan.deadline_ns - t0));
    } else if (s.cfg.rand_ops)
        snap.fraction_done = static_cast<double>(snap.ops) / static_cast<double>(*s.cfg.rand_ops);
    else if (plan.deadline_ns)
        snap.fraction_done =
            static_cast<double>(monotonic_ns() - t0) / static_cast<double>(plan.deadline_ns - t0);
    return snap;
}

// Each target's share of the phase: its workers' counters, over its own
// time (its slowest worker: a fast drive waits for the others at the end
// of a sequential phase, and that wait is not its own).
void account_targets(RunSession& s, const std::vector<PhaseOutcome>& outcomes,
                     const PhaseResult& pr) {
    for (TargetResult& t : s.res.targets) {
        PhaseResult mine;
        mine.phase = pr.phase;
        for (unsigned i = 0; i < outcomes.size(); ++i) {
            const unsigned f = s.file_of(i);
            if (f < t.first_file || f >= t.first_file + t.files) continue;
            mine.counters.merge(outcomes[i].counters);
            mine.series.merge(outcomes[i].series);
            mine.interrupted = mine.interrupted || !outcomes[i].completed;
            mine.seconds = std::max(mine.seconds, outcomes[i].seconds);
            ++mine.workers;
        }
        if (mine.workers == 0) continue;
        if (s.res.targets.size() == 1) mine.seconds = pr.seconds;  // the run's own figures
        t.add_phase(mine);
    }
}

// The workload phase's outcomes into each job's figures (model::JobResult):
// its workers' counters and series merged, its measured time from its
// first worker's start after its ramp to its last worker's end, its active
// interval (first start to last end) on the run's clock.
void account_jobs(RunSession& s, const RunPlan& plan, const std::vector<PhaseOutcome>& outcomes) {
    for (std::size_t j = 0; j < s.res.jobs.size(); ++j) {
        PhaseResult mine;
        mine.phase = Phase::random;
        std::uint64_t start = UINT64_MAX, measured = UINT64_MAX, end = 0;
        for (std::size_t i = 0; i < outcomes.size() && i < plan.workers.size(); ++i) {
            const WorkerPlan& w = plan.workers[i];
            const PhaseOutcome& o = outcomes[i];
            if (w.job != j || !o.started_ns) continue;
            mine.counters.merge(o.counters);
            mine.series.merge(o.series);
            mine.interrupted = mine.interrupted || !o.completed;
            ++mine.workers;
            start = std::min(start, o.started_ns);
            measured = std::min(measured, std::min(o.started_ns + w.ramp_ns, o.ended_ns));
            end = std::max(end, o.ended_ns);
        }
        if (mine.workers == 0) continue;
        mine.seconds = static_cast<double>(end - measured) / 1e9;
        JobResult& r = s.res.jobs[j];
        r.start_ns = start - s.started_ns;
        r.end_ns = end - s.started_ns;
        if (r.workload.workers == 0)
            r.workload = std::move(mine);
        else
            r.workload.merge(mine);
    }
}

// The workers' outcomes into the phase's result, and what ends the run
// early without being the drive's fault.
void account(RunSession& s, const std::vector<PhaseOutcome>& outcomes, PhaseResult& pr) {
    RunResult& res = s.res;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
        const PhaseOutcome& o = outcomes[i];
        const unsigned f = s.file_of(static_cast<unsigned>(i));  // its file
        pr.counters.merge(o.counters);
        pr.series.merge(o.series);
        if (o.skew) {
            if (pr.skew)
                pr.skew->add_worker(*o.skew);
            else
                pr.skew = o.skew;
        }
        if (!o.completed) pr.interrupted = true;
        if (const auto& bad = o.invalid; bad && res.fatal_error.empty()) {
            res.fatal_error =
                s.target.path(f) + ": the kernel refused a " + std::to_string(bad->length) +
                "-byte " + std::string(io::to_string(bad->kind)) + " at offset " +
                std::to_string(bad->offset + s.target.base_offset(f)) + " as invalid (EINVAL)" +
                (s.target.direct_io() ? "; O_DIRECT alignment? try --buffered" : "");
            res.stop = StopReason::error;
        }
        if (o.counters.trim_not_honoured && pr.trim_not_honoured_at.empty())
            pr.trim_not_honoured_at =
                s.target.path(f) + " offset " +
                std::to_string(o.counters.first_not_honoured + s.target.base_offset(f));
        if (o.trim_refused && res.fatal_error.empty()) {
            res.fatal_error = s.target.path(f) + ": the target refused a trim (" +
                              (s.target.raw(f) ? "BLKDISCARD" : "fallocate PUNCH_HOLE") + ": " +
                              sys::errno_text(*o.trim_refused) +
                              "); --trim-pct needs a filesystem that punches holes (ext4, xfs, "
                              "btrfs, tmpfs) or a device that discards";
            res.stop = StopReason::error;
        }
        if (o.no_space_at && res.fatal_error.empty()) {
            res.fatal_error =
                s.target.path(f) + ": no space left on device " +
                (o.no_space_in_flush ? std::string("flushing its writes")
                                     : "writing at offset " + std::to_string(*o.no_space_at)) +
                " (the filesystem filled up during the run)";
            res.stop = StopReason::error;
            s.stop.store(true);  // this phase counted its failed writes; no more phases
        }
    }
    for (std::size_t m = 0; m < res.mismatch_totals.size(); ++m)
        res.mismatch_totals[m] += pr.counters.mismatches[m];
    account_targets(s, outcomes, pr);
}

// The host's CPU time so far, every process's, and this process's own at
// the same instant (so reading /proc is not foreign load); cpu is nullopt
// where /proc/stat cannot be read (the phase then reports no host load
// rather than a made-up one).
struct HostReading {
    std::vector<sys::ProcessCpu> processes;
    std::optional<sys::HostCpu> cpu;
    stats::CpuTime own;
};

// Every process's CPU time is a read of each /proc/PID/stat: the costliest
// part of a short phase (a burn-in of thousands of 4 KiB iterations).  A
// phase's start takes the previous phase's end reading when that is at most
// kReuseNs old (back-to-back phases), so its window starts that much early.
constexpr std::uint64_t kReuseNs = 20'000'000;

HostReading read_host(bool phase_start) {
    static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    static std::vector<sys::ProcessCpu> last;  // the last phase end's
    static std::uint64_t last_ns = 0;
    HostReading r;
    const std::uint64_t now = monotonic_ns();
    if (phase_start && last_ns && now - last_ns <= kReuseNs) {
        r.processes = last;
    } else {
        r.processes = sys::sample_processes(sys::system_tree(), ticks);
    }
    if (!phase_start) {
        last = r.processes;
        last_ns = now;
    }
    const auto text = sys::proc_stat().read();
    r.cpu = text ? sys::parse_proc_stat(*text, ticks) : std::nullopt;
    r.own = stats::CpuTime::process_now();
    return r;
}

sys::HostLoad host_load(const HostReading& before, const HostReading& after) {
    if (!before.cpu || !after.cpu) return {};
    const stats::CpuTime own = after.own - before.own;
    return sys::host_load(*before.cpu, *after.cpu, own.user_s + own.system_s,
                          sys::process_load(before.processes, after.processes, ::getpid()));
}

// How long the workload phase runs for a worker with no limit of its own
// (--rand-time, or the point's time); 0 when it ends otherwise (a trace).
std::uint64_t workload_span_ns(const RunSession& s, const SweepOverrides& over) {
    if (s.replay) return 0;
    return seconds_to_ns(over.time_s > 0 ? over.time_s : s.cfg.rand_time_s);
}

// Worker i's order: the phase's, with its plan, the test's pause and, in
// the workload phase, its own times on its group's clock (`g0`).
PhaseOrder worker_order(const RunSession& s, const PhaseOrder& order, const RunPlan& plan,
                        unsigned i, std::uint64_t g0, std::uint64_t span_ns) {
    PhaseOrder mine = order;
    mine.work = &plan.workers[i];
    if (i == 0 && s.hooks.stop_phase == order.phase) {
        mine.pause_after_ops = s.hooks.stop_after_ops;
        mine.pause = s.hooks.pause;
    }
    if (order.phase != Phase::random) return mine;
    const WorkloadTimes t =
        workload_times(*mine.work, g0, span_ns, s.duration_deadline_ns, order.replay != nullptr);
    mine.rate_start_ns = t.rate_start_ns;
    mine.deadline_ns = t.deadline_ns;
    return mine;
}

// A phase other than the workload phase (laying out, reading back,
// reverifying) covers each file once, at once: the first worker of each
// (a plain run's: every worker).
std::vector<std::vector<unsigned>> layout_group(const RunPlan& plan) {
    std::vector<unsigned> first;
    for (const FilePlan& f : plan.files)
        if (!f.workers.empty()) first.push_back(f.workers.front());
    std::sort(first.begin(), first.end());
    return {std::move(first)};
}

// Sleeps until `when` (a worker's startdelay), or until the run stops.
void wait_until(const RunSession& s, std::uint64_t when) {
    constexpr std::uint64_t kStepNs = 10'000'000;
    for (std::uint64_t now = monotonic_ns(); now < when && !s.stop.load(); now = monotonic_ns()) {
        const std::uint64_t ns = std::min(when - now, kStepNs);
        const timespec ts{static_cast<time_t>(ns / 1'000'000'000),
                          static_cast<long>(ns % 1'000'000'000)};
        ::nanosleep(&ts, nullptr);
    }
}

// The phase's groups one after another (the workload phase's, else one of
// every worker), each when every worker of the one before has ended (by its
// own end); the first at the phase's start, `t0`.  The outcomes by worker.
void run_groups(RunSession& s, const RunPlan& plan, const PhaseOrder& order, std::uint64_t t0,
                std::uint64_t span_ns, IntervalMerger& intervals,
                std::vector<PhaseOutcome>& outcomes, const std::function<void()>& tick) {
    const auto active = static_cast<unsigned>(outcomes.size());
    const bool workload = order.phase == Phase::random;
    std::vector<char> in_group(active, 0);
    bool first = true;
    for (const std::vector<unsigned>& group :
         workload ? workload_groups(plan) : layout_group(plan)) {
        std::fill(in_group.begin(), in_group.end(), 0);
        for (unsigned i : group)
            in_group[i] = 1;
        intervals.begin_group(group);
        const std::uint64_t g0 = std::exchange(first, false) ? t0 : monotonic_ns();
        s.run_on_workers(
            [&](unsigned i, Worker& w) {
                if (i >= active || !in_group[i]) return;
                const PhaseOrder mine = worker_order(s, order, plan, i, g0, span_ns);
                if (workload && s.cfg.rand_ops && mine.work->op_limit == 0)
                    return;  // nothing to do for this worker
                if (workload) wait_until(s, g0 + mine.work->startdelay_ns);
                const std::uint64_t w0 = monotonic_ns();
                outcomes[i] = w.run(mine);
                outcomes[i].started_ns = w0;
                outcomes[i].ended_ns = monotonic_ns();
                outcomes[i].seconds = static_cast<double>(outcomes[i].ended_ns - w0) / 1e9;
            },
            tick);
    }
}

// The swept value a sweep's random phase runs at (0 outside a sweep).
std::uint64_t sweep_value(const RunConfig& cfg, Phase phase, const SweepOverrides& over) {
    if (!cfg.sweep || phase != Phase::random) return 0;
    const PlanPoint& p = over.point;
    return p.qd ? p.qd : p.files ? p.files : p.rand_block;
}

}  // namespace

WorkloadTimes workload_times(const WorkerPlan& w, std::uint64_t group_start_ns,
                             std::uint64_t span_ns, std::uint64_t duration_deadline_ns,
                             bool replay) {
    WorkloadTimes t;
    t.start_ns = group_start_ns + w.startdelay_ns;
    t.rate_start_ns = t.start_ns + 1'000'000 + w.rate_offset_ns;
    std::uint64_t end = 0;
    if (replay)
        end = 0;  // the trace ends it
    else if (w.runtime_ns)
        end = t.start_ns + w.ramp_ns + w.runtime_ns;
    else if (!w.op_limit && !w.byte_limit && !w.loops && span_ns)
        end = group_start_ns + span_ns;
    t.deadline_ns = end && duration_deadline_ns ? std::min(end, duration_deadline_ns)
                                                : std::max(end, duration_deadline_ns);
    return t;
}

std::vector<std::vector<unsigned>> workload_groups(const RunPlan& plan) {
    std::map<unsigned, std::vector<unsigned>> by_group;
    for (unsigned i = 0; i < plan.workers.size(); ++i)
        by_group[plan.workers[i].group].push_back(i);
    std::vector<std::vector<unsigned>> groups;
    for (auto& [g, workers] : by_group)
        groups.push_back(std::move(workers));
    return groups;
}

PhaseResult run_phase(RunSession& s, std::uint64_t iteration, Phase phase,
                      const SweepOverrides& over) {
    const RunConfig& cfg = s.cfg;
    s.hooks.pause_if(s.hooks.stop_phase == phase && s.hooks.stop_after_ops == 0);
    if (!s.target.direct_io())
        s.writeback_failed(s.target.drop_caches(), iteration, phase, nullptr);
    record_bound(s, phase);
    // The run's plan, or the sweep point's (made by the same rules).
    const bool point = phase == Phase::random && (over.point.qd || over.point.files ||
                                                  over.point.rand_block || over.point.rate > 0);
    const RunPlan point_plan =
        point ? make_run_plan(cfg, {sys::usable_cpus()}, over.point) : RunPlan{};
    const RunPlan& plan = point ? point_plan : s.plan;
    const unsigned active = static_cast<unsigned>(plan.workers.size());
    PhaseResult pr;
    pr.phase = phase;
    const HostReading host0 = read_host(true);
    const auto cpu0 = stats::CpuTime::process_now();
    const std::uint64_t t0 = monotonic_ns();
    const PhaseOrder order = make_order(s, iteration, phase, over, active, t0);
    IntervalMerger intervals(s, iteration, phase, sweep_value(cfg, phase, over), active);
    std::vector<PhaseOutcome> outcomes(active);
    auto tick = [&] {
        const ProgressSnapshot snap = progress_of(s, order, active, t0);
        s.observer.progress(snap);
        if (over.on_progress) over.on_progress(snap.bytes);
        if (order.intervals_from_ns) intervals.emit(false, 0);
        if ((monotonic_ns() - s.last_snapshot_ns) / 1e9 >= s.hooks.snapshot_period_s)
            s.snapshot(&snap);
    };
    run_groups(s, plan, order, t0, workload_span_ns(s, over), intervals, outcomes, tick);
    // Writes in buffered mode are only done once they reached the device.
    if (!s.target.direct_io() && phase != Phase::seq_read && phase != Phase::reverify)
        s.writeback_failed(s.target.drop_caches(), iteration, phase, &pr);
    acknowledge(s, phase, active);
    pr.seconds = (monotonic_ns() - t0) / 1e9;
    if (order.intervals_from_ns) intervals.emit(true, pr.seconds);
    pr.cpu = stats::CpuTime::process_now() - cpu0;
    pr.host = host_load(host0, read_host(false));
    pr.workers = active;
    if (phase == Phase::random)
        pr.requested_rate = over.point.rate > 0 ? over.point.rate : cfg.rate;
    if (phase == Phase::random && s.replay && s.replay->timed())
        pr.replay_seconds =
            s.replay->info().span_s * static_cast<double>(cfg.replay_loops) / cfg.replay_speed;
    account(s, outcomes, pr);
    if (phase == Phase::random && !point) account_jobs(s, plan, outcomes);
    collect_records(s.workers, s.res);
    return pr;
}

}  // namespace ds::run
