// The Prometheus text itself: metric families (HELP, TYPE, samples) of the
// info and state gauges, the counters, the latency histograms, --rate,
// --find-rate and --repeat, the targets of a run and drive health, in the
// order prometheus_text writes them.  metrics/prometheus.cpp holds what they
// are made of: the buckets, the totals, the label rules.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "metrics/prom_family.h"
#include "metrics/prometheus.h"
#include "pattern/unit.h"
#include "report/figures.h"
#include "report/json_report.h"
#include "units/utf8.h"

namespace ds::metrics {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::report;
using namespace ds::metrics::family;

namespace {

constexpr std::string_view kVerdicts[] = {"running", "passed", "no-verdict",
                                          "failed",  "error",  "interrupted"};

// The info gauges: what ran, where.
std::vector<Family> info_families(const PromState& s) {
    Family info{"drivestress_info",
                "gauge",
                "Always 1: the drivestress version, result schema version, I/O backend in use "
                "and kernel of this run.",
                {}};
    info.add(with(s.labels, {{"version", s.version},
                             {"schema_version", std::to_string(kSchemaVersion)},
                             {"backend", s.backend},
                             {"kernel", s.kernel}}),
             "1");
    Family drive{"drivestress_drive_info",
                 "gauge",
                 "Always 1: the disk under the target as sysfs names it (device as in "
                 "node_disk_info), its model, serial and firmware where the kernel tells them.",
                 {}};
    if (!s.drive.name.empty()) {
        // What sysfs does not tell is left out (an empty value is no label).
        PromLabels labels = with(s.labels, {{"device", s.drive.name}});
        for (const auto& [name, value] :
             {std::pair<std::string, std::string>{"model", s.drive.model},
              {"serial", s.drive.serial},
              {"firmware", s.drive.firmware}})
            if (!value.empty()) labels.emplace_back(name, value);
        drive.add(labels, "1");
    }
    return {info, drive};
}

// The state gauges: how far the run is, and its verdict so far.
std::vector<Family> state_families(const PromState& s) {
    Family running{
        "drivestress_running", "gauge", "1 while the run goes on, 0 once it has ended.", {}};
    running.add(s.labels, s.running ? "1" : "0");
    Family phase{"drivestress_phase",
                 "gauge",
                 "1 for the phase running (or the last that ran), 0 for the others and once the "
                 "run has ended.",
                 {}};
    for (model::Phase p : model::kAllPhases)
        phase.add(with(s.labels, {{"phase", phase_name(p)}}),
                  s.running && s.phase == p ? "1" : "0");
    Family iteration{"drivestress_iteration",
                     "gauge",
                     "Iteration running (or the last that ran), from 1; 0 before the first.",
                     {}};
    iteration.add(s.labels, format_count(s.iteration));
    Family verdict{"drivestress_verdict",
                   "gauge",
                   "1 for the run's verdict so far: running, or failed as soon as a mismatch or "
                   "I/O error is seen; at the end passed, no-verdict (nothing verified), failed, "
                   "error or interrupted.",
                   {}};
    for (auto v : kVerdicts)
        verdict.add(with(s.labels, {{"verdict", std::string(v)}}), v == s.verdict ? "1" : "0");
    std::vector<Family> out{running, phase, iteration, verdict};
    if (s.exit_status) {
        Family exit{"drivestress_exit_status",
                    "gauge",
                    "Exit status of the ended run: 0 passed, 1 error, 2 mismatch or I/O error, "
                    "128+N interrupted by signal N.",
                    {}};
        exit.add(s.labels, std::to_string(*s.exit_status));
        out.push_back(exit);
    }
    Family start{"drivestress_start_time_seconds",
                 "gauge",
                 "Time the run started, seconds since the Unix epoch.",
                 {}};
    start.add(s.labels, format_double(s.start_time_s));
    Family update{"drivestress_last_update_timestamp_seconds",
                  "gauge",
                  "Time this file was written, seconds since the Unix epoch (a run that died "
                  "without a last word stops updating it).",
                  {}};
    update.add(s.labels, format_double(s.now_s));
    out.push_back(start);
    out.push_back(update);
    return out;
}

// The counters of every run in the file (and the latency maxima).
std::vector<Family> counter_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    Family iterations{"drivestress_iterations_total", "counter", "Iterations completed.", {}};
    Family secs{"drivestress_phase_seconds_total", "counter", "Time spent in each phase.", {}};
    Family ops{"drivestress_ops_total",
               "counter",
               "Operations completed successfully, per phase and operation (read, write, flush); "
               "the same as drivestress_op_latency_seconds_count.",
               {}};
    Family bytes{"drivestress_bytes_total",
                 "counter",
                 "Bytes read and written, per phase and operation.",
                 {}};
    Family verified{"drivestress_verified_bytes_total",
                    "counter",
                    "Bytes read back and verified, per phase.",
                    {}};
    Family mismatches{"drivestress_mismatches_total",
                      "counter",
                      "Data mismatches and I/O errors found, per class (observations: a unit "
                      "read wrong twice counts twice).",
                      {}};
    Family write_errors{"drivestress_write_errors_total",
                        "counter",
                        "Writes that failed (I/O error, or the filesystem full).",
                        {}};
    Family cpu{"drivestress_cpu_seconds_total",
               "counter",
               "CPU time of the process during the phases, by mode (user, system).",
               {}};
    Family max{"drivestress_op_latency_max_seconds",
               "gauge",
               "Largest latency of an operation so far, per phase and operation.",
               {}};
    for (const auto& run : runs) {
        const PromTotals& t = run.totals;
        const PromLabels base = run_labels(s, run);
        iterations.add(base, format_count(t.iterations));
        for (const auto& [p, v] : t.phase_seconds)
            secs.add(with(base, {{"phase", phase_name(p)}}), format_double(v));
        for (const auto& [key, series] : t.ops) {
            const auto labels = with(base, {{"phase", phase_name(key.first)},
                                            {"op", std::string(to_string(key.second))}});
            ops.add(labels, format_count(series.latency.count));
            if (key.second != PromOp::flush) bytes.add(labels, format_count(series.bytes));
            max.add(labels, format_double(seconds(series.latency.max_ns)));
        }
        for (const auto& [p, v] : t.verified_bytes)
            verified.add(with(base, {{"phase", phase_name(p)}}), format_count(v));
        for (std::size_t i = 0; i < t.mismatches.size(); ++i) {
            const auto cls = pattern::to_string(static_cast<pattern::MismatchClass>(i));
            mismatches.add(with(base, {{"class", std::string(cls)}}),
                           format_count(t.mismatches[i]));
        }
        write_errors.add(base, format_count(t.write_errors));
        cpu.add(with(base, {{"mode", "user"}}), format_double(t.cpu_user_s));
        cpu.add(with(base, {{"mode", "system"}}), format_double(t.cpu_system_s));
    }
    return {iterations, secs, ops, bytes, verified, mismatches, write_errors, cpu, max};
}

// The counters report/figures.h describes, one family each.
std::vector<Family> described_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    std::vector<Family> out;
    for (const PhaseFigure& f : phase_figures()) {
        if (f.metric.empty()) continue;
        Family family{f.metric, "counter", f.meaning, {}};
        for (const auto& run : runs) {
            const PromLabels base = run_labels(s, run);
            for (const auto& [key, v] : run.totals.described)
                if (key.first == f.metric)
                    family.add(with(base, {{"phase", phase_name(key.second)}}), format_double(v));
        }
        // A figure some phases lack (the trims of a run without --trim-pct):
        // no family at all when no phase has it.
        if (family.samples.empty() && f.shown) continue;
        out.push_back(std::move(family));
    }
    return out;
}

