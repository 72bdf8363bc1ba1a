#include "run/runner.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <new>
#include <random>
#include <utility>

#include "output/output_file.h"
#include "pattern/unit.h"
#include "run/phase_runner.h"
#include "run/session.h"
#include "run/sustained_write.h"
#include "run/sync_compare.h"
#include "stats/estimate.h"
#include "stats/knee.h"
#include "stats/quantile_interval.h"
#include "sys/signals.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::sys;

std::uint64_t random_seed() {
    std::random_device rd;
    std::uint64_t s = (std::uint64_t{rd()} << 32) ^ rd();
    return s ? s : 1;
}

unsigned take_repeats(model::RunConfig& cfg) {
    if (!cfg.seed_given) {
        cfg.seed = random_seed();
        cfg.seed_given = true;
    }
    return std::max(1U, std::exchange(cfg.repeat, 1U));
}

namespace {

// The random phase `cfg.repeat` times on the same files, every repeat
// verified and drawing the offsets a run with this seed draws: one result,
// its counts added up and each repeat's figures kept (PhaseResult::repeats).
// A stop or an interrupted repeat ends the repeats.
// `each` (when given) sees every repeat's own result first.
PhaseResult run_repeated(RunSession& s, std::uint64_t iteration, const SweepOverrides& over = {},
                         const std::function<void(const PhaseResult&)>& each = {}) {
    PhaseResult merged;
    for (unsigned r = 0; r < std::max(1u, s.cfg.repeat); ++r) {
        if (r > 0 && s.check_stop()) break;
        PhaseResult pr = run_phase(s, iteration, Phase::random, over);
        if (each) each(pr);
        pr.repeats = {pr.figures()};
        if (r == 0)
            merged = std::move(pr);
        else
            merged.merge(pr);
        if (merged.interrupted) break;
    }
    return merged;
}

// The saturation point of the sweep so far: on the medians, and named only
// when the p99 rise that makes it is outside the noise of the repeats.
void judge_knee(SweepResult& sweep, double knee_gain_pct) {
    sweep.knee.reset();
    sweep.knee_in_noise.reset();
    const auto knee = stats::find_knee(sweep.figures(), sweep.axis(), knee_gain_pct);
    if (!knee) return;
    // One repeat: each point's p99 with its own interval.
    const auto at = sweep.points[knee->index].random.p99_estimate();
    const auto next = sweep.points[knee->index + 1].random.p99_estimate();
    const stats::Difference d = stats::compare(next, at);
    if (d == stats::Difference::within_noise || d == stats::Difference::lower)
        sweep.knee_in_noise = knee->index;
    else
        sweep.knee = knee->index;  // outside the noise, or no interval (said so)
}

// The closed loop at --qd (--repeat: its median IOPS), the maximum a rate
// sweep in percent and --find-rate start from; shown as the sweep's first row.
void run_closed_loop_maximum(RunSession& s, std::uint64_t iteration) {
    const PhaseResult max = run_repeated(s, iteration, {});
    s.res.sweep.closed_loop_iops =
        max.repeats.size() >= 2 ? max.estimates().iops.median : max.iops();
    s.observer.sweep_point_done(s.cfg, SweepPoint{0, max});
}

// --find-rate: the closed-loop maximum, then the rates stats::RateSearch
// bisects below it, each a random phase (--repeat: that many) recorded as a
// sweep point and judged on its response percentile and on its rate.
void run_find_rate(RunSession& s, std::uint64_t iteration) {
    const FindRate& bound = *s.cfg.find_rate;
    s.res.sweep.param = SweepParam::rate;
    FindRateResult result;
    result.bound = bound;
    run_closed_loop_maximum(s, iteration);
    result.closed_loop_iops = s.res.sweep.closed_loop_iops;
    // A probe must be long enough to measure (kMinMeasuredOps in
    // --rand-time); --rand-ops makes every probe that many operations.
    const double min_rate =
        s.cfg.rand_ops ? 1.0 : static_cast<double>(kMinMeasuredOps) / s.cfg.rand_time_s;
    stats::RateSearch search(result.closed_loop_iops, min_rate);
    const double bound_ns = bound.bound_s * 1e9;
    while (const auto rate = search.next()) {
        if (s.check_stop()) {
            result.interrupted = true;
            break;
        }
        SweepOverrides over;
        over.point.rate = *rate;
        std::vector<double> percentile_ns;
        PhaseResult pr = run_repeated(s, iteration, over, [&](const PhaseResult& r) {
            percentile_ns.push_back(static_cast<double>(
                r.counters.response_latency.value_at_percentile(bound.percentile)));
        });
        // One repeat: the percentile's interval from this run's own latencies.
        const stats::Estimate percentile =
            percentile_ns.size() == 1
                ? stats::percentile_estimate(pr.counters.response_latency, bound.percentile)
                : stats::estimate(percentile_ns);
        FindRateProbe probe{*rate, percentile_ns.size(), pr.rate_met(),
                            stats::judge_probe(percentile, bound_ns, pr.rate_met())};
        SweepPoint point{static_cast<std::uint64_t>(std::llround(*rate)), std::move(pr)};
        s.observer.sweep_point_done(s.cfg, point);
        const bool interrupted = point.random.interrupted;
        s.res.sweep.points.push_back(std::move(point));
        if (interrupted) {  // a partial phase is no verdict
            result.interrupted = true;
            break;
        }
        search.record(*rate, probe.verdict.passed);
        result.probes.push_back(probe);
    }
    for (std::size_t i = 0; i < result.probes.size(); ++i) {
        const double r = result.probes[i].requested_iops;
        if (r == search.found()) result.found = i;
        if (r == search.lowest_failing()) result.failing = i;
    }
    s.res.find_rate = std::move(result);
}

// --sweep: the random phase once per value (--repeat: that many times), on
// the same verified files, then the saturation point.
void run_sweep(RunSession& s, std::uint64_t iteration) {
    const Sweep& sweep = *s.cfg.sweep;
    s.res.sweep.param = sweep.param;
    if (sweep.percent) run_closed_loop_maximum(s, iteration);
    for (std::uint64_t value : sweep.values) {
        if (s.check_stop()) break;
        SweepOverrides over;
        if (sweep.param == SweepParam::rate)
            over.point.rate = sweep.percent
                                  ? s.res.sweep.closed_loop_iops * static_cast<double>(value) / 100
                                  : static_cast<double>(value);
        if (over.point.rate <= 0 && sweep.param == SweepParam::rate) break;  // nothing measured
        if (sweep.param == SweepParam::qd) over.point.qd = static_cast<unsigned>(value);
        if (sweep.param == SweepParam::files) over.point.files = static_cast<unsigned>(value);
        if (sweep.param == SweepParam::rand_block)
            over.point.rand_block = static_cast<std::uint32_t>(value);
        SweepPoint point{value, run_repeated(s, iteration, over)};
        s.observer.sweep_point_done(s.cfg, point);
        s.res.sweep.points.push_back(std::move(point));
    }
    if (sweep.param == SweepParam::rate)
        s.res.sweep.find_turn_up();  // saturation in IOPS means nothing at a fixed rate
    else
        judge_knee(s.res.sweep, s.cfg.knee_gain_pct);
}

// --steady-state: the random phase in rounds of steady_round_s (each a
// random phase of its own, drawing its own offsets), until the SNIA rule
// holds over the last window of rounds or max_rounds are done.  The phase's
// result is the rounds merged.
PhaseResult run_steady_state(RunSession& s, std::uint64_t iteration) {
    stats::SteadyStateTracker tracker(*s.cfg.steady_state);
    SteadyStateResult ss;
    ss.iteration = iteration;
    ss.round_s = s.cfg.steady_round_s;
    ss.rule = tracker.rule();
    PhaseResult merged;
    merged.phase = Phase::random;
    for (std::uint64_t round = 0; tracker.status() == stats::SteadyStateStatus::measuring;
         ++round) {
        if (s.check_stop()) {
            ss.interrupted = true;
            break;
        }
        SweepOverrides over;
        over.time_s = s.cfg.steady_round_s;
        over.round = round;
        const PhaseResult pr = run_phase(s, iteration, Phase::random, over);
        merged.merge(pr);
        if (pr.interrupted) {
            ss.interrupted = true;
            break;
        }
        tracker.add_round(pr.iops());
    }
    ss.round_iops = tracker.rounds();
    ss.window = tracker.window();
    ss.status = tracker.status();
    s.res.steady_state.push_back(std::move(ss));
    return merged;
}

// What the phase does unthrottled, and what it did: a sustained write's
// level before its cliff and after its last step; another phase's first
// iteration and this one.
std::pair<double, double> phase_rates(const RunSession& s, Phase phase, const PhaseResult& pr) {
    if (phase == Phase::seq_write && s.cfg.sustained_passes && !s.res.sustained_write.empty()) {
        const auto& steps = s.res.sustained_write.back().cliff.steps;
        if (!steps.empty())
            return {steps.front().before_bytes_per_s, steps.back().after_bytes_per_s};
    }
    const double now = pr.bytes_per_sec();
    if (s.res.iterations_run > 1)
        for (const auto& d : s.res.drift)
            if (d.phase == phase && d.iterations > 0) return {d.bandwidth.first, now};
    return {now, now};
}

// NVMe targets: each one's health log before a phase, then after it
// against the one before.
struct HealthBefore {
    std::optional<nvme::HealthLog> log;
    std::string why;  // why it was not read
};

std::vector<HealthBefore> read_health_before(RunSession& s) {
    std::vector<HealthBefore> before(s.health.size());
    for (std::size_t t = 0; t < s.health.size(); ++t)
        if (s.health[t].on()) before[t].log = s.health[t].read(before[t].why);
    return before;
}

void record_phase_health(RunSession& s, std::uint64_t iteration, Phase phase,
                         std::vector<HealthBefore> before, const PhaseResult& pr) {
    // The thermal verdict compares the run's throughput: the targets ran
    // the phase together.
    const auto [reference, observed] = phase_rates(s, phase, pr);
    for (std::size_t t = 0; t < s.health.size(); ++t) {
        if (!s.health[t].on()) continue;
        std::string why_after;
        auto after = s.health[t].read(why_after);
        PhaseHealth ph = judge_phase_health(iteration, phase, std::move(before[t].log),
                                            std::move(after), reference, observed);
        ph.target = t;
        ph.unreadable = !before[t].why.empty() ? before[t].why : why_after;
        DriveHealth& health = s.res.targets[t].health;
        health.add(std::move(ph));
        s.observer.phase_health_done(health.phases.back());
    }
}

// One iteration: its phases in order (the random one, or a sweep of it).
void run_iteration(RunSession& s, std::uint64_t iteration) {
    const RunConfig& cfg = s.cfg;
    const bool random_on =
        cfg.has_phase(Phase::random) && (cfg.rand_ops ? *cfg.rand_ops > 0 : cfg.rand_time_s > 0);
    if (iteration > 1 && cfg.recreate) s.recreate_files();
    s.res.begin_iteration(iteration, cfg.iteration_detail);
    for (Phase phase : kAllPhases) {
        if (!cfg.has_phase(phase) || (phase == Phase::random && !random_on)) continue;
        if (s.check_stop()) break;
        if (phase == Phase::random && cfg.sweep) {
            if (cfg.find_rate)
                run_find_rate(s, iteration);
            else
                run_sweep(s, iteration);
            continue;
        }
        std::vector<HealthBefore> health_before = read_health_before(s);
        const bool steady = phase == Phase::random && cfg.steady_state;
        const bool sustained = phase == Phase::seq_write && cfg.sustained_passes;
        PhaseResult pr = steady                   ? run_steady_state(s, iteration)
                         : sustained              ? run_sustained_write(s, iteration)
                         : phase == Phase::random ? run_repeated(s, iteration)
                                                  : run_phase(s, iteration, phase);
        s.observer.phase_done(iteration, pr);
        if (steady) s.observer.steady_state_done(s.res.steady_state.back());
        if (sustained) s.observer.sustained_write_done(s.res.sustained_write.back());
        s.res.add_phase(pr);
        record_phase_health(s, iteration, phase, std::move(health_before), pr);
    }
    s.observer.iteration_done(s.res.iterations.back());
    s.snapshot(nullptr);
}

// --sync-compare: its table on the first file, instead of the phases.
void run_sync_compare_table(RunSession& s) {
    s.observer.started(s.cfg, s.res);
    std::atomic<bool> stop{false};
    // Rows open the file as asked (O_DIRECT unless --buffered), without the
    // fallback: a filesystem refusing it makes them n/a, with why.
    SyncCompareSetup setup{s.target.path(0),
                           s.target.fd(0),
                           !s.cfg.buffered,
                           s.target.direct_io(),
                           s.cfg.file_bytes,
                           s.res.run_id,
                           s.cfg.sync_compare_row_s,
                           s.cfg.sync_compare_row_ops.value_or(0),
                           default_backend_factory(s.kind),
                           pattern::data_id_from_seed(s.cfg.seed),
                           s.cfg.unit_shape()};
    s.res.sync_compare =
        run_sync_compare(setup, stop, s.res.mismatch_records, s.res.mismatch_totals);
    if (int sig = stop_signal()) {
        s.res.stop = StopReason::signal;
        s.res.stop_signal = sig;
    }
    s.res.wall_seconds = s.wall_seconds();
}

bool phase_finished(const RunResult& r) {
    return !r.merged_phases.empty() || !r.sweep.points.empty();
}

// An exception after the first phase (the filesystem full when --recreate
// makes the files anew, a ring that cannot be set up again): the run's
// fatal error, one line.
void ended_by_error(RunSession& s, const std::exception& e) {
    const auto* bad_alloc = dynamic_cast<const std::bad_alloc*>(&e);
    if (s.res.fatal_error.empty())
        s.res.fatal_error = bad_alloc ? std::string("out of memory") : std::string(e.what());
    s.res.stop = StopReason::error;
    s.stop.store(true);
}

}  // namespace

