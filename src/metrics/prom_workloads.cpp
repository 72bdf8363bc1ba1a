// The Prometheus families of the workloads' own figures: each size of a
// --rand-block mix (a latency histogram per size) and the skew a
// --distribution achieved (gauges beside its prediction).
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

}  // namespace ds::metrics::family