// --rate's families (and a --replay's at its pace); none when no run of the
// file has a schedule.
std::vector<Family> rate_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    Family response{"drivestress_response_latency_seconds",
                    "histogram",
                    "--rate and --replay: response time of the operations completed, per "
                    "phase, from when the schedule (or the trace) said each was due "
                    "(drivestress_op_latency_seconds is then service time).",
                    {}};
    Family late{"drivestress_late_ops_total",
                "counter",
                "--rate and --replay: operations due while every slot was busy, issued late.",
                {}};
    for (const auto& run : runs) {
        const PromLabels base = run_labels(s, run);
        for (const auto& [p, h] : run.totals.response)
            add_histogram(response, with(base, {{"phase", phase_name(p)}}), h);
        for (const auto& [p, n] : run.totals.late_ops)
            late.add(with(base, {{"phase", phase_name(p)}}), format_count(n));
    }
    if (response.samples.empty()) return {};
    return {response, late};
}

// --find-rate's answer; none when no run of the file searched.
std::vector<Family> find_rate_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    Family iops{"drivestress_find_rate_iops",
                "gauge",
                "--find-rate: the highest rate probed whose response-time percentile met the "
                "bound, operations a second (0: none met it).",
                {}};
    Family bound{"drivestress_find_rate_bound_seconds",
                 "gauge",
                 "--find-rate: the bound on the response-time percentile.",
                 {}};
    for (const auto& run : runs) {
        if (!run.totals.find_rate) continue;
        const auto& fr = *run.totals.find_rate;
        PromLabels labels = run_labels(s, run);
        labels.emplace_back("percentile", format_double(fr.percentile));
        iops.add(labels, format_double(fr.iops));
        bound.add(labels, format_double(fr.bound_s));
    }
    if (iops.samples.empty()) return {};
    return {iops, bound};
}

