// The live status line of the text report (a terminal's last line, redrawn
// while a phase runs) and the per-interval figures it quotes.
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
#include "units/units.h"

namespace ds::report {

using units::printf_string;

void TextReport::clear_live() {
    if (live_ && live_shown_) {
        std::fputs("\r\033[K", live_);
        std::fflush(live_);
        live_shown_ = false;
    }
}

// The rate over the last second of snapshots (the phase's average until a
// second has passed), so a stall shows at once in a long phase.
TextReport::Rates TextReport::recent_rates(const model::ProgressSnapshot& s) {
    if (!recent_.empty() && (recent_.back().elapsed_s > s.elapsed_s || recent_phase_ != s.phase ||
                             recent_iteration_ != s.iteration))
        recent_.clear();
    recent_phase_ = s.phase;
    recent_iteration_ = s.iteration;
    recent_.push_back(s);
    while (recent_.size() > 2 && s.elapsed_s - recent_[1].elapsed_s >= 1.0)
        recent_.pop_front();
    const model::ProgressSnapshot& from = recent_.front();
    Rates r;
    double dt = s.elapsed_s - from.elapsed_s;
    if (dt >= 0.5)
        r = {static_cast<double>(s.bytes - from.bytes) / dt,
             static_cast<double>(s.ops - from.ops) / dt};
    else if (s.elapsed_s > 0)  // the phase's first half second
        r = {static_cast<double>(s.bytes) / s.elapsed_s, static_cast<double>(s.ops) / s.elapsed_s};
    return r;
}

void TextReport::progress(const model::ProgressSnapshot& s) {
    if (!live_) return;
    const Rates now = recent_rates(s);
    const double avg_bytes = s.elapsed_s > 0 ? s.bytes / s.elapsed_s : 0;
    const double avg_ops = s.elapsed_s > 0 ? s.ops / s.elapsed_s : 0;
    const bool random = s.phase == model::Phase::random;
    std::string head = printf_string("[iteration %" PRIu64 "] %-9s", s.iteration,
                                     std::string(model::to_string(s.phase)).c_str());
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

void TextReport::interval_done(std::uint64_t, model::Phase, std::uint64_t,
                               const model::IntervalStats& s, double interval_s,
                               std::uint64_t mismatches_so_far) {
    // Only whole intervals (a second unless --interval) stand for "the last one".
    if (interval_s >= 0.999 * interval_s_ && s.read_ops + s.write_ops > 0)
        last_second_p99_ns_ = s.latency().value_at_percentile(99);
    live_mismatches_ = mismatches_so_far;
}

}  // namespace ds::report
