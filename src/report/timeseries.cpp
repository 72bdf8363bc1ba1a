#include "report/timeseries.h"

#include <cerrno>
#include <nlohmann/json.hpp>
#include <system_error>

namespace ds::report {

TimeseriesWriter::TimeseriesWriter(const std::string& path) : file_(std::fopen(path.c_str(), "w")) {
    if (!file_) throw std::system_error(errno, std::generic_category(), "--timeseries " + path);
}

TimeseriesWriter::~TimeseriesWriter() {
    std::fclose(file_);
}

std::string TimeseriesWriter::line(std::uint64_t iteration, run::Phase phase,
                                   std::uint64_t sweep_value, const run::IntervalStats& s,
                                   double interval_s, std::uint64_t mismatches_so_far,
                                   double elapsed_s) {
    const double len = interval_s > 0 ? interval_s : 1.0;
    nlohmann::json j;
    j["elapsed_s"] = elapsed_s;
    j["iteration"] = iteration;
    j["phase"] = std::string(run::to_string(phase));
    j["second"] = s.second;
    j["interval_s"] = interval_s;
    if (sweep_value) j["sweep_value"] = sweep_value;
    j["read_bytes"] = s.read_bytes;
    j["write_bytes"] = s.write_bytes;
    j["read_ops"] = s.read_ops;
    j["write_ops"] = s.write_ops;
    j["read_bytes_per_sec"] = s.read_bytes / len;
    j["write_bytes_per_sec"] = s.write_bytes / len;
    j["read_iops"] = s.read_ops / len;
    j["write_iops"] = s.write_ops / len;
    j["p50_ns"] = s.latency.value_at_percentile(50);
    j["p99_ns"] = s.latency.value_at_percentile(99);
    j["max_ns"] = s.latency.max();
    j["mismatches"] = mismatches_so_far;
    return j.dump();
}

void TimeseriesWriter::interval_done(std::uint64_t iteration, run::Phase phase,
                                     std::uint64_t sweep_value, const run::IntervalStats& s,
                                     double interval_s, std::uint64_t mismatches_so_far) {
    // A new phase (or sweep point) starts where the previous one's seconds ended.
    if (!any_ || iteration != last_iteration_ || phase != last_phase_ ||
        sweep_value != last_sweep_value_) {
        phase_base_s_ = last_end_s_;
        last_iteration_ = iteration;
        last_phase_ = phase;
        last_sweep_value_ = sweep_value;
        any_ = true;
    }
    const double end_s = phase_base_s_ + static_cast<double>(s.second) + interval_s;
    last_end_s_ = end_s;
    std::string text = line(iteration, phase, sweep_value, s, interval_s, mismatches_so_far, end_s);
    std::fputs(text.c_str(), file_);
    std::fputc('\n', file_);
    std::fflush(file_);
}

}  // namespace ds::report