Family latency_family(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    Family f{"drivestress_op_latency_seconds",
             "histogram",
             "Latency of the operations completed, per phase and operation, from submission to "
             "completion; one fixed bucket set on every host and version, so sum by (le) merges "
             "hosts (histogram_quantile is then within 19.08%).",
             {}};
    for (const auto& run : runs) {
        const PromLabels base = run_labels(s, run);
        for (const auto& [key, series] : run.totals.ops) {
            const auto labels = with(base, {{"phase", phase_name(key.first)},
                                            {"op", std::string(to_string(key.second))}});
            add_histogram(f, labels, series.latency);
        }
    }
    return f;
}

// --repeat: one figure's estimate over the repeats as five gauges, each a
// family of its own (median, the interval's low and high ends, the spread's
// min and max): an interval is separate series, never a label whose values
// would make a series per number, and sum() over any one family's labels
// still means something.
struct RepeatFigure {
    std::string_view name;  // the median's family; the others add a suffix
    std::string_view what;  // "operations per second", for HELP
    double scale;           // from the RepeatFigures unit to the metric's base unit
    double model::RepeatFigures::*member;
};

constexpr RepeatFigure kRepeatFigures[] = {
    {"drivestress_repeat_ops_per_second", "operations per second (IOPS)", 1,
     &model::RepeatFigures::iops},
    {"drivestress_repeat_bytes_per_second", "bytes per second", 1,
     &model::RepeatFigures::bytes_per_sec},
    {"drivestress_repeat_p99_latency_seconds", "99th percentile latency, seconds", 1e-9,
     &model::RepeatFigures::p99_ns},
};

struct RepeatBound {
    std::string_view suffix;
    std::string_view help;
    double stats::Estimate::*member;
};

constexpr RepeatBound kRepeatBounds[] = {
    {"", "median over the --repeat repeats", &stats::Estimate::median},
    {"_low", "low end of the interval of the median (coverage: drivestress_repeat_confidence)",
     &stats::Estimate::low},
    {"_high", "high end of the interval of the median (coverage: drivestress_repeat_confidence)",
     &stats::Estimate::high},
    {"_min", "smallest repeat (the spread's low end)", &stats::Estimate::min},
    {"_max", "largest repeat (the spread's high end)", &stats::Estimate::max},
};

// The gauges of every phase (and sweep point) that ran more than once.
std::vector<Family> repeat_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    // Family names live as long as the families: kept here, in fixed places.
    static const auto names = [] {
        std::vector<std::string> v;
        for (const auto& f : kRepeatFigures)
            for (const auto& b : kRepeatBounds)
                v.push_back(std::string(f.name) + std::string(b.suffix));
        return v;
    }();
    static const auto helps = [] {
        std::vector<std::string> v;
        for (const auto& f : kRepeatFigures)
            for (const auto& b : kRepeatBounds)
                v.push_back("--repeat: " + std::string(f.what) + ", " + std::string(b.help) +
                            ", per phase (and sweep point).");
        return v;
    }();
    Family count{"drivestress_repeats",
                 "gauge",
                 "--repeat: repeats the estimates of a phase (and sweep point) are made of.",
                 {}};
    Family confidence{"drivestress_repeat_confidence",
                      "gauge",
                      "--repeat: coverage of the interval of the median (0 to 1): 0.95 or more "
                      "from 6 repeats, 0.9375 at 5 (distribution-free, order statistics).",
                      {}};
    std::vector<Family> figures;
    for (std::size_t i = 0; i < names.size(); ++i)
        figures.push_back(Family{names[i], "gauge", helps[i], {}});
    for (const auto& run : runs) {
        const PromLabels base = run_labels(s, run);
        for (const auto& [key, reps] : run.totals.repeats) {
            if (reps.size() < 2) continue;  // a phase run once has no interval
            PromLabels labels = with(base, {{"phase", phase_name(key.first)}});
            if (!key.second.empty()) labels.emplace_back("point", key.second);
            for (std::size_t f = 0; f < std::size(kRepeatFigures); ++f) {
                std::vector<double> values;
                for (const auto& r : reps)
                    values.push_back(r.*kRepeatFigures[f].member * kRepeatFigures[f].scale);
                const stats::Estimate e = stats::estimate(values);
                for (std::size_t b = 0; b < std::size(kRepeatBounds); ++b)
                    figures[f * std::size(kRepeatBounds) + b].add(
                        labels, format_double(e.*kRepeatBounds[b].member));
                if (f == 0) {
                    count.add(labels, format_count(e.n));
                    confidence.add(labels, format_double(e.confidence));
                }
            }
        }
    }
    figures.push_back(count);
    figures.push_back(confidence);
    return figures;
}

}  // namespace

