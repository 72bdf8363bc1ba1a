// A phase's object in the result document: the figures report/figures.h
// describes, its latency, CPU, host load, --rate and --repeat blocks; and the
// schema fragment of a described figure.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "drivestress_version.h"
#include "model/drift.h"
#include "output/output_file.h"
#include "pattern/unit.h"
#include "report/figures.h"
#include "report/json_parts.h"
#include "report/json_report.h"
#include "stats/quantile_interval.h"
#include "units/utf8.h"

namespace ds::report {

using nlohmann::json;

json class_counts(const model::ClassCounts& counts) {
    json j = json::object();
    for (std::size_t i = 0; i < counts.size(); ++i)
        j[std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i)))] = counts[i];
    return j;
}

namespace {

constexpr std::pair<const char*, double> kPercentiles[] = {
    {"p50", 50}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}};

double per_second(std::uint64_t v, double s) {
    return s > 0 ? static_cast<double>(v) / s : 0.0;
}

// An open loop's lateness, response time and issue error (--rate, --replay),
// beside `head`.
json schedule_json(const model::PhaseResult& p, json head) {
    const auto& c = p.counters;
    head["late_ops"] = c.late_ops;
    head["max_lateness_ns"] = c.max_lateness_ns;
    head["late_beyond_tolerance_ops"] = c.late_beyond_tolerance_ops;
    head["lateness_tolerance_ns"] = p.lateness_tolerance_ns();
    head["response_latency"] = latency_json(c.response_latency);
    head["issue_error"] = latency_json(c.issue_error);
    return head;
}

// --rate's figures of a phase (null for a closed-loop one): latency above
// is service time; response_latency counts from when each was due.
json rate_json(const model::PhaseResult& p, const model::RunConfig& cfg) {
    if (p.requested_rate <= 0) return nullptr;
    return schedule_json(p, {{"requested_iops", p.requested_rate},
                             {"achieved_iops", p.iops()},
                             {"arrivals", std::string(model::to_string(cfg.arrivals))},
                             {"met", p.rate_met()}});
}

// --replay at a pace: the phase's time against the trace's, and how far
// each operation was from when the trace issued it (null otherwise).
json replay_json(const model::PhaseResult& p) {
    if (p.replay_seconds <= 0) return nullptr;
    return schedule_json(p, {{"trace_seconds", p.replay_seconds}, {"elapsed_s", p.seconds}});
}

json top_foreign_json(const sys::HostLoad& h) {
    json out = json::array();
    for (const auto& f : h.top_foreign)
        out.push_back({{"pid", f.pid}, {"comm", f.comm}, {"cpu_s", f.cpu_s}});
    return out;
}

// The figures report/figures.h describes, each under its key.
void add_phase_figures(json& j, const model::PhaseResult& p) {
    for (const PhaseFigure& f : phase_figures()) {
        if (!f.shown_for(p))
            j[f.key] = nullptr;
        else if (f.kind == PhaseFigure::Kind::count)
            j[f.key] = static_cast<std::uint64_t>(f.value(p));
        else
            j[f.key] = f.value(p);
    }
}

}  // namespace

namespace {

json cpu_json(const model::PhaseResult& p) {
    const auto& c = p.counters;
    const double s = p.seconds;
    const double cpu_total = p.cpu.user_s + p.cpu.system_s;
    return {{"user_s", p.cpu.user_s},
            {"system_s", p.cpu.system_s},
            {"user_pct", s > 0 ? 100.0 * p.cpu.user_s / s : 0.0},
            {"system_pct", s > 0 ? 100.0 * p.cpu.system_s / s : 0.0},
            {"ops_per_cpu_s", cpu_total > 0 ? (c.read_ops + c.write_ops) / cpu_total : 0.0},
            {"bytes_per_cpu_s", cpu_total > 0 ? (c.read_bytes + c.write_bytes) / cpu_total : 0.0}};
}

json host_load_json(const sys::HostLoad& h) {
    return {{"cpu_s", h.seconds},
            {"steal_pct", h.steal_pct()},
            {"foreign_pct", h.foreign_pct()},
            {"top_foreign", top_foreign_json(h)},
            {"busy", sys::busy(h)}};
}

json thresholds_json(const stats::LatencyHistogram& all, const std::vector<double>& thresholds_s) {
    json thresholds = json::array();
    for (double t : thresholds_s) {
        auto ns = model::seconds_to_ns(t);
        std::uint64_t slower = all.count_above(ns);
        thresholds.push_back({{"threshold_ns", ns},
                              {"slower_count", slower},
                              {"slower_share", all.count() ? double(slower) / all.count() : 0.0}});
    }
    return thresholds;
}

// aio_test's figures.  drivestress waits for every write it issued, so none
// is outstanding when a phase ends.
json write_summary_json(const model::PhaseResult& p) {
    const auto& c = p.counters;
    const double s = p.seconds;
    return {{"writes", c.write_ops},
            {"errors", c.write_errors},
            {"failed", c.write_errors},
            {"outstanding", 0},
            {"min_ns", c.write_latency.min()},
            {"mean_ns", c.write_latency.mean()},
            {"max_ns", c.write_latency.max()},
            {"elapsed_s", s},
            {"written_bytes", c.write_bytes},
            {"writes_per_sec", per_second(c.write_ops, s)},
            {"bytes_per_sec", per_second(c.write_bytes, s)}};
}

}  // namespace

