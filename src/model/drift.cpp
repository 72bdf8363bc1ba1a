#include "model/drift.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "model/results.h"
#include "stats/estimate.h"

namespace ds::model {

namespace {

void keep_sample(FigureDrift& d, double value) {
    if (d.count < kDriftWindow) d.early[d.count] = value;
    d.late[d.count % kDriftWindow] = value;
    ++d.count;
}

void take(FigureDrift& d, bool first, double value, std::uint64_t iteration, bool higher_better,
          double low, double high) {
    if (first) {
        d = FigureDrift{value, value, value, value, iteration, iteration, iteration, iteration};
        keep_sample(d, value);
        d.first_low = d.last_low = low;
        d.first_high = d.last_high = high;
        return;
    }
    d.last_low = low;
    d.last_high = high;
    keep_sample(d, value);
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

DriftVerdict::Kind kind_of(stats::Difference late_against_early, bool higher_better) {
    switch (late_against_early) {
        case stats::Difference::higher:
            return higher_better ? DriftVerdict::Kind::better : DriftVerdict::Kind::worse;
        case stats::Difference::lower:
            return higher_better ? DriftVerdict::Kind::worse : DriftVerdict::Kind::better;
        default:
            return DriftVerdict::Kind::within_noise;
    }
}

// Too few runs a side: the first run against the last, each with its own
// interval (false when either has none).
bool judge_on_own_intervals(const FigureDrift& d, bool higher_better, DriftVerdict& v) {
    if (d.count < 2 || d.first_high <= 0 || d.last_high <= 0) return false;
    const auto own = [](double median, double low, double high) {
        stats::Estimate e;
        e.n = 2;  // an interval, whatever it was made of
        e.median = median;
        e.low = e.min = low;
        e.high = e.max = high;
        return e;
    };
    const stats::Estimate a = own(d.first, d.first_low, d.first_high);
    const stats::Estimate b = own(d.last, d.last_low, d.last_high);
    if (a.median != 0) v.change_pct = (b.median - a.median) / std::abs(a.median) * 100;
    v.kind = kind_of(stats::compare(b, a), higher_better);
    v.own_intervals = true;
    return true;
}

}  // namespace

// The early side is values [0, m), the late side [n - m, n), m = min(window,
// n / 2): with n <= 2 x window every value is still held (the first window
// in `early`, the rest in the ring), beyond that the sides are the two
// windows themselves.  Fewer than kDriftMinSide a side: the first and last
// runs' own intervals, where they have them.
DriftVerdict drift_verdict(const FigureDrift& d, bool higher_better) {
    DriftVerdict v;
    const auto n = static_cast<std::size_t>(d.count);
    v.per_side = std::min(kDriftWindow, n / 2);
    if (v.per_side < kDriftMinSide && judge_on_own_intervals(d, higher_better, v)) return v;
    if (v.per_side < 2) return v;  // one_sample
    std::vector<double> early(d.early.begin(), d.early.begin() + static_cast<long>(v.per_side));
    std::vector<double> late;
    for (std::size_t i = n - v.per_side; i < n; ++i)
        late.push_back(d.late[i % kDriftWindow]);
    const stats::Estimate a = stats::estimate(early), b = stats::estimate(late);
    if (a.median != 0) v.change_pct = (b.median - a.median) / std::abs(a.median) * 100;
    if (v.per_side < kDriftMinSide) {
        v.kind = DriftVerdict::Kind::too_few;
        return v;
    }
    v.kind = kind_of(stats::compare(b, a), higher_better);
    return v;
}

std::string to_string(const DriftVerdict& v) {
    char change[48];
    std::snprintf(change, sizeof change, "%+.1f %%", v.change_pct);
    switch (v.kind) {
        case DriftVerdict::Kind::one_sample:
            return v.per_side ? "one sample a side" : "one sample";
        case DriftVerdict::Kind::too_few:
            return "too few runs (" + std::to_string(v.per_side) + " a side)";
        case DriftVerdict::Kind::within_noise:
            return v.own_intervals ? "within noise (#1-last)" : "within noise";
        case DriftVerdict::Kind::better:
            return std::string(change) + (v.own_intervals ? " (better, #1-last)" : " (better)");
        case DriftVerdict::Kind::worse:
            return std::string(change) + (v.own_intervals ? " (worse, #1-last)" : " (worse)");
    }
    return "?";
}

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
    if (!p.too_short().empty()) ++d.too_short;
    take(d.bandwidth, first, p.bytes_per_sec(), iteration, true, p.bandwidth_low, p.bandwidth_high);
    take(d.iops, first, p.iops(), iteration, true, p.iops_low, p.iops_high);
    // Not the p99's own interval: its ranks assume independent latencies,
    // and a run's latencies are not, so it is narrower than run-to-run
    // noise; the p99 needs runs a side.
    take(d.p99_ns, first, static_cast<double>(p.p99_ns), iteration, false, 0, 0);
}

std::vector<PhaseDrift> phase_drift(const std::vector<IterationResult>& iterations) {
    std::vector<PhaseDrift> drift;
    for (const auto& it : iterations)
        for (const auto& p : it.phases)
            add_to_drift(drift, p, it.index);
    std::erase_if(drift, [](const PhaseDrift& d) { return d.iterations == 0; });
    return drift;
}

}  // namespace ds::model
