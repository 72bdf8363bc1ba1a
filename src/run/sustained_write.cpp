#include "run/sustained_write.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/engine.h"
#include "run/phase_runner.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::engine;

ThroughputSampler::ThroughputSampler(double interval_s, std::uint64_t start_ns)
    : interval_ns_(seconds_to_ns(interval_s)), opened_ns_(start_ns) {}

void ThroughputSampler::sample(std::uint64_t total_bytes, std::uint64_t now_ns) {
    if (now_ns < opened_ns_ + interval_ns_) return;
    series_.push_back({(now_ns - opened_ns_) / 1e9, total_bytes - opened_bytes_});
    opened_ns_ = now_ns;
    opened_bytes_ = total_bytes;
}

std::vector<stats::ThroughputInterval> ThroughputSampler::finish(std::uint64_t total_bytes,
                                                                 std::uint64_t now_ns) {
    const double seconds = now_ns > opened_ns_ ? (now_ns - opened_ns_) / 1e9 : 0.0;
    const std::uint64_t bytes = total_bytes - opened_bytes_;
    if (seconds * 2e9 < static_cast<double>(interval_ns_) && !series_.empty()) {
        series_.back().seconds += seconds;
        series_.back().bytes += bytes;
    } else if (seconds > 0) {
        series_.push_back({seconds, bytes});
    }
    opened_ns_ = now_ns;
    opened_bytes_ = total_bytes;
    return std::move(series_);
}

namespace {

// Passes of the seq-write phase, sampled into one series; `merged` takes
// each pass's figures.  False when a stop ended them early.
bool write_passes(RunSession& s, std::uint64_t iteration, std::uint64_t passes,
                  std::vector<stats::ThroughputInterval>& series, PhaseResult& merged,
                  std::uint64_t* passes_done) {
    ThroughputSampler sampler(s.cfg.cliff_interval_s, monotonic_ns());
    std::uint64_t written = 0;  // by the passes before the current one
    bool complete = true;
    for (std::uint64_t pass = 0; pass < passes; ++pass) {
        if (s.check_stop()) {
            complete = false;
            break;
        }
        SweepOverrides over;
        over.on_progress = [&](std::uint64_t bytes) {
            sampler.sample(written + bytes, monotonic_ns());
        };
        const PhaseResult pr = run_phase(s, iteration, Phase::seq_write, over);
        written += pr.counters.write_bytes;
        sampler.sample(written, monotonic_ns());
        merged.merge(pr);
        if (pr.interrupted) {
            complete = false;
            break;
        }
        if (passes_done) ++*passes_done;
    }
    series = sampler.finish(written, monotonic_ns());
    return complete;
}

// --cliff-recovery: idle (watching for a stop), then one pass measured.
void measure_recovery(RunSession& s, std::uint64_t iteration, SustainedWriteResult& sw,
                      PhaseResult& merged) {
    const std::uint64_t until = monotonic_ns() + seconds_to_ns(s.cfg.cliff_idle_s);
    for (std::uint64_t now = monotonic_ns(); now < until; now = monotonic_ns()) {
        if (s.check_stop()) {
            sw.interrupted = true;
            return;
        }
        std::this_thread::sleep_for(
            std::chrono::nanoseconds(std::min<std::uint64_t>(until - now, 100'000'000)));
    }
    if (!write_passes(s, iteration, 1, sw.recovery_series, merged, nullptr)) sw.interrupted = true;
    sw.recovery =
        stats::measure_cliff_recovery(sw.cliff, sw.recovery_series, s.cfg.cliff_idle_s, sw.rule);
}

}  // namespace

PhaseResult run_sustained_write(RunSession& s, std::uint64_t iteration) {
    const RunConfig& cfg = s.cfg;
    SustainedWriteResult sw;
    sw.iteration = iteration;
    sw.passes = cfg.sustained_passes;
    sw.capacity_bytes = cfg.file_bytes * cfg.files;
    sw.interval_s = cfg.cliff_interval_s;
    sw.rule = cfg.cliff_rule;
    PhaseResult merged;
    merged.phase = Phase::seq_write;
    sw.interrupted =
        !write_passes(s, iteration, cfg.sustained_passes, sw.series, merged, &sw.passes_done);
    sw.cliff = stats::find_write_cliff(sw.series, sw.rule);
    if (cfg.cliff_idle_s > 0 && !sw.interrupted && !sw.cliff.steps.empty())
        measure_recovery(s, iteration, sw, merged);
    s.res.sustained_write.push_back(std::move(sw));
    return merged;
}

}  // namespace ds::run