namespace {

json skew_json(const model::SkewResult& s) {
    json hot = json::array();
    for (std::size_t i = 0; i < stats::SkewTally::kHotFractions.size(); ++i)
        hot.push_back({{"fraction", stats::SkewTally::kHotFractions[i]},
                       {"share", s.tally.hot_share(i)},
                       {"predicted", s.predicted[i]}});
    return {{"distribution", s.distribution},
            {"blocks", s.blocks},
            {"blocks_touched", std::min(s.tally.distinct_units(), static_cast<double>(s.blocks))},
            {"ops", s.tally.ops()},
            {"busy_redraws", s.busy_redraws},
            {"hot", hot}};
}

// A --rand-block mix: each size's operations, rates and latencies, beside
// the share of operations the mix asked for.
json sizes_json(const model::PhaseResult& p, const model::RunConfig& cfg) {
    const auto& c = p.counters;
    if (c.sizes.empty()) return nullptr;
    const double ops = static_cast<double>(c.read_ops + c.write_ops);
    json sizes = json::array();
    for (const model::SizeCounters& s : c.sizes) {
        const std::uint64_t n = s.read_ops + s.write_ops;
        unsigned weight = 0;
        for (const units::BlockShare& b : cfg.rand_mix)
            if (b.bytes == s.bytes) weight = b.weight;
        sizes.push_back({{"bytes", s.bytes},
                         {"weight_pct", weight},
                         {"share_pct", ops > 0 ? 100 * static_cast<double>(n) / ops : 0.0},
                         {"read_ops", s.read_ops},
                         {"write_ops", s.write_ops},
                         {"iops", per_second(n, p.seconds)},
                         {"bandwidth_bytes_per_sec", per_second(n * s.bytes, p.seconds)},
                         {"latency", latency_json(s.latency())},
                         {"read_latency", latency_json(s.read_latency)},
                         {"write_latency", latency_json(s.write_latency)}});
    }
    return sizes;
}

// This run's interval of its figure, its regimes and the interval of its
// p99 (schema: interval, regimes, p99_interval, and skew).
void add_intervals(json& j, const model::PhaseResult& p, const stats::LatencyHistogram& all) {
    const bool iops = p.iops_figure();
    const stats::BatchInterval b = p.series_interval(iops);
    const stats::Estimate e = p.series_estimate(iops);
    j["interval"] = nullptr;
    if (b.usable && p.too_short().empty())
        j["interval"] = {{"figure", iops ? "iops" : "bandwidth_bytes_per_sec"},
                         {"value", e.median},
                         {"low", e.low},
                         {"high", e.high},
                         {"half_width_pct", b.half_width_pct()},
                         {"confidence", b.confidence},
                         {"batches", b.batches},
                         {"batch_s", b.batch_size * p.series.slice_seconds()},
                         {"correlated", b.correlated}};

    j["regimes"] = nullptr;
    if (!p.series_joined && !p.series.ops.empty()) {
        json regimes = json::array();
        for (const stats::Regime& r : p.regimes())
            regimes.push_back(
                {{"start_s", r.start_s},
                 {"length_s", r.length_s},
                 {"value", r.median},
                 {"mean", r.mean},
                 {"low", r.interval.usable ? json(r.interval.low) : json(nullptr)},
                 {"high", r.interval.usable ? json(r.interval.high) : json(nullptr)}});
        j["regimes"] = regimes;
    }
    j["skew"] = p.skew ? skew_json(*p.skew) : json(nullptr);
    j["p99_interval"] = nullptr;
    if (all.count()) {
        const stats::QuantileInterval q = stats::quantile_interval(all, 99);
        j["p99_interval"] = {{"low_ns", q.low},
                             {"high_ns", q.high},
                             {"confidence", q.confidence},
                             {"usable", q.usable}};
    }
}

}  // namespace

