// Drift over a long run: for each phase, the first, best, worst and last
// iteration's bandwidth, IOPS and p99 latency, so a drive that slows down
// over days is seen at a glance.  Kept as running figures (RunResult::drift,
// updated as each phase ends), so a run of any length holds four of them;
// interrupted phases are left out (a phase cut short by a signal or
// --duration is not comparable).
#pragma once

#include <cstdint>
#include <vector>

#include "model/config.h"

namespace ds::run {

struct PhaseFigures;
struct IterationResult;

// One figure over the iterations: its value in the first and last of them,
// and the best and worst (the first one of equal values).
struct FigureDrift {
    double first = 0, best = 0, worst = 0, last = 0;
    std::uint64_t first_iteration = 0, best_iteration = 0, worst_iteration = 0, last_iteration = 0;
};

struct PhaseDrift {
    Phase phase = Phase::seq_write;
    std::uint64_t runs = 0;        // iterations that ran the phase, interrupted ones included
    std::uint64_t iterations = 0;  // complete runs of the phase taken into account
    FigureDrift bandwidth;         // bytes per second, higher is better
    FigureDrift iops;              // operations per second, higher is better
    FigureDrift p99_ns;            // nanoseconds, lower is better
};

// Takes one run of a phase (iteration `iteration`) into the running drift,
// which keeps one entry per phase in run order.
void add_to_drift(std::vector<PhaseDrift>& drift, const PhaseFigures& p, std::uint64_t iteration);

// Every phase with at least one complete run among `iterations`, in run order.
std::vector<PhaseDrift> phase_drift(const std::vector<IterationResult>& iterations);

}  // namespace ds::run
