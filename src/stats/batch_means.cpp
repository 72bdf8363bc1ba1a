#include "stats/batch_means.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats/t_quantile.h"

namespace ds::stats {

namespace {

constexpr std::size_t kMinBatches = 10;  // never merge below this many batches

double mean_of(const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The standard estimate sum (x_i - m)(x_i+1 - m) / sum (x_i - m)^2; 0 for a
// constant series.
double lag1_autocorrelation(const std::vector<double>& v) {
    const double m = mean_of(v);
    double num = 0, den = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        den += (v[i] - m) * (v[i] - m);
        if (i + 1 < v.size()) num += (v[i] - m) * (v[i + 1] - m);
    }
    return den > 0 ? num / den : 0;
}

bool significant(double r, std::size_t k) {
    return r > 2 / std::sqrt(static_cast<double>(k));
}

// The variance inflation sqrt((1 + r) / (1 - r)) of the mean of an AR(1)
// series, for the correlation left in k final batches.  The estimate r is
// biased low by about (1 + 3 rho) / k (Marriott and Pope, 1954), which with
// 10 to 20 batches is most of what is left, so it is corrected first and
// capped at 0.95 (a factor of 6.2): the corrected figure can pass 1.
double widening(double r, std::size_t k) {
    const double rho = std::min(0.95, r + (1 + 3 * r) / static_cast<double>(k));
    return rho > 0 ? std::sqrt((1 + rho) / (1 - rho)) : 1;
}

// Pairs of adjacent batches merged; an odd one out, the oldest, is dropped.
std::vector<double> merged_pairs(const std::vector<double>& v) {
    std::vector<double> out;
    out.reserve(v.size() / 2);
    for (std::size_t i = v.size() % 2; i + 1 < v.size(); i += 2)
        out.push_back((v[i] + v[i + 1]) / 2);
    return out;
}

void check_input(std::span<const double> values, double confidence) {
    if (!(confidence > 0 && confidence < 1))
        throw std::invalid_argument("confidence must be between 0 and 1, not " +
                                    std::to_string(confidence));
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw std::invalid_argument("interval " + std::to_string(i) + " has no finite value");
}

}  // namespace

double BatchInterval::half_width_pct() const {
    if (mean == 0) return 0;
    return (high - low) / 2 / std::abs(mean) * 100;
}

BatchInterval batch_means(std::span<const double> per_interval, double confidence) {
    check_input(per_interval, confidence);
    BatchInterval out;
    out.n_intervals = per_interval.size();
    std::vector<double> batches(per_interval.begin(), per_interval.end());
    out.batch_size = 1;
    if (!batches.empty()) {
        out.mean = mean_of(batches);
        out.low = out.high = out.mean;
        const auto [lo, hi] = std::minmax_element(batches.begin(), batches.end());
        out.min = *lo;
        out.max = *hi;
    }
    out.batches = batches.size();
    if (batches.size() < BatchInterval::kMinIntervals) return out;

    double r = lag1_autocorrelation(batches);
    while (significant(r, batches.size()) && batches.size() / 2 >= kMinBatches) {
        batches = merged_pairs(batches);
        out.batch_size *= 2;
        r = lag1_autocorrelation(batches);
    }
    const std::size_t k = batches.size();
    out.batches = k;
    out.mean = mean_of(batches);
    out.lag1 = r;
    out.correlated = significant(r, k);
    const auto [lo, hi] = std::minmax_element(batches.begin(), batches.end());
    out.min = *lo;
    out.max = *hi;

    double ss = 0;
    for (const double x : batches)
        ss += (x - out.mean) * (x - out.mean);
    const double se = std::sqrt(ss / static_cast<double>(k - 1) / static_cast<double>(k));
    out.widening = widening(r, k);
    const double half = t_quantile(confidence, k - 1) * se * out.widening;
    out.low = out.mean - half;
    out.high = out.mean + half;
    out.confidence = confidence;
    out.usable = true;
    return out;
}

Estimate to_estimate(const BatchInterval& b) {
    Estimate e;
    e.n = b.usable ? b.batches : std::min<std::size_t>(b.batches, 1);
    e.median = b.mean;
    e.min = b.usable ? b.min : b.mean;
    e.max = b.usable ? b.max : b.mean;
    e.low = b.low;
    e.high = b.high;
    e.confidence = b.usable ? b.confidence : 0;
    return e;
}

}  // namespace ds::stats
