// The Prometheus families of the workloads' own figures: each size of a
// --rand-block mix (a latency histogram per size), the skew a
// --distribution achieved (gauges beside its prediction) and, in a run of
// several jobs, each job's (label workload).
#include <algorithm>

#include "metrics/prom_family.h"

namespace ds::metrics::family {

// A --rand-block mix's sizes; none without one.
std::vector<Family> size_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    Family f{"drivestress_size_latency_seconds",
             "histogram",
             "--rand-block mix: latency of the operations completed, per phase, operation and "
             "size (bs, bytes), from submission to completion, at each phase's end; the buckets "
             "are drivestress_op_latency_seconds's.",
             {}};
    for (const auto& run : runs) {
        const PromLabels base = run_labels(s, run);
        for (const auto& [key, h] : run.totals.sized) {
            const auto& [phase, op, bytes] = key;
            add_histogram(f,
                          with(base, {{"phase", phase_name(phase)},
                                      {"op", std::string(to_string(op))},
                                      {"bs", std::to_string(bytes)}}),
                          h);
        }
    }
    if (f.samples.empty()) return {};
    return {f};
}

// A skewed --distribution, over the finished phases: the share of
// operations on the hottest blocks beside the prediction, and the blocks
// touched of those there are (as JSON's skew); none without one.
std::vector<Family> skew_families(const PromState& s, const std::vector<PromSeriesSet>& runs) {
    std::vector<Family> f{
        {"drivestress_skew_hot_share",
         "gauge",
         "--distribution: share of the operations on the hottest `fraction` of blocks, 0 to 1.",
         {}},
        {"drivestress_skew_predicted_share",
         "gauge",
         "--distribution: the distribution's own share on the hottest `fraction` of blocks.",
         {}},
        {"drivestress_skew_blocks_touched",
         "gauge",
         "--distribution: distinct blocks the operations landed on (HyperLogLog estimate).",
         {}},
        {"drivestress_skew_blocks",
         "gauge",
         "--distribution: blocks the draws could land on.",
         {}}};
    for (const auto& run : runs) {
        const PromLabels base = run_labels(s, run);
        for (const auto& [phase, skew] : run.totals.skew) {
            const PromLabels labels = with(base, {{"phase", phase_name(phase)}});
            for (std::size_t i = 0; i < stats::SkewTally::kHotFractions.size(); ++i) {
                const PromLabels hot =
                    with(labels, {{"fraction", format_double(stats::SkewTally::kHotFractions[i])}});
                f[0].add(hot, format_double(skew.tally.hot_share(i)));
                f[1].add(hot, format_double(skew.predicted[i]));
            }
            f[2].add(labels, format_double(std::min(skew.tally.distinct_units(),
                                                    static_cast<double>(skew.blocks))));
            f[3].add(labels, format_count(skew.blocks));
        }
    }
    if (f[0].samples.empty()) return {};
    return f;
}

// A run of several jobs: per job, its operations, bytes, verified bytes,
// mismatches, measured seconds and latency (from its finished workload
// phases: they move as phases end); none for a run of one job.
std::vector<Family> workload_families(const PromState& s) {
    if (s.workloads.size() < 2) return {};
    std::vector<Family> f{
        {"drivestress_workload_operations_total",
         "counter",
         "Operations this job completed in finished workload phases (its ramp's not counted).",
         {}},
        {"drivestress_workload_bytes_total",
         "counter",
         "Bytes this job moved in finished workload phases (its ramp's not counted).",
         {}},
        {"drivestress_workload_verified_bytes_total",
         "counter",
         "Bytes this job's reads verified in finished workload phases.",
         {}},
        {"drivestress_workload_mismatches_total",
         "counter",
         "Mismatches and I/O errors this job found.",
         {}},
        {"drivestress_workload_seconds_total",
         "counter",
         "Seconds this job was measured (after its ramp) in finished workload phases.",
         {}},
        {"drivestress_workload_latency_seconds",
         "histogram",
         "Latency of this job's reads and writes, submission to completion, in finished "
         "workload phases; the buckets are drivestress_op_latency_seconds's.",
         {}}};
    for (const auto& w : s.workloads) {
        const PromLabels l = with(s.labels, {{"workload", w.name}});
        f[0].add(with(l, {{"op", "read"}}), format_count(w.read_ops));
        f[0].add(with(l, {{"op", "write"}}), format_count(w.write_ops));
        f[0].add(with(l, {{"op", "trim"}}), format_count(w.trim_ops));
        f[1].add(with(l, {{"op", "read"}}), format_count(w.read_bytes));
        f[1].add(with(l, {{"op", "write"}}), format_count(w.write_bytes));
        f[2].add(l, format_count(w.verified_bytes));
        f[3].add(l, format_count(w.mismatches));
        f[4].add(l, format_double(w.seconds));
        add_histogram(f[5], l, w.latency);
    }
    return f;
}

}  // namespace ds::metrics::family
