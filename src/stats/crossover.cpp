#include "stats/crossover.h"

namespace ds::stats {

std::optional<std::size_t> find_crossover(std::span<const double> a, std::span<const double> b,
                                          double margin_pct) {
    if (a.empty() || a.size() != b.size()) return std::nullopt;
    const double m = margin_pct / 100.0;
    // Walk back from the end: `holds` says a never clearly loses from i on.
    std::optional<std::size_t> found;
    for (std::size_t i = a.size(); i-- > 0;) {
        if (a[i] < b[i] * (1 - m)) break;  // a clearly loses here: nothing before counts
        if (a[i] >= b[i] * (1 + m)) found = i;
    }
    return found;
}

}  // namespace ds::stats
