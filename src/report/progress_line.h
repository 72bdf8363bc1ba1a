// The live status line, fitted to the terminal: a line wider than the
// terminal wraps, and every refresh then leaves a line behind.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ds::report {

// One field of the status line; the line drops fields by rank until it fits.
struct ProgressField {
    std::string text;
    // 0: always kept; otherwise dropped before every field of a smaller rank.
    int drop_rank = 0;
};

// Drop order (first dropped first), so an 80-column terminal keeps what
// says whether the run is healthy: the phase average, the last second's
// p99, the elapsed seconds, the last second's MiB/s beside its IOPS in the
// random phase, then zero mismatches.  Never dropped: iteration, phase,
// progress, the last second's main rate, a nonzero mismatch count.
enum ProgressRank : int {
    kKeep = 0,
    kZeroMismatches = 1,
    kRandomBandwidth = 2,
    kElapsed = 3,
    kLastP99 = 4,
    kAverage = 5,
};

// The fields joined by two spaces, leaving out the highest ranks first
// while the line is wider than `width` columns (0: no limit); what is left
// is cut at `width` as a last resort.
std::string fit_progress_line(const std::vector<ProgressField>& fields, std::size_t width);

// Columns of the terminal on `fd`, else $COLUMNS, else 0 (unknown).
std::size_t terminal_columns(int fd);

}  // namespace ds::report
