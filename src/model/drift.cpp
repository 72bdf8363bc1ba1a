#include "model/drift.h"

#include <algorithm>

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

std::vector<PhaseDrift> phase_drift(const std::vector<IterationResult>& iterations) {
    std::vector<PhaseDrift> out;
    for (Phase phase : kAllPhases) {
        PhaseDrift d;
        d.phase = phase;
        for (const auto& it : iterations)
            for (const auto& p : it.phases) {
                if (p.phase != phase || p.interrupted) continue;
                const bool first = d.iterations++ == 0;
                take(d.bandwidth, first, p.bytes_per_sec(), it.index, true);
                take(d.iops, first, p.iops(), it.index, true);
                take(d.p99_ns, first, static_cast<double>(p.p99_ns), it.index, false);
            }
        if (d.iterations) out.push_back(d);
    }
    return out;
}

}  // namespace ds::run
