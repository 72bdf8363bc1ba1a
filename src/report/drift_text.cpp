// The drift table: how each figure moved between the first and the last
// iterations (--iterations N, N > 1).
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "drivestress_version.h"
#include "model/drift.h"
#include "report/figures.h"
#include "report/progress_line.h"
#include "report/result_line.h"
#include "report/target_table.h"
#include "report/text_parts.h"
#include "report/text_report.h"
#include "report/text_width.h"
#include "units/units.h"

namespace ds::report {

using units::printf_string;

std::string drift_table(const std::vector<model::IterationResult>& iterations, units::ByteUnits u) {
    return drift_table(model::phase_drift(iterations), iterations.size(), u);
}

std::string drift_table(const std::vector<model::PhaseDrift>& drift, std::uint64_t iterations,
                        units::ByteUnits u) {
    const units::RateUnit ru = units::rate_unit(u);
    const bool any = std::any_of(drift.begin(), drift.end(),
                                 [](const model::PhaseDrift& d) { return d.iterations > 0; });
    if (iterations < 2 || !any) return "";
    std::string t = fit(printf_string("\ndrift    %" PRIu64
                                      " iterations: first, best, worst and last of each phase "
                                      "(#iteration; interrupted phases left out); drift: the "
                                      "first %zu runs against the last %zu, named only outside "
                                      "the noise\n",
                                      iterations, model::kDriftWindow, model::kDriftWindow),
                        9);
    // Cells of 13 columns (value, #iteration): a row of 100 with the
    // longest verdict.
    t += printf_string("  %-10s %-6s %8s%5s%8s%5s%8s%5s%8s%5s%s\n", "phase", "", "first", "",
                       "best", "", "worst", "", "last", "", "drift");
    auto row = [&](const char* phase, const char* figure, const model::FigureDrift& d,
                   bool higher_better, auto&& text) {
        auto cell = [&](double v, std::uint64_t it) {
            return printf_string("%8s #%-3" PRIu64, text(v).c_str(), it);
        };
        std::string line = printf_string(
            "  %-10s %-6s %s%s%s%s%s", phase, figure, cell(d.first, d.first_iteration).c_str(),
            cell(d.best, d.best_iteration).c_str(), cell(d.worst, d.worst_iteration).c_str(),
            cell(d.last, d.last_iteration).c_str(),
            model::to_string(model::drift_verdict(d, higher_better)).c_str());
        t += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
    };
    std::string short_runs;
    for (const auto& d : drift) {
        if (d.iterations == 0) continue;
        if (d.too_short)
            short_runs += printf_string(
                "%s%s %" PRIu64 " of %" PRIu64, short_runs.empty() ? "" : ", ",
                std::string(model::to_string(d.phase)).c_str(), d.too_short, d.iterations);
        const std::string name(model::to_string(d.phase));
        if (d.phase == model::Phase::random)
            row(name.c_str(), "IOPS", d.iops, true, [](double v) { return units::format_iops(v); });
        else
            row(name.c_str(), ru.name, d.bandwidth, true,
                [&](double v) { return printf_string("%.1f", ru.of(v)); });
        row("", "p99 ms", d.p99_ns, false,
            [](double v) { return ms(static_cast<std::uint64_t>(v)); });
    }
    // Such runs' figures are shown, as each phase line shows them, but not
    // as figures to quote.
    if (!short_runs.empty())
        t += fit("  too short to measure: " + short_runs +
                 " runs; their figures above are no figures to quote (a figure needs 1 s and 200 "
                 "operations)") +
             "\n";
    return t;
}

}  // namespace ds::report
