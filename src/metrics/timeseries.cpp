#include "metrics/timeseries.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <system_error>

#include "model/errors.h"
#include "output/output_file.h"

namespace ds::metrics {

void TimeseriesWriter::started(const model::RunConfig& cfg, const model::RunResult& r) {
    interval_s_ = cfg.interval_s;
    target_names_.clear();
    for (const auto& t : r.targets)
        target_names_.push_back(t.name);
    if (fd_.valid() || !error_.empty()) return;  // a preset's later test: the same stream
    try {
        fd_ = output::create_output_file(path_);
    } catch (const std::system_error& e) {
        throw model::SetupError(std::string("--timeseries ") + e.what());
    }
}

std::string TimeseriesWriter::finish() {
    if (fd_.valid() && ::close(fd_.release()) != 0 && error_.empty())
        error_ = "--timeseries " + path_ + ": close: " + std::strerror(errno);
    return error_;
}

std::string TimeseriesWriter::line(std::uint64_t iteration, model::Phase phase,
                                   std::uint64_t sweep_value, const model::IntervalStats& s,
                                   double interval_s, std::uint64_t mismatches_so_far,
                                   double elapsed_s, double start_s) const {
    const double len = interval_s > 0 ? interval_s : 1.0;
    nlohmann::json j;
    j["elapsed_s"] = elapsed_s;
    j["iteration"] = iteration;
    j["phase"] = std::string(model::to_string(phase));
    j["second"] = static_cast<std::uint64_t>(start_s + 1e-9);
    j["index"] = s.index;
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
    const stats::LatencyHistogram latency = s.latency();
    j["p50_ns"] = latency.value_at_percentile(50);
    j["p99_ns"] = latency.value_at_percentile(99);
    j["max_ns"] = latency.max();
    if (s.response_latency.count()) {  // --rate: from when each was due
        j["response_p50_ns"] = s.response_latency.value_at_percentile(50);
        j["response_p99_ns"] = s.response_latency.value_at_percentile(99);
        j["response_max_ns"] = s.response_latency.max();
        j["late_ops"] = s.late_ops;
    }
    j["mismatches"] = mismatches_so_far;
    if (s.temperature_c) j["temperature_c"] = *s.temperature_c;
    if (!s.targets.empty()) {
        nlohmann::json targets = nlohmann::json::array();
        for (std::size_t t = 0; t < s.targets.size(); ++t) {
            const auto& share = s.targets[t];
            nlohmann::json one = {{"target", t < target_names_.size() ? target_names_[t] : ""},
                                  {"read_ops", share.read_ops},
                                  {"write_ops", share.write_ops},
                                  {"read_bytes", share.read_bytes},
                                  {"write_bytes", share.write_bytes},
                                  {"mismatches", share.mismatches}};
            if (share.temperature_c) one["temperature_c"] = *share.temperature_c;
            targets.push_back(std::move(one));
        }
        j["targets"] = std::move(targets);
    }
    return j.dump();
}

void TimeseriesWriter::interval_done(std::uint64_t iteration, model::Phase phase,
                                     std::uint64_t sweep_value, const model::IntervalStats& s,
                                     double interval_s, std::uint64_t mismatches_so_far) {
    // A new phase (or sweep point, or --steady-state round: its intervals
    // count from 0 again) starts where the previous one's seconds ended.
    if (!any_ || iteration != last_iteration_ || phase != last_phase_ ||
        sweep_value != last_sweep_value_ || s.index <= last_index_) {
        phase_base_s_ = last_end_s_;
        last_iteration_ = iteration;
        last_phase_ = phase;
        last_sweep_value_ = sweep_value;
        any_ = true;
    }
    last_index_ = s.index;
    const double start_s = static_cast<double>(s.index) * interval_s_;
    const double end_s = phase_base_s_ + start_s + interval_s;
    last_end_s_ = end_s;
    if (!error_.empty() || !fd_.valid()) return;  // the first failure is reported once
    std::string text =
        line(iteration, phase, sweep_value, s, interval_s, mismatches_so_far, end_s, start_s);
    if (!test_.empty()) text.insert(1, "\"test\":" + nlohmann::json(test_).dump() + ",");
    text += '\n';
    // A reader that stops reading holds the run only until a stop request.
    if (!output::write_stream(fd_.get(), text, output::AfterStop::give_up))
        error_ = "--timeseries " + path_ + ": write: " + std::strerror(errno);
}

}  // namespace ds::metrics
