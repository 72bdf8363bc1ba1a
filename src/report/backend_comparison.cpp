#include "report/backend_comparison.h"

#include <algorithm>
#include <cstdio>

#include "report/comparison_parts.h"
#include "report/text_width.h"
#include "stats/crossover.h"

namespace ds::report {

const ComparedPhase* find_phase(const ComparedRow& r, model::Phase p) {
    for (const auto& ph : r.phases)
        if (ph.phase == p) return &ph;
    return nullptr;
}

double ratio(double a, double b) {
    return b > 0 ? a / b : 0.0;
}

bool by_iops(model::Phase p) {
    return p == model::Phase::random;
}

namespace {

double per_op(double x, std::uint64_t ops) {
    return ops ? x / static_cast<double>(ops) : 0.0;
}

// " 1.40x"
std::string times(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.2fx", x);
    return buf;
}

}  // namespace

ComparedPhase compared_phase(const model::PhaseResult& p, unsigned in_flight) {
    ComparedPhase c;
    c.phase = p.phase;
    c.in_flight = in_flight;
    const auto& k = p.counters;
    c.ops = k.read_ops + k.write_ops + k.flush_ops;
    c.iops = p.iops();
    c.bytes_per_sec = p.bytes_per_sec();
    const auto lat = p.latency();
    c.p50_ns = lat.value_at_percentile(50);
    c.p99_ns = lat.value_at_percentile(99);
    c.p999_ns = lat.value_at_percentile(99.9);
    c.user_ns_per_op = per_op(p.cpu.user_s * 1e9, c.ops);
    c.system_ns_per_op = per_op(p.cpu.system_s * 1e9, c.ops);
    c.context_switches_per_op = per_op(static_cast<double>(p.cpu.context_switches), c.ops);
    c.system_calls_per_op = per_op(static_cast<double>(k.system_calls), c.ops);
    c.too_short = p.too_short();
    return c;
}

namespace {

// One repeat: the phase's own intervals (its slices) stand for the noise.
void add_within_run(ComparedPhase& cp, const model::PhaseResult& p) {
    if (cp.iops_repeats.n >= 2) return;
    cp.iops_repeats = p.series_estimate(true);
    cp.bandwidth_repeats = p.series_estimate(false);
    cp.within_run = true;
}

// --repeat: phase `cp.phase`'s IOPS and bandwidth over the run's repeats;
// with two or more, the medians stand for the figures.
void add_repeats(ComparedPhase& cp, const model::ComparedRun& run) {
    std::vector<double> iops, bw;
    for (const auto& r : run.repeats)
        for (const auto& p : r.merged_phases)
            if (p.phase == cp.phase) {
                iops.push_back(p.iops());
                bw.push_back(p.bytes_per_sec());
            }
    cp.iops_repeats = stats::estimate(iops);
    cp.bandwidth_repeats = stats::estimate(bw);
    if (cp.iops_repeats.n < 2) return;
    cp.iops = cp.iops_repeats.median;
    cp.bytes_per_sec = cp.bandwidth_repeats.median;
}

// The same for sweep point i (of value `value`) of the run's repeats.
void add_point_repeats(ComparedPhase& cp, const model::ComparedRun& run, std::size_t i,
                       std::uint64_t value) {
    std::vector<double> iops, bw;
    for (const auto& r : run.repeats)
        if (i < r.sweep.points.size() && r.sweep.points[i].value == value) {
            iops.push_back(r.sweep.points[i].random.iops());
            bw.push_back(r.sweep.points[i].random.bytes_per_sec());
        }
    cp.iops_repeats = stats::estimate(iops);
    cp.bandwidth_repeats = stats::estimate(bw);
    if (cp.iops_repeats.n < 2) return;
    cp.iops = cp.iops_repeats.median;
    cp.bytes_per_sec = cp.bandwidth_repeats.median;
}

}  // namespace

std::vector<ComparedRow> compared_rows(const model::BackendComparison& c) {
    std::vector<ComparedRow> rows;
    for (const auto& run : c.runs) {
        if (!run.ran) continue;
        const auto& b = run.result.backend;
        ComparedRow row{run.label,         b.used, run.config.files, b.effective_qd, b.sync_threads,
                        run.config.sqpoll, {}};
        for (const auto& p : run.result.merged_phases) {
            const unsigned depth = p.phase == model::Phase::random ? b.effective_qd : b.seq_qd;
            row.phases.push_back(compared_phase(p, depth * p.workers));
            add_repeats(row.phases.back(), run);
            add_within_run(row.phases.back(), p);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

ComparedSweep compared_sweep(const model::BackendComparison& c) {
    ComparedSweep s;
    if (c.runs.size() < 2 || !c.runs[1].ran) return s;
    const auto& a = c.runs[0].result.sweep.points;
    const auto& b = c.runs[1].result.sweep.points;
    std::vector<double> ia, ib;
    std::vector<stats::Estimate> ea, eb;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (a[i].value != b[i].value) break;
        const unsigned workers = a[i].random.workers;
        // A qd sweep's value is the depth; --compare-atomic sweeps the size.
        const auto depth = static_cast<unsigned>(c.atomic ? c.runs[0].config.qd : a[i].value);
        s.points.push_back({a[i].value, compared_phase(a[i].random, depth * workers),
                            compared_phase(b[i].random, depth * b[i].random.workers)});
        add_point_repeats(s.points.back().uring, c.runs[0], i, a[i].value);
        add_point_repeats(s.points.back().sync, c.runs[1], i, a[i].value);
        add_within_run(s.points.back().uring, a[i].random);
        add_within_run(s.points.back().sync, b[i].random);
        ia.push_back(a[i].random.iops());
        ib.push_back(b[i].random.iops());
        ea.push_back(s.points.back().uring.iops_repeats);
        eb.push_back(s.points.back().sync.iops_repeats);
    }
    s.repeats = c.repeat;
    s.judged = !ea.empty();
    for (std::size_t i = 0; i < ea.size(); ++i) {
        s.judged = s.judged && std::min(ea[i].n, eb[i].n) >= 2;
        s.within_run = s.within_run || s.points[i].uring.within_run || s.points[i].sync.within_run;
    }
    if (s.judged) {
        s.noisy = stats::find_crossover(ea, eb, s.margin_pct);
        s.crossover = s.noisy.index;
    } else {
        s.crossover = stats::find_crossover(ia, ib, s.margin_pct);
    }
    return s;
}

std::string ComparedSweep::verdict() const {
    if (crossover) return "named";
    if (judged && !noisy.any_lead && !noisy.any_loss) return "within_noise";
    return "never";
}

std::string more_is_better(const std::string& what, double a, const std::string& a_name, double b,
                           const std::string& b_name) {
    if (a <= 0 || b <= 0) return what + " not comparable (no operations)";
    return a >= b ? a_name + times(a / b) + " the " + what : b_name + times(b / a) + " the " + what;
}

std::string less_is_better(const std::string& what, double a, const std::string& a_name, double b,
                           const std::string& b_name) {
    if (a <= 0 && b <= 0) return what + " none on either";
    if (a <= 0 || b <= 0) return what + (a <= 0 ? " none on " + a_name : " none on " + b_name);
    if (std::max(a, b) / std::min(a, b) < 1.005) return what + " the same on both";
    return a <= b ? what + times(b / a) + " lower on " + a_name
                  : what + times(a / b) + " lower on " + b_name;
}

namespace {

std::string in_flight_text(const ComparedRow& r) {
    std::string t = std::to_string(r.workers) + (r.workers == 1 ? " worker x " : " workers x ");
    if (io::backend_flags(r.backend) & io::kBlockingCalls)
        return t + (r.sync_threads ? std::to_string(r.sync_threads) + " threads"
                                   : std::string("1, single-threaded"));
    return t + "qd " + std::to_string(r.qd_per_worker);
}

std::string figures_line(const std::string& phase, const ComparedRow& row, const ComparedPhase& p,
                         units::ByteUnits u) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "  %-9s %-15s %6u %8.0f %8.1f %6.3f %6.3f %6.3f %6.2f %6.2f %5.2f %5.2f\n",
                  phase.c_str(), row.label.c_str(), p.in_flight, p.iops,
                  units::rate_unit(u).of(p.bytes_per_sec), p.p50_ns / 1e6, p.p99_ns / 1e6,
                  p.p999_ns / 1e6, p.user_ns_per_op / 1e3, p.system_ns_per_op / 1e3,
                  p.context_switches_per_op, p.system_calls_per_op);
    return line;
}

// "io_uring 1.40x the IOPS, p99 2.10x lower on io_uring, ..."
std::string ratio_words(const ComparedPhase& a, const std::string& an, const ComparedPhase& b,
                        const std::string& bn, units::ByteUnits u) {
    std::string t = by_iops(a.phase) ? more_is_better("IOPS", a.iops, an, b.iops, bn)
                                     : more_is_better(units::rate_unit(u).name, a.bytes_per_sec, an,
                                                      b.bytes_per_sec, bn);
    t += ", " + less_is_better("p50", a.p50_ns, an, b.p50_ns, bn);
    t += ", " + less_is_better("p99", a.p99_ns, an, b.p99_ns, bn);
    t += ", " + less_is_better("CPU/op", a.user_ns_per_op + a.system_ns_per_op, an,
                               b.user_ns_per_op + b.system_ns_per_op, bn);
    t += ", " + less_is_better("context switches/op", a.context_switches_per_op, an,
                               b.context_switches_per_op, bn);
    t += ", " + less_is_better("syscalls/op", a.system_calls_per_op, an, b.system_calls_per_op, bn);
    return t;
}

// `what`: "backends", "atomic and plain".
std::string figures_table(const std::vector<ComparedRow>& rows, std::size_t iterations,
                          const std::string& what, units::ByteUnits u) {
    std::string out = "\n" + what + " compared (" +
                      (iterations > 1 ? std::to_string(iterations) + " iterations merged"
                                      : std::string("iteration 1")) +
                      "; flight: operations in flight over all workers; latency in ms; CPU in "
                      "us per operation (usr, sys), context switches (csw) and system calls "
                      "per operation, of the whole process)";
    out = std::string("\n").append(fit(out.substr(1), 9)).append("\n");
    char line[320];
    std::snprintf(line, sizeof line, "  %-9s %-15s %6s %8s %8s %6s %6s %6s %6s %6s %5s %5s\n",
                  "phase", "run", "flight", "IOPS", units::rate_unit(u).name, "p50", "p99", "p99.9",
                  "usr", "sys", "csw", "calls");
    out += line;
    for (model::Phase p : model::kAllPhases)
        for (const auto& row : rows)
            if (const auto* f = find_phase(row, p))
                out += figures_line(std::string(model::to_string(p)), row, *f, u);
    return out;
}

std::string noisy_ratio_words(const ComparedPhase& a, const std::string& an, const ComparedPhase& b,
                              const std::string& bn, units::ByteUnits u);

std::string ratios_text(const std::vector<ComparedRow>& rows, units::ByteUnits u) {
    std::string out;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        out += "\n" + rows[0].label + " (" + in_flight_text(rows[0]) + ") against " +
               rows[i].label + " (" + in_flight_text(rows[i]) + "):\n";
        for (model::Phase p : model::kAllPhases) {
            const auto* a = find_phase(rows[0], p);
            const auto* b = find_phase(rows[i], p);
            if (!a || !b) continue;
            char head[32];
            std::snprintf(head, sizeof head, "  %-10s ", std::string(model::to_string(p)).c_str());
            // Two lines a phase: what the requests get, then what they cost.
            // --repeat: the headline figure judged against the noise.
            const std::string& short_one = a->too_short.empty() ? b->too_short : a->too_short;
            if (!short_one.empty()) {
                out += std::string(head) + "too short to measure (" + short_one + "): no ratio\n";
                continue;
            }
            std::string words = noisy_ratio_words(*a, rows[0].label, *b, rows[i].label, u);
            const std::size_t cost = words.find(", CPU/op");
            if (cost != std::string::npos)
                words = words.substr(0, cost) + "\n             cost: " + words.substr(cost + 2);
            out += fit(head + words) + "\n";
        }
    }
    return out;
}

std::string sweep_text(const ComparedSweep& s) {
    std::string out =
        "\nsweep qd: random phase on both backends (in flight = qd x workers; ratio = "
        "io_uring / sync)\n";
    char line[320];
    std::snprintf(line, sizeof line, "  %5s %10s %10s %6s %10s %10s %11s %10s %9s %8s\n", "qd",
                  "uring IOPS", "sync IOPS", "ratio", "uring p99", "sync p99", "uring us/op",
                  "sync us/op", "uring csw", "sync csw");
    out += line;
    for (const auto& p : s.points) {
        const double ua = (p.uring.user_ns_per_op + p.uring.system_ns_per_op) / 1e3;
        const double sa = (p.sync.user_ns_per_op + p.sync.system_ns_per_op) / 1e3;
        std::snprintf(line, sizeof line,
                      "  %5llu %10.0f %10.0f %5.2fx %8.3fms %8.3fms %11.2f %10.2f %9.2f %8.2f\n",
                      static_cast<unsigned long long>(p.qd), p.uring.iops, p.sync.iops,
                      ratio(p.uring.iops, p.sync.iops), p.uring.p99_ns / 1e6, p.sync.p99_ns / 1e6,
                      ua, sa, p.uring.context_switches_per_op, p.sync.context_switches_per_op);
        out += line;
    }
    return out;
}

// --compare-atomic --sweep rand-block: each size's random phase, atomic
// and plain; cost = plain's IOPS over atomic's.
std::string atomic_sweep_text(const ComparedSweep& s) {
    std::string out =
        "\nsweep rand-block: random phase, atomic and plain (IOPS; cost = plain / atomic; CPU "
        "us/op)\n";
    char line[320];
    std::snprintf(line, sizeof line, "  %7s %10s %10s %6s %10s %10s %8s %8s %8s %8s\n", "block",
                  "atomic", "plain", "cost", "atomic p99", "plain p99", "atom usr", "plain usr",
                  "atom sys", "plain sys");
    out += line;
    for (const auto& p : s.points) {
        std::snprintf(line, sizeof line,
                      "  %7s %10.0f %10.0f %5.2fx %8.3fms %8.3fms %8.2f %9.2f %8.2f %9.2f\n",
                      units::format_bytes(p.qd).c_str(), p.uring.iops, p.sync.iops,
                      ratio(p.sync.iops, p.uring.iops), p.uring.p99_ns / 1e6, p.sync.p99_ns / 1e6,
                      p.uring.user_ns_per_op / 1e3, p.sync.user_ns_per_op / 1e3,
                      p.uring.system_ns_per_op / 1e3, p.sync.system_ns_per_op / 1e3);
        out += line;
    }
    return out;
}

// "verdict  what RWF_ATOMIC costs in IOPS by write size (plain / atomic):
// 4 KiB 2.10x, 16 KiB 6.67x, 64 KiB within noise (1.02x); n=3 repeats each".
std::string atomic_sweep_verdict(const ComparedSweep& s) {
    std::string sizes;
    bool single = false;
    for (const auto& p : s.points) {
        const stats::Difference d = stats::compare(p.uring.iops_repeats, p.sync.iops_repeats);
        single = single || d == stats::Difference::single_sample;
        const std::string cost = times(ratio(p.sync.iops, p.uring.iops));
        sizes += (sizes.empty() ? " " : ", ") + units::format_bytes(p.qd) +
                 (d == stats::Difference::within_noise ? " within noise (" + cost.substr(1) + ")"
                                                       : cost);
    }
    const std::string basis =
        single ? "no interval at some size (under 0.5 s)"
        : s.within_run
            ? "each phase's own interval"
            : "intervals apart where not said, n=" + std::to_string(s.repeats) + " repeats each";
    return "verdict  what RWF_ATOMIC costs in IOPS by write size (plain / atomic):" + sizes + "; " +
           basis;
}

}  // namespace

