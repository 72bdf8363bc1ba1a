// Sweeps in the text report: a sweep's rows, the knee, --sweep rate's
// turn-up, --find-rate's search.
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

// "turn-up: response p99 turns up at rate 80% (8.1k IOPS): 4.2 ms against
// at most 1.1 ms below it" (or "rate not met").
std::string turn_up_line(const model::SweepResult& sweep) {
    if (sweep.points.empty()) return "turn-up: no points";
    const auto p99 = sweep.response_p99_ns();
    if (!sweep.turn_up)
        return "turn-up: not reached (response p99 within " +
               printf_string("%.0fx", model::SweepResult::kTurnUpFactor) +
               " of the lowest rate's up to the highest rate swept, every rate met)";
    const std::size_t i = *sweep.turn_up;
    const auto& p = sweep.points[i].random;
    std::string at = printf_string("turn-up: at %s IOPS requested (%s achieved): ",
                                   units::format_iops(p.requested_rate).c_str(),
                                   units::format_iops(p.iops()).c_str());
    if (!p.rate_met()) return at + "rate not met";
    const std::uint64_t below =
        *std::min_element(p99.begin(), p99.begin() + static_cast<std::ptrdiff_t>(i));
    return at + "response p99 " + ms(p99[i]) + " ms against " + ms(below) +
           " ms at a lower rate (one run per point)";
}

// A rate to the operation below 100k ("968", "12034"), else "1.23M".
std::string rate_text(double iops) {
    return iops < 1e5 ? printf_string("%.0f", iops) : units::format_iops(iops);
}

// A latency for a sentence: "500 us", "4.10 ms", "1.20 s".
std::string duration_text(double ns) {
    return units::format_seconds(ns / 1e9);
}

// "p99 4.10 ms (3.90 ms..4.30 ms) at 812" (one run: the interval of its
// latencies' ranks), "p99 4.10 ms (median of 5, 3.90 ms..4.30 ms, within
// noise) at 812".
std::string probe_text(const model::FindRateResult& fr, const model::FindRateProbe& p) {
    const auto& e = p.verdict.percentile_ns;
    std::string t = units::format_percentile(fr.bound.percentile) + " " + duration_text(e.median);
    const std::string noise = p.verdict.within_noise ? ", within noise)" : ")";
    if (p.repeats >= 2)
        t += printf_string(" (median of %zu, ", e.n) + duration_text(e.low) + ".." +
             duration_text(e.high) + noise;
    else if (e.n >= 2 && e.confidence > 0)
        t += " (" + duration_text(e.low) + ".." + duration_text(e.high) + noise;
    if (!p.rate_met) t += ", rate not met";
    return t + " at " + rate_text(p.requested_iops);
}

// "find-rate: 812 IOPS meets p99 <= 5 ms (bracket 812..859 IOPS, 7 points;
// p99 4.1 ms at 812)", or that no rate probed meets it.
std::string find_rate_line(const model::FindRateResult& fr) {
    const std::string bound = units::format_percentile(fr.bound.percentile) +
                              " <= " + duration_text(fr.bound.bound_s * 1e9);
    const std::string points =
        printf_string("%zu point%s", fr.probes.size(), fr.probes.size() == 1 ? "" : "s");
    const std::string stopped = fr.interrupted ? "; interrupted" : "";
    if (fr.closed_loop_iops < 1)
        return "find-rate: nothing searched (no closed-loop maximum measured)" + stopped;
    if (!fr.found) {
        std::string t = "find-rate: no rate probed meets " + bound + " (" + points;
        if (fr.failing) t += "; " + probe_text(fr, fr.probes[*fr.failing]);
        return t + stopped + ")";
    }
    const auto& at = fr.probes[*fr.found];
    std::string t = "find-rate: " + rate_text(at.requested_iops) + " IOPS meets " + bound + " (";
    if (fr.failing)
        t += "bracket " + rate_text(at.requested_iops) + ".." +
             rate_text(fr.probes[*fr.failing].requested_iops) + " IOPS, ";
    else
        t += "the closed-loop maximum, no higher rate probed, ";
    t += points + "; " + probe_text(fr, at);
    if (fr.failing && fr.probes[*fr.failing].verdict.within_noise)
        t += "; the failing rate within noise";
    return t + stopped + ")";
}