namespace {

// The labels of target t: the run's, with its own target, and its device.
PromLabels target_labels(const PromState& s, const PromState::Target& t) {
    PromLabels labels;
    for (const auto& [k, v] : s.labels)
        labels.emplace_back(k, k == "target" ? t.target : v);
    labels.emplace_back("device", t.device);
    return labels;
}

// Several targets: per target, its operations, bytes, verified bytes,
// mismatches and whether it is the slow one (counters from its finished
// phases: they move as phases end).
std::vector<Family> target_families(const PromState& s) {
    if (s.targets.size() < 2) return {};
    Family ops{"drivestress_target_operations_total",
               "counter",
               "Operations completed on this target in finished phases.",
               {}};
    Family bytes{"drivestress_target_bytes_total",
                 "counter",
                 "Bytes moved on this target in finished phases.",
                 {}};
    Family verified{"drivestress_target_verified_bytes_total",
                    "counter",
                    "Bytes read back and verified on this target in finished phases.",
                    {}};
    Family mismatches{"drivestress_target_mismatches_total",
                      "counter",
                      "Mismatches and I/O errors on this target.",
                      {}};
    Family slow{"drivestress_target_slow",
                "gauge",
                "1 when this target is more than 25 % below the median of its like targets.",
                {}};
    for (const auto& t : s.targets) {
        const PromLabels l = target_labels(s, t);
        ops.add(with(l, {{"op", "read"}}), format_count(t.read_ops));
        ops.add(with(l, {{"op", "write"}}), format_count(t.write_ops));
        bytes.add(with(l, {{"op", "read"}}), format_count(t.read_bytes));
        bytes.add(with(l, {{"op", "write"}}), format_count(t.write_bytes));
        verified.add(l, format_count(t.verified_bytes));
        mismatches.add(l, format_count(t.mismatches));
        slow.add(l, t.slow ? "1" : "0");
    }
    return {ops, bytes, verified, mismatches, slow};
}

}  // namespace

// NVMe targets: the drive's own view, as its health log said after the
// last phase (what a burn-in watches besides our figures).
std::vector<Family> health_families(const PromState& s) {
    if (s.health.empty()) return {};
    Family temp{"drivestress_drive_temperature_celsius",
                "gauge",
                "The drive's composite temperature in its last health-log reading.",
                {}};
    Family used{"drivestress_drive_endurance_used_ratio",
                "gauge",
                "Share of the drive's rated endurance used, as the drive estimates it (percentage "
                "used / 100; may pass 1).",
                {}};
    Family spare{"drivestress_drive_available_spare_ratio",
                 "gauge",
                 "Share of the drive's spare capacity left (below its threshold is a critical "
                 "warning).",
                 {}};
    Family media{"drivestress_drive_media_errors",
                 "gauge",
                 "The drive's lifetime count of unrecovered data integrity errors.",
                 {}};
    Family warning{"drivestress_drive_critical_warning",
                   "gauge",
                   "The health log's critical warning bits (0: none; 1 spare, 2 temperature, 4 "
                   "reliability, 8 read-only, 16 volatile backup).",
                   {}};
    Family damaged{"drivestress_drive_damaged",
                   "gauge",
                   "1 when a phase of this run changed the health log in a way that is damage "
                   "(media errors, critical warnings, spare used up): the run fails.",
                   {}};
    for (const auto& drive : s.health) {
        const nvme::HealthLog& h = drive.last;
        const PromLabels labels = with(s.labels, {{"controller", drive.controller}});
        temp.add(labels, format_double(h.composite_temperature_k - 273.15));
        used.add(labels, format_double(h.percentage_used / 100.0));
        spare.add(labels, format_double(h.available_spare_pct / 100.0));
        media.add(labels, format_count(h.media_errors));
        warning.add(labels, std::to_string(h.critical_warning));
        damaged.add(labels, drive.damaged ? "1" : "0");
    }
    return {temp, used, spare, media, warning, damaged};
}

std::string prometheus_text(const PromState& state, const std::vector<PromSeriesSet>& runs) {
    std::string out;
    for (const auto& f : info_families(state))
        f.render(out);
    for (const auto& f : state_families(state))
        f.render(out);
    for (const auto& f : counter_families(state, runs))
        f.render(out);
    for (const auto& f : described_families(state, runs))
        f.render(out);
    latency_family(state, runs).render(out);
    for (const auto& f : size_families(state, runs))
        f.render(out);
    for (const auto& f : skew_families(state, runs))
        f.render(out);
    for (const auto& f : rate_families(state, runs))
        f.render(out);
    for (const auto& f : find_rate_families(state, runs))
        f.render(out);
    for (const auto& f : repeat_families(state, runs))
        f.render(out);
    for (const auto& f : target_families(state))
        f.render(out);
    for (const auto& f : workload_families(state))
        f.render(out);
    for (const auto& f : health_families(state))
        f.render(out);
    return out;
}

}  // namespace ds::metrics