std::string crossover_line(const ComparedSweep& s) {
    if (s.points.empty()) return "crossover: no points";
    const std::string margin = std::to_string(static_cast<int>(s.margin_pct)) + "%";
    const std::string depths =
        "QD " + std::to_string(s.points.front().qd) + " and " + std::to_string(s.points.back().qd);
    // Where the intervals come from.
    const std::string over = s.within_run ? "with each point's interval from its own 0.1 s samples"
                                          : "over n=" + std::to_string(s.repeats) + " repeats each";
    if (s.verdict() == "within_noise") {
        double lo = 0, hi = 0;
        for (std::size_t i = 0; i < s.points.size(); ++i) {
            const double r = ratio(s.points[i].uring.iops, s.points[i].sync.iops);
            lo = i ? std::min(lo, r) : r;
            hi = i ? std::max(hi, r) : r;
        }
        char ratios[64];
        std::snprintf(ratios, sizeof ratios, "%.2fx-%.2fx", lo, hi);
        return "crossover: within noise: io_uring and sync overlap at every depth between " +
               depths + " " + over + " (IOPS ratios " + ratios + "): no depth is named";
    }
    const std::string noise = !s.judged ? " (no interval: a point under 0.5 s)" : " (" + over + ")";
    if (!s.crossover)
        return "crossover: io_uring never pays: it does not stay ahead of sync by " + margin +
               " or more from any depth between " + depths + noise;
    const auto& p = s.points[*s.crossover];
    return "crossover: io_uring pays from QD " + std::to_string(p.qd) + " on" +
           (*s.crossover == 0 ? " (the smallest depth swept)" : "") + ": " +
           more_is_better("IOPS", p.uring.iops, "io_uring", p.sync.iops, "sync") + " there, " +
           less_is_better("CPU/op", p.uring.user_ns_per_op + p.uring.system_ns_per_op, "io_uring",
                          p.sync.user_ns_per_op + p.sync.system_ns_per_op, "sync") +
           " (ahead by " + margin + " or more there" + (s.judged ? ", the intervals apart" : "") +
           ", never clearly behind at a larger depth)" + noise;
}