std::string knee_line(const model::SweepResult& sweep, units::ByteUnits u) {
    if (sweep.param == model::SweepParam::rate) return turn_up_line(sweep);
    const std::string name(model::to_string(sweep.param));
    auto value_text = [&](std::uint64_t v) {
        return sweep.param == model::SweepParam::rand_block ? units::format_size_option(v)
                                                            : std::to_string(v);
    };
    const bool by_bandwidth = sweep.axis() == stats::KneeAxis::bandwidth;
    const units::RateUnit ru = units::rate_unit(u);
    const char* axis = by_bandwidth ? ru.name : "IOPS";
    if (sweep.points.empty()) return "saturation: no points";
    const std::size_t n = sweep.repeats();
    // n = 0: points made without repeats (not by a run): nothing to say.
    // One repeat: the p99 rise is judged on each point's own interval (of
    // its latencies' ranks), the figures have theirs from their slices.
    const std::string noise = n == 0  ? std::string()
                              : n < 2 ? " (one repeat: p99 outside each point's own interval)"
                                      : printf_string(" (medians of n=%zu, outside the noise)", n);
    if (sweep.knee_in_noise)
        return printf_string(
                   "saturation: by %s, within noise: the %s level off after %s %s, but its p99 "
                   "and the next point's overlap ",
                   axis, n < 2 ? "figures" : "medians", name.c_str(),
                   value_text(sweep.points[*sweep.knee_in_noise].value).c_str()) +
               (n < 2 ? std::string("(intervals of each point's own latencies)")
                      : printf_string("over n=%zu repeats", n));
    const auto knee = sweep.described_knee();
    if (!knee)
        return printf_string("saturation: by %s, not reached (%s still climbing at %s %s)", axis,
                             axis, name.c_str(), value_text(sweep.points.back().value).c_str()) +
               (n < 2 ? noise : std::string());
    const std::string value = value_text(sweep.points[knee->index].value);
    const std::string figure =
        by_bandwidth ? printf_string("%s (%s IOPS)",
                                     units::format_bandwidth(knee->at.bytes_per_sec, u).c_str(),
                                     units::format_iops(knee->at.iops).c_str())
                     : units::format_iops(knee->at.iops) + " IOPS";
    return printf_string(
               "saturation: by %s, %s %s \u2014 %s, p99 %s ms (next step %+.0f%% %s, "
               "%+.0f%% p99)",
               axis, name.c_str(), value.c_str(), figure.c_str(),
               ms(static_cast<std::uint64_t>(knee->at.p99_ns)).c_str(), knee->next_gain_pct(), axis,
               knee->next_p99_change_pct) +
           noise;
}

// --sweep rate: one row per rate, response time beside service time.
std::string rate_sweep_row(const model::RunConfig& cfg, const model::SweepPoint& point,
                           bool first) {
    std::string out;
    if (first) {
        std::string intro =
            printf_string("sweep rate: random phase open-loop, %u%% reads, ", cfg.read_pct) +
            (cfg.trim_pct ? printf_string("%u%% trims, ", cfg.trim_pct) : std::string());
        intro += cfg.rand_ops ? std::to_string(*cfg.rand_ops) + " ops"
                              : units::format_seconds(cfg.rand_time_s);
        intro +=
            " per point, verified; latency in ms: response (rsp) = completion - due, service "
            "(svc) = completion - submit; "
            "late>tol: operations late beyond the schedule's tolerance (a rate is met with at "
            "most 1 % of them)";
        out.append("\n").append(fit(intro, 9)).append("\n");
        out += printf_string("  %8s %8s %8s %6s %8s %7s %7s %7s %9s\n", "rate", "req IOPS", "IOPS",
                             "late %", "late>tol", "svc p99", "rsp p50", "rsp p99", "rsp p99.9");
    }
    const auto& p = point.random;
    const auto& r = p.counters.response_latency;
    const std::uint64_t ops = p.counters.read_ops + p.counters.write_ops;
    const std::string value = point.value == 0 ? std::string("closed")
                              : cfg.sweep->percent
                                  ? std::to_string(point.value) + "%"
                                  : units::format_iops(static_cast<double>(point.value));
    const bool open = p.requested_rate > 0;
    out += printf_string(
        "  %8s %8s %8s %6.2f %8s %7s %7s %7s %9s", value.c_str(),
        open ? units::format_iops(p.requested_rate).c_str() : "-",
        units::format_iops(p.iops()).c_str(),
        ops ? 100.0 * static_cast<double>(p.counters.late_ops) / static_cast<double>(ops) : 0.0,
        open ? std::to_string(p.counters.late_beyond_tolerance_ops).c_str() : "-",
        ms(p.latency().value_at_percentile(99)).c_str(),
        p.requested_rate > 0 ? ms(r.value_at_percentile(50)).c_str() : "-",
        p.requested_rate > 0 ? ms(r.value_at_percentile(99)).c_str() : "-",
        p.requested_rate > 0 ? ms(r.value_at_percentile(99.9)).c_str() : "-");
    if (p.requested_rate > 0 && !p.rate_met()) out += "  RATE NOT MET";
    if (p.counters.mismatch_total())
        out += printf_string("  MISMATCHES %" PRIu64, p.counters.mismatch_total());
    if (p.interrupted) out += "  (interrupted)";
    return out + "\n";
}

