#include "model/results.h"
#include "stats/levels.h"
#include "stats/quantile_interval.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <numeric>
#include <span>

namespace ds::model {

namespace {

// Kept in run order: a phase is merged into its own entry, or inserted
// before the first entry of a later phase.
void merge_in_run_order(std::vector<PhaseResult>& phases, const PhaseResult& p) {
    auto at = phases.begin();
    while (at != phases.end() && at->phase < p.phase)
        ++at;
    if (at != phases.end() && at->phase == p.phase)
        at->merge(p);
    else
        phases.insert(at, p);
}

}  // namespace

std::string utc_now_iso8601() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void PhaseCounters::merge(const PhaseCounters& o) {
    read_ops += o.read_ops;
    write_ops += o.write_ops;
    atomic_writes += o.atomic_writes;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    verified_bytes += o.verified_bytes;
    unverified_units += o.unverified_units;
    retries += o.retries;
    cancelled_ops += o.cancelled_ops;
    for (std::size_t i = 0; i < mismatches.size(); ++i)
        mismatches[i] += o.mismatches[i];
    read_latency.merge(o.read_latency);
    write_latency.merge(o.write_latency);
    flush_ops += o.flush_ops;
    flush_latency.merge(o.flush_latency);
    write_errors += o.write_errors;
    system_calls += o.system_calls;
    response_latency.merge(o.response_latency);
    if (!o.response_by_direction.empty()) {
        keep_response_by_direction();
        for (std::size_t i = 0; i < response_by_direction.size(); ++i)
            response_by_direction[i].merge(o.response_by_direction[i]);
    }
    issue_error.merge(o.issue_error);
    late_ops += o.late_ops;
    max_lateness_ns = std::max(max_lateness_ns, o.max_lateness_ns);
    late_beyond_tolerance_ops += o.late_beyond_tolerance_ops;
    trim_ops += o.trim_ops;
    trim_bytes += o.trim_bytes;
    trim_latency.merge(o.trim_latency);
    trimmed_units_read += o.trimmed_units_read;
    if (trim_not_honoured == 0) first_not_honoured = o.first_not_honoured;
    trim_not_honoured += o.trim_not_honoured;
    // Sizes in ascending order, each once.
    for (const SizeCounters& theirs : o.sizes) {
        const auto at = std::find_if(sizes.begin(), sizes.end(), [&](const SizeCounters& s) {
            return s.bytes >= theirs.bytes;
        });
        if (at != sizes.end() && at->bytes == theirs.bytes)
            at->merge(theirs);
        else
            sizes.insert(at, theirs);
    }
}

void SizeCounters::merge(const SizeCounters& o) {
    read_ops += o.read_ops;
    write_ops += o.write_ops;
    read_latency.merge(o.read_latency);
    write_latency.merge(o.write_latency);
}

std::uint64_t lateness_tolerance_ns(double worker_ops_per_sec) {
    if (worker_ops_per_sec <= 0) return kLatenessToleranceMinNs;
    const double intervals_ns = kLatenessToleranceIntervals * 1e9 / worker_ops_per_sec;
    return std::max(kLatenessToleranceMinNs,
                    static_cast<std::uint64_t>(std::llround(intervals_ns)));
}

std::uint64_t PhaseCounters::mismatch_total() const {
    return std::accumulate(mismatches.begin(), mismatches.end(), std::uint64_t{0});
}

void IntervalStats::merge(const IntervalStats& o) {
    read_ops += o.read_ops;
    write_ops += o.write_ops;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    mismatches += o.mismatches;
    for (std::size_t i = 0; i < mismatches_by_class.size(); ++i)
        mismatches_by_class[i] += o.mismatches_by_class[i];
    read_latency.merge(o.read_latency);
    write_latency.merge(o.write_latency);
    if (targets.size() < o.targets.size()) targets.resize(o.targets.size());
    for (std::size_t t = 0; t < o.targets.size(); ++t) {
        targets[t].read_ops += o.targets[t].read_ops;
        targets[t].write_ops += o.targets[t].write_ops;
        targets[t].read_bytes += o.targets[t].read_bytes;
        targets[t].write_bytes += o.targets[t].write_bytes;
        targets[t].mismatches += o.targets[t].mismatches;
    }
    response_latency.merge(o.response_latency);
    late_ops += o.late_ops;
}

stats::LatencyHistogram IntervalStats::latency() const {
    stats::LatencyHistogram all = read_latency;
    all.merge(write_latency);
    return all;
}

stats::KneeAxis SweepResult::axis() const {
    return param == SweepParam::rand_block ? stats::KneeAxis::bandwidth : stats::KneeAxis::iops;
}

std::vector<std::uint64_t> SweepResult::response_p99_ns() const {
    std::vector<std::uint64_t> out;
    for (const auto& pt : points)
        out.push_back(pt.random.counters.response_latency.value_at_percentile(99));
    return out;
}

// The first point whose response p99 is kTurnUpFactor times the lowest of
// the points before it (at lower rates), or whose rate was not met.
void SweepResult::find_turn_up() {
    turn_up.reset();
    const std::vector<std::uint64_t> p99 = response_p99_ns();
    std::uint64_t lowest = UINT64_MAX;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const bool grew =
            i > 0 && static_cast<double>(p99[i]) > kTurnUpFactor * static_cast<double>(lowest);
        if (grew || !points[i].random.rate_met()) {
            turn_up = i;
            return;
        }
        lowest = std::min(lowest, p99[i]);
    }
}