namespace {

// What stands for the noise: " n=3 repeats each", or " each phase's own
// interval" (one repeat: the phase's slices).
std::string noise_basis(const ComparedPhase& a, const ComparedPhase& b) {
    const stats::Estimate& ea = by_iops(a.phase) ? a.iops_repeats : a.bandwidth_repeats;
    const stats::Estimate& eb = by_iops(a.phase) ? b.iops_repeats : b.bandwidth_repeats;
    return a.within_run || b.within_run
               ? " each phase's own interval"
               : " n=" + std::to_string(std::min(ea.n, eb.n)) + " repeats each";
}

// " (intervals apart, n=3 repeats each)", " (no interval: under 0.5 s)": the
// note after a headline figure that differs, or cannot be judged.
std::string noise_note(const ComparedPhase& a, const ComparedPhase& b) {
    const bool iops = by_iops(a.phase);
    const stats::Difference d = stats::compare(iops ? a.iops_repeats : a.bandwidth_repeats,
                                               iops ? b.iops_repeats : b.bandwidth_repeats);
    if (d == stats::Difference::single_sample) return " (no interval: under 0.5 s)";
    return " (intervals apart," + noise_basis(a, b) + ")";
}

// ratio_words with the headline figure judged against the noise of the
// repeats: "IOPS within noise (...)" when the intervals overlap.
std::string noisy_ratio_words(const ComparedPhase& a, const std::string& an, const ComparedPhase& b,
                              const std::string& bn, units::ByteUnits u) {
    std::string words = ratio_words(a, an, b, bn, u);
    const bool iops = by_iops(a.phase);
    const stats::Estimate& ea = iops ? a.iops_repeats : a.bandwidth_repeats;
    const stats::Estimate& eb = iops ? b.iops_repeats : b.bandwidth_repeats;
    const stats::Difference d = stats::compare(ea, eb);
    // The note goes right after the headline figure, before the latencies.
    const std::size_t cut = std::min(words.find(", "), words.size());
    const std::string rest = words.substr(cut);
    if (d != stats::Difference::within_noise) return words.substr(0, cut) + noise_note(a, b) + rest;
    return std::string(iops ? "IOPS" : units::rate_unit(u).name) + " within noise (" + an +
           times(ratio(ea.median, eb.median)) + "," + noise_basis(a, b) + ")" + rest;
}

// --compare-atomic: what RWF_ATOMIC cost the random phase, in words: "atomic
// costs 12.40x the IOPS of plain 16 KiB writes here", judged against the
// noise, then p99 and whose CPU it is (drivestress's user time per
// operation; the kernel's system time, the stack's cost).
std::string atomic_verdict(const model::BackendComparison& c,
                           const std::vector<ComparedRow>& rows) {
    const auto* a = find_phase(rows[0], model::Phase::random);
    const auto* p = rows.size() > 1 ? find_phase(rows[1], model::Phase::random) : nullptr;
    if (!a || !p || !a->ops || !p->ops) return "verdict  no random phase on both rows: no ratio";
    const std::string& short_one = a->too_short.empty() ? p->too_short : a->too_short;
    if (!short_one.empty())
        return "verdict  random too short to measure (" + short_one + "): no ratio";
    const model::RunConfig& cfg = c.runs[0].config;
    std::string what = cfg.rand_mix.empty() ? units::format_bytes(cfg.rand_block) : "mixed-size";
    what += cfg.read_pct == 0 ? " writes"
                              : " operations (" + std::to_string(100 - cfg.read_pct) + " % writes)";
    std::string w = "verdict  ";
    const stats::Difference d = stats::compare(a->iops_repeats, p->iops_repeats);
    if (d == stats::Difference::within_noise)
        w += "atomic and plain " + what + " within noise (atomic" + times(ratio(a->iops, p->iops)) +
             " the IOPS," + noise_basis(*a, *p) + ")";
    else if (p->iops >= a->iops)
        w += "atomic costs" + times(ratio(p->iops, a->iops)) + " the IOPS of plain " + what +
             " here" + noise_note(*a, *p);
    else
        w += "atomic " + what + " ran" + times(ratio(a->iops, p->iops)) +
             " the IOPS of plain ones here" + noise_note(*a, *p);
    w += "; p99" + times(ratio(static_cast<double>(a->p99_ns), static_cast<double>(p->p99_ns))) +
         " plain's; CPU/op: usr (drivestress)" +
         times(ratio(a->user_ns_per_op, p->user_ns_per_op)) +
         ", sys (the kernel: the stack's cost)" +
         times(ratio(a->system_ns_per_op, p->system_ns_per_op));
    return w;
}

}  // namespace

