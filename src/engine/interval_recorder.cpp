#include "engine/interval_recorder.h"

#include <utility>

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

void IntervalRecorder::start(std::uint64_t phase_start_ns, std::uint64_t interval_ns) {
    start_ns_ = phase_start_ns;
    interval_ns_ = interval_ns ? interval_ns : 1'000'000'000ULL;
    next_boundary_ns_ = phase_start_ns ? phase_start_ns + interval_ns_ : UINT64_MAX;
    current_ = IntervalStats{};
    at_start_ = PhaseCounters{};
}

void IntervalRecorder::publish(const PhaseCounters& c) {
    current_.read_ops = c.read_ops - at_start_.read_ops;
    current_.write_ops = c.write_ops - at_start_.write_ops;
    current_.read_bytes = c.read_bytes - at_start_.read_bytes;
    current_.write_bytes = c.write_bytes - at_start_.write_bytes;
    current_.mismatches = c.mismatch_total() - at_start_.mismatch_total();
    current_.late_ops = c.late_ops - at_start_.late_ops;
    for (std::size_t m = 0; m < c.mismatches.size(); ++m)
        current_.mismatches_by_class[m] = c.mismatches[m] - at_start_.mismatches[m];
    at_start_.read_ops = c.read_ops;
    at_start_.write_ops = c.write_ops;
    at_start_.read_bytes = c.read_bytes;
    at_start_.write_bytes = c.write_bytes;
    at_start_.mismatches = c.mismatches;
    at_start_.late_ops = c.late_ops;
    std::lock_guard lk(mutex_);
    published_.push_back(current_);
    current_.read_latency.reset();
    current_.write_latency.reset();
    current_.response_latency.reset();
}

void IntervalRecorder::roll(std::uint64_t now_ns, const PhaseCounters& c) {
    publish(c);
    current_.index = (now_ns - start_ns_) / interval_ns_;
    next_boundary_ns_ = start_ns_ + (current_.index + 1) * interval_ns_;
}

void IntervalRecorder::rebase(const PhaseCounters& dropped) {
    // Unsigned: at_start_ may go below zero (modulo 2^64), and each
    // difference publish() takes comes out right.
    at_start_.read_ops -= dropped.read_ops;
    at_start_.write_ops -= dropped.write_ops;
    at_start_.read_bytes -= dropped.read_bytes;
    at_start_.write_bytes -= dropped.write_bytes;
    at_start_.late_ops -= dropped.late_ops;
}

void IntervalRecorder::finish(const PhaseCounters& c) {
    if (on()) publish(c);
    start_ns_ = 0;
    next_boundary_ns_ = UINT64_MAX;
}

std::vector<IntervalStats> IntervalRecorder::take() {
    std::lock_guard lk(mutex_);
    return std::exchange(published_, {});
}

}  // namespace ds::engine
