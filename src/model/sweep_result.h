// A sweep's points (--sweep) and --find-rate's search over rates.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/config.h"
#include "model/phase_result.h"
#include "stats/knee.h"
#include "stats/rate_search.h"

namespace ds::model {

struct SweepPoint {
    std::uint64_t value = 0;  // qd, workers or random block bytes
    PhaseResult random;       // the random phase run at this value
};

struct SweepResult {
    SweepParam param = SweepParam::qd;
    std::vector<SweepPoint> points;
    std::optional<std::size_t> knee;  // index of the saturation point (stats::find_knee)
    // --repeat: the point the medians would make the knee, when the p99 rise
    // after it is within the noise of the repeats (then `knee` is not set).
    std::optional<std::size_t> knee_in_noise;
    // --sweep rate=PCT%: the closed-loop IOPS the percentages are of.
    double closed_loop_iops = 0;
    // --sweep rate: the first point whose response p99 turned up (see
    // kTurnUpFactor), or whose rate was not met: the load the drive takes
    // before its tail grows.
    std::optional<std::size_t> turn_up;
    static constexpr double kTurnUpFactor = 2.0;
    // Response p99 of each point (--sweep rate).
    std::vector<std::uint64_t> response_p99_ns() const;
    void find_turn_up();

    // The figure the knee is chosen by: bandwidth for block sizes, else IOPS.
    stats::KneeAxis axis() const;
    // Each point's IOPS, bandwidth and p99 (--repeat: their medians).
    std::vector<stats::SweepFigures> figures() const;
    // Repeats per point (the fewest of any point; 0 without points).
    std::size_t repeats() const;
    // The saturation point described (nullopt when `knee` is not set).
    std::optional<stats::Knee> described_knee() const;
};

// --find-rate: the search over rates (stats/rate_search.h).  Its probes are
// the run's sweep points, in the order probed.
struct FindRateProbe {
    double requested_iops = 0;
    std::size_t repeats = 1;  // --repeat: the runs the verdict is over
    bool rate_met = false;
    stats::ProbeVerdict verdict;  // the response percentile against the bound
};

struct FindRateResult {
    FindRate bound;
    double closed_loop_iops = 0;  // the maximum the search starts from (0: none measured)
    std::vector<FindRateProbe> probes;
    // The highest rate that passed and the lowest that failed (IOPS
    // requested), as indices into `probes`; the answer lies between them.
    std::optional<std::size_t> found, failing;
    bool interrupted = false;  // a signal or --duration ended the search early
};

}  // namespace ds::model
