// The coordinator: a RunSession (target, files, workers), then the
// iterations, each phase in lockstep across the workers (phase_runner.h),
// stopping cleanly on --duration or a signal.  Returns what was measured;
// printing is the report layer's job.
#pragma once

#include <cstdint>

#include "model/config.h"
#include "model/observer.h"
#include "model/results.h"

namespace ds::run {

class Runner {
  public:
    explicit Runner(model::RunConfig cfg, model::RunObserver* observer = nullptr);
    // Throws SetupError (or std::system_error) for setup failures before
    // the first phase finished; one after it ends the run with the error
    // in RunResult::fatal_error (StopReason::error).  Files it created are
    // removed on every path out.
    model::RunResult run();

  private:
    model::RunConfig cfg_;
    model::RunObserver* observer_;
};

// A non-zero seed from the system's random source (the run's data then
// differs from every other run's; --seed makes it reproducible).
std::uint64_t random_seed();

// A run made several times over (--compare-backends' rows, --interference's
// sequence): `cfg` gets the seed all of them use (random_seed() unless
// --seed gave one) and repeat 1; returns the repeats asked for (at least 1),
// which the caller makes itself, alternating its runs.
unsigned take_repeats(model::RunConfig& cfg);

}  // namespace ds::run