std::string repeat_line(const model::BackendComparison& c, std::size_t i, units::ByteUnits u) {
    const model::ComparedRun& run = c.runs[i];
    const model::RunResult& r = run.repeats.back();
    char head[96];
    std::snprintf(head, sizeof head, "repeat %zu/%u  %-16s", run.repeats.size(), c.repeat,
                  run.label.c_str());
    std::string out = head;
    char cell[96];
    for (const auto& pt : r.sweep.points) {
        // --compare-atomic sweeps the write size, --compare-backends the depth.
        const std::string at =
            c.atomic ? units::format_bytes(pt.value) : "qd " + std::to_string(pt.value);
        std::snprintf(cell, sizeof cell, "  %s %.0f IOPS", at.c_str(), pt.random.iops());
        out += cell;
    }
    if (r.sweep.points.empty())
        for (const auto& p : r.merged_phases) {
            const std::string name(model::to_string(p.phase));
            if (by_iops(p.phase))
                std::snprintf(cell, sizeof cell, "  %s %.0f IOPS", name.c_str(), p.iops());
            else
                std::snprintf(cell, sizeof cell, "  %s %s", name.c_str(),
                              units::format_bandwidth(p.bytes_per_sec(), u).c_str());
            out += cell;
        }
    const std::uint64_t bad = r.mismatch_count();
    if (bad) out += "  " + std::to_string(bad) + (bad == 1 ? " MISMATCH" : " MISMATCHES");
    return fit(out) + "\n";
}

