// The result of --interference: each job of a job file alone, then its
// group's jobs together, the sequence made --repeat times (run/interference.h
// makes the runs; report/interference.h judges and renders them).
#pragma once

#include <string>
#include <vector>

#include "model/config.h"
#include "model/results.h"

namespace ds::model {

struct InterferenceRun {
    std::string label;   // "reader alone", "group 0 together"
    unsigned group = 0;  // the job file's group
    // The job file's jobs it runs (indices into the file's jobs): one, or
    // every job of its group.
    std::vector<unsigned> jobs;
    RunConfig config;  // those jobs only, as one group
    // Every repeat's result in run order.
    std::vector<RunResult> repeats;
};

struct Interference {
    std::vector<JobSpec> jobs;  // the job file's, as given
    // In run order: per group (in order), each of its jobs alone (a group of
    // one job: that job alone, nothing to compare), then the group together.
    std::vector<InterferenceRun> runs;
    // The sequence is run this many times, alternated (A B C A B C), so that
    // the host's and the drive's drift falls on every run alike.
    unsigned repeat = 1;
    bool stopped = false;  // a run was interrupted or failed: no more runs
};

// The worst of every repeat of every run made: 2 beats 1 beats a signal beats 0.
ExitStatus exit_status(const Interference& c);

}  // namespace ds::model
