#include "stats/crossover.h"

#include <vector>

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

NoisyCrossover find_crossover(std::span<const Estimate> a, std::span<const Estimate> b,
                              double margin_pct) {
    NoisyCrossover out;
    if (a.empty() || a.size() != b.size()) return out;
    const double m = margin_pct / 100.0;
    std::vector<bool> lead(a.size()), loss(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Difference d = compare(a[i], b[i]);
        out.single_sample = out.single_sample || d == Difference::single_sample;
        lead[i] = d == Difference::higher && a[i].median >= b[i].median * (1 + m);
        loss[i] = d == Difference::lower && a[i].median < b[i].median * (1 - m);
        out.any_lead = out.any_lead || lead[i];
        out.any_loss = out.any_loss || loss[i];
    }
    // Walk back from the end, as above: a clear loss ends the search.
    for (std::size_t i = a.size(); i-- > 0 && !loss[i];)
        if (lead[i]) out.index = i;
    return out;
}

}  // namespace ds::stats
