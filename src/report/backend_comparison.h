// --compare-backends: the runs side by side.  The figures are computed once
// (compared_rows, compared_sweep) and rendered as text and JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/comparison.h"
#include "stats/crossover.h"
#include "stats/estimate.h"
#include "units/units.h"

namespace ds::report {

// One run's figures for one phase (or one sweep point's random phase).
// "Per op" is per completed read, write or flush, and counts the whole
// process (workers, pool threads, the coordinator) over the phase.
struct ComparedPhase {
    model::Phase phase = model::Phase::random;
    unsigned in_flight = 0;  // operations in flight at most, over every worker
    std::uint64_t ops = 0;
    double iops = 0;
    double bytes_per_sec = 0;
    std::uint64_t p50_ns = 0, p99_ns = 0, p999_ns = 0;
    double user_ns_per_op = 0, system_ns_per_op = 0;
    double context_switches_per_op = 0;  // getrusage ru_nvcsw + ru_nivcsw
    double system_calls_per_op = 0;      // pread/pwrite/fsync, or io_uring_enter
    // --repeat: IOPS and bandwidth over the repeats (then iops and
    // bytes_per_sec above are these medians); one repeat: n = 1.
    // One repeat: the two estimates are this run's intervals, from the
    // phase's own slices (model::PhaseResult::series_estimate).
    stats::Estimate iops_repeats, bandwidth_repeats;
    bool within_run = false;
    std::string too_short;  // model::PhaseResult::too_short(): no ratio is quoted of it
};

struct ComparedRow {
    std::string label;
    io::BackendKind backend{};  // the first kind (io_uring) until set
    unsigned workers = 0;
    unsigned qd_per_worker = 0;  // random phase
    unsigned sync_threads = 0;   // per worker; 0: none
    bool sqpoll = false;
    std::vector<ComparedPhase> phases;  // over every iteration
};

ComparedPhase compared_phase(const model::PhaseResult& p, unsigned in_flight);
// One row per run that ran, in run order.
std::vector<ComparedRow> compared_rows(const model::BackendComparison& c);

// --compare-backends --sweep qd: both curves and where io_uring starts to pay.
struct ComparedSweepPoint {
    std::uint64_t qd = 0;
    ComparedPhase uring, sync;
};
struct ComparedSweep {
    std::vector<ComparedSweepPoint> points;
    std::optional<std::size_t> crossover;  // index into points (stats::find_crossover)
    double margin_pct = 5;                 // lead that counts as paying
    std::size_t repeats = 1;               // --repeat: runs per backend and point
    // Every point has an interval (over the repeats, or with one repeat from
    // its phase's own slices: within_run): the crossover is judged on the
    // estimates (crossover above is its index).
    bool judged = false;
    bool within_run = false;
    stats::NoisyCrossover noisy;
    // "named", "within_noise" (no lead and no loss outside the noise) or "never".
    std::string verdict() const;
};
// Empty points when the runs did not sweep (or sync did not run).
ComparedSweep compared_sweep(const model::BackendComparison& c);
// "io_uring pays from QD 4 on: 1.32x the IOPS of sync there, ...", or
// "crossover: within noise: ..." when the repeats' intervals overlap.
std::string crossover_line(const ComparedSweep& s);
// --repeat: one line for a later repeat of run i ("repeat 2/3  io_uring  random 61.1k IOPS").
std::string repeat_line(const model::BackendComparison& c, std::size_t i,
                        units::ByteUnits u = units::ByteUnits::iec);

// "io_uring 1.40x the IOPS" (more is better) or "p99 2.1x lower on io_uring"
// (less is better): always the winner and a factor of at least 1.
std::string more_is_better(const std::string& what, double a, const std::string& a_name, double b,
                           const std::string& b_name);
std::string less_is_better(const std::string& what, double a, const std::string& a_name, double b,
                           const std::string& b_name);

// The comparison after the runs' sections: a figures table, the ratios of
// io_uring against every other row in words, the sweep, one verdict line.
std::string comparison_text(const model::BackendComparison& c,
                            units::ByteUnits u = units::ByteUnits::iec);
// "verdict  ..." (no newline).
std::string verdict_line(const model::BackendComparison& c,
                         units::ByteUnits u = units::ByteUnits::iec);
// The "compare_backends" section of the JSON document.
nlohmann::json comparison_json(const model::BackendComparison& c);

}  // namespace ds::report