Runner::Runner(RunConfig cfg, RunObserver* observer) : cfg_(std::move(cfg)), observer_(observer) {
    static RunObserver silent;
    if (!observer_) observer_ = &silent;
}

RunResult Runner::run() {
    RunResult res;
    res.started_at = utc_now_iso8601();
    res.document_id = output::unpredictable_suffix();
    if (!cfg_.seed_given) cfg_.seed = random_seed();
    res.seed = cfg_.seed;
    // Random, whatever the seed: a unit of another run is foreign even when
    // that run had the same seed (the data, keyed by the seed, is the same).
    res.run_id = random_seed();
    RunSession s(cfg_, res, *observer_);
    if (cfg_.sync_compare) {
        run_sync_compare_table(s);
        return res;
    }
    s.start_workers();
    try {
        for (std::uint64_t it = 1; cfg_.iterations == 0 || it <= cfg_.iterations; ++it) {
            if (s.check_stop()) break;
            run_iteration(s, it);
            if (s.stop.load()) break;
        }
    } catch (const std::exception& e) {
        // Before any phase finished this is a setup error (exit 1, nothing
        // left).  After one, the run has something to report: it ends here
        // (the files still go), and the reports say what was done and why
        // it stopped, rather than an exit with a document left "running".
        if (!phase_finished(res)) throw;
        ended_by_error(s, e);
    }
    s.finish();
    return res;  // the session closes the rings, then removes the files
}

}  // namespace ds::run
