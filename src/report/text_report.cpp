#include "report/text_report.h"

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
#include "units/units.h"

namespace ds::report {

std::string verdict_line(const run::RunEvidence& e) {
    return "result   " + run::verdict_words(e) + " (exit " +
           std::to_string(run::code_of(e.status)) + ")\n";
}

namespace {

// Lines are built with append(), not `"literal" + std::string(...)`: once
// inlined, GCC 12 reports the latter as an overlapping memcpy (-Wrestrict, a
// false positive: GCC bug 105329), and the build has no warnings.

using units::printf_string;

std::string ms(std::uint64_t ns) {
    return printf_string("%.3f", ns / 1e6);
}

// "  cpus 0,2,4" when --cpus pinned the workers.
std::string cpus_text(const run::RunConfig& cfg) {
    std::string t;
    for (unsigned c : cfg.cpus) {
        t.append(t.empty() ? "  cpus " : ",");
        t.append(std::to_string(c));
    }
    return t;
}

}  // namespace

// As the option spells it: "2s", "10ms", "500us" (whole units), else
// format_seconds ("1.50 ms").
static std::string threshold_name(double s) {
    if (s >= 1 && s == std::floor(s)) return printf_string("%.0fs", s);
    for (const auto& [scale, unit] : {std::pair{1e3, "ms"}, std::pair{1e6, "us"}}) {
        const double v = std::round(s * scale);
        if (v >= 1 && std::fabs(s * scale - v) < 1e-6) return printf_string("%.0f%s", v, unit);
    }
    return units::format_seconds(s);
}

std::string phase_line(const run::PhaseResult& p, const std::vector<double>& thresholds_s,
                       units::ByteUnits u) {
    const auto& c = p.counters;
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const units::RateUnit ru = units::rate_unit(u);
    const double cpu_s = p.cpu.user_s + p.cpu.system_s;
    std::string line =
        printf_string("  %-10s %9.1f %-5s  %7.2f s", std::string(run::to_string(p.phase)).c_str(),
                      ru.of(p.bytes_per_sec()), ru.name, p.seconds);
    const stats::LatencyHistogram all = p.latency();
    if (p.phase == run::Phase::random && p.repeats.size() >= 2) {
        line += "  " + estimate_text(p.estimates().iops, units::format_iops, " IOPS");
    } else if (p.phase == run::Phase::random) {
        line += printf_string("  %s IOPS (r %s / w %s)", units::format_iops(p.iops()).c_str(),
                              units::format_iops(c.read_ops / s).c_str(),
                              units::format_iops(c.write_ops / s).c_str());
    }
    if (p.phase == run::Phase::random) {
        line += "  lat ms p50 " + ms(all.value_at_percentile(50)) + " p95 " +
                ms(all.value_at_percentile(95)) + " p99 " + ms(all.value_at_percentile(99)) +
                " p99.9 " + ms(all.value_at_percentile(99.9)) + " max " + ms(all.max());
    }
    if (c.verified_bytes) line += "  verified " + units::format_bytes(c.verified_bytes);
    if (c.flush_ops) {
        const auto& f = c.flush_latency;
        line += printf_string("  flushes %" PRIu64 " (%s/s) ms p50 ", c.flush_ops,
                              units::format_iops(c.flush_ops / s).c_str()) +
                ms(f.value_at_percentile(50)) + " p99 " + ms(f.value_at_percentile(99)) + " max " +
                ms(f.max());
    }
    line += printf_string("  cpu usr %.0f%% sys %.0f%%", 100 * p.cpu.user_s / s,
                          100 * p.cpu.system_s / s);
    if (cpu_s > 0) {
        line += p.phase == run::Phase::random
                    ? "  " + units::format_iops(p.iops() * p.seconds / cpu_s) + " IOPS/cpu-s"
                    : printf_string("  %.0f %s/cpu-s", ru.of(p.bytes_per_sec()) * p.seconds / cpu_s,
                                    ru.amount);
    }
    for (const PhaseFigure& f : phase_figures())
        if (f.text && f.shown_for(p)) line += "  " + f.text(p);
    // Every threshold, 0 % too: with the default 1 ms, 10 ms and 100 ms a
    // zero says something (an SSD's phase never waited 100 ms), and a line
    // keeps one shape whatever the drive did.
    for (double t : thresholds_s) {
        const std::uint64_t slower = all.count_above(run::seconds_to_ns(t));
        line += printf_string(
            "  >%s %.4f%%", threshold_name(t).c_str(),
            all.count() ? 100.0 * static_cast<double>(slower) / static_cast<double>(all.count())
                        : 0.0);
    }
    if (c.write_errors && p.phase != run::Phase::random)  // random phases: on the writes line
        line += printf_string("  WRITE ERRORS %" PRIu64, c.write_errors);
    if (c.mismatch_total()) line += printf_string("  MISMATCHES %" PRIu64, c.mismatch_total());
    if (p.interrupted)
        line += c.cancelled_ops
                    ? printf_string("  (interrupted, %" PRIu64 " cancelled)", c.cancelled_ops)
                    : std::string("  (interrupted)");
    if (const std::string why = p.too_short(); !why.empty())
        line += "  (too short to measure: " + why + "; a figure needs " +
                printf_string("%.0f s and %" PRIu64 " operations, e.g. ", run::kMinMeasuredSeconds,
                              run::kMinMeasuredOps) +
                (p.phase == run::Phase::random ? "--rand-time 5s" : "--seq-time 5s") + ")";
    if (p.requested_rate > 0) line.append("\n").append(rate_line(p));
    if (p.repeats.size() >= 2) line.append("\n").append(repeats_line(p));
    if (p.phase == run::Phase::random && c.write_ops + c.write_errors > 0)
        line.append("\n").append(writes_line(p, u));
    return line;
}

std::string rate_line(const run::PhaseResult& p) {
    const auto& c = p.counters;
    const auto& r = c.response_latency;
    const auto& e = c.issue_error;
    const std::uint64_t ops = c.read_ops + c.write_ops;
    std::string line =
        "  rate:      requested " + units::format_iops(p.requested_rate) + " IOPS, achieved " +
        units::format_iops(p.iops()) +
        printf_string(" (%.1f %%)", p.requested_rate > 0 ? 100 * p.iops() / p.requested_rate : 0.0);
    line += p.rate_met() ? "  rate met" : "  RATE NOT MET";
    line += printf_string(
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

std::string estimate_text(const stats::Estimate& e, std::string (*text)(double),
                          const std::string& unit) {
    if (e.n < 2) return text(e.median) + unit;
    const double pct = e.half_width_pct();
    return text(e.median) + unit +
           printf_string(pct < 10 ? " (\u00b1%.1f %%, n=%zu)" : " (\u00b1%.0f %%, n=%zu)", pct,
                         e.n);
}

std::string repeats_line(const run::PhaseResult& p) {
    const run::RepeatEstimates e = p.estimates();
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

std::string writes_line(const run::PhaseResult& p, units::ByteUnits u) {
    const auto& c = p.counters;
    const units::RateUnit ru = units::rate_unit(u);
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const auto& w = c.write_latency;
    return printf_string("  writes:    %" PRIu64 " done, %" PRIu64 " errors (%" PRIu64
                         " failed, 0 outstanding)  time ms min ",
                         c.write_ops, c.write_errors, c.write_errors) +
           ms(w.min()) + " avg " + ms(static_cast<std::uint64_t>(w.mean())) + " max " +
           ms(w.max()) +
           printf_string("  total %.3f s  %.1f %s  %.0f writes/s  %.1f %s", p.seconds,
                         ru.of(static_cast<double>(c.write_bytes)), ru.amount, c.write_ops / s,
                         ru.of(static_cast<double>(c.write_bytes)) / s, ru.name);
}

std::string drift_table(const std::vector<run::IterationResult>& iterations, units::ByteUnits u) {
    return drift_table(run::phase_drift(iterations), iterations.size(), u);
}

std::string drift_table(const std::vector<run::PhaseDrift>& drift, std::uint64_t iterations,
                        units::ByteUnits u) {
    const units::RateUnit ru = units::rate_unit(u);
    const bool any = std::any_of(drift.begin(), drift.end(),
                                 [](const run::PhaseDrift& d) { return d.iterations > 0; });
    if (iterations < 2 || !any) return "";
    std::string t = printf_string("\ndrift    %" PRIu64
                                  " iterations: first, best, worst and last of each phase "
                                  "(#iteration; interrupted phases left out); drift: the "
                                  "first %zu runs against the last %zu, named only outside "
                                  "the noise\n",
                                  iterations, run::kDriftWindow, run::kDriftWindow);
    t += printf_string("  %-10s %-7s %10s%8s%10s%8s%10s%8s%10s%8s%s\n", "phase", "", "first", "",
                       "best", "", "worst", "", "last", "", "drift");
    auto row = [&](const char* phase, const char* figure, const run::FigureDrift& d,
                   bool higher_better, auto&& text) {
        auto cell = [&](double v, std::uint64_t it) {
            return printf_string("%10s #%-6" PRIu64, text(v).c_str(), it);
        };
        std::string line = printf_string(
            "  %-10s %-7s %s%s%s%s%s", phase, figure, cell(d.first, d.first_iteration).c_str(),
            cell(d.best, d.best_iteration).c_str(), cell(d.worst, d.worst_iteration).c_str(),
            cell(d.last, d.last_iteration).c_str(),
            run::to_string(run::drift_verdict(d, higher_better)).c_str());
        t += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
    };
    for (const auto& d : drift) {
        if (d.iterations == 0) continue;
        const std::string name(run::to_string(d.phase));
        if (d.phase == run::Phase::random)
            row(name.c_str(), "IOPS", d.iops, true, [](double v) { return units::format_iops(v); });
        else
            row(name.c_str(), ru.name, d.bandwidth, true,
                [&](double v) { return printf_string("%.1f", ru.of(v)); });
        row("", "p99 ms", d.p99_ns, false,
            [](double v) { return ms(static_cast<std::uint64_t>(v)); });
    }
    return t;
}

// "turn-up: response p99 turns up at rate 80% (8.1k IOPS): 4.2 ms against
// at most 1.1 ms below it" (or "rate not met").
std::string turn_up_line(const run::SweepResult& sweep) {
    if (sweep.points.empty()) return "turn-up: no points";
    const auto p99 = sweep.response_p99_ns();
    if (!sweep.turn_up)
        return "turn-up: not reached (response p99 within " +
               printf_string("%.0fx", run::SweepResult::kTurnUpFactor) +
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

// "p99 4.10 ms at 812" (one run), "p99 4.10 ms (median of 5, 3.90 ms..4.30 ms,
// within noise) at 812".
std::string probe_text(const run::FindRateResult& fr, const run::FindRateProbe& p) {
    const auto& e = p.verdict.percentile_ns;
    std::string t = units::format_percentile(fr.bound.percentile) + " " + duration_text(e.median);
    if (e.n >= 2)
        t += printf_string(" (median of %zu, ", e.n) + duration_text(e.low) + ".." +
             duration_text(e.high) + (p.verdict.within_noise ? ", within noise)" : ")");
    if (!p.rate_met) t += ", rate not met";
    return t + " at " + rate_text(p.requested_iops);
}

// "find-rate: 812 IOPS meets p99 <= 5 ms (bracket 812..859 IOPS, 7 points;
// p99 4.1 ms at 812)", or that no rate probed meets it.
std::string find_rate_line(const run::FindRateResult& fr) {
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

std::string knee_line(const run::SweepResult& sweep, units::ByteUnits u) {
    if (sweep.param == run::SweepParam::rate) return turn_up_line(sweep);
    const std::string name(run::to_string(sweep.param));
    auto value_text = [&](std::uint64_t v) {
        return sweep.param == run::SweepParam::rand_block ? units::format_size_option(v)
                                                          : std::to_string(v);
    };
    const bool by_bandwidth = sweep.axis() == stats::KneeAxis::bandwidth;
    const units::RateUnit ru = units::rate_unit(u);
    const char* axis = by_bandwidth ? ru.name : "IOPS";
    if (sweep.points.empty()) return "saturation: no points";
    const std::size_t n = sweep.repeats();
    // n = 0: points made without repeats (not by a run): nothing to say.
    const std::string noise = n == 0  ? std::string()
                              : n < 2 ? " (one repeat: no interval)"
                                      : printf_string(" (medians of n=%zu, outside the noise)", n);
    if (sweep.knee_in_noise)
        return printf_string(
            "saturation: by %s, within noise: the medians level off after %s %s, but its p99 "
            "and the next point's overlap over n=%zu repeats",
            axis, name.c_str(), value_text(sweep.points[*sweep.knee_in_noise].value).c_str(), n);
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

TextReport::TextReport(std::FILE* out, std::FILE* live, HostInfo host)
    : out_(out), live_(live), host_(std::move(host)) {}

void TextReport::clear_live() {
    if (live_ && live_shown_) {
        std::fputs("\r\033[K", live_);
        std::fflush(live_);
        live_shown_ = false;
    }
}

namespace {

bool random_on(const run::RunConfig& cfg) {
    return cfg.has_phase(run::Phase::random) &&
           (cfg.rand_ops ? *cfg.rand_ops > 0 : cfg.rand_time_s > 0);
}

// "health   nvme0 (/dev/nvme0): health log before and after each phase" or
// "health   not available: <why>"; with several targets, a line each
// ("health   target 2: ...").  The per-second temperature of a --timeseries
// line is target 1's drive's; each target's share of it has its own.
std::string health_header_lines(const std::vector<run::TargetResult>& targets) {
    std::string out;
    for (std::size_t t = 0; t < targets.size(); ++t) {
        const run::DriveHealth& h = targets[t].health;
        if (!h.available && h.reason.empty()) continue;  // --sync-compare reads none
        out += "health   ";
        if (targets.size() > 1) out += "target " + std::to_string(t + 1) + ": ";
        if (!h.available)
            out += "not available: " + h.reason;
        else
            out += h.controller + " (" + h.device +
                   "): health log before and after each phase, temperature every second";
        out += '\n';
    }
    return out;
}

// "random 70% reads for 10.00 s", "... in rounds of 60 s until steady (window
// 5, at most 25 rounds)", or "random off".
std::string random_workload_text(const run::RunConfig& cfg) {
    if (!random_on(cfg)) return "random off";
    std::string random = "random " + std::to_string(cfg.read_pct) + "% reads ";
    if (cfg.steady_state)
        return random + "in rounds of " + units::format_seconds(cfg.steady_round_s) +
               " until steady (window " + std::to_string(cfg.steady_state->window_rounds) +
               ", at most " + std::to_string(cfg.steady_state->max_rounds) + " rounds)";
    return random + "for " +
           (cfg.rand_ops ? std::to_string(*cfg.rand_ops) + " ops"
                         : units::format_seconds(cfg.rand_time_s));
}

std::string backend_text(const run::BackendInfo& b) {
    std::string backend(io::to_string(b.used));
    if (b.used != io::BackendKind::io_uring)
        return backend + (b.sync_threads
                              ? " [" + std::to_string(b.sync_threads) +
                                    " threads per worker, blocking pread/pwrite]"
                              : std::string(" [single-threaded, blocking pread/pwrite]"));
    std::string flags;
    for (const auto& f : b.uring.setup_flags)
        flags += (flags.empty() ? "" : ",") + f;
    backend += " [" + (flags.empty() ? std::string("no setup flags") : flags);
    if (b.uring.fixed_files) backend += ", registered files";
    if (b.uring.fixed_buffers) backend += ", registered buffers";
    return backend + "]";
}

// "seq-write,seq-read,random,reverify  unit 4 KiB  random 70% reads for 10 s ..."
std::string workload_text(const run::RunConfig& cfg) {
    std::string phases;
    for (auto p : cfg.phases) {
        if (!phases.empty()) phases += ',';
        phases += run::to_string(p);
    }
    const std::string random = random_workload_text(cfg);
    std::string t = phases + "  unit " + units::format_bytes(cfg.rand_block) + "  " + random +
                    "  iterations " +
                    (cfg.iterations ? std::to_string(cfg.iterations) : "until stopped");
    if (cfg.duration_s) t += "  duration " + units::format_seconds(*cfg.duration_s);
    if (cfg.sync != run::SyncMethod::none) {
        t += "  sync " + std::string(run::to_string(cfg.sync));
        if (cfg.sync == run::SyncMethod::fsync || cfg.sync == run::SyncMethod::fdatasync)
            t += " every " + std::to_string(cfg.sync_every) +
                 (cfg.sync_every == 1 ? " write" : " writes");
    }
    if (cfg.batch > 1) t += "  batch " + std::to_string(cfg.batch);
    if (!cfg.verify) t += "  NO VERIFICATION";
    return t;
}

// What --raw-device overwrites, said before the first write lands on it.
void print_previous_contents(std::FILE* out, const std::string& dev, const run::TargetInfo& t) {
    if (t.previous_contents.empty()) {
        std::fprintf(out, "before   %s held no filesystem, swap or partition table signature\n",
                     dev.c_str());
        return;
    }
    std::string held;
    for (const auto& s : t.previous_contents)
        held += (held.empty() ? "" : "; ") + s;
    std::fprintf(out, "before   %s held: %s (overwritten by this run)\n", dev.c_str(),
                 held.c_str());
}

// "ext4 on /dev/sda1"; a filesystem without a device (tmpfs, whose mount
// source is "tmpfs" again) is named once: "tmpfs, in memory".
std::string filesystem_words(const run::TargetInfo& t) {
    const std::string fs = t.filesystem.empty() ? "?" : t.filesystem;
    if (t.device.empty() || t.device == t.filesystem) return t.in_memory ? fs + ", in memory" : fs;
    return fs + " on " + t.device;
}

}  // namespace

void TextReport::print_target(const run::RunConfig& cfg, const run::RunResult& r) {
    const auto& t = r.target;
    std::fprintf(out_, "drivestress %s  %s  kernel %s  %u cpus  generator %s\n",
                 DRIVESTRESS_VERSION, host_.hostname.c_str(), host_.kernel.c_str(), host_.cpus,
                 host_.simd_path.c_str());
    const char* io = r.direct_io ? "O_DIRECT" : "buffered (page cache evicted between phases)";
    if (r.targets.size() > 1) {
        std::fputs(target_header_lines(cfg, r).c_str(), out_);
    } else if (!cfg.raw_device.empty()) {
        std::fprintf(out_, "target   %s (raw device, %s)  %u regions x %s  %s\n",
                     cfg.raw_device.c_str(), units::format_bytes(t.free_bytes).c_str(), cfg.files,
                     units::format_bytes(cfg.file_bytes).c_str(), io);
        print_previous_contents(out_, cfg.raw_device, t);
    } else {
        std::fprintf(out_, "target   %s%s (%s)  %u x %s  %s\n", t.path.c_str(),
                     t.prefix ? " (file-name prefix)" : "", filesystem_words(t).c_str(), cfg.files,
                     units::format_bytes(cfg.file_bytes).c_str(), io);
    }
    if (!r.direct_io_note.empty()) std::fprintf(out_, "note     %s\n", r.direct_io_note.c_str());
    if (cfg.nop)
        std::fprintf(out_,
                     "note     --backend nop: every operation is an io_uring NOP; nothing reaches "
                     "the device and nothing is verified: the figures are the engine's own cost, "
                     "not the drive's\n");
    const std::uint64_t bytes = cfg.file_bytes * cfg.workers();
    if (!r.direct_io && random_on(cfg) && cfg.read_pct > 0 &&
        (host_.memory_bytes == 0 || bytes < host_.memory_bytes))
        std::fprintf(out_,
                     "note     buffered: the files (%s) fit in memory (%s), so random reads of "
                     "what the phase already touched come from the page cache: its IOPS and "
                     "latency are not the drive's\n",
                     units::format_bytes(bytes).c_str(),
                     units::format_bytes(host_.memory_bytes).c_str());
}

void TextReport::print_backend(const run::RunConfig& cfg, const run::RunResult& r) {
    const auto& b = r.backend;
    if (cfg.sync_compare)  // one ring per row, one operation at a time
        std::fprintf(out_, "backend  %s  one operation at a time\n",
                     std::string(io::to_string(b.used)).c_str());
    else
        std::fprintf(out_, "backend  %s%s  qd %u per worker (sequential %u x %s)%s\n",
                     cfg.nop ? "NOP on " : "", backend_text(b).c_str(), b.effective_qd, b.seq_qd,
                     units::format_size_option(cfg.seq_block).c_str(), cpus_text(cfg).c_str());
    if (!b.fallback_reason.empty())
        std::fprintf(out_, "note     io_uring unavailable, using sync: %s\n",
                     b.fallback_reason.c_str());
    for (const auto& n : b.uring.notes)
        std::fprintf(out_, "note     %s\n", n.c_str());
    if (!cfg.sync_compare && !cfg.sweep && b.effective_qd < cfg.qd)
        std::fprintf(out_,
                     "note     --qd %u limited to %u per worker: at most half of a file's %s "
                     "units are in flight, so picking a free one stays cheap\n",
                     cfg.qd, b.effective_qd,
                     std::to_string(cfg.file_bytes / cfg.rand_block).c_str());
}

// The workload, the seed, what CPU % means and --keep's state file.
void TextReport::print_workload(const run::RunConfig& cfg, const run::RunResult& r) {
    if (cfg.sync_compare)
        std::fprintf(out_,
                     "workload sync-compare: every method at 4K, 8K, 16K writes, %s a row, "
                     "every write read back\n",
                     cfg.sync_compare_row_ops
                         ? (std::to_string(*cfg.sync_compare_row_ops) + " writes").c_str()
                         : units::format_seconds(cfg.sync_compare_row_s).c_str());
    else
        std::fprintf(out_, "workload %s\n", workload_text(cfg).c_str());
    std::fprintf(out_, "seed     %" PRIu64 "  (reproduce with --seed %" PRIu64 ")\n", r.seed,
                 r.seed);
    if (!cfg.sync_compare)  // (its table has no CPU figures)
        std::fprintf(out_, "cpu      usr/sys %% are of one core (%u cpus: up to %u%%)\n",
                     host_.cpus, 100 * host_.cpus);
    std::fputs(health_header_lines(r.targets).c_str(), out_);
    if (!r.state_path.empty())
        std::fprintf(out_,
                     "state    %s  (--keep: files stay; after a power cut run "
                     "drivestress --verify-only %s)\n",
                     r.state_path.c_str(), r.state_path.c_str());
}

void TextReport::started(const run::RunConfig& cfg, const run::RunResult& r) {
    thresholds_s_ = cfg.latency_thresholds_s;
    verify_ = cfg.verify;
    nop_ = cfg.nop;
    interval_s_ = cfg.interval_s;
    several_targets_ = r.targets.size() > 1;
    if (layout_ == Layout::brief || (layout_ == Layout::preset_test && !header_)) return;
    if (!section_.empty()) {  // a comparison: the common header once, then this run's section
        if (section_header_) {
            print_target(cfg, r);
            print_workload(cfg, r);
            if (!section_intro_.empty()) std::fprintf(out_, "%s\n", section_intro_.c_str());
        }
        std::fprintf(out_, "\n=== %s ===\n", section_.c_str());
        print_backend(cfg, r);
    } else {
        print_target(cfg, r);
        if (layout_ != Layout::preset_test) {  // each test's settings are in its label
            print_backend(cfg, r);
            print_workload(cfg, r);
        }
    }
    std::fflush(out_);
}

// The rate over the last second of snapshots (the phase's average until a
// second has passed), so a stall shows at once in a long phase.
TextReport::Rates TextReport::recent_rates(const run::ProgressSnapshot& s) {
    if (!recent_.empty() && (recent_.back().elapsed_s > s.elapsed_s || recent_phase_ != s.phase ||
                             recent_iteration_ != s.iteration))
        recent_.clear();
    recent_phase_ = s.phase;
    recent_iteration_ = s.iteration;
    recent_.push_back(s);
    while (recent_.size() > 2 && s.elapsed_s - recent_[1].elapsed_s >= 1.0)
        recent_.pop_front();
    const run::ProgressSnapshot& from = recent_.front();
    Rates r;
    double dt = s.elapsed_s - from.elapsed_s;
    if (dt >= 0.5)
        r = {static_cast<double>(s.bytes - from.bytes) / dt,
             static_cast<double>(s.ops - from.ops) / dt};
    else if (s.elapsed_s > 0)  // the phase's first half second
        r = {static_cast<double>(s.bytes) / s.elapsed_s, static_cast<double>(s.ops) / s.elapsed_s};
    return r;
}

void TextReport::progress(const run::ProgressSnapshot& s) {
    if (!live_) return;
    const Rates now = recent_rates(s);
    const double avg_bytes = s.elapsed_s > 0 ? s.bytes / s.elapsed_s : 0;
    const double avg_ops = s.elapsed_s > 0 ? s.ops / s.elapsed_s : 0;
    const bool random = s.phase == run::Phase::random;
    std::string head = printf_string("[iteration %" PRIu64 "] %-9s", s.iteration,
                                     std::string(run::to_string(s.phase)).c_str());
    if (s.fraction_done >= 0)
        head += printf_string(" %3.0f%%", 100 * std::min(1.0, s.fraction_done));
    const std::string mib = units::format_bandwidth(now.bytes_per_sec, units_);
    const std::string avg =
        random ? units::format_iops(avg_ops) + " IOPS" : units::format_bandwidth(avg_bytes, units_);
    // Fields by rank: what an 80-column terminal cannot hold goes first
    // (report/progress_line.h states the order).
    std::vector<ProgressField> fields{{head}};
    if (random) {
        fields.push_back({"last 1 s: " + units::format_iops(now.ops_per_sec) + " IOPS"});
        fields.push_back({mib, kRandomBandwidth});
    } else {
        fields.push_back({"last 1 s: " + mib});
    }
    if (last_second_p99_ns_) fields.push_back({"p99 " + ms(last_second_p99_ns_) + " ms", kLastP99});
    fields.push_back({"(avg " + avg + ")", kAverage});
    fields.push_back({printf_string("mismatches %" PRIu64, live_mismatches_),
                      live_mismatches_ ? kKeep : kZeroMismatches});
    fields.push_back({printf_string("%.1f s", s.elapsed_s), kElapsed});
    // One column short of the width: a line filling the last column wraps
    // on some terminals.
    const std::size_t cols = terminal_columns(::fileno(live_));
    std::fprintf(live_, "\r\033[K%s", fit_progress_line(fields, cols ? cols - 1 : 0).c_str());
    std::fflush(live_);
    live_shown_ = true;
}

void TextReport::interval_done(std::uint64_t, run::Phase, std::uint64_t,
                               const run::IntervalStats& s, double interval_s,
                               std::uint64_t mismatches_so_far) {
    // Only whole intervals (a second unless --interval) stand for "the last one".
    if (interval_s >= 0.999 * interval_s_ && s.read_ops + s.write_ops > 0)
        last_second_p99_ns_ = s.latency().value_at_percentile(99);
    live_mismatches_ = mismatches_so_far;
}

// Foreign load only: kernel threads carrying out the run's I/O are its own
// figure (report/figures.h), not noise.
std::string host_busy_line(const run::PhaseResult& p) {
    std::string line = printf_string(
        "  host busy: %.0f %% steal, %.0f %% other processes during %s", p.host.steal_pct(),
        p.host.foreign_pct(), std::string(run::to_string(p.phase)).c_str());
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    for (std::size_t i = 0; i < p.host.top_foreign.size(); ++i) {
        const auto& f = p.host.top_foreign[i];
        line += printf_string("%s %s pid %d %.2f cores", i ? "," : " (top:", f.comm.c_str(), f.pid,
                              f.cpu_s / s);
    }
    if (!p.host.top_foreign.empty()) line += ")";
    return line + "; figures may not repeat";
}

void TextReport::phase_done(std::uint64_t iteration, const run::PhaseResult& p) {
    clear_live();
    last_second_p99_ns_ = 0;
    if (layout_ != Layout::full) return;
    if (header_iteration_ != iteration) {
        std::fprintf(out_, "\niteration %" PRIu64 "\n", iteration);
        header_iteration_ = iteration;
    }
    std::fprintf(out_, "%s\n", phase_line(p, thresholds_s_, units_).c_str());
    if (sys::busy(p.host)) std::fprintf(out_, "%s\n", host_busy_line(p).c_str());
    std::fflush(out_);
}

std::string steady_state_line(const run::SteadyStateResult& r) {
    const std::size_t n = r.round_iops.size();
    char round_buf[32];
    std::snprintf(round_buf, sizeof round_buf, "%g s", r.round_s);
    const std::string round = round_buf;
    std::string head;
    if (r.status == stats::SteadyStateStatus::attained)
        head = "attained at round " + std::to_string(n) + " of " + round;
    else if (r.status == stats::SteadyStateStatus::max_rounds_reached)
        head = "not attained in " + std::to_string(n) + " rounds of " + round;
    else
        head = "no verdict: interrupted after " + std::to_string(n) + " rounds of " + round;
    if (!r.window)
        return "steady state: " + head + " (fewer rounds than the window of " +
               std::to_string(r.rule.window_rounds) + ")";
    const auto& w = *r.window;
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  " (rounds %zu-%zu): mean %.0f IOPS, range %.1f %% (max %g), slope excursion "
                  "%.1f %% (max %g)",
                  w.first + 1, w.last + 1, w.mean, w.range_pct, r.rule.max_range_pct,
                  w.excursion_pct, r.rule.max_excursion_pct);
    return "steady state: " + head + buf;
}

void TextReport::steady_state_done(const run::SteadyStateResult& r) {
    clear_live();
    std::fprintf(out_, "%s\n", steady_state_line(r).c_str());
    std::fflush(out_);
}

namespace {

std::string cliff_step_text(const stats::CliffStep& st, const units::RateUnit& ru) {
    char buf[160];
    std::snprintf(buf, sizeof buf, " after %s: %.0f -> %.0f %s (-%.0f%%)",
                  units::format_bytes(st.bytes_before).c_str(), ru.of(st.before_bytes_per_s),
                  ru.of(st.after_bytes_per_s), ru.name, st.drop_pct);
    return buf;
}

std::string recovery_line(const run::SustainedWriteResult& r, const units::RateUnit& ru) {
    const auto& rec = *r.recovery;
    char buf[200];
    std::snprintf(buf, sizeof buf, "  after %g s idle: %.0f %s, %.0f %% of the drop recovered",
                  rec.idle_seconds, ru.of(rec.bytes_per_s), ru.name, rec.recovered_pct);
    std::string out = buf;
    if (rec.bytes_to_cliff)
        out += "; the cliff came back after " + units::format_bytes(*rec.bytes_to_cliff);
    else
        out += "; no cliff within " + units::format_bytes(rec.segment_bytes);
    return out + "\n";
}

}  // namespace

std::string write_cliff_lines(const run::SustainedWriteResult& r, units::ByteUnits u) {
    const auto& c = r.cliff;
    const units::RateUnit ru = units::rate_unit(u);
    char interval[32];
    std::snprintf(interval, sizeof interval, "%g s", r.interval_s);
    if (!c.long_enough)
        return "write cliff: no verdict: " + std::to_string(c.intervals) +
               (c.intervals == 1 ? " interval of " : " intervals of ") + interval + ", " +
               std::to_string(2 * r.rule.min_level_intervals) +
               " needed (more --sustained-write passes or a shorter --cliff-interval)\n";
    if (c.steps.empty())
        return "no write cliff within " + units::format_bytes(c.total_bytes) + " (" +
               std::to_string(c.intervals) +
               (c.intervals == 1 ? " interval of " : " intervals of ") + interval + ")\n";
    std::string out = "write cliff" + cliff_step_text(c.steps[0], ru) + "\n";
    for (std::size_t i = 1; i < c.steps.size(); ++i)
        out += "  next step" + cliff_step_text(c.steps[i], ru) + "\n";
    if (r.recovery) out += recovery_line(r, ru);
    return out;
}

void TextReport::sustained_write_done(const run::SustainedWriteResult& r) {
    clear_live();
    std::fprintf(out_, "%s", write_cliff_lines(r, units_).c_str());
    std::fflush(out_);
}

std::string phase_health_line(const run::PhaseHealth& h, units::ByteUnits u, bool several_targets) {
    const std::string label =
        several_targets ? "  health target " + std::to_string(h.target + 1) + ":" : "  health:";
    if (!h.unreadable.empty()) return label + " not read: " + h.unreadable;
    if (!h.change) return label + " not read";
    const auto& c = *h.change;
    if (!c.comparable)
        return label + " readings not comparable (a lifetime counter went down: another drive?)";
    std::string out = label;
    for (const auto& f : c.findings)
        out += printf_string(" %s %" PRIu64 " -> %" PRIu64 "%s;",
                             std::string(nvme::finding_name(f.kind)).c_str(), f.before, f.after,
                             nvme::is_damage(f.kind) ? " (DAMAGE)" : "");
    const units::RateUnit ru = units::rate_unit(u);
    if (h.thermal == nvme::ThermalVerdict::thermal_throttling)
        out +=
            printf_string(" thermal throttling: %.0f -> %.0f %s;", ru.of(h.reference_bytes_per_s),
                          ru.of(h.observed_bytes_per_s), ru.name);
    else if (h.thermal == nvme::ThermalVerdict::throttled_without_loss)
        out += " throttle counters rose, throughput held;";
    if (c.findings.empty() && h.thermal == nvme::ThermalVerdict::none) out += " no change;";
    out.pop_back();
    return out + printf_string("  (%.1f MB written per the drive)",
                               static_cast<double>(c.delta.data_units_written) * 512000 / 1e6);
}

void TextReport::phase_health_done(const run::PhaseHealth& h) {
    clear_live();
    std::fprintf(out_, "%s\n", phase_health_line(h, units_, several_targets_).c_str());
    std::fflush(out_);
}

void TextReport::iteration_done(const run::IterationResult& it) {
    std::uint64_t n = 0;
    for (const auto& p : it.phases)
        n += p.mismatches;
    mismatches_seen_ += n;
    if (layout_ != Layout::full) return;
    if (!verify_ && n == 0)
        std::fprintf(out_, "  mismatches not counted: nothing verified (%s)\n",
                     nop_ ? "--backend nop" : "--no-verify");
    else if (n == 0)
        std::fprintf(out_, "  mismatches 0\n");
    else  // observations: a damaged unit read by two phases counts twice
        std::fprintf(out_, "  mismatches %" PRIu64 " (reads that found a wrong unit)\n", n);
    std::fflush(out_);
}

// --sweep rate: one row per rate, response time beside service time.
std::string rate_sweep_row(const run::RunConfig& cfg, const run::SweepPoint& point, bool first) {
    std::string out;
    if (first) {
        out = printf_string("\nsweep rate: random phase open-loop, %u%% reads, ", cfg.read_pct);
        out += cfg.rand_ops ? std::to_string(*cfg.rand_ops) + " ops"
                            : units::format_seconds(cfg.rand_time_s);
        out += " per point, verified; response = completion - due, service = completion - submit\n";
        out += printf_string("  %10s %9s %9s %7s %11s %10s %10s %11s  %s\n", "rate", "requested",
                             "IOPS", "late%", "service p99", "resp p50", "resp p99", "resp p99.9",
                             "ms");
    }
    const auto& p = point.random;
    const auto& r = p.counters.response_latency;
    const std::uint64_t ops = p.counters.read_ops + p.counters.write_ops;
    const std::string value = point.value == 0 ? std::string("closed")
                              : cfg.sweep->percent
                                  ? std::to_string(point.value) + "%"
                                  : units::format_iops(static_cast<double>(point.value));
    out += printf_string(
        "  %10s %9s %9s %7.2f %11s %10s %10s %11s", value.c_str(),
        p.requested_rate > 0 ? units::format_iops(p.requested_rate).c_str() : "-",
        units::format_iops(p.iops()).c_str(),
        ops ? 100.0 * static_cast<double>(p.counters.late_ops) / static_cast<double>(ops) : 0.0,
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

void TextReport::sweep_point_done(const run::RunConfig& cfg, const run::SweepPoint& point) {
    clear_live();
    last_second_p99_ns_ = 0;
    if (layout_ != Layout::full) return;
    if (cfg.sweep->param == run::SweepParam::rate) {
        std::fputs(rate_sweep_row(cfg, point, sweep_rows_++ == 0).c_str(), out_);
        std::fflush(out_);
        return;
    }
    const std::string name(run::to_string(cfg.sweep->param));
    if (sweep_rows_++ == 0) {
        std::string head =
            printf_string("\nsweep %s: random phase, %u%% reads, ", name.c_str(), cfg.read_pct);
        head += cfg.rand_ops ? std::to_string(*cfg.rand_ops) + " ops"
                             : units::format_seconds(cfg.rand_time_s);
        head += " per point, verified\n";
        std::fputs(head.c_str(), out_);
        std::string cols =
            printf_string("  %10s %9s %9s %9s %9s %9s %9s %9s %5s %5s %12s", name.c_str(), "IOPS",
                          units::rate_unit(units_).name, "mean ms", "p50 ms", "p99 ms", "p99.9 ms",
                          "max ms", "usr%", "sys%", "IOPS/cpu-s");
        for (double t : cfg.latency_thresholds_s)
            cols += printf_string(" %8s", std::string(">").append(threshold_name(t)).c_str());
        std::fprintf(out_, "%s\n", cols.c_str());
    }
    const auto& p = point.random;
    const auto all = p.latency();
    const double s = p.seconds > 0 ? p.seconds : 1e-9;
    const double cpu_s = p.cpu.user_s + p.cpu.system_s;
    std::string value = cfg.sweep->param == run::SweepParam::rand_block
                            ? units::format_size_option(point.value)
                            : std::to_string(point.value);
    std::string row = printf_string(
        "  %10s %9s %9.1f %9s %9s %9s %9s %9s %5.0f %5.0f %12s", value.c_str(),
        units::format_iops(p.iops()).c_str(), units::rate_unit(units_).of(p.bytes_per_sec()),
        ms(static_cast<std::uint64_t>(all.mean())).c_str(), ms(all.value_at_percentile(50)).c_str(),
        ms(all.value_at_percentile(99)).c_str(), ms(all.value_at_percentile(99.9)).c_str(),
        ms(all.max()).c_str(), 100 * p.cpu.user_s / s, 100 * p.cpu.system_s / s,
        cpu_s > 0 ? units::format_iops(p.iops() * p.seconds / cpu_s).c_str() : "-");
    for (double t : cfg.latency_thresholds_s) {
        std::uint64_t slower = all.count_above(run::seconds_to_ns(t));
        row += printf_string(" %7.3f%%", all.count() ? 100.0 * slower / all.count() : 0.0);
    }
    if (p.counters.mismatch_total())
        row += printf_string("  MISMATCHES %" PRIu64, p.counters.mismatch_total());
    if (p.interrupted) row += "  (interrupted)";
    std::fprintf(out_, "%s\n", row.c_str());
    std::fflush(out_);
}

std::string sync_compare_table(const run::SyncCompareResult& sc) {
    std::string t = printf_string(
        "\nsync-compare  %s, one durable write at a time (the write, then its flush); "
        "osync/dsync: file opened O_SYNC/O_DSYNC\n",
        sc.direct_io ? "O_DIRECT" : "buffered");
    t += printf_string("  %-10s %-6s %10s %9s %9s %9s  %s\n", "method", "write", "ops/s", "p50 ms",
                       "p99 ms", "max ms", "read back");
    bool groups = false;
    for (const auto& row : sc.rows) {
        if (row.group && !groups) {
            groups = true;
            t += "  O_SYNC, 16K per durable operation written as:\n";
        }
        std::string write = units::format_size_option(row.write_bytes);
        if (row.group) write = std::to_string(row.writes_per_op) + "x" + write;
        const std::string method(run::to_string(row.method));
        if (!row.available) {
            t += printf_string("  %-10s %-6s %10s  %s\n", method.c_str(), write.c_str(), "n/a",
                               row.reason.c_str());
            continue;
        }
        const auto& l = row.latency;
        t += printf_string("  %-10s %-6s %10.1f %9s %9s %9s  %s\n", method.c_str(), write.c_str(),
                           row.ops_per_sec(), ms(l.value_at_percentile(50)).c_str(),
                           ms(l.value_at_percentile(99)).c_str(), ms(l.max()).c_str(),
                           row.mismatches
                               ? printf_string("%" PRIu64 " MISMATCHES", row.mismatches).c_str()
                               : ("ok, " + units::format_bytes(row.verified_bytes)).c_str());
    }
    if (sc.interrupted) t += "  (interrupted)\n";
    return t;
}

namespace {

// The damage in extents: what a person judges the drive by.
void print_damage(std::FILE* out, const run::RunResult& r) {
    if (r.damage.empty()) return;
    std::size_t extents = 0;
    for (const auto& d : r.damage)
        extents += d.extents.size();
    std::fprintf(out,
                 "\ndamage   %" PRIu64
                 " distinct unit%s in %zu extent%s (each extent: offset, "
                 "length, class, reads that saw it)\n",
                 r.damaged_units(), r.damaged_units() == 1 ? "" : "s", extents,
                 extents == 1 ? "" : "s");
    constexpr std::size_t kShown = 20;  // per file; the JSON has them all
    for (const auto& d : r.damage) {
        if (d.truncated_to_bytes)
            std::fprintf(
                out, "  %s: truncated during the run: %" PRIu64 " bytes, should be %" PRIu64 "\n",
                d.path.c_str(), *d.truncated_to_bytes, d.expected_bytes);
        for (std::size_t i = 0; i < d.extents.size() && i < kShown; ++i) {
            const auto& e = d.extents[i];
            std::fprintf(out, "  %s offset %" PRIu64 " +%s %s, %" PRIu64 " read%s\n",
                         d.path.c_str(), e.offset, units::format_bytes(e.length).c_str(),
                         std::string(pattern::to_string(e.cls)).c_str(), e.reads,
                         e.reads == 1 ? "" : "s");
        }
        if (d.extents.size() > kShown)
            std::fprintf(out, "  %s: %zu more extents (in the JSON document)\n", d.path.c_str(),
                         d.extents.size() - kShown);
        if (d.unmerged_observations)
            std::fprintf(out, "  %s: %" PRIu64 " more observations beyond %zu extents per class\n",
                         d.path.c_str(), d.unmerged_observations, run::DamageMap::kMaxExtents);
    }
}

}  // namespace

namespace {

// The first mismatch records: file, offset, class and what the header says.
void print_mismatch_records(std::FILE* out, const run::RunResult& r) {
    if (r.mismatch_records.empty()) return;
    std::fprintf(out, "\nmismatches (first %zu of %" PRIu64 ")\n", r.mismatch_records.size(),
                 r.mismatch_count());
    for (const auto& m : r.mismatch_records) {
        std::string what(pattern::to_string(m.cls));
        std::string detail;
        if (m.cls == pattern::MismatchClass::io_error)
            detail = printf_string("%s failed: %s", std::string(io::to_string(m.op)).c_str(),
                                   std::strerror(m.error));
        else if (m.cls == pattern::MismatchClass::short_read)
            detail = "read returned end of file";
        else
            detail = printf_string("%" PRIu64 " %s, expected generation %u", m.bad_bytes,
                                   m.bad_bytes == 1 ? "byte differs" : "bytes differ",
                                   m.expected_generation);
        if (m.found && m.cls != pattern::MismatchClass::io_error)
            detail += printf_string("; header says file %u offset %" PRIu64 " generation %u%s",
                                    m.found->file_index, m.found->offset, m.found->generation,
                                    m.found->run_id == r.run_id ? "" : " of another run");
        std::fprintf(out,
                     "  %s offset %" PRIu64 " (unit at %" PRIu64 "): %s [%s, iteration %" PRIu64
                     "] %s\n",
                     m.path.c_str(), m.offset, m.unit_offset, what.c_str(),
                     std::string(run::to_string(m.phase)).c_str(), m.iteration, detail.c_str());
    }
}

// "summary  1.7 GiB written, 3.7 GiB read, 3.7 GiB verified in 13.05 s; 0 mismatches".
std::string summary_line(const run::RunConfig& cfg, const run::RunResult& r) {
    const auto totals = r.totals();
    std::string classes;
    for (std::size_t i = 0; i < r.mismatch_totals.size(); ++i)
        if (r.mismatch_totals[i])
            classes += printf_string(
                " %s=%" PRIu64,
                std::string(pattern::to_string(static_cast<pattern::MismatchClass>(i))).c_str(),
                r.mismatch_totals[i]);
    std::string line = "summary  " + units::format_bytes(totals.written) + " written, " +
                       units::format_bytes(totals.read) + " read, ";
    if (!cfg.verify && totals.verified == 0)
        return line + printf_string("not verified (%s) in %.2f s",
                                    cfg.nop ? "--backend nop: no data moved" : "--no-verify",
                                    r.wall_seconds);
    line += units::format_bytes(totals.verified) +
            printf_string(" verified in %.2f s; %" PRIu64 " mismatch%s", r.wall_seconds,
                          r.mismatch_count(), r.mismatch_count() == 1 ? "" : "es");
    if (!classes.empty()) line += " (" + classes.substr(1) + ")";
    // Mismatches count observations (a unit read by two phases counts
    // twice); the damaged units are what the drive lost.
    if (r.mismatch_count())
        line += printf_string(" in %" PRIu64 " damaged unit%s", r.damaged_units(),
                              r.damaged_units() == 1 ? "" : "s");
    return line;
}

std::string verdict_text(const run::RunConfig& cfg, const run::RunResult& r, run::ExitStatus code,
                         const std::string& why) {
    return run::verdict_words(run::run_evidence(cfg, r, code, why));
}

}  // namespace

void TextReport::finish(const run::RunConfig& cfg, const run::RunResult& r, run::ExitStatus code,
                        const std::string& why) {
    clear_live();
    // A sweep's random figures are its points: the saturation line stands
    // for them in --brief too.
    if (r.find_rate)
        std::fprintf(out_, "%s\n", find_rate_line(*r.find_rate).c_str());
    else if (layout_ != Layout::preset_test && !r.sweep.points.empty())
        std::fprintf(out_, "%s\n", knee_line(r.sweep, units_).c_str());
    if (layout_ == Layout::full) {
        if (r.sync_compare) std::fputs(sync_compare_table(*r.sync_compare).c_str(), out_);
        std::fputs(drift_table(r.drift, r.iterations_run, units_).c_str(), out_);
    }
    // What went wrong is shown whatever the layout.
    print_mismatch_records(out_, r);
    print_damage(out_, r);
    if (layout_ != Layout::preset_test)
        std::fputs(target_table(cfg, r, code, units_).c_str(), out_);
    const std::string verdict = verdict_text(cfg, r, code, why);
    if (layout_ == Layout::preset_test) {
        if (!label_.empty())
            std::fprintf(out_, "  %-20s %s (%.2f s)\n", label_.c_str(), verdict.c_str(),
                         r.wall_seconds);
        std::fflush(out_);
        return;
    }
    if (layout_ == Layout::full) std::fprintf(out_, "\n%s\n", summary_line(cfg, r).c_str());
    if (!r.state_path.empty())
        std::fprintf(out_, "kept     %zu file%s and %s (delete them when done)\n",
                     r.file_paths.size(), r.file_paths.size() == 1 ? "" : "s",
                     r.state_path.c_str());
    if (!section_.empty() || whole_preset_) {  // one verdict for all the runs follows
        std::fflush(out_);
        return;
    }
    if (!r.merged_phases.empty()) std::fprintf(out_, "%s\n", result_line(cfg, r, units_).c_str());
    std::fprintf(out_, "result   %s (exit %d)\n", verdict.c_str(), run::code_of(code));
    std::fflush(out_);
}

}  // namespace ds::report
