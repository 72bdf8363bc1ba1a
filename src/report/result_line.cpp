#include "report/result_line.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "io/backend.h"
#include "units/units.h"

namespace ds::report {

namespace {

const model::PhaseResult* merged(const model::RunResult& r, model::Phase p) {
    for (const auto& ph : r.merged_phases)
        if (ph.phase == p) return &ph;
    return nullptr;
}

DirectionFigures direction(const model::PhaseResult& p, bool reads) {
    const auto& c = p.counters;
    DirectionFigures d;
    d.ops = reads ? c.read_ops : c.write_ops;
    d.measured = d.ops > 0 && p.seconds > 0;
    d.too_short = p.too_short();
    if (!d.measured) return d;
    d.bytes_per_sec = static_cast<double>(reads ? c.read_bytes : c.write_bytes) / p.seconds;
    d.iops = static_cast<double>(d.ops) / p.seconds;
    d.p99_ns = (reads ? c.read_latency : c.write_latency).value_at_percentile(99);
    return d;
}

using units::printf_string;

// A block size as the option takes it, never a bare number: "4K", "512 B".
std::string block_words(std::uint64_t bytes) {
    std::string s = units::format_size_option(bytes);
    return std::isdigit(static_cast<unsigned char>(s.back())) ? s + " B" : s;
}

// --find-rate's answer: " | p99 <= 2.00 ms up to 812 IOPS", or that no rate
// probed met it.
std::string find_rate_words(const model::FindRateResult& fr) {
    const std::string bound = " | " + units::format_percentile(fr.bound.percentile) +
                              " <= " + units::format_seconds(fr.bound.bound_s);
    if (!fr.found) return bound + " at no rate probed";
    return bound + " up to " + units::format_iops(fr.probes[*fr.found].requested_iops) + " IOPS";
}

// A rate sweep's figure is where response p99 turns up: " | response p99
// turns up at 900 IOPS: 2.712 ms", or " | response p99 flat up to 1.2k IOPS".
std::string turn_up_words(const model::SweepResult& s) {
    if (!s.turn_up) {
        double top = 0;
        for (const auto& pt : s.points)
            top = std::max(top, pt.random.requested_rate);
        return " | response p99 flat up to " + units::format_iops(top) + " IOPS";
    }
    const model::PhaseResult& p = s.points[*s.turn_up].random;
    return " | response p99 turns up at " + units::format_iops(p.requested_rate) +
           printf_string(" IOPS: %.3f ms",
                         p.counters.response_latency.value_at_percentile(99) / 1e6);
}

// A sweep's saturation point, the figure people quote from a sweep: " |
// saturation at qd 16: 120.3k IOPS, p99 0.845 ms" ("" without a sweep).
std::string sweep_words(const model::SweepResult& s, units::ByteUnits u) {
    if (s.points.empty()) return "";
    if (s.param == model::SweepParam::rate) return turn_up_words(s);
    const std::string name(model::to_string(s.param));
    auto value = [&](std::size_t i) {
        return name + " " +
               (s.param == model::SweepParam::rand_block ? block_words(s.points[i].value)
                                                         : std::to_string(s.points[i].value));
    };
    if (s.knee_in_noise)
        return " | saturation within noise (after " + value(*s.knee_in_noise) + ")";
    const auto knee = s.described_knee();
    if (!knee) return " | saturation not reached by " + value(s.points.size() - 1);
    const std::string figure = s.axis() == stats::KneeAxis::bandwidth
                                   ? units::format_bandwidth(knee->at.bytes_per_sec, u)
                                   : units::format_iops(knee->at.iops) + " IOPS";
    return " | saturation at " + value(knee->index) + ": " + figure +
           printf_string(", p99 %.3f ms", knee->at.p99_ns / 1e6);
}

// Half the width of one run's interval of its figure, in %; 0 without one.
double within_pct(const model::PhaseResult& p) {
    if (p.repeats.size() >= 2 || p.series_joined || p.regimes().size() >= 2) return 0;
    const stats::BatchInterval b = p.series_interval(p.iops_figure());
    return b.usable ? b.half_width_pct() : 0;
}

}  // namespace

QuotedFigures quoted_figures(const model::RunResult& r) {
    QuotedFigures q;
    if (const auto* w = merged(r, model::Phase::seq_write)) {
        q.seq_write = direction(*w, false);
        q.seq_write.within_pct = within_pct(*w);
    }
    if (const auto* rd = merged(r, model::Phase::seq_read)) {
        q.seq_read = direction(*rd, true);
        q.seq_read.within_pct = within_pct(*rd);
    }
    if (const auto* rnd = merged(r, model::Phase::random)) {
        q.random = rnd->seconds > 0;
        q.random_too_short = rnd->too_short();
        q.random_read = direction(*rnd, true);
        q.random_write = direction(*rnd, false);
        q.random_iops = rnd->iops();
        q.random_p99_is_response = rnd->requested_rate > 0;
        q.random_p99_ns = q.random_p99_is_response
                              ? rnd->counters.response_latency.value_at_percentile(99)
                              : rnd->latency().value_at_percentile(99);
        q.random_iops_repeats = rnd->estimates().iops;
        if (q.random_iops_repeats.n >= 2) q.random_iops = q.random_iops_repeats.median;
        q.random_within_pct = within_pct(*rnd);
    }
    return q;
}

std::string dedupe_words(const model::DataCompressibility& d) {
    return printf_string(
        "dedupe %g %% (%llu of %llu units hold one of %u sources, %.2f:1; a lost, torn or "
        "misdirected write between two units of one source is undetectable)",
        d.dedupe_pct, static_cast<unsigned long long>(d.duplicate_units),
        static_cast<unsigned long long>(d.counted_units), d.dedupe_sources, d.dedupe_ratio);
}

namespace {

// The data's shape beside the figures: the compression measured, and what
// the duplicates are and what they make undetectable (DESIGN.md: a
// workload's blind spot is said, never silently accepted).
std::string data_words(const model::RunConfig& cfg, const model::RunResult& r) {
    if (!r.data || (cfg.compress <= 1 && cfg.dedupe == 0)) return "";
    std::string words = " | data: ";
    if (cfg.compress > 1)
        words += printf_string("compress %g (measured %.2f:1 over %u sampled units)", cfg.compress,
                               r.data->measured, r.data->sampled_units);
    if (cfg.compress > 1 && cfg.dedupe > 0) words += ", ";
    if (cfg.dedupe > 0) words += dedupe_words(*r.data);
    return words;
}

// " ±4.2 %" (one run's interval), or nothing.
std::string pm(double pct) {
    if (pct <= 0) return "";
    return printf_string(pct < 10 ? " \u00b1%.1f %%" : " \u00b1%.0f %%", pct);
}

// A run of jobs: how many, over how many workers (each job's own figures
// are in the table of jobs).
std::string jobs_words(const model::RunResult& r) {
    unsigned workers = 0;
    for (const model::JobResult& j : r.jobs)
        workers += j.copies;
    return "jobs " + std::to_string(r.jobs.size()) + " (" + std::to_string(workers) +
           (workers == 1 ? " worker" : " workers") + ", each in the table above) together: ";
}

}  // namespace

std::string result_line(const model::RunConfig& cfg, const model::RunResult& r,
                        units::ByteUnits u) {
    const QuotedFigures q = quoted_figures(r);
    std::string seq;
    auto add_seq = [&](const char* name, const DirectionFigures& d) {
        if (!d.measured) return;
        seq += seq.empty() ? "seq " + block_words(cfg.seq_block) + ": " : ", ";
        seq += name +
               (d.too_short.empty()
                    ? printf_string(" %s", units::format_bandwidth(d.bytes_per_sec, u).c_str()) +
                          pm(d.within_pct)
                    : " too short to measure (" + d.too_short + ")");
    };
    add_seq("write", q.seq_write);
    add_seq("read", q.seq_read);
    std::string line = "figures  " + seq;
    if (q.random) {
        line += seq.empty() ? "" : " | ";
        const std::string drawn = (cfg.rand_mix.size() > 1 ? "bs " + cfg.rand_block_text()
                                                           : block_words(cfg.max_rand_block())) +
                                  ", " + std::to_string(cfg.read_pct) + "% reads, ";
        line += r.jobs.size() > 1 || cfg.jobs
                    ? jobs_words(r)
                    : "random " +
                          (cfg.replay.empty() ? drawn : std::string("replaying a trace, ")) +
                          (cfg.distribution.kind == stats::DistributionKind::uniform
                               ? std::string()
                               : cfg.distribution.text() + ", ") +
                          (cfg.trim_pct ? "trim " + std::to_string(cfg.trim_pct) + " %, " : "") +
                          "qd " + std::to_string(r.backend.effective_qd) + " x " +
                          std::to_string(cfg.workers()) +
                          (cfg.workers() == 1 ? " worker: " : " workers: ");
        line += (q.random_too_short.empty()
                     ? units::format_iops(q.random_iops) + " IOPS" +
                           (q.random_iops_repeats.n >= 2
                                ? printf_string(" (\u00b1%.1f %%, n=%zu)",
                                                q.random_iops_repeats.half_width_pct(),
                                                q.random_iops_repeats.n)
                                : pm(q.random_within_pct)) +
                           (q.random_p99_is_response ? ", response p99 " : ", p99 ") +
                           printf_string("%.3f ms", static_cast<double>(q.random_p99_ns) / 1e6)
                     : "too short to measure (" + q.random_too_short + ")");
    }
    line += r.find_rate ? find_rate_words(*r.find_rate) : sweep_words(r.sweep, u);
    line += data_words(cfg, r);
    line += " | " + std::string(io::to_string(r.backend.used)) + ", " +
            (r.direct_io ? "O_DIRECT" : "buffered") + ", " + std::to_string(cfg.files) + " x " +
            units::format_bytes(cfg.file_bytes);
    if (cfg.target_count() > 1)
        line += " on each of " + std::to_string(cfg.target_count()) + " targets";
    else if (!r.target.filesystem.empty())
        line += " on " + r.target.filesystem;
    line += cfg.verify ? ", verified" : ", NOT verified";
    return line;
}

}  // namespace ds::report
