// A phase's lines in the text report: the figures line, --rate's line, the
// repeats' estimates, aio_test's writes line, and the host-busy warning.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "drivestress_version.h"
#include "model/drift.h"
#include "report/figures.h"
#include "report/progress_line.h"
#include "report/result_line.h"
#include "report/target_table.h"
#include "report/text_parts.h"
#include "report/text_report.h"
#include "report/text_width.h"
#include "units/units.h"

namespace ds::report {

using units::printf_string;

std::string ms(std::uint64_t ns) {
    return printf_string("%.3f", ns / 1e6);
}

// As the option spells it: "2s", "10ms", "500us" (whole units), else
// format_seconds ("1.50 ms").
std::string threshold_name(double s) {
    if (s >= 1 && s == std::floor(s)) return printf_string("%.0fs", s);
    for (const auto& [scale, unit] : {std::pair{1e3, "ms"}, std::pair{1e6, "us"}}) {
        const double v = std::round(s * scale);
        if (v >= 1 && std::fabs(s * scale - v) < 1e-6) return printf_string("%.0f%s", v, unit);
    }
    return units::format_seconds(s);
}

namespace {

// "±1.2 %": the 95 % interval of this run's figure from its own slices
// (model::PhaseResult::series_interval); "(unsteady)" when the figure
// moved within the phase (its slices stay correlated: a rough interval).
// Empty under 5 slices, or for a phase too short to measure.
// A phase whose figure changed level has no one figure to bound: its
// regimes are named under it instead.
std::string interval_text(const model::PhaseResult& p) {
    if (!p.too_short().empty()) return "";
    if (const std::size_t n = p.regimes().size(); n >= 2)
        return printf_string("(%zu regimes, below)", n);
    const stats::BatchInterval b = p.series_interval(p.iops_figure());
    if (!b.usable) return "";
    const double pct = b.half_width_pct();
    return printf_string(pct < 10 ? "\u00b1%.1f %%" : "\u00b1%.0f %%", pct) +
           (b.correlated ? " (unsteady)" : "");
}

// The random phase's IOPS (an estimate over --repeat's repeats, else with
// this run's interval).
std::string iops_text(const model::PhaseResult& p) {
    const auto& c = p.counters;
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const std::string within = interval_text(p);
    std::string t =
        p.repeats.size() >= 2
            ? "  " + estimate_text(p.estimates().iops, units::format_iops, " IOPS")
            : printf_string("  %s IOPS%s%s (r %s / w %s", units::format_iops(p.iops()).c_str(),
                            within.empty() ? "" : " ", within.c_str(),
                            units::format_iops(c.read_ops / s).c_str(),
                            units::format_iops(c.write_ops / s).c_str());
    if (p.repeats.size() < 2)  // trims are apart from the IOPS figure: "+ t" beside it
        t += c.trim_ops ? ") + t " + units::format_iops(c.trim_ops / s) + "/s" : ")";
    return t;
}

std::string latency_text(const stats::LatencyHistogram& all) {
    return "lat ms p50 " + ms(all.value_at_percentile(50)) + " p95 " +
           ms(all.value_at_percentile(95)) + " p99 " + ms(all.value_at_percentile(99)) + " p99.9 " +
           ms(all.value_at_percentile(99.9)) + " max " + ms(all.max());
}

// A line's groups of fields: one line with --wide; otherwise each group
// after the first on a line of its own at 13 columns, so a line breaks at
// the same places whatever its numbers (fit() folds what is still long).
std::string joined(const std::vector<std::string>& groups) {
    std::string out;
    for (const std::string& g : groups) {
        const std::size_t start = g.find_first_not_of(' ');
        if (start == std::string::npos) continue;
        if (out.empty()) {
            out = g;
            continue;
        }
        if (text_width() == 0)
            out.append("  ");
        else
            out.append("\n").append(13, ' ');
        out.append(g, start, std::string::npos);
    }
    return out;
}

std::string flushes_text(const model::PhaseCounters& c, double s) {
    const auto& f = c.flush_latency;
    return printf_string("  flushes %" PRIu64 " (%s/s) ms p50 ", c.flush_ops,
                         units::format_iops(c.flush_ops / s).c_str()) +
           ms(f.value_at_percentile(50)) + " p99 " + ms(f.value_at_percentile(99)) + " max " +
           ms(f.max());
}

}  // namespace

std::string flushes_line(const model::PhaseResult& p) {
    const auto& c = p.counters;
    const auto& f = c.flush_latency;
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    return printf_string("  flushes:   %" PRIu64 " (%s/s)  lat ms p50 ", c.flush_ops,
                         units::format_iops(c.flush_ops / s).c_str()) +
           ms(f.value_at_percentile(50)) + " p99 " + ms(f.value_at_percentile(99)) + " max " +
           ms(f.max());
}

namespace {

// CPU as shares of one core, and the work done per CPU-second.
std::string cpu_text(const model::PhaseResult& p, const units::RateUnit& ru) {
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const double cpu_s = p.cpu.user_s + p.cpu.system_s;
    std::string t = printf_string("  cpu usr %.0f%% sys %.0f%%", 100 * p.cpu.user_s / s,
                                  100 * p.cpu.system_s / s);
    if (cpu_s <= 0) return t;
    return t + (p.phase == model::Phase::random
                    ? "  " + units::format_iops(p.iops() * p.seconds / cpu_s) + " IOPS/cpu-s"
                    : printf_string("  %.0f %s/cpu-s", ru.of(p.bytes_per_sec()) * p.seconds / cpu_s,
                                    ru.amount));
}

// Every threshold, 0 % too: with the default 1 ms, 10 ms and 100 ms a zero
// says something (an SSD's phase never waited 100 ms), and a line keeps one
// shape whatever the drive did.  One field (single spaces): a folded line
// keeps them together.
std::string thresholds_text(const stats::LatencyHistogram& all,
                            const std::vector<double>& thresholds_s) {
    std::string t;
    for (double th : thresholds_s) {
        const std::uint64_t slower = all.count_above(model::seconds_to_ns(th));
        t += printf_string(
            t.empty() ? "  >%s %.4f%%" : " >%s %.4f%%", threshold_name(th).c_str(),
            all.count() ? 100.0 * static_cast<double>(slower) / static_cast<double>(all.count())
                        : 0.0);
    }
    return t;
}

// What went wrong or short: errors, mismatches, an interruption, too short.
std::string caveats_text(const model::PhaseResult& p, bool advise) {
    const auto& c = p.counters;
    std::string t;
    if (c.write_errors && p.phase != model::Phase::random)  // random phases: on the writes line
        t += printf_string("  WRITE ERRORS %" PRIu64, c.write_errors);
    if (c.mismatch_total()) t += printf_string("  MISMATCHES %" PRIu64, c.mismatch_total());
    if (p.interrupted)
        t += c.cancelled_ops
                 ? printf_string("  (interrupted, %" PRIu64 " cancelled)", c.cancelled_ops)
                 : std::string("  (interrupted)");
    if (const std::string why = p.too_short(); !why.empty())
        t += "  (too short to measure: " + why +
             (advise ? "; needs " +
                           printf_string("%.0f s and %" PRIu64 ": ", model::kMinMeasuredSeconds,
                                         model::kMinMeasuredOps) +
                           (p.phase == model::Phase::random ? "--rand-time 5s" : "--seq-time 5s")
                     : std::string()) +
             ")";
    return t;
}

}  // namespace

std::string phase_line(const model::PhaseResult& p, const std::vector<double>& thresholds_s,
                       units::ByteUnits u, bool advise) {
    const auto& c = p.counters;
    const units::RateUnit ru = units::rate_unit(u);
    // The figure; what was verified (the random phase: its latency first);
    // flushes; the cost; the latency thresholds; what went wrong or short.
    std::string head =
        printf_string("  %-10s %9.1f %-5s  %7.2f s", std::string(model::to_string(p.phase)).c_str(),
                      ru.of(p.bytes_per_sec()), ru.name, p.seconds);
    const stats::LatencyHistogram all = p.latency();
    const bool random = p.phase == model::Phase::random;
    if (random)
        head += iops_text(p);
    else if (const std::string within = interval_text(p); !within.empty())
        head += "  " + within;
    const std::string verified =
        c.verified_bytes ? "  verified " + units::format_bytes(c.verified_bytes) : "";
    std::vector<std::string> groups{random ? head : head + verified};
    if (random) groups.push_back(latency_text(all) + verified);
    if (c.flush_ops) groups.push_back(flushes_text(c, p.seconds > 0 ? p.seconds : 1e-9));
    std::string cost = cpu_text(p, ru);
    for (const PhaseFigure& f : phase_figures())
        if (f.text && f.shown_for(p)) cost += "  " + f.text(p);
    groups.push_back(cost);
    groups.push_back(thresholds_text(all, thresholds_s));
    groups.push_back(caveats_text(p, advise));
    std::string line = joined(groups);
    if (p.requested_rate > 0) line.append("\n").append(rate_line(p));
    if (p.replay_seconds > 0) line.append("\n").append(replay_line(p));
    if (p.repeats.size() >= 2) line.append("\n").append(repeats_line(p));
    if (const std::string r = regimes_line(p, u); !r.empty()) line.append("\n").append(r);
    if (p.skew) line.append("\n").append(skew_line(*p.skew));
    if (!c.sizes.empty()) line.append("\n").append(sizes_line(p, u));
    if (p.phase == model::Phase::random && c.write_ops + c.write_errors > 0)
        line.append("\n").append(writes_line(p, u));
    if (const std::string t = trims_line(p); !t.empty()) line.append("\n").append(t);
    return line;
}

std::string trims_line(const model::PhaseResult& p) {
    const auto& c = p.counters;
    std::string out;
    if (c.trim_ops) {
        const auto& t = c.trim_latency;
        const double s = p.seconds > 0 ? p.seconds : 1e-9;
        out = joined({printf_string("  trims:     %" PRIu64 " done (%s/s), %s dropped", c.trim_ops,
                                    units::format_iops(static_cast<double>(c.trim_ops) / s).c_str(),
                                    units::format_bytes(c.trim_bytes).c_str()),
                      "  lat ms p50 " + ms(t.value_at_percentile(50)) + " p99 " +
                          ms(t.value_at_percentile(99)) + " max " + ms(t.max())});
    }
    if (!c.trimmed_units_read) return out;
    if (!out.empty()) out += '\n';
    out += printf_string("  trimmed:   %" PRIu64 " reads of trimmed units", c.trimmed_units_read);
    if (!c.trim_not_honoured) return out + ", each as the target promises";
    return out + printf_string(
                     "; %" PRIu64
                     " still held their old data though the target promises a trimmed block "
                     "reads back otherwise (trim-not-honoured: the device kept what it was told "
                     "to drop; no data lost), first at %s",
                     c.trim_not_honoured, p.trim_not_honoured_at.c_str());
}

// "skew:      zipf:1.2  ops on the hottest 1 % of blocks 41.2 % (predicted
// 41.0)  10 %: 63.3 (63.1)  20 %: 71.0 (70.9)  blocks touched about 12.3k of
// 65.5k (19 %)": what the draws achieved beside what the distribution says.
// Each worker draws over its own file: with several, the shares are of each
// file's hottest blocks, and the blocks touched are counted over them all.
std::string skew_line(const model::SkewResult& s) {
    const auto& t = s.tally;
    std::string line = "  skew:      " + s.distribution;
    for (std::size_t i = 0; i < stats::SkewTally::kHotFractions.size(); ++i) {
        const double pct = 100 * stats::SkewTally::kHotFractions[i];
        line += i == 0 ? printf_string("  ops on the hottest %.0f %% %s %.1f %% (predicted %.1f)",
                                       pct, s.files > 1 ? "of each file's blocks" : "of blocks",
                                       100 * t.hot_share(i), 100 * s.predicted[i])
                       : printf_string("  %.0f %%: %.1f (%.1f)", pct, 100 * t.hot_share(i),
                                       100 * s.predicted[i]);
    }
    const double touched = std::min(t.distinct_units(), static_cast<double>(s.blocks));
    line +=
        "  blocks touched about " + units::format_iops(touched) + " of " +
        units::format_iops(static_cast<double>(s.blocks)) +
        (s.files > 1 ? " in " + std::to_string(s.files) + " files" : std::string()) +
        printf_string(" (%.0f %%)", s.blocks ? 100 * touched / static_cast<double>(s.blocks) : 0);
    const std::uint64_t draws = t.ops() + s.busy_redraws;
    if (s.busy_redraws)
        line +=
            printf_string("  %.1f %% of draws found their block in flight and drew again",
                          100.0 * static_cast<double>(s.busy_redraws) / static_cast<double>(draws));
    return line;
}

// "  bs 16K:    19.9 % of ops  8.1k IOPS  126.6 MiB/s  lat ms p50 0.901
// p99 2.311 p99.9 3.100" for each size of a --rand-block mix, reads and
// writes together (the JSON keeps them apart).
std::string sizes_line(const model::PhaseResult& p, units::ByteUnits u) {
    const model::PhaseCounters& c = p.counters;
    const double ops = static_cast<double>(c.read_ops + c.write_ops);
    std::string out;
    for (const model::SizeCounters& s : c.sizes) {
        const stats::LatencyHistogram all = s.latency();
        const double n = static_cast<double>(s.read_ops + s.write_ops);
        const double iops = p.seconds > 0 ? n / p.seconds : 0;
        if (!out.empty()) out += '\n';
        out += printf_string("  %-10s %4.1f %% of ops  %s IOPS  %s",
                             ("bs " + units::format_size_option(s.bytes) + ":").c_str(),
                             ops > 0 ? 100 * n / ops : 0, units::format_iops(iops).c_str(),
                             units::format_bandwidth(iops * s.bytes, u).c_str());
        if (all.count())
            out += "  lat ms p50 " + ms(all.value_at_percentile(50)) + " p99 " +
                   ms(all.value_at_percentile(99)) + " p99.9 " + ms(all.value_at_percentile(99.9));
    }
    return out;
}

// Two regimes or more: each one's time, figure and interval; the phase's
// figure above is their whole-phase mean.
std::string regimes_line(const model::PhaseResult& p, units::ByteUnits u) {
    const stats::Regimes regimes = p.regimes();
    if (regimes.size() < 2) return "";
    const units::RateUnit ru = units::rate_unit(u);
    std::string line =
        "  regimes:   the figure changed level inside the phase (the figure above "
        "is the whole phase's):";
    for (const stats::Regime& r : regimes) {
        line += printf_string("  %.1f-%.1f s ", r.start_s, r.start_s + r.length_s) +
                (p.iops_figure() ? units::format_iops(r.median) + " IOPS"
                                 : printf_string("%.1f %s", ru.of(r.median), ru.name));
        if (r.interval.usable) line += printf_string(" \u00b1%.1f %%", r.interval.half_width_pct());
    }
    return line;
}

namespace {

// The open loop's lateness, response time and issue error (--rate, --replay).
std::string schedule_text(const model::PhaseResult& p) {
    const auto& c = p.counters;
    const auto& r = c.response_latency;
    const auto& e = c.issue_error;
    const std::uint64_t ops = c.read_ops + c.write_ops;
    std::string line =
        printf_string(
            "  late %" PRIu64 " (%.2f %%), largest lateness ", c.late_ops,
            ops ? 100.0 * static_cast<double>(c.late_ops) / static_cast<double>(ops) : 0.0) +
        ms(c.max_lateness_ns) + " ms" +
        printf_string(", %" PRIu64 " beyond ", c.late_beyond_tolerance_ops) +
        ms(p.lateness_tolerance_ns()) + " ms";
    line += "\n             response ms p50 " + ms(r.value_at_percentile(50)) + " p95 " +
            ms(r.value_at_percentile(95)) + " p99 " + ms(r.value_at_percentile(99)) + " p99.9 " +
            ms(r.value_at_percentile(99.9)) + " max " + ms(r.max()) + "  (lat above: service time)";
    auto us = [](std::uint64_t ns) { return printf_string("%.1f", ns / 1e3); };
    line += "\n             issue error us p50 " + us(e.value_at_percentile(50)) + " p99 " +
            us(e.value_at_percentile(99)) + " p99.9 " + us(e.value_at_percentile(99.9)) + " max " +
            us(e.max()) + printf_string(" (%" PRIu64 " on-time operations)", e.count());
    return line;
}

}  // namespace

std::string rate_line(const model::PhaseResult& p) {
    std::string line =
        "  rate:      requested " + units::format_iops(p.requested_rate) + " IOPS, achieved " +
        units::format_iops(p.iops()) +
        printf_string(" (%.1f %%)", p.requested_rate > 0 ? 100 * p.iops() / p.requested_rate : 0.0);
    line += p.rate_met() ? "  rate met" : "  RATE NOT MET";
    return line + schedule_text(p);
}

// --replay at a pace: how long it took against the trace's own time, then
// as --rate's line.
std::string replay_line(const model::PhaseResult& p) {
    const auto& c = p.counters;
    return printf_string("  replay:    %" PRIu64
                         " operations in %.2f s, the trace's %.2f s at this "
                         "pace (%.2f %%)",
                         c.read_ops + c.write_ops + c.trim_ops + c.flush_ops, p.seconds,
                         p.replay_seconds, 100 * p.seconds / p.replay_seconds) +
           schedule_text(p);
}

std::string estimate_text(const stats::Estimate& e, std::string (*text)(double),
                          const std::string& unit) {
    if (e.n < 2) return text(e.median) + unit;
    const double pct = e.half_width_pct();
    return text(e.median) + unit +
           printf_string(pct < 10 ? " (\u00b1%.1f %%, n=%zu)" : " (\u00b1%.0f %%, n=%zu)", pct,
                         e.n);
}

std::string repeats_line(const model::PhaseResult& p) {
    const model::RepeatEstimates e = p.estimates();
    auto range = [](const char* what, double lo, double hi, std::string (*text)(double)) {
        return printf_string(" %s %s-%s", what, text(lo).c_str(), text(hi).c_str());
    };
    auto p99 = [](double ns) { return ms(static_cast<std::uint64_t>(ns)); };
    return printf_string(
               "  repeats:   n=%zu, medians; range min-max, interval of the median "
               "(%.1f %% coverage):",
               e.iops.n, 100 * e.iops.confidence) +
           "\n             IOPS " + units::format_iops(e.iops.median) +
           range("range", e.iops.min, e.iops.max, units::format_iops) +
           range("interval", e.iops.low, e.iops.high, units::format_iops) + "  p99 ms " +
           p99(e.p99_ns.median) + range("range", e.p99_ns.min, e.p99_ns.max, p99) +
           range("interval", e.p99_ns.low, e.p99_ns.high, p99);
}

std::string writes_line(const model::PhaseResult& p, units::ByteUnits u) {
    const auto& c = p.counters;
    const units::RateUnit ru = units::rate_unit(u);
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const auto& w = c.write_latency;
    return printf_string("  writes:    %" PRIu64 " done, %" PRIu64 " errors (%" PRIu64
                         " failed, 0 outstanding)  time ms min ",
                         c.write_ops, c.write_errors, c.write_errors) +
           joined(
               {ms(w.min()) + " avg " + ms(static_cast<std::uint64_t>(w.mean())) + " max " +
                    ms(w.max()),
                printf_string("total %.3f s  %.1f %s  %.0f writes/s  %.1f %s", p.seconds,
                              ru.of(static_cast<double>(c.write_bytes)), ru.amount, c.write_ops / s,
                              ru.of(static_cast<double>(c.write_bytes)) / s, ru.name)});
}

// Foreign load only: kernel threads carrying out the run's I/O are its own
// figure (report/figures.h), not noise.
std::string host_busy_line(const model::PhaseResult& p) {
    std::string line = printf_string(
        "  host busy: %.0f %% steal, %.0f %% other processes during %s", p.host.steal_pct(),
        p.host.foreign_pct(), std::string(model::to_string(p.phase)).c_str());
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    for (std::size_t i = 0; i < p.host.top_foreign.size(); ++i) {
        const auto& f = p.host.top_foreign[i];
        // A process's share of a phase shorter than kMinMeasuredSeconds is
        // a few clock ticks (10 ms each): named, not quoted.
        line += p.seconds < model::kMinMeasuredSeconds
                    ? printf_string("%s %s pid %d", i ? "," : " (top:", f.comm.c_str(), f.pid)
                    : printf_string("%s %s pid %d %.0f %% of a core",
                                    i ? "," : " (top:", f.comm.c_str(), f.pid, 100 * f.cpu_s / s);
    }
    if (!p.host.top_foreign.empty()) line += ")";
    return line + "; figures may not repeat";
}

void TextReport::phase_done(std::uint64_t iteration, const model::PhaseResult& p) {
    clear_live();
    last_second_p99_ns_ = 0;
    if (layout_ != Layout::full) return;
    if (header_iteration_ != iteration) {
        std::fprintf(out_, "\niteration %" PRIu64 "\n", iteration);
        header_iteration_ = iteration;
    }
    std::fprintf(out_, "%s\n", fit(phase_line(p, thresholds_s_, units_, !job_file_)).c_str());
    // A phase too short to measure has no figure for other load to spoil,
    // and its share of the host is a few clock ticks: no warning.
    if (sys::busy(p.host) && p.too_short().empty())
        std::fprintf(out_, "%s\n", fit(host_busy_line(p)).c_str());
    std::fflush(out_);
}

}  // namespace ds::report
