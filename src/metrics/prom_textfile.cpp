#include "metrics/prom_textfile.h"

#include <algorithm>
#include <iterator>
#include <system_error>
#include <utility>

#include "drivestress_version.h"
#include "io/backend.h"
#include "model/errors.h"
#include "model/verdict.h"
#include "output/output_file.h"
#include "report/json_report.h"
#include "units/units.h"

namespace ds::metrics {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::report;

namespace {

double unix_now() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Each target's counts over its finished phases.
void take_targets(const model::RunResult& r, std::vector<PromState::Target>& out) {
    out.resize(r.targets.size());
    for (std::size_t i = 0; i < r.targets.size(); ++i) {
        const model::TargetResult& t = r.targets[i];
        PromState::Target& p = out[i];
        p = {t.info.path, t.raw ? t.info.path : t.info.device};
        for (const auto& ph : t.merged_phases) {
            p.read_ops += ph.counters.read_ops;
            p.write_ops += ph.counters.write_ops;
            p.read_bytes += ph.counters.read_bytes;
            p.write_bytes += ph.counters.write_bytes;
            p.verified_bytes += ph.counters.verified_bytes;
            p.mismatches += ph.counters.mismatch_total();
        }
        p.slow = t.slow.has_value();
    }
}

// Each job's figures over its finished workload phases; none for one job.
void take_workloads(const model::RunResult& r, std::vector<PromState::Workload>& out) {
    out.clear();
    if (r.jobs.size() < 2) return;
    for (const model::JobResult& j : r.jobs) {
        const model::PhaseCounters& c = j.workload.counters;
        PromState::Workload& w = out.emplace_back();
        w.name = j.name;
        w.read_ops = c.read_ops;
        w.write_ops = c.write_ops;
        w.trim_ops = c.trim_ops;
        w.read_bytes = c.read_bytes;
        w.write_bytes = c.write_bytes;
        w.verified_bytes = c.verified_bytes;
        w.mismatches = c.mismatch_total();
        w.seconds = j.workload.seconds;
        w.latency.add(c.read_latency);
        w.latency.add(c.write_latency);
    }
}

// Each target's and each job's counts over their finished phases.
void take_results(const model::RunResult& r, PromState& state) {
    take_targets(r, state.targets);
    take_workloads(r, state.workloads);
}

}  // namespace

PromTextfile::PromTextfile(Settings settings, HostInfo host)
    : settings_(std::move(settings)), host_(std::move(host)) {
    state_.version = DRIVESTRESS_VERSION;
    state_.kernel = host_.kernel;
}

void PromTextfile::begin_test(const std::string& label) {
    pending_test_ = label;
}

void PromTextfile::started(const model::RunConfig& cfg, const model::RunResult& r) {
    const std::string target = r.target.path.empty() ? cfg.target : r.target.path;
    state_.labels = {{"target", target}};
    state_.labels.insert(state_.labels.end(), settings_.labels.begin(), settings_.labels.end());
    state_.backend = std::string(io::to_string(r.backend.used));
    state_.drive =
        DriveInfo::of(r.target.directory.empty() ? target : r.target.directory, r.target.device);
    take_results(r, state_);
    health_controllers_.clear();
    for (const auto& t : r.targets)
        health_controllers_.push_back(t.health.available ? t.health.controller : "");
    state_.running = true;
    state_.phase.reset();
    state_.iteration = 0;
    if (writes_ == 0) state_.start_time_s = unix_now();
    PromSeriesSet run;
    if (!settings_.preset.empty())
        run.labels = {{"preset", settings_.preset}, {"test", pending_test_}};
    run.totals.expect(cfg);
    runs_.push_back(std::move(run));
    in_progress_ = {};
    if (writes_ > 0) {  // a later test of a preset: a rewrite like any other
        maybe_write();
        return;
    }
    try {
        write_now();
    } catch (const std::system_error& e) {
        throw model::SetupError(std::string("--prom ") + e.what());
    }
}

void PromTextfile::phase_seen(std::uint64_t iteration, model::Phase phase) {
    state_.iteration = iteration;
    state_.phase = phase;
}

void PromTextfile::progress(const model::ProgressSnapshot& s) {
    phase_seen(s.iteration, s.phase);
    // Set, not added: the time since the phase started.  It never passes
    // the phase's own seconds, measured later from the same start.
    in_progress_.phase_seconds[s.phase] = s.elapsed_s;
    maybe_write();
}

void PromTextfile::interval_done(std::uint64_t iteration, model::Phase phase, std::uint64_t,
                                 const model::IntervalStats& s, double, std::uint64_t) {
    phase_seen(iteration, phase);
    in_progress_.add_interval(phase, s);
    maybe_write();
}

void PromTextfile::phase_done(std::uint64_t iteration, const model::PhaseResult& p) {
    phase_seen(iteration, p.phase);
    if (!runs_.empty()) runs_.back().totals.add_phase(p);
    in_progress_ = {};
    maybe_write();
}

void PromTextfile::sweep_point_done(const model::RunConfig& cfg, const model::SweepPoint& point) {
    const std::string value = cfg.sweep->param == model::SweepParam::rand_block
                                  ? units::format_size_option(point.value)
                                  : std::to_string(point.value);
    if (!runs_.empty())
        runs_.back().totals.add_phase(
            point.random, std::string(model::to_string(cfg.sweep->param)) + "=" + value);
    in_progress_ = {};
    maybe_write();
}

void PromTextfile::iteration_done(const model::IterationResult&) {
    if (!runs_.empty()) ++runs_.back().totals.iterations;
    maybe_write();
}

void PromTextfile::phase_health_done(const model::PhaseHealth& h) {
    const bool damage = h.change && h.change->damaged();
    if ((!h.after && !damage) || h.target >= health_controllers_.size()) return;
    const std::string& controller = health_controllers_[h.target];
    auto drive =
        std::find_if(state_.health.begin(), state_.health.end(),
                     [&](const PromState::Health& d) { return d.controller == controller; });
    if (drive == state_.health.end()) {
        state_.health.emplace_back().controller = controller;
        drive = std::prev(state_.health.end());
    }
    if (h.after) drive->last = *h.after;
    drive->damaged = drive->damaged || damage;
    maybe_write();
}

void PromTextfile::run_so_far(const model::RunResult& r, const model::ProgressSnapshot*) {
    take_results(r, state_);
}

void PromTextfile::run_ended(const model::RunResult& r) {
    take_results(r, state_);
    if (runs_.empty()) return;
    // Mismatches found outside any phase (a failed write-back between
    // phases) are in the run's totals only.
    PromTotals& t = runs_.back().totals;
    if (r.find_rate)
        t.find_rate = PromTotals::FindRate{
            r.find_rate->bound.percentile, r.find_rate->bound.bound_s,
            r.find_rate->found ? r.find_rate->probes[*r.find_rate->found].requested_iops : 0};
    for (std::size_t i = 0; i < t.mismatches.size(); ++i) {
        const std::uint64_t have = t.mismatches[i] + in_progress_.mismatches[i];
        if (r.mismatch_totals[i] > have) t.mismatches[i] += r.mismatch_totals[i] - have;
    }
}

std::string PromTextfile::finish(int exit_code, bool nothing_verified) {
    if (!written()) return {};  // refused before it started: no file
    state_.running = false;
    state_.exit_status = exit_code;
    state_.verdict =
        model::status_word(static_cast<model::ExitStatus>(exit_code), nothing_verified);
    try {
        write_now();
    } catch (const std::system_error& e) {
        return std::string("--prom ") + e.what();
    }
    return {};
}

std::string PromTextfile::text() const {
    std::vector<PromSeriesSet> runs = runs_;
    if (!runs.empty()) runs.back().totals.add(in_progress_);
    PromState s = state_;
    s.now_s = unix_now();
    if (s.running) {
        bool seen = false;
        for (const auto& run : runs)
            seen = seen || run.totals.mismatch_total() > 0;
        s.verdict = seen ? "failed" : "running";  // a mismatch decides the verdict
    }
    return prometheus_text(s, runs);
}

void PromTextfile::maybe_write() {
    if (writes_ == 0) return;  // not started
    const auto due = last_write_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                       std::chrono::duration<double>(settings_.interval_s));
    if (std::chrono::steady_clock::now() < due) return;
    try {
        write_now();
    } catch (const std::system_error& e) {
        // Tried again at the next interval; the last write decides.
        if (live_error_.empty()) live_error_ = std::string("--prom ") + e.what();
        ++live_failures_;
        last_write_ = std::chrono::steady_clock::now();
    }
}

void PromTextfile::write_now() {
    output::write_file_atomically(settings_.path, text());
    ++writes_;
    last_write_ = std::chrono::steady_clock::now();
}

}  // namespace ds::metrics
