// The live status line: every field when it fits, fields dropped in the stated
// order when not, and a mismatch count never dropped.
#include "report/progress_line.h"

#include <doctest/doctest.h>

using ds::report::fit_progress_line;
using ds::report::ProgressField;
namespace rank = ds::report;

namespace {

std::vector<ProgressField> random_fields(const char* mismatches, int mismatch_rank) {
    return {{"[iteration 12] random     45%"},
            {"last 1 s: 123.4k IOPS"},
            {"482.1 MiB/s", rank::kRandomBandwidth},
            {"p99 0.512 ms", rank::kLastP99},
            {"(avg 120.9k IOPS)", rank::kAverage},
            {mismatches, mismatch_rank},
            {"1234.5 s", rank::kElapsed}};
}

}  // namespace

TEST_CASE("the status line keeps every field when it fits, or the width is unknown") {
    const auto fields = random_fields("mismatches 0", rank::kZeroMismatches);
    const std::string all =
        "[iteration 12] random     45%  last 1 s: 123.4k IOPS  482.1 MiB/s  p99 0.512 ms  "
        "(avg 120.9k IOPS)  mismatches 0  1234.5 s";
    CHECK(fit_progress_line(fields, 0) == all);
    CHECK(fit_progress_line(fields, all.size()) == all);
}

TEST_CASE("the status line drops fields in the stated order to fit") {
    const auto fields = random_fields("mismatches 0", rank::kZeroMismatches);
    // 100 columns: the average, then the last second's p99 go.
    CHECK(fit_progress_line(fields, 100) ==
          "[iteration 12] random     45%  last 1 s: 123.4k IOPS  482.1 MiB/s  mismatches 0  "
          "1234.5 s");
    // 79 columns (an 80-column terminal): the elapsed seconds too.
    CHECK(fit_progress_line(fields, 79) ==
          "[iteration 12] random     45%  last 1 s: 123.4k IOPS  482.1 MiB/s  mismatches 0");
    // Then the random phase's MiB/s, then a zero mismatch count.
    CHECK(fit_progress_line(fields, 70) ==
          "[iteration 12] random     45%  last 1 s: 123.4k IOPS  mismatches 0");
    CHECK(fit_progress_line(fields, 60) == "[iteration 12] random     45%  last 1 s: 123.4k IOPS");
    // Nothing left to drop: cut at the width.
    CHECK(fit_progress_line(fields, 20) == "[iteration 12] rando");
}

TEST_CASE("a nonzero mismatch count is never dropped") {
    const auto fields = random_fields("mismatches 3", rank::kKeep);
    CHECK(fit_progress_line(fields, 70) ==
          "[iteration 12] random     45%  last 1 s: 123.4k IOPS  mismatches 3");
}
