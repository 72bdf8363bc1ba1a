#include "stats/estimate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ds::stats {

namespace {

// P(Binomial(n, 1/2) < k), summed exactly in doubles (n is a repeat count:
// small, and C(n, i) / 2^n stays representable far beyond any sane --repeat).
double binomial_half_below(std::size_t n, std::size_t k) {
    double term = std::pow(0.5, static_cast<double>(n));  // C(n, 0) / 2^n
    double sum = 0;
    for (std::size_t i = 0; i < k && i <= n; ++i) {
        sum += term;
        term = term * static_cast<double>(n - i) / static_cast<double>(i + 1);
    }
    return sum;
}

double median_of_sorted(const std::vector<double>& v) {
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

double Estimate::half_width_pct() const {
    if (n < 2 || median == 0) return 0;
    return (high - low) / 2 / std::abs(median) * 100;
}

double Estimate::spread_pct() const {
    if (n == 0 || median == 0) return 0;
    return (max - min) / std::abs(median) * 100;
}

Estimate estimate(std::span<const double> samples) {
    Estimate e;
    std::vector<double> v(samples.begin(), samples.end());
    e.n = v.size();
    if (v.empty()) return e;
    std::sort(v.begin(), v.end());
    e.median = median_of_sorted(v);
    e.min = v.front();
    e.max = v.back();
    e.low = e.high = e.median;
    if (e.n < 2) return e;
    // The largest k (1-based order statistic) whose interval still covers
    // 95 %; k = 1 ([min, max]) when none does.
    std::size_t k = 1;
    while (k + 1 <= (e.n + 1) / 2 && 1 - 2 * binomial_half_below(e.n, k + 1) >= 0.95)
        ++k;
    e.low = v[k - 1];
    e.high = v[e.n - k];
    e.confidence = 1 - 2 * binomial_half_below(e.n, k);
    return e;
}

Difference compare(const Estimate& a, const Estimate& b) {
    if (a.n < 2 || b.n < 2) return Difference::single_sample;
    if (a.low > b.high) return Difference::higher;
    if (a.high < b.low) return Difference::lower;
    return Difference::within_noise;
}

bool entirely_below(const Estimate& a, const Estimate& b) {
    constexpr std::size_t kMinSamples = 5;
    return a.n >= kMinSamples && b.n >= kMinSamples && a.max < b.min;
}

std::string_view to_string(Difference d) {
    switch (d) {
        case Difference::single_sample:
            return "one sample";
        case Difference::within_noise:
            return "within noise";
        case Difference::higher:
            return "higher";
        case Difference::lower:
            return "lower";
    }
    return "?";
}

}  // namespace ds::stats
