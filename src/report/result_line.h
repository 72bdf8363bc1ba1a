// The figures people quote from a run (sequential MiB/s, random IOPS and
// p99), computed once: the one line to paste at the end of the text report,
// the whole of --brief, and the rows of a preset's table.
#pragma once

#include <cstdint>
#include <string>

#include "model/config.h"
#include "model/results.h"
#include "units/units.h"

namespace ds::report {

// One direction of one phase, over every iteration that ran it.
struct DirectionFigures {
    bool measured = false;  // the phase ran and did operations of this direction
    double bytes_per_sec = 0;
    double iops = 0;
    std::uint64_t p99_ns = 0;
    std::uint64_t ops = 0;  // the sample count behind p99
    // Why the phase was too short to measure (model::kMinMeasuredSeconds),
    // or empty: a figure quoted only when it is.
    std::string too_short;
    // One run's interval of its figure, half its width in % (0: none; a
    // phase of several runs or regimes has none).
    double within_pct = 0;
};

struct QuotedFigures {
    DirectionFigures seq_write, seq_read;
    DirectionFigures random_read, random_write;
    bool random = false;           // the random phase ran
    std::string random_too_short;  // why it was too short to measure, or empty
    double random_iops = 0;        // reads and writes
    // Under --rate, response time (from when each operation was due), the
    // figure an open loop is about; else service time.
    std::uint64_t random_p99_ns = 0;
    bool random_p99_is_response = false;
    stats::Estimate random_iops_repeats;  // --repeat: over the repeats (n = 1: none)
    double random_within_pct = 0;         // one repeat: DirectionFigures::within_pct
};

// From the run's merged phases (sweep points are not in them).
QuotedFigures quoted_figures(const model::RunResult& r);

// What --dedupe's copies are and what they make undetectable: "dedupe 25 %
// (16606 of 65536 units hold one of 16 sources, 1.34:1; a lost, torn or
// misdirected write between two units of one source is undetectable)".
std::string dedupe_words(const model::DataCompressibility& d);

// "figures  seq 1M: write 1593.0 MiB/s, read 1563.1 MiB/s | random 4K, 70%
// reads, qd 32 x 2 workers: 129.2k IOPS, p99 4.637 ms | io_uring, O_DIRECT,
// 2 x 32 MiB on ext4, verified" (no newline); parts that did not run are left out,
// and a phase too short to measure reads "too short to measure (0.040 s, 16
// operations)" instead of its figure.
std::string result_line(const model::RunConfig& cfg, const model::RunResult& r,
                        units::ByteUnits u = units::ByteUnits::iec);

}  // namespace ds::report