std::string verdict_line(const model::BackendComparison& c, units::ByteUnits u) {
    const auto rows = compared_rows(c);
    if (c.atomic) {
        if (rows.size() < 2) return "verdict  plain did not run: nothing to compare";
        const ComparedSweep s = compared_sweep(c);
        return s.points.empty() ? atomic_verdict(c, rows) : atomic_sweep_verdict(s);
    }
    if (rows.size() < 2) return "verdict  sync did not run: nothing to compare";
    const ComparedSweep s = compared_sweep(c);
    if (!s.points.empty()) return "verdict  " + crossover_line(s);
    for (model::Phase p : {model::Phase::random, model::Phase::seq_read, model::Phase::seq_write,
                           model::Phase::reverify}) {
        const auto* a = find_phase(rows[0], p);
        const auto* b = find_phase(rows[1], p);
        if (!a || !b || !a->ops || !b->ops) continue;
        if (!a->too_short.empty() || !b->too_short.empty()) continue;  // no figure to compare
        return "verdict  " + std::string(model::to_string(p)) + " at " +
               std::to_string(a->in_flight) + " operations in flight on both: " +
               noisy_ratio_words(*a, rows[0].label, *b, rows[1].label, u);
    }
    return "verdict  no phase did I/O long enough to measure on both backends";
}

std::string comparison_text(const model::BackendComparison& c, units::ByteUnits u) {
    const auto rows = compared_rows(c);
    std::string out;
    const ComparedSweep s = compared_sweep(c);
    if (!s.points.empty()) {
        out += c.atomic ? atomic_sweep_text(s) : sweep_text(s);
    } else if (!rows.empty()) {
        out += figures_table(rows, c.runs[0].result.iterations_run,
                             c.atomic ? "atomic and plain" : "backends", u);
        out += ratios_text(rows, u);
    }
    return out + "\n" + fit(verdict_line(c, u), 9) + "\n";
}

}  // namespace ds::report
