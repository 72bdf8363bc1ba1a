// --timeseries: NDJSON, one object per second per phase (and per sweep
// point), so a dashboard or scripts/plot can show an SLC-cache cliff or
// thermal throttling.  schema/timeseries.schema.json describes a line.
#pragma once

#include <cstdio>
#include <string>

#include "run/runner.h"

namespace ds::report {

class TimeseriesWriter final : public run::RunObserver {
  public:
    // Opens (truncates) `path`; throws std::system_error naming it.
    explicit TimeseriesWriter(const std::string& path);
    ~TimeseriesWriter() override;
    TimeseriesWriter(const TimeseriesWriter&) = delete;
    TimeseriesWriter& operator=(const TimeseriesWriter&) = delete;

    void interval_done(std::uint64_t iteration, run::Phase phase, std::uint64_t sweep_value,
                       const run::IntervalStats& s, double interval_s,
                       std::uint64_t mismatches_so_far) override;

    // The line for one second (also used by tests).
    static std::string line(std::uint64_t iteration, run::Phase phase, std::uint64_t sweep_value,
                            const run::IntervalStats& s, double interval_s,
                            std::uint64_t mismatches_so_far, double elapsed_s);

  private:
    std::FILE* file_;
    double phase_base_s_ = 0;  // run time at the start of the current phase
    double last_end_s_ = 0;
    std::uint64_t last_iteration_ = 0;
    run::Phase last_phase_ = run::Phase::seq_write;
    std::uint64_t last_sweep_value_ = 0;
    bool any_ = false;
};

}  // namespace ds::report
