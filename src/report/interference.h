// --interference's judgement and its text and JSON: each job's IOPS and p99
// alone and together with its group, the ratio of the two, whether it lies
// outside the noise (the repeats' intervals), the job that suffered most,
// and the drift of the alone runs themselves (a drive's state carries from
// one run to the next).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/interference.h"
#include "stats/estimate.h"
#include "units/units.h"

namespace ds::report {

// One side of a job's figures (alone, or together) over the repeats.
struct InterferenceSide {
    std::vector<double> iops, p99_ns;  // a sample per repeat, in run order
    stats::Estimate iops_estimate, p99_estimate;
};

struct JobInterference {
    std::string name;
    unsigned group = 0;
    std::vector<std::string> with;  // the other jobs of its group (empty: alone in it)
    bool paced = false;             // a rate: its p99 counts from when each I/O was due
    InterferenceSide alone, together;
    double iops_ratio = 0, p99_ratio = 0;  // together's median over alone's (0: not compared)
    // Together against alone; single_sample below two repeats.
    stats::Difference iops_difference = stats::Difference::single_sample;
    stats::Difference p99_difference = stats::Difference::single_sample;
    double alone_drift_pct = 0;  // its last alone run's IOPS over its first, less 100 %
};

// Each job of the file, in file order.  A job's p99 is its response time
// where it is paced (rate_iops), else its service time.
std::vector<JobInterference> interference_figures(const model::Interference& c);

// The job whose p99 grew most together (of those whose growth lies outside
// the noise, when any does); null when no job had company.
const JobInterference* suffered_most(const std::vector<JobInterference>& jobs);

// One line as a run ends: "run 3/6  group 0 together  reader 4.9k IOPS p99 1.920 ms, ..."
std::string interference_run_line(const model::Interference& c, std::size_t i);

// The table and the verdict words, within 100 columns.
std::string interference_text(const model::Interference& c);

// The "interference" object of the --json document.
nlohmann::json interference_json(const model::Interference& c);

}  // namespace ds::report
