// --timeseries: NDJSON, one object per second per phase (and per sweep
// point), so a dashboard or scripts/plot can show an SLC-cache cliff or
// thermal throttling.  schema/timeseries.schema.json describes a line.
#pragma once

#include <string>
#include <vector>

#include "model/observer.h"
#include "sys/unique_fd.h"

namespace ds::metrics {

class TimeseriesWriter final : public model::RunObserver {
  public:
    bool wants_intervals() const override { return true; }
    // Writes to `path`, created afresh (output::create_output_file: never
    // through a link) when the run has started, so a refused run leaves no
    // file; started() throws SetupError naming it.  Every line is written
    // as it comes, so a crash loses at most the interval in progress.
    explicit TimeseriesWriter(const std::string& path) : path_(path) {}

    void started(const model::RunConfig& cfg, const model::RunResult& r) override;
    // A preset's next test: its lines carry "test": `label`, in the same
    // file (created by the first test's start), its seconds after the last.
    void begin_test(const std::string& label) { test_ = label; }
    TimeseriesWriter(const TimeseriesWriter&) = delete;
    TimeseriesWriter& operator=(const TimeseriesWriter&) = delete;

    void interval_done(std::uint64_t iteration, model::Phase phase, std::uint64_t sweep_value,
                       const model::IntervalStats& s, double interval_s,
                       std::uint64_t mismatches_so_far) override;

    // The line for one interval, which started `start_s` into its phase
    // (several targets: each one's share, named as the report names it).
    std::string line(std::uint64_t iteration, model::Phase phase, std::uint64_t sweep_value,
                     const model::IntervalStats& s, double interval_s,
                     std::uint64_t mismatches_so_far, double elapsed_s, double start_s) const;

    // Closes the file; the first write or close that failed, as one line
    // naming the path ("" when every line landed).
    std::string finish();

  private:
    std::string path_;
    sys::UniqueFd fd_;
    std::string error_;
    std::string test_;         // the preset test running, "" outside presets
    double interval_s_ = 1;    // --interval
    double phase_base_s_ = 0;  // run time at the start of the current phase
    double last_end_s_ = 0;
    std::uint64_t last_iteration_ = 0;
    model::Phase last_phase_ = model::Phase::seq_write;
    std::uint64_t last_sweep_value_ = 0;
    std::uint64_t last_index_ = 0;
    bool any_ = false;
    std::vector<std::string> target_names_;  // several targets: by target
};

}  // namespace ds::metrics
