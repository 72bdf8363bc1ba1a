#include "model/drift.h"

#include <algorithm>

#include "model/results.h"

namespace ds::run {

namespace {

void take(FigureDrift& d, bool first, double value, std::uint64_t iteration, bool higher_better) {
    if (first) {
        d = FigureDrift{value, value, value, value, iteration, iteration, iteration, iteration};
        return;
    }
    const bool better = higher_better ? value > d.best : value < d.best;
    const bool worse = higher_better ? value < d.worst : value > d.worst;
    if (better) {
        d.best = value;
        d.best_iteration = iteration;
    }
    if (worse) {
        d.worst = value;
        d.worst_iteration = iteration;
    }
    d.last = value;
    d.last_iteration = iteration;
}

}  // namespace

void add_to_drift(std::vector<PhaseDrift>& drift, const PhaseFigures& p, std::uint64_t iteration) {
    auto at = drift.begin();
    while (at != drift.end() && at->phase < p.phase)
        ++at;
    if (at == drift.end() || at->phase != p.phase) {
        at = drift.insert(at, PhaseDrift{});
        at->phase = p.phase;
    }
    PhaseDrift& d = *at;
    ++d.runs;
    if (p.interrupted) return;
    const bool first = d.iterations++ == 0;
    take(d.bandwidth, first, p.bytes_per_sec(), iteration, true);
    take(d.iops, first, p.iops(), iteration, true);
    take(d.p99_ns, first, static_cast<double>(p.p99_ns), iteration, false);
}

std::vector<PhaseDrift> phase_drift(const std::vector<IterationResult>& iterations) {
    std::vector<PhaseDrift> drift;
    for (const auto& it : iterations)
        for (const auto& p : it.phases)
            add_to_drift(drift, p, it.index);
    std::erase_if(drift, [](const PhaseDrift& d) { return d.iterations == 0; });
    return drift;
}

}  // namespace ds::run
