// What every family of the Prometheus text is made of (one family: its
// HELP, TYPE and samples; the number and label helpers), shared by
// prom_families.cpp and prom_workloads.cpp.  Internal to metrics/.
#pragma once

#include <charconv>
#include <cmath>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/prometheus.h"

namespace ds::metrics::family {

inline std::string format_double(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc{} ? std::string(buf, end) : "NaN";
}

inline std::string format_count(std::uint64_t v) {
    return std::to_string(v);
}

inline double seconds(std::uint64_t ns) {
    return static_cast<double>(ns) / 1e9;
}

// One metric family: HELP, TYPE and its samples.
struct Family {
    std::string_view name;
    std::string_view type;
    std::string_view help;
    std::vector<std::string> samples;

    // `suffix` extends the name (_bucket, _sum, _count of a histogram).
    void add(const PromLabels& labels, const std::string& value, std::string_view suffix = {}) {
        std::string line(name);
        line += suffix;
        if (!labels.empty()) {
            line += '{';
            for (std::size_t i = 0; i < labels.size(); ++i) {
                if (i) line += ',';
                line += labels[i].first + "=\"" + prometheus_escape_label(labels[i].second) + '"';
            }
            line += '}';
        }
        samples.push_back(line + ' ' + value);
    }
    void render(std::string& out) const {
        if (samples.empty()) return;
        out += "# HELP " + std::string(name) + ' ' + std::string(help) + '\n';
        out += "# TYPE " + std::string(name) + ' ' + std::string(type) + '\n';
        for (const auto& s : samples)
            out += s + '\n';
    }
};

inline PromLabels with(PromLabels base,
                       std::initializer_list<std::pair<std::string, std::string>> more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

// The labels of every sample of one run: the state's, then the run's own.
inline PromLabels run_labels(const PromState& s, const PromSeriesSet& run) {
    PromLabels labels = s.labels;
    labels.insert(labels.end(), run.labels.begin(), run.labels.end());
    return labels;
}

inline std::string phase_name(model::Phase p) {
    return std::string(model::to_string(p));
}

// One classic histogram's samples on the shared bucket set.
inline void add_histogram(Family& f, const PromLabels& labels, const PromHistogram& h) {
    const auto& bounds = prom_latency_bounds_ns();
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        cumulative += h.buckets[i];
        f.add(with(labels, {{"le", prom_seconds_text(bounds[i])}}), format_count(cumulative),
              "_bucket");
    }
    f.add(with(labels, {{"le", "+Inf"}}), format_count(h.count), "_bucket");
    f.add(labels, format_double(seconds(h.sum_ns)), "_sum");
    f.add(labels, format_count(h.count), "_count");
}

// The families of a --rand-block mix's sizes and a skewed --distribution
// (prom_workloads.cpp); none when no run of the file had one.
std::vector<Family> size_families(const PromState& s, const std::vector<PromSeriesSet>& runs);
std::vector<Family> skew_families(const PromState& s, const std::vector<PromSeriesSet>& runs);
// A run of several jobs: each job's figures, labelled workload (prom_workloads.cpp).
std::vector<Family> workload_families(const PromState& s);

}  // namespace ds::metrics::family
