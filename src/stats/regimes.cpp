#include "stats/regimes.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "stats/levels.h"

namespace ds::stats {

void check_regime_rule(const RegimeRule& rule) {
    if (rule.min_level_intervals < 1)
        throw std::invalid_argument("a regime must last at least 1 interval");
    if (!(rule.min_change_pct > 0 && rule.min_change_pct < 100))
        throw std::invalid_argument("a regime change must be between 0 and 100 percent, not " +
                                    std::to_string(rule.min_change_pct));
}

namespace {

void check_series(std::span<const double> v, double interval_s) {
    if (!(interval_s > 0) || !std::isfinite(interval_s))
        throw std::invalid_argument("regime intervals need a positive length, not " +
                                    std::to_string(interval_s));
    for (std::size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
            throw std::invalid_argument("interval " + std::to_string(i) + " has no finite value");
}

// How far apart two levels are, as a fraction of the higher (0 when both
// are 0 or below).
double change(double a, double b) {
    const double hi = std::max(a, b), lo = std::min(a, b);
    return hi > 0 ? (hi - lo) / hi : 0;
}

struct Segmenter {
    const std::vector<double>& values;
    std::vector<double> prefix;  // prefix sums of the median-filtered values
    RegimeRule rule;
    std::vector<std::size_t> splits;

    // Binary segmentation of [lo, hi), as write_cliff's but in either direction.
    void segment(std::size_t lo, std::size_t hi) {
        const std::size_t m = rule.min_level_intervals;
        if (hi - lo < 2 * m) return;
        const auto rough = best_split(prefix, lo, hi, m);
        if (!rough) return;
        const auto k = best_split(prefix, std::max(lo, *rough - m), std::min(hi, *rough + m), 1);
        if (!k || *k - lo < m || hi - *k < m) return;  // a level too short to tell from a dip
        if (change(median(values, lo, *k), median(values, *k, hi)) < rule.min_change_pct / 100)
            return;
        splits.push_back(*k);
        segment(lo, *k);
        segment(*k, hi);
    }
};

// Drops, the weakest first, every split whose neighbouring regimes (between
// the splits that remain) differ by less than min_change_pct.
void drop_weak_splits(const std::vector<double>& v, std::vector<std::size_t>& splits,
                      double min_change_pct) {
    std::sort(splits.begin(), splits.end());
    for (;;) {
        std::optional<std::size_t> weakest;
        double weakest_change = min_change_pct / 100;
        for (std::size_t j = 0; j < splits.size(); ++j) {
            const std::size_t from = j == 0 ? 0 : splits[j - 1];
            const std::size_t to = j + 1 < splits.size() ? splits[j + 1] : v.size();
            const double c = change(median(v, from, splits[j]), median(v, splits[j], to));
            if (c < weakest_change) {
                weakest_change = c;
                weakest = j;
            }
        }
        if (!weakest) return;
        splits.erase(splits.begin() + static_cast<std::ptrdiff_t>(*weakest));
    }
}

Regime regime_of(const std::vector<double>& v, std::size_t from, std::size_t to,
                 double interval_s) {
    Regime r;
    r.first_interval = from;
    r.intervals = to - from;
    r.start_s = static_cast<double>(from) * interval_s;
    r.length_s = static_cast<double>(to - from) * interval_s;
    const std::span<const double> part(v.data() + from, to - from);
    r.mean = std::accumulate(part.begin(), part.end(), 0.0) / static_cast<double>(part.size());
    r.median = median(v, from, to);
    r.interval = batch_means(part);
    return r;
}

}  // namespace

Regimes find_regimes(std::span<const double> per_interval, double interval_s,
                     const RegimeRule& rule) {
    check_regime_rule(rule);
    check_series(per_interval, interval_s);
    const std::vector<double> v(per_interval.begin(), per_interval.end());
    const std::size_t n = v.size();
    if (n == 0) return {};

    Segmenter seg{v, std::vector<double>(n + 1, 0), rule, {}};
    const std::vector<double> smooth = median_filtered(v, (rule.min_level_intervals - 1) / 2);
    for (std::size_t i = 0; i < n; ++i)
        seg.prefix[i + 1] = seg.prefix[i] + smooth[i];
    seg.segment(0, n);
    drop_weak_splits(v, seg.splits, rule.min_change_pct);

    Regimes out;
    std::size_t from = 0;
    for (const std::size_t k : seg.splits) {
        out.push_back(regime_of(v, from, k, interval_s));
        from = k;
    }
    out.push_back(regime_of(v, from, n, interval_s));
    return out;
}

}  // namespace ds::stats