json phase_json(const model::PhaseResult& p, const model::RunConfig& cfg) {
    const auto& c = p.counters;
    stats::LatencyHistogram all = c.read_latency;
    all.merge(c.write_latency);
    json j;
    j["phase"] = std::string(model::to_string(p.phase));
    j["interrupted"] = p.interrupted;
    const std::string too_short = p.too_short();  // see model::kMinMeasuredSeconds
    j["too_short"] = !too_short.empty();
    j["too_short_reason"] = too_short.empty() ? json(nullptr) : json(too_short);
    add_phase_figures(j, p);
    j["cpu"] = cpu_json(p);
    j["host_load"] = host_load_json(p.host);
    j["latency_thresholds"] = thresholds_json(all, cfg.latency_thresholds_s);
    j["latency"] = latency_json(all);
    j["read_latency"] = latency_json(c.read_latency);
    j["write_latency"] = latency_json(c.write_latency);
    j["mismatches"] = class_counts(c.mismatches);
    j["flush_latency"] = latency_json(c.flush_latency);
    j["trim_latency"] = latency_json(c.trim_latency);
    j["trim_not_honoured_at"] =
        p.trim_not_honoured_at.empty() ? json(nullptr) : json(p.trim_not_honoured_at);
    j["rate"] = rate_json(p, cfg);
    j["replay"] = replay_json(p);
    if (p.repeats.size() >= 2) {  // --repeat N, N > 1
        const model::RepeatEstimates e = p.estimates();
        j["repeats"] = {{"n", p.repeats.size()},
                        {"iops", estimate_json(e.iops)},
                        {"bandwidth_bytes_per_sec", estimate_json(e.bytes_per_sec)},
                        {"p99_ns", estimate_json(e.p99_ns)}};
    }
    if (p.phase == model::Phase::random && c.write_ops + c.write_errors > 0)
        j["write_summary"] = write_summary_json(p);
    add_intervals(j, p, all);
    j["sizes"] = sizes_json(p, cfg);
    return j;
}

json schema_property(const PhaseFigure& f) {
    const char* type = f.kind == PhaseFigure::Kind::count ? "integer" : "number";
    json j = {{"description", f.meaning}, {"minimum", f.minimum}};
    j["type"] = f.shown ? json::array({type, "null"}) : json(type);
    if (f.minimum == static_cast<double>(static_cast<long long>(f.minimum)))
        j["minimum"] = static_cast<long long>(f.minimum);
    return j;
}

json estimate_json(const stats::Estimate& e) {
    return {{"median", e.median},
            {"min", e.min},
            {"max", e.max},
            {"low", e.low},
            {"high", e.high},
            {"confidence", e.confidence},
            {"n", e.n}};
}

json latency_json(const stats::LatencyHistogram& h) {
    json j;
    j["count"] = h.count();
    j["min_ns"] = h.min();
    j["mean_ns"] = h.mean();
    j["max_ns"] = h.max();
    json pct = json::object();
    for (auto [name, p] : kPercentiles)
        pct[name] = h.value_at_percentile(p);
    j["percentiles_ns"] = pct;
    json buckets = json::array();
    for (std::size_t i = 0; i < stats::LatencyHistogram::kBucketCount; ++i)
        if (auto n = h.bucket_count(i))
            buckets.push_back({stats::LatencyHistogram::bucket_lower(i), n});
    j["histogram"] = {
        {"scheme", "log-linear"},
        {"sub_bucket_bits", stats::LatencyHistogram::kSubBucketBits},
        {"relative_error", stats::LatencyHistogram::kRelativeError},
        // [lower bound in ns, count]; a bucket spans lower .. lower + width
        // where width = max(1, 2^(floor(log2(lower)) - sub_bucket_bits)).
        {"buckets", buckets},
    };
    return j;
}

}  // namespace ds::report