void TextReport::sweep_point_done(const model::RunConfig& cfg, const model::SweepPoint& point) {
    clear_live();
    last_second_p99_ns_ = 0;
    if (layout_ != Layout::full) return;
    if (cfg.sweep->param == model::SweepParam::rate) {
        std::fputs(rate_sweep_row(cfg, point, sweep_rows_++ == 0).c_str(), out_);
        std::fflush(out_);
        return;
    }
    const std::string name(model::to_string(cfg.sweep->param));
    if (sweep_rows_++ == 0) {
        std::string head =
            printf_string("\nsweep %s: random phase, %u%% reads, ", name.c_str(), cfg.read_pct) +
            (cfg.trim_pct ? printf_string("%u%% trims, ", cfg.trim_pct) : std::string());
        head += cfg.rand_ops ? std::to_string(*cfg.rand_ops) + " ops"
                             : units::format_seconds(cfg.rand_time_s);
        head += " per point, verified; latency in ms";
        std::fprintf(out_, "\n%s\n", fit(head.substr(1), 9).c_str());
        // 100 columns with the default thresholds.
        std::string cols = printf_string(
            "  %5s %8s %8s %6s %6s %6s %7s %4s %4s %10s",
            cfg.sweep->param == model::SweepParam::rand_block ? "block" : name.c_str(), "IOPS",
            units::rate_unit(units_).name, "p50", "p99", "p99.9", "max", "usr%", "sys%",
            "IOPS/cpu-s");
        for (double t : cfg.latency_thresholds_s)
            cols += printf_string(" %7s", std::string(">").append(threshold_name(t)).c_str());
        std::fprintf(out_, "%s\n", cols.c_str());
    }
    const auto& p = point.random;
    const auto all = p.latency();
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const double cpu_s = p.cpu.user_s + p.cpu.system_s;
    std::string value = cfg.sweep->param == model::SweepParam::rand_block
                            ? units::format_size_option(point.value)
                            : std::to_string(point.value);
    std::string row = printf_string(
        "  %5s %8s %8.1f %6s %6s %6s %7s %4.0f %4.0f %10s", value.c_str(),
        units::format_iops(p.iops()).c_str(), units::rate_unit(units_).of(p.bytes_per_sec()),
        ms(all.value_at_percentile(50)).c_str(), ms(all.value_at_percentile(99)).c_str(),
        ms(all.value_at_percentile(99.9)).c_str(), ms(all.max()).c_str(), 100 * p.cpu.user_s / s,
        100 * p.cpu.system_s / s,
        cpu_s > 0 ? units::format_iops(p.iops() * p.seconds / cpu_s).c_str() : "-");
    for (double t : cfg.latency_thresholds_s) {
        std::uint64_t slower = all.count_above(model::seconds_to_ns(t));
        row += printf_string(" %6.2f%%", all.count() ? 100.0 * slower / all.count() : 0.0);
    }
    if (p.counters.mismatch_total())
        row += printf_string("  MISMATCHES %" PRIu64, p.counters.mismatch_total());
    if (p.interrupted) row += "  (interrupted)";
    std::fprintf(out_, "%s\n", row.c_str());
    std::fflush(out_);
}

}  // namespace ds::report
