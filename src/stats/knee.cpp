#include "stats/knee.h"

#include <algorithm>
#include <vector>

namespace ds::stats {

std::optional<std::size_t> find_knee(std::span<const double> throughput,
                                     std::span<const double> p99, double min_gain_pct) {
    const std::size_t n = std::min(throughput.size(), p99.size());
    for (std::size_t i = 0; i + 1 < n; ++i) {
        if (throughput[i] <= 0) continue;
        double best_later = throughput[i + 1];
        for (std::size_t j = i + 2; j < n; ++j)
            best_later = std::max(best_later, throughput[j]);
        double gain_pct = (best_later / throughput[i] - 1.0) * 100.0;
        if (gain_pct < min_gain_pct && p99[i + 1] > p99[i]) return i;
    }
    return std::nullopt;
}

std::string_view to_string(KneeAxis a) {
    return a == KneeAxis::bandwidth ? "bandwidth" : "iops";
}

namespace {

double change_pct(double from, double to) {
    return from > 0 ? (to / from - 1.0) * 100.0 : 0.0;
}

}  // namespace

std::optional<Knee> find_knee(std::span<const SweepFigures> points, KneeAxis axis,
                              double min_gain_pct) {
    std::vector<double> throughput, p99;
    for (const auto& p : points) {
        throughput.push_back(axis == KneeAxis::bandwidth ? p.bytes_per_sec : p.iops);
        p99.push_back(p.p99_ns);
    }
    if (auto i = find_knee(throughput, p99, min_gain_pct)) return knee_at(points, *i, axis);
    return std::nullopt;
}

Knee knee_at(std::span<const SweepFigures> points, std::size_t index, KneeAxis axis) {
    const SweepFigures& a = points[index];
    const SweepFigures& b = points[index + 1];
    Knee k;
    k.index = index;
    k.axis = axis;
    k.at = a;
    k.next_iops_gain_pct = change_pct(a.iops, b.iops);
    k.next_bandwidth_gain_pct = change_pct(a.bytes_per_sec, b.bytes_per_sec);
    k.next_p99_change_pct = change_pct(a.p99_ns, b.p99_ns);
    return k;
}

}  // namespace ds::stats