std::vector<stats::SweepFigures> SweepResult::figures() const {
    std::vector<stats::SweepFigures> out;
    for (const auto& pt : points) {
        if (pt.random.repeats.size() >= 2) {
            const RepeatEstimates e = pt.random.estimates();
            out.push_back({e.iops.median, e.bytes_per_sec.median, e.p99_ns.median});
            continue;
        }
        out.push_back({pt.random.iops(), pt.random.bytes_per_sec(),
                       static_cast<double>(pt.random.latency().value_at_percentile(99))});
    }
    return out;
}

std::size_t SweepResult::repeats() const {
    if (points.empty()) return 0;
    std::size_t n = points.front().random.repeats.size();
    for (const auto& pt : points)
        n = std::min(n, pt.random.repeats.size());
    return n;
}

std::optional<stats::Knee> SweepResult::described_knee() const {
    if (!knee || *knee + 1 >= points.size()) return std::nullopt;
    return stats::knee_at(figures(), *knee, axis());
}

std::string too_short_reason(double seconds, std::uint64_t ops) {
    if (seconds >= kMinMeasuredSeconds && ops >= kMinMeasuredOps) return {};
    // Rounded down, so that a phase under the minimum never reads as on it
    // ("1.00 s" for 0.999 s).
    char buf[64];
    if (seconds < 0.1)
        std::snprintf(buf, sizeof buf, "%.3f s", std::floor(seconds * 1e3) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.2f s", std::floor(seconds * 1e2) / 1e2);
    return std::string(buf) + ", " + std::to_string(ops) +
           (ops == 1 ? " operation" : " operations");
}

std::string PhaseResult::too_short() const {
    return too_short_reason(seconds, counters.read_ops + counters.write_ops);
}

std::string PhaseFigures::too_short() const {
    return too_short_reason(seconds, read_ops + write_ops);
}

double PhaseResult::iops() const {
    return seconds > 0 ? static_cast<double>(counters.read_ops + counters.write_ops) / seconds
                       : 0.0;
}

double PhaseResult::bytes_per_sec() const {
    return seconds > 0 ? static_cast<double>(counters.read_bytes + counters.write_bytes) / seconds
                       : 0.0;
}

bool PhaseResult::rate_met() const {
    const std::uint64_t ops = counters.read_ops + counters.write_ops;
    return iops() >= requested_rate * kRateMetShare &&
           static_cast<double>(counters.late_beyond_tolerance_ops) <=
               static_cast<double>(ops) * kRateMetLateShare;
}

std::uint64_t PhaseResult::lateness_tolerance_ns() const {
    if (replay_seconds > 0) return kLatenessToleranceMinNs;  // a trace has no even schedule
    if (requested_rate <= 0) return 0;
    return model::lateness_tolerance_ns(requested_rate / std::max(1u, workers));
}

stats::LatencyHistogram SizeCounters::latency() const {
    stats::LatencyHistogram all = read_latency;
    all.merge(write_latency);
    return all;
}

stats::LatencyHistogram PhaseResult::latency() const {
    stats::LatencyHistogram all = counters.read_latency;
    all.merge(counters.write_latency);
    return all;
}

void SkewResult::add_run(const SkewResult& o) {
    tally.merge(o.tally);
    busy_redraws += o.busy_redraws;
}

void SkewResult::add_worker(const SkewResult& o) {
    add_run(o);
    blocks += o.blocks;
    files += o.files;
}

void PhaseResult::merge(const PhaseResult& o) {
    workers = std::max(workers, o.workers);
    requested_rate = std::max(requested_rate, o.requested_rate);
    replay_seconds += o.replay_seconds;
    interrupted = interrupted || o.interrupted;
    seconds += o.seconds;
    cpu += o.cpu;
    host += o.host;
    counters.merge(o.counters);
    series_joined =
        series_joined || o.series_joined || (!series.ops.empty() && !o.series.ops.empty());
    series.append(o.series);
    for (const auto& r : o.repeats)
        if (repeats.size() < kMaxRepeats) repeats.push_back(r);
    if (o.skew) {
        if (skew)
            skew->add_run(*o.skew);
        else
            skew = o.skew;
    }
    if (trim_not_honoured_at.empty()) trim_not_honoured_at = o.trim_not_honoured_at;
}

stats::BatchInterval PhaseResult::series_interval(bool iops_figure) const {
    const std::vector<double> v = iops_figure ? series.ops_per_second() : series.bytes_per_second();
    return stats::batch_means(v);
}

// Centred on the phase's figure (operations or bytes over its whole time),
// which the slices' mean differs from by the slice in progress at the end.
stats::Estimate PhaseResult::series_estimate(bool iops_figure) const {
    const stats::BatchInterval b = series_interval(iops_figure);
    stats::Estimate e = stats::to_estimate(b);
    const double figure = iops_figure ? iops() : bytes_per_sec();
    const double k = b.usable && b.mean > 0 ? figure / b.mean : 0;
    e.median = figure;
    e.low = k > 0 ? b.low * k : figure;
    e.high = k > 0 ? b.high * k : figure;
    e.min = k > 0 ? b.min * k : figure;
    e.max = k > 0 ? b.max * k : figure;
    return e;
}

stats::Estimate PhaseResult::figure_estimate() const {
    if (repeats.size() >= 2) return iops_figure() ? estimates().iops : estimates().bytes_per_sec;
    return series_estimate(iops_figure());
}

stats::Estimate PhaseResult::p99_estimate() const {
    if (repeats.size() >= 2) return estimates().p99_ns;
    return stats::percentile_estimate(latency(), 99);
}

// A slice next to a change straddles it (the change came somewhere inside
// it): a regime's figures and interval leave those out where it keeps three
// slices or more without them.  Its level is its median: a device settling
// after the change (a throttle stalls until its new rate catches up with
// what the old one let through) moves the mean, not the level.
stats::Regimes PhaseResult::regimes() const {
    if (series_joined) return {};
    const ThroughputSeries s = series.coarsened_to(kRegimeSliceNs);
    const std::vector<double> v = iops_figure() ? s.ops_per_second() : s.bytes_per_second();
    stats::Regimes regimes = stats::find_regimes(v, s.slice_seconds());
    for (std::size_t i = 0; i < regimes.size(); ++i) {
        stats::Regime& r = regimes[i];
        const std::size_t from = r.first_interval + (i > 0 ? 1 : 0);
        const std::size_t to = r.first_interval + r.intervals - (i + 1 < regimes.size() ? 1 : 0);
        if (to < from + 3) continue;
        const std::span<const double> inner(v.data() + from, to - from);
        r.mean =
            std::accumulate(inner.begin(), inner.end(), 0.0) / static_cast<double>(inner.size());
        r.median = stats::median(v, from, to);
        r.interval = stats::batch_means(inner);
    }
    return regimes;
}

RepeatFigures PhaseResult::figures() const {
    return {iops(), bytes_per_sec(), static_cast<double>(latency().value_at_percentile(99))};
}

RepeatEstimates PhaseResult::estimates() const {
    std::vector<double> iops, bw, p99;
    for (const auto& r : repeats) {
        iops.push_back(r.iops);
        bw.push_back(r.bytes_per_sec);
        p99.push_back(r.p99_ns);
    }
    return {stats::estimate(iops), stats::estimate(bw), stats::estimate(p99)};
}

PhaseFigures PhaseFigures::of(const PhaseResult& p) {
    const auto& c = p.counters;
    PhaseFigures f;
    f.phase = p.phase;
    f.interrupted = p.interrupted;
    f.seconds = p.seconds;
    f.cpu = p.cpu;
    f.read_ops = c.read_ops;
    f.write_ops = c.write_ops;
    f.read_bytes = c.read_bytes;
    f.write_bytes = c.write_bytes;
    f.verified_bytes = c.verified_bytes;
    f.mismatches = c.mismatch_total();
    const stats::LatencyHistogram all = p.latency();
    f.p50_ns = all.value_at_percentile(50);
    f.p99_ns = all.value_at_percentile(99);
    f.max_ns = all.max();
    if (p.too_short().empty() && p.repeats.size() < 2) {
        const stats::Estimate bw = p.series_estimate(false), iops = p.series_estimate(true);
        if (bw.n >= 2) {
            f.bandwidth_low = static_cast<float>(bw.low);
            f.bandwidth_high = static_cast<float>(bw.high);
        }
        if (iops.n >= 2) {
            f.iops_low = static_cast<float>(iops.low);
            f.iops_high = static_cast<float>(iops.high);
        }
    }
    return f;
}

double PhaseFigures::iops() const {
    return seconds > 0 ? static_cast<double>(read_ops + write_ops) / seconds : 0.0;
}

double PhaseFigures::bytes_per_sec() const {
    return seconds > 0 ? static_cast<double>(read_bytes + write_bytes) / seconds : 0.0;
}

void RunResult::begin_iteration(std::uint64_t index, std::uint64_t detail) {
    ++iterations_run;
    iterations.push_back(IterationResult{index, {}});
    while (iterations.size() > kIterationWindow)
        iterations.pop_front();
    if (detail == 0) return;
    iteration_detail.push_back(IterationDetail{index, {}});
    while (iteration_detail.size() > detail)
        iteration_detail.pop_front();
}

void RunResult::add_phase(const PhaseResult& p) {
    iterations.back().phases.push_back(PhaseFigures::of(p));
    add_to_drift(drift, iterations.back().phases.back(), iterations.back().index);
    if (!iteration_detail.empty() && iteration_detail.back().index == iterations.back().index)
        iteration_detail.back().phases.push_back(p);
    merge_in_run_order(merged_phases, p);
}

RunResult::Totals RunResult::totals() const {
    Totals t;
    auto add = [&](const PhaseResult& p) {
        t.written += p.counters.write_bytes;
        t.read += p.counters.read_bytes;
        t.verified += p.counters.verified_bytes;
    };
    for (const auto& p : merged_phases)
        add(p);
    for (const auto& pt : sweep.points)
        add(pt.random);
    if (sync_compare)
        for (const auto& row : sync_compare->rows) {
            t.written += row.ops * row.write_bytes * row.writes_per_op;
            t.read += row.verified_bytes;
            t.verified += row.verified_bytes;
        }
    return t;
}

std::uint64_t RunResult::damaged_units() const {
    std::uint64_t n = 0;
    for (const auto& d : damage)
        n += d.distinct_units;
    return n;
}

bool RunResult::health_damaged() const {
    return std::any_of(targets.begin(), targets.end(),
                       [](const TargetResult& t) { return t.health.damaged(); });
}

std::uint64_t RunResult::mismatch_count() const {
    return std::accumulate(mismatch_totals.begin(), mismatch_totals.end(), std::uint64_t{0});
}

}  // namespace ds::model

