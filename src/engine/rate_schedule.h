// The schedule of an open-loop random phase (--rate): when each operation
// is due.  The engine issues an operation at its due time whether or not
// the earlier ones completed, so a stall delays every operation due during
// it, and each operation's response time (completion minus due time) shows
// it: no coordinated omission.
#pragma once

#include <cstdint>

#include "model/config.h"

namespace ds::engine {

// When the open loop's operations are due: --rate's arrivals, or a
// replayed trace's timestamps (ReplayPhase, phases.h).
class DueTimes {
  public:
    virtual ~DueTimes() = default;
    // The due time of the next operation (monotonic ns); each call moves on.
    virtual std::uint64_t next_due() = 0;
};

class RateSchedule final : public DueTimes {
  public:
    // `ops_per_sec` for this worker (> 0), from `start_ns`.  Fixed arrivals
    // are `1/ops_per_sec` apart, the first at start_ns + phase (so workers
    // given phases spread over one interval interleave); Poisson arrivals
    // are exponentially spaced with that mean, drawn from `seed`.
    RateSchedule(double ops_per_sec, model::Arrivals arrivals, std::uint64_t start_ns,
                 std::uint64_t phase_ns, std::uint64_t seed);

    // The due time of the next operation (monotonic ns); each call moves on.
    std::uint64_t next();
    std::uint64_t next_due() override { return next(); }
    double ops_per_sec() const { return rate_; }

  private:
    double uniform();  // (0, 1]

    double rate_;
    model::Arrivals arrivals_;
    std::uint64_t start_ns_;
    std::uint64_t count_ = 0;  // fixed: operations scheduled so far
    double at_ns_ = 0;         // poisson: the last due time, from start_ns_
    std::uint64_t rng_;
};

}  // namespace ds::engine
