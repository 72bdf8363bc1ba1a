#include "engine/rate_schedule.h"

#include <cmath>

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

RateSchedule::RateSchedule(double ops_per_sec, Arrivals arrivals, std::uint64_t start_ns,
                           std::uint64_t phase_ns, std::uint64_t seed)
    : rate_(ops_per_sec),
      arrivals_(arrivals),
      start_ns_(start_ns + phase_ns),
      rng_(seed ^ 0x6A09E667F3BCC909ULL) {}

double RateSchedule::uniform() {
    // splitmix64, top 53 bits: uniform in (0, 1], never 0 (log(0) below).
    std::uint64_t z = (rng_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (static_cast<double>(z >> 11) + 1.0) * 0x1.0p-53;
}

std::uint64_t RateSchedule::next() {
    if (arrivals_ == Arrivals::fixed) {
        // From the count, not by adding intervals: no rounding drift over
        // millions of operations.
        const double at = static_cast<double>(count_++) * 1e9 / rate_;
        return start_ns_ + static_cast<std::uint64_t>(at);
    }
    const double due = at_ns_;
    at_ns_ += -std::log(uniform()) * 1e9 / rate_;
    return start_ns_ + static_cast<std::uint64_t>(due);
}

}  // namespace ds::engine