namespace ds::model {
ExitStatus exit_status(const RunResult& r) {
    if (r.mismatch_count() > 0 || r.health_damaged()) return ExitStatus::mismatch;
    if (!r.fatal_error.empty()) return ExitStatus::error;
    if (r.stop == StopReason::signal) return interrupted_by(r.stop_signal);
    return ExitStatus::success;
}

RunEvidence run_evidence(const RunConfig& cfg, const RunResult& r, ExitStatus status,
                         const std::string& why) {
    RunEvidence e;
    e.status = status;
    e.verify = cfg.verify;
    e.nop = cfg.nop;
    e.job_file = !cfg.job_file.empty();
    e.verified_bytes = r.totals().verified;
    e.stopped_at_duration = r.stop == StopReason::duration;
    e.mismatches = r.mismatch_count();
    e.health_damage_only = e.mismatches == 0 && r.health_damaged();
    e.error = why;
    return e;
}

void TargetResult::add_phase(const PhaseResult& p) {
    merge_in_run_order(merged_phases, p);
}

std::uint64_t TargetResult::mismatch_count() const {
    std::uint64_t n = 0;
    for (const auto& p : merged_phases)
        n += p.counters.mismatch_total();
    return n;
}

std::uint64_t TargetResult::verified_bytes() const {
    std::uint64_t n = 0;
    for (const auto& p : merged_phases)
        n += p.counters.verified_bytes;
    return n;
}

std::optional<std::pair<Phase, double>> TargetResult::figure() const {
    for (Phase want : {Phase::random, Phase::seq_write, Phase::seq_read})
        for (const auto& p : merged_phases)
            if (p.phase == want && p.seconds > 0)
                return std::pair{want, want == Phase::random ? p.iops() : p.bytes_per_sec()};
    return std::nullopt;
}

namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Targets like `a`: the same kind of device and size, measured by the same
// phase's figure.
std::vector<double> like_figures(const std::vector<TargetResult>& targets, const TargetResult& a,
                                 Phase phase) {
    std::vector<double> v;
    for (const auto& b : targets) {
        const auto f = b.figure();
        if (f && f->first == phase && b.device_kind == a.device_kind &&
            b.capacity_bytes == a.capacity_bytes)
            v.push_back(f->second);
    }
    return v;
}

}  // namespace

