#include "metrics/prometheus.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "pattern/unit.h"
#include "report/figures.h"
#include "report/json_report.h"
#include "units/utf8.h"

namespace ds::metrics {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::report;

// ---------------------------------------------------------------- buckets
//
// Why these boundaries.  A fleet merges by summing buckets of equal `le`
// (histogram_quantile(0.99, sum by (le) (...))), so the set is one constant,
// the same on every host and in every version; changing it breaks every
// dashboard that sums old and new hosts.  It is:
//
//  - log-spaced, four per power of two: each bound is about 2^(1/4) = 1.19x
//    the previous, the growth factor of Prometheus native histograms at
//    schema 2.  The quantile histogram_quantile() interpolates lies in the
//    bucket that holds the true one, so it is off by at most that bucket's
//    ratio minus one: 19.08% (kPromQuantileRelativeError), the same
//    relative error at 10 us as at 10 s.  Two per power of two would be 41%;
//    eight would halve the error but double the series (each histogram here
//    is 108 series: 105 bounds, +Inf, _sum, _count, for each phase and
//    operation that runs: 5 in a default run, 7 with --sync fsync).
//    Exact percentiles stay in the JSON document's histogram (0.39%).
//  - bucket boundaries of stats::LatencyHistogram (2^e * (128 + k) / 128
//    ns for k = 0, 24, 53, 87: the nearest to 2^(j/4)), so every count is
//    exact, and `le` is exact decimal text (1216 ns -> "0.000001216";
//    node_exporter parses it and serves it in Go's float format,
//    "1.216e-06": equal bounds give equal text either way).
//  - from 1.024 us (below it: the first bucket; histogram_quantile then
//    interpolates from 0, an absolute error under 1.024 us) to 68.7 s
//    (above it: +Inf, where histogram_quantile answers 68.7 s; the exact
//    worst case is drivestress_op_latency_max_seconds).  That spans a page
//    cache hit to an I/O stuck through a 30 s device timeout and its retry.
//
// A bucket counts operations faster than its bound: latencies are whole
// nanoseconds, and one of exactly the bound falls in the next bucket.

namespace {

constexpr unsigned kFirstOctave = 10;                // 2^10 ns
constexpr unsigned kLastOctave = 36;                 // 2^36 ns, the top bound
constexpr std::uint64_t kSteps[] = {0, 24, 53, 87};  // of 128 per octave

constexpr std::array<std::uint64_t, kPromLatencyBounds> make_bounds() {
    std::array<std::uint64_t, kPromLatencyBounds> b{};
    std::size_t n = 0;
    for (unsigned e = kFirstOctave; e < kLastOctave; ++e)
        for (std::uint64_t k : kSteps)
            b[n++] = (128 + k) << (e - 7);
    b[n++] = std::uint64_t{1} << kLastOctave;
    return b;
}

constexpr auto kBounds = make_bounds();

// The stated error is the largest ratio of neighbouring bounds, minus one.
constexpr bool error_is_the_widest_ratio() {
    double widest = 0;
    for (std::size_t i = 1; i < kBounds.size(); ++i)
        widest = std::max(widest, double(kBounds[i]) / double(kBounds[i - 1]) - 1.0);
    return widest == kPromQuantileRelativeError;
}
static_assert((kLastOctave - kFirstOctave) * std::size(kSteps) + 1 == kPromLatencyBounds);
static_assert(error_is_the_widest_ratio());

// For each LatencyHistogram bucket, the Prometheus bucket that holds it:
// the first bound above its lower end (bounds are boundaries, so the whole
// bucket lies below that bound).
const std::array<std::uint8_t, stats::LatencyHistogram::kBucketCount>& coarse_index() {
    static const auto table = [] {
        std::array<std::uint8_t, stats::LatencyHistogram::kBucketCount> t{};
        for (std::size_t i = 0; i < t.size(); ++i) {
            const std::uint64_t lower = stats::LatencyHistogram::bucket_lower(i);
            t[i] = static_cast<std::uint8_t>(
                std::upper_bound(kBounds.begin(), kBounds.end(), lower) - kBounds.begin());
        }
        return t;
    }();
    return table;
}

}  // namespace

const std::array<std::uint64_t, kPromLatencyBounds>& prom_latency_bounds_ns() {
    return kBounds;
}

std::string prom_seconds_text(std::uint64_t ns) {
    std::string text = std::to_string(ns / 1'000'000'000);
    std::uint64_t frac = ns % 1'000'000'000;
    if (frac == 0) return text;
    std::string digits = std::to_string(frac);
    digits.insert(0, 9 - digits.size(), '0');
    digits.erase(digits.find_last_not_of('0') + 1);
    return text + "." + digits;
}

void PromHistogram::add(const stats::LatencyHistogram& h) {
    if (h.count() == 0) return;
    const auto& index = coarse_index();
    for (std::size_t i = 0; i < stats::LatencyHistogram::kBucketCount; ++i)
        if (std::uint64_t n = h.bucket_count(i)) buckets[index[i]] += n;
    count += h.count();
    sum_ns += h.sum();
    max_ns = std::max(max_ns, h.max());
}

void PromHistogram::add(const PromHistogram& o) {
    for (std::size_t i = 0; i < buckets.size(); ++i)
        buckets[i] += o.buckets[i];
    count += o.count;
    sum_ns += o.sum_ns;
    max_ns = std::max(max_ns, o.max_ns);
}

// ---------------------------------------------------------------- counters

std::string_view to_string(PromOp op) {
    switch (op) {
        case PromOp::read:
            return "read";
        case PromOp::write:
            return "write";
        case PromOp::flush:
            return "flush";
    }
    return "?";
}

void PromTotals::expect(const model::RunConfig& cfg) {
    if (cfg.sync_compare) return;  // a table of its own, no phases
    using model::Phase;
    const bool flushes =
        cfg.sync == model::SyncMethod::fsync || cfg.sync == model::SyncMethod::fdatasync;
    const bool random =
        cfg.has_phase(Phase::random) && (cfg.rand_ops ? *cfg.rand_ops > 0 : cfg.rand_time_s > 0);
    auto phase = [&](Phase p, bool reads, bool writes) {
        phase_seconds[p] += 0;
        for (const PhaseFigure& f : phase_figures())
            if (!f.metric.empty() && (!f.trims || cfg.trim_pct)) described[{f.metric, p}] += 0;
        if (reads) verified_bytes[p] += 0;
        if (reads) ops[{p, PromOp::read}];
        if (writes) ops[{p, PromOp::write}];
        if (writes && flushes) ops[{p, PromOp::flush}];
    };
    if (cfg.has_phase(Phase::seq_write)) phase(Phase::seq_write, false, true);
    if (cfg.has_phase(Phase::seq_read)) phase(Phase::seq_read, true, false);
    if (random) phase(Phase::random, cfg.read_pct > 0, cfg.read_pct < 100);
    if (random && cfg.rand_mix.size() > 1) {
        for (const units::BlockShare& b : cfg.rand_mix) {
            if (cfg.read_pct > 0) sized[{Phase::random, PromOp::read, b.bytes}];
            if (cfg.read_pct < 100) sized[{Phase::random, PromOp::write, b.bytes}];
        }
    }
    // A schedule: --rate's, or a trace replayed at its pace.
    if (random && (cfg.rate > 0 || (!cfg.replay.empty() && cfg.replay_speed > 0))) {
        response[Phase::random];
        late_ops[Phase::random] += 0;
    }
    if (cfg.has_phase(Phase::reverify)) phase(Phase::reverify, true, false);
}

namespace {

// A phase's skew tally joins the phase's so far (a later iteration's or
// another run's draws over the same blocks).
void add_skew_run(std::map<model::Phase, model::SkewResult>& to, model::Phase phase,
                  const model::SkewResult& s) {
    if (auto at = to.find(phase); at != to.end())
        at->second.add_run(s);
    else
        to.emplace(phase, s);
}

void append_repeats(std::vector<model::RepeatFigures>& to,
                    const std::vector<model::RepeatFigures>& from) {
    for (const auto& r : from)
        if (to.size() < model::PhaseResult::kMaxRepeats) to.push_back(r);
}

}  // namespace

void PromTotals::add_phase(const model::PhaseResult& p, const std::string& point) {
    if (!p.repeats.empty()) append_repeats(repeats[{p.phase, point}], p.repeats);
    const auto& c = p.counters;
    auto add_op = [&](PromOp op, const stats::LatencyHistogram& h, std::uint64_t bytes) {
        if (h.count() == 0 && bytes == 0 && !ops.count({p.phase, op})) return;
        OpSeries& s = ops[{p.phase, op}];
        s.latency.add(h);
        s.bytes += bytes;
    };
    add_op(PromOp::read, c.read_latency, c.read_bytes);
    add_op(PromOp::write, c.write_latency, c.write_bytes);
    add_op(PromOp::flush, c.flush_latency, 0);
    if (c.response_latency.count() || response.count(p.phase)) {
        response[p.phase].add(c.response_latency);
        late_ops[p.phase] += c.late_ops;
    }
    for (const model::SizeCounters& s : c.sizes) {
        for (const auto& [op, h] :
             {std::pair{PromOp::read, &s.read_latency}, std::pair{PromOp::write, &s.write_latency}})
            if (h->count() || sized.count({p.phase, op, s.bytes}))
                sized[{p.phase, op, s.bytes}].add(*h);
    }
    if (p.skew) add_skew_run(skew, p.phase, *p.skew);
    phase_seconds[p.phase] += p.seconds;
    for (const PhaseFigure& f : phase_figures())
        if (!f.metric.empty() && f.shown_for(p)) described[{f.metric, p.phase}] += f.value(p);
    if (c.verified_bytes || verified_bytes.count(p.phase))
        verified_bytes[p.phase] += c.verified_bytes;
    for (std::size_t i = 0; i < mismatches.size(); ++i)
        mismatches[i] += c.mismatches[i];
    write_errors += c.write_errors;
    cpu_user_s += p.cpu.user_s;
    cpu_system_s += p.cpu.system_s;
}

void PromTotals::add_interval(model::Phase phase, const model::IntervalStats& s) {
    auto add_op = [&](PromOp op, const stats::LatencyHistogram& h, std::uint64_t bytes) {
        if (h.count() == 0 && bytes == 0) return;
        OpSeries& series = ops[{phase, op}];
        series.latency.add(h);
        series.bytes += bytes;
    };
    add_op(PromOp::read, s.read_latency, s.read_bytes);
    add_op(PromOp::write, s.write_latency, s.write_bytes);
    if (s.response_latency.count()) {
        response[phase].add(s.response_latency);
        late_ops[phase] += s.late_ops;
    }
    for (std::size_t i = 0; i < mismatches.size(); ++i)
        mismatches[i] += s.mismatches_by_class[i];
}

void PromTotals::add(const PromTotals& o) {
    for (const auto& [key, s] : o.ops) {
        OpSeries& mine = ops[key];
        mine.latency.add(s.latency);
        mine.bytes += s.bytes;
    }
    for (const auto& [p, h] : o.response)
        response[p].add(h);
    for (const auto& [key, h] : o.sized)
        sized[key].add(h);
    for (const auto& [p, s] : o.skew)
        add_skew_run(skew, p, s);
    for (const auto& [p, n] : o.late_ops)
        late_ops[p] += n;
    for (const auto& [p, s] : o.phase_seconds)
        phase_seconds[p] += s;
    for (const auto& [key, v] : o.described)
        described[key] += v;
    for (const auto& [p, b] : o.verified_bytes)
        verified_bytes[p] += b;
    for (std::size_t i = 0; i < mismatches.size(); ++i)
        mismatches[i] += o.mismatches[i];
    write_errors += o.write_errors;
    cpu_user_s += o.cpu_user_s;
    cpu_system_s += o.cpu_system_s;
    iterations += o.iterations;
    if (o.find_rate) find_rate = o.find_rate;
    for (const auto& [key, figures] : o.repeats)
        append_repeats(repeats[key], figures);
}

std::uint64_t PromTotals::mismatch_total() const {
    std::uint64_t n = 0;
    for (auto m : mismatches)
        n += m;
    return n;
}

// ---------------------------------------------------------------- labels

namespace {

using units::utf8_length;

// Label names the metrics use themselves (and "quantile", a summary's).
constexpr std::string_view kOwnLabels[] = {
    "target", "preset",   "test",     "phase",          "op",      "le",     "class",  "verdict",
    "mode",   "version",  "point",    "schema_version", "backend", "kernel", "device", "model",
    "serial", "firmware", "quantile", "workload"};

}  // namespace

std::string prometheus_escape_label(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size();) {
        const std::size_t n = utf8_length(value, i);
        if (n == 0) {
            out += "\xef\xbf\xbd";  // U+FFFD REPLACEMENT CHARACTER
            ++i;
            continue;
        }
        const char c = value[i];
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out.append(value.substr(i, n));
        i += n;
    }
    return out;
}

std::string prom_label_name_problem(std::string_view name) {
    const auto ok_first = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    std::string quoted(1, '\'');
    quoted.append(name);
    quoted += '\'';
    if (name.empty()) return "the label name is empty";
    if (!ok_first(name[0]) || !std::all_of(name.begin(), name.end(), [&](char c) {
            return ok_first(c) || (c >= '0' && c <= '9');
        }))
        return quoted + " is not a label name (letters, digits and _, not starting with a digit)";
    if (name.substr(0, 2) == "__") return quoted + ": names starting with __ are Prometheus's own";
    for (auto own : kOwnLabels)
        if (name == own) return quoted + " is a label drivestress sets itself";
    return {};
}

std::string prom_label_value_problem(std::string_view value) {
    if (value.empty()) return "the value is empty (Prometheus takes that for no label)";
    for (std::size_t i = 0; i < value.size();) {
        const std::size_t n = utf8_length(value, i);
        if (n == 0) return "the value is not UTF-8";
        i += n;
    }
    return {};
}

}  // namespace ds::metrics
