#include "model/throughput_series.h"

#include <algorithm>

namespace ds::model {

void ThroughputSeries::start(std::uint64_t start_ns) {
    *this = ThroughputSeries{};
    if (start_ns) next_ns_ = start_ns + slice_ns;
}

// Completions since the last tick land in the slice that ended first: the
// later ones, if several ended meanwhile, had none.
void ThroughputSeries::roll(std::uint64_t now_ns, std::uint64_t ops_total,
                            std::uint64_t bytes_total) {
    while (now_ns >= next_ns_) {
        ops.push_back(ops_total - ops_at_);
        bytes.push_back(bytes_total - bytes_at_);
        ops_at_ = ops_total;
        bytes_at_ = bytes_total;
        next_ns_ += slice_ns;
        if (ops.size() == kMaxSlices) {  // even: the slice in progress starts a doubled one
            halve();
            next_ns_ += slice_ns / 2;  // ... and ends a new slice after its start
        }
    }
}

// With an even number of slices (kMaxSlices).
void ThroughputSeries::halve() {
    const std::size_t n = ops.size() / 2;
    for (std::size_t i = 0; i < n; ++i) {
        ops[i] = ops[2 * i] + ops[2 * i + 1];
        bytes[i] = bytes[2 * i] + bytes[2 * i + 1];
    }
    ops.resize(n);
    bytes.resize(n);
    slice_ns *= 2;
}

ThroughputSeries ThroughputSeries::coarsened_to(std::uint64_t ns) const {
    ThroughputSeries s = *this;
    while (s.slice_ns < ns && s.ops.size() >= 2) {
        const std::size_t n = s.ops.size() / 2;  // an odd last slice is dropped
        for (std::size_t i = 0; i < n; ++i) {
            s.ops[i] = s.ops[2 * i] + s.ops[2 * i + 1];
            s.bytes[i] = s.bytes[2 * i] + s.bytes[2 * i + 1];
        }
        s.ops.resize(n);
        s.bytes.resize(n);
        s.slice_ns *= 2;
    }
    return s;
}

void ThroughputSeries::merge(const ThroughputSeries& o) {
    if (o.ops.empty()) return;
    if (ops.empty()) {
        slice_ns = o.slice_ns;
        ops = o.ops;
        bytes = o.bytes;
        return;
    }
    const std::uint64_t ns = std::max(slice_ns, o.slice_ns);
    *this = coarsened_to(ns);
    const ThroughputSeries other = o.coarsened_to(ns);
    if (other.ops.size() > ops.size()) {
        ops.resize(other.ops.size(), 0);
        bytes.resize(other.ops.size(), 0);
    }
    for (std::size_t i = 0; i < other.ops.size(); ++i) {
        ops[i] += other.ops[i];
        bytes[i] += other.bytes[i];
    }
}

void ThroughputSeries::append(const ThroughputSeries& o) {
    if (o.ops.empty()) return;
    const std::uint64_t ns = std::max(slice_ns, o.slice_ns);
    *this = coarsened_to(ns);
    const ThroughputSeries other = o.coarsened_to(ns);
    ops.insert(ops.end(), other.ops.begin(), other.ops.end());
    bytes.insert(bytes.end(), other.bytes.begin(), other.bytes.end());
    while (ops.size() > kMaxSlices)
        *this = coarsened_to(slice_ns * 2);
}

std::vector<double> ThroughputSeries::ops_per_second() const {
    std::vector<double> v;
    v.reserve(ops.size());
    for (std::uint64_t n : ops)
        v.push_back(static_cast<double>(n) / slice_seconds());
    return v;
}

std::vector<double> ThroughputSeries::bytes_per_second() const {
    std::vector<double> v;
    v.reserve(bytes.size());
    for (std::uint64_t n : bytes)
        v.push_back(static_cast<double>(n) / slice_seconds());
    return v;
}

}  // namespace ds::model