namespace {

const PhaseResult* merged_phase(const TargetResult& t, Phase phase) {
    for (const auto& p : t.merged_phases)
        if (p.phase == phase) return &p;
    return nullptr;
}

// Two like targets: the slower one, when it is `threshold_pct` below the
// other and their intervals (each phase's own, or its repeats') are apart,
// or each of its samples (a batch of 0.1 s slices, or a repeat) is below
// each of the other's: a CPU-bound device that changed level mid-phase has a
// wide interval, not a near one.
void flag_slower_of_two(std::vector<TargetResult>& targets, TargetResult& t, Phase phase,
                        double value, double threshold_pct) {
    for (const auto& o : targets) {
        if (&o == &t) continue;
        const auto of = o.figure();
        if (!of || of->first != phase || o.device_kind != t.device_kind ||
            o.capacity_bytes != t.capacity_bytes || of->second <= 0)
            continue;
        const double below = (of->second - value) / of->second * 100;
        const PhaseResult* mine = merged_phase(t, phase);
        const PhaseResult* theirs = merged_phase(o, phase);
        if (below <= threshold_pct || !mine || !theirs) return;
        const stats::Estimate a = mine->figure_estimate(), b = theirs->figure_estimate();
        if (stats::compare(a, b) != stats::Difference::lower && !stats::entirely_below(a, b))
            return;  // within the noise, or no interval
        t.slow = SlowTarget{phase, value, of->second, below, 2, o.name};
        return;
    }
}

}  // namespace

