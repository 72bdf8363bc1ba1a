#include "stats/knee.h"

#include <algorithm>

namespace ds::stats {

std::optional<std::size_t> find_knee(std::span<const double> iops, std::span<const double> p99,
                                     double min_gain_pct) {
    const std::size_t n = iops.size() < p99.size() ? iops.size() : p99.size();
    for (std::size_t i = 0; i + 1 < n; ++i) {
        if (iops[i] <= 0) continue;
        double best_later = iops[i + 1];
        for (std::size_t j = i + 2; j < n; ++j)
            best_later = std::max(best_later, iops[j]);
        double gain_pct = (best_later / iops[i] - 1.0) * 100.0;
        if (gain_pct < min_gain_pct && p99[i + 1] > p99[i]) return i;
    }
    return std::nullopt;
}

}  // namespace ds::stats
