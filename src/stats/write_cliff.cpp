#include "stats/write_cliff.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "stats/levels.h"

namespace ds::stats {

void check_write_cliff_rule(const WriteCliffRule& rule) {
    if (rule.min_level_intervals < 1)
        throw std::invalid_argument("write-cliff level must last at least 1 interval");
    if (!(rule.min_drop_pct > 0 && rule.min_drop_pct < 100))
        throw std::invalid_argument("write-cliff drop must be between 0 and 100 percent, not " +
                                    std::to_string(rule.min_drop_pct));
}

namespace {

// Bytes per second of each interval.
std::vector<double> interval_rates(std::span<const ThroughputInterval> series) {
    std::vector<double> r;
    r.reserve(series.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
        const double s = series[i].seconds;
        if (!(s > 0) || !std::isfinite(s))
            throw std::invalid_argument("throughput interval " + std::to_string(i) +
                                        " has no positive length");
        r.push_back(static_cast<double>(series[i].bytes) / s);
    }
    return r;
}

bool drops_enough(double before, double after, double min_drop_pct) {
    return before > 0 && after <= before * (1 - min_drop_pct / 100);
}

struct Segmenter {
    const std::vector<double>& rates;
    std::vector<double> prefix;  // prefix sums of the median-filtered rates
    WriteCliffRule rule;
    std::vector<std::size_t> splits;

    // Binary segmentation of [lo, hi): take the best split with both levels
    // at least m long, place it exactly by the best split within m of it
    // (a 3-interval level before a drop would otherwise pass as a 5-interval
    // one, its median still high), and accept it when the drop is both
    // sustained (whole levels) and sudden (the m intervals either side); then
    // look for further steps on each side of it.
    void segment(std::size_t lo, std::size_t hi) {
        const std::size_t m = rule.min_level_intervals;
        if (hi - lo < 2 * m) return;
        const auto rough = best_split(prefix, lo, hi, m, true);
        if (!rough) return;
        const auto k =
            best_split(prefix, std::max(lo, *rough - m), std::min(hi, *rough + m), 1, true);
        if (!k || *k - lo < m || hi - *k < m) return;  // a level too short to tell from a dip
        const double pct = rule.min_drop_pct;
        if (!drops_enough(median(rates, lo, *k), median(rates, *k, hi), pct)) return;
        if (!drops_enough(median(rates, *k - m, *k), median(rates, *k, *k + m), pct)) return;
        splits.push_back(*k);
        segment(lo, *k);
        segment(*k, hi);
    }
};

}  // namespace

WriteCliff find_write_cliff(std::span<const ThroughputInterval> series,
                            const WriteCliffRule& rule) {
    check_write_cliff_rule(rule);
    const std::vector<double> rates = interval_rates(series);
    const std::size_t n = rates.size(), m = rule.min_level_intervals;

    WriteCliff out;
    out.intervals = n;
    std::vector<std::uint64_t> bytes_at(n + 1, 0);  // bytes written before interval i
    std::vector<double> seconds_at(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        bytes_at[i + 1] = bytes_at[i] + series[i].bytes;
        seconds_at[i + 1] = seconds_at[i] + series[i].seconds;
    }
    out.total_bytes = bytes_at[n];
    out.total_seconds = seconds_at[n];
    out.long_enough = n >= 2 * m;
    if (!out.long_enough) return out;

    Segmenter seg{rates, std::vector<double>(n + 1, 0), rule, {}};
    const std::vector<double> smooth = median_filtered(rates, (m - 1) / 2);
    for (std::size_t i = 0; i < n; ++i)
        seg.prefix[i + 1] = seg.prefix[i] + smooth[i];
    seg.segment(0, n);
    std::sort(seg.splits.begin(), seg.splits.end());

    // Levels between consecutive steps, from the final set of steps.
    for (std::size_t j = 0; j < seg.splits.size(); ++j) {
        const std::size_t k = seg.splits[j];
        const std::size_t from = j == 0 ? 0 : seg.splits[j - 1];
        const std::size_t to = j + 1 < seg.splits.size() ? seg.splits[j + 1] : n;
        CliffStep s;
        s.interval = k;
        s.bytes_before = bytes_at[k];
        s.seconds_before = seconds_at[k];
        s.before_bytes_per_s = median(rates, from, k);
        s.after_bytes_per_s = median(rates, k, to);
        s.drop_pct = 100 * (1 - s.after_bytes_per_s / s.before_bytes_per_s);
        out.steps.push_back(s);
    }
    return out;
}

std::optional<CliffRecovery> measure_cliff_recovery(const WriteCliff& cliff,
                                                    std::span<const ThroughputInterval> after_idle,
                                                    double idle_seconds,
                                                    const WriteCliffRule& rule) {
    check_write_cliff_rule(rule);
    if (cliff.steps.empty() || after_idle.empty()) return std::nullopt;
    const std::vector<double> rates = interval_rates(after_idle);
    const WriteCliff again = find_write_cliff(after_idle, rule);

    CliffRecovery r;
    r.idle_seconds = idle_seconds;
    r.bytes_per_s = median(rates, 0, std::min(rates.size(), rule.min_level_intervals));
    const double peak = cliff.steps.front().before_bytes_per_s;
    const double floor = cliff.steps.back().after_bytes_per_s;
    // Accepted steps only go down, so peak > floor; NaN guards the division anyway.
    r.recovered_pct = peak > floor ? 100 * (r.bytes_per_s - floor) / (peak - floor)
                                   : std::numeric_limits<double>::quiet_NaN();
    r.segment_bytes = again.total_bytes;
    if (!again.steps.empty()) r.bytes_to_cliff = again.steps.front().bytes_before;
    return r;
}

}  // namespace ds::stats
