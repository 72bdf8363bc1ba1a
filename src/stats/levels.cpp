#include "stats/levels.h"

#include <algorithm>
#include <cstddef>

namespace ds::stats {

double median(const std::vector<double>& v, std::size_t lo, std::size_t hi) {
    std::vector<double> w(v.begin() + static_cast<std::ptrdiff_t>(lo),
                          v.begin() + static_cast<std::ptrdiff_t>(hi));
    const std::size_t mid = w.size() / 2;
    std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(mid), w.end());
    const double upper = w[mid];
    if (w.size() % 2) return upper;
    const double lower = *std::max_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(mid));
    return (lower + upper) / 2;
}

std::vector<double> median_filtered(const std::vector<double>& r, std::size_t half) {
    std::vector<double> s(r.size());
    for (std::size_t i = 0; i < r.size(); ++i)
        s[i] = median(r, i >= half ? i - half : 0, std::min(r.size(), i + half + 1));
    return s;
}

std::optional<std::size_t> best_split(const std::vector<double>& prefix, std::size_t lo,
                                      std::size_t hi, std::size_t m, bool descending_only) {
    std::optional<std::size_t> best;
    double best_gain = 0;
    for (std::size_t k = lo + m; k + m <= hi; ++k) {
        const double nl = static_cast<double>(k - lo), nr = static_cast<double>(hi - k);
        const double ml = (prefix[k] - prefix[lo]) / nl, mr = (prefix[hi] - prefix[k]) / nr;
        if (descending_only && ml <= mr) continue;
        const double gain = nl * nr / (nl + nr) * (ml - mr) * (ml - mr);
        if (gain > best_gain) {
            best_gain = gain;
            best = k;
        }
    }
    return best;
}

}  // namespace ds::stats
