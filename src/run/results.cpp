#include "run/results.h"

#include <ctime>
#include <numeric>

namespace ds::run {

std::string utc_now_iso8601() {
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

void PhaseCounters::merge(const PhaseCounters& o) {
    read_ops += o.read_ops;
    write_ops += o.write_ops;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    verified_bytes += o.verified_bytes;
    unverified_units += o.unverified_units;
    retries += o.retries;
    for (std::size_t i = 0; i < mismatches.size(); ++i)
        mismatches[i] += o.mismatches[i];
    read_latency.merge(o.read_latency);
    write_latency.merge(o.write_latency);
    flush_ops += o.flush_ops;
    flush_latency.merge(o.flush_latency);
    write_errors += o.write_errors;
}

std::uint64_t PhaseCounters::mismatch_total() const {
    return std::accumulate(mismatches.begin(), mismatches.end(), std::uint64_t{0});
}

void IntervalStats::merge(const IntervalStats& o) {
    read_ops += o.read_ops;
    write_ops += o.write_ops;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    mismatches += o.mismatches;
    for (std::size_t i = 0; i < mismatches_by_class.size(); ++i)
        mismatches_by_class[i] += o.mismatches_by_class[i];
    read_latency.merge(o.read_latency);
    write_latency.merge(o.write_latency);
}

stats::LatencyHistogram IntervalStats::latency() const {
    stats::LatencyHistogram all = read_latency;
    all.merge(write_latency);
    return all;
}

double PhaseResult::iops() const {
    return seconds > 0 ? static_cast<double>(counters.read_ops + counters.write_ops) / seconds
                       : 0.0;
}

double PhaseResult::bytes_per_sec() const {
    return seconds > 0 ? static_cast<double>(counters.read_bytes + counters.write_bytes) / seconds
                       : 0.0;
}

stats::LatencyHistogram PhaseResult::latency() const {
    stats::LatencyHistogram all = counters.read_latency;
    all.merge(counters.write_latency);
    return all;
}

RunResult::Totals RunResult::totals() const {
    Totals t;
    auto add = [&](const PhaseResult& p) {
        t.written += p.counters.write_bytes;
        t.read += p.counters.read_bytes;
        t.verified += p.counters.verified_bytes;
    };
    for (const auto& it : iterations)
        for (const auto& p : it.phases)
            add(p);
    for (const auto& pt : sweep.points)
        add(pt.random);
    if (sync_compare)
        for (const auto& row : sync_compare->rows) {
            t.written += row.ops * row.write_bytes * row.writes_per_op;
            t.read += row.verified_bytes;
            t.verified += row.verified_bytes;
        }
    return t;
}

std::uint64_t RunResult::damaged_units() const {
    std::uint64_t n = 0;
    for (const auto& d : damage)
        n += d.distinct_units;
    return n;
}

std::uint64_t RunResult::mismatch_count() const {
    return std::accumulate(mismatch_totals.begin(), mismatch_totals.end(), std::uint64_t{0});
}

}  // namespace ds::run

namespace ds::run {
int exit_status(const RunResult& r) {
    if (r.mismatch_count() > 0) return 2;
    if (!r.fatal_error.empty()) return 1;
    if (r.stop == StopReason::signal) return 128 + r.stop_signal;
    return 0;
}
}  // namespace ds::run