void flag_slow_targets(std::vector<TargetResult>& targets, double threshold_pct) {
    for (auto& t : targets) {
        t.slow.reset();
        const auto f = t.figure();
        if (!f) continue;
        const auto like = like_figures(targets, t, f->first);
        if (like.size() == 2) flag_slower_of_two(targets, t, f->first, f->second, threshold_pct);
        if (like.size() < 3) continue;  // the median of two is no yardstick
        const double median = median_of(like);
        if (median <= 0) continue;
        const double below = (median - f->second) / median * 100;
        if (below > threshold_pct)
            t.slow = SlowTarget{f->first, f->second, median, below, like.size(), {}};
    }
}

RunEvidence target_evidence(const RunConfig& cfg, const RunResult& r, std::size_t t,
                            ExitStatus status) {
    const TargetResult& target = r.targets.at(t);
    RunEvidence e = run_evidence(cfg, r, status);
    e.verified_bytes = target.verified_bytes();
    e.mismatches = target.mismatch_count();
    for (const auto& d : r.damage)  // a failed write-back is the file's, not a phase's
        if (d.file_index >= target.first_file && d.file_index < target.first_file + target.files)
            e.mismatches = std::max<std::uint64_t>(e.mismatches, 1);
    e.health_damage_only = e.mismatches == 0 && target.health.damaged();
    if (e.mismatches || e.health_damage_only)
        e.status = ExitStatus::mismatch;
    else if (status == ExitStatus::mismatch)
        e.status = ExitStatus::success;  // another target's
    return e;
}

}  // namespace ds::model
