// Drift over a long run: for each phase, the first, best, worst and last
// iteration's bandwidth, IOPS and p99 latency, so a drive that slows down
// over days is seen at a glance.  Kept as running figures (RunResult::drift,
// updated as each phase ends), so a run of any length holds four of them;
// interrupted phases are left out (a phase cut short by a signal or
// --duration is not comparable).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace ds::model {

struct PhaseFigures;
struct IterationResult;

// Runs on each side of the drift verdict: the first kDriftWindow complete
// runs of a phase against its last kDriftWindow (fewer while there are
// fewer than twice that: each side then has half of them).
inline constexpr std::size_t kDriftWindow = 5;
// Fewest runs on each side for a verdict.  Below three, two sides from the
// same distribution have disjoint ranges too often (1 in 3 with two runs a
// side, 1 in 10 with three, 1 in 126 with five) for a difference to mean
// a drift.
inline constexpr std::size_t kDriftMinSide = 3;

// One figure over the iterations: its value in the first and last of them,
// and the best and worst (the first one of equal values).
struct FigureDrift {
    double first = 0, best = 0, worst = 0, last = 0;
    std::uint64_t first_iteration = 0, best_iteration = 0, worst_iteration = 0, last_iteration = 0;
    // For the verdict: the first kDriftWindow values, and the last
    // kDriftWindow in a ring (value i at late[i % kDriftWindow]); `count`
    // values in all.  Bounded memory however long the run.
    std::array<double, kDriftWindow> early{}, late{};
    std::uint64_t count = 0;
    // The first and the last run's own intervals (0, 0: none): with too
    // few runs a side for a verdict over the runs, these are compared.
    double first_low = 0, first_high = 0, last_low = 0, last_high = 0;
};

// Did the figure drift: the early runs' estimate (stats/estimate.h)
// against the late runs'.  A drift is named only when the intervals do not
// overlap.
struct DriftVerdict {
    enum class Kind {
        one_sample,    // one complete run on each side at most: nothing to compare
        too_few,       // fewer than kDriftMinSide runs a side
        within_noise,  // the intervals overlap
        better,        // the late runs' interval lies wholly on the better side
        worse,         // ... on the worse side
    };
    Kind kind = Kind::one_sample;
    // Judged on the first and last runs' own intervals (too few runs a
    // side to judge over the runs).
    bool own_intervals = false;
    std::size_t per_side = 0;  // runs on each side
    double change_pct = 0;     // late median against early median, signed (+: higher)
};
DriftVerdict drift_verdict(const FigureDrift& d, bool higher_better);
// "one sample", "too few runs (2 a side)", "within noise", "-23.4 % (worse)", ...
std::string to_string(const DriftVerdict& v);

struct PhaseDrift {
    Phase phase = Phase::seq_write;
    std::uint64_t runs = 0;        // iterations that ran the phase, interrupted ones included
    std::uint64_t iterations = 0;  // complete runs of the phase taken into account
    std::uint64_t too_short = 0;   // of those, runs too short to measure (kMinMeasuredSeconds)
    FigureDrift bandwidth;         // bytes per second, higher is better
    FigureDrift iops;              // operations per second, higher is better
    FigureDrift p99_ns;            // nanoseconds, lower is better
};

// Takes one run of a phase (iteration `iteration`) into the running drift,
// which keeps one entry per phase in run order.
void add_to_drift(std::vector<PhaseDrift>& drift, const PhaseFigures& p, std::uint64_t iteration);

// Every phase with at least one complete run among `iterations`, in run order.
std::vector<PhaseDrift> phase_drift(const std::vector<IterationResult>& iterations);

}  // namespace ds::model
