// --interference: what the other jobs of a group cost each job.  Each group
// of the job file runs each of its jobs alone (in file order), then all of
// them together; --repeat N makes that sequence N times, alternated.  Every
// run is a whole run of its jobs (lay out, the jobs, reverify: every byte
// verified), with one seed, so the data is the same in each; each creates
// and removes its own files.  A run starts only when none before it was
// interrupted or failed to start.
#pragma once

#include "model/config.h"
#include "model/interference.h"
#include "model/observer.h"

namespace ds::run {

// The runs of `cfg`'s jobs (cfg.jobs: a job file's), not run yet, the seed
// chosen; --repeat moves from the runs to the sequence.
model::Interference interference_plan(model::RunConfig cfg);
// Makes run i once more (watched by `observer`, null: nobody) unless a run
// before it was interrupted or failed; whether it ran.
bool interference_run(model::Interference& c, std::size_t i, model::RunObserver* observer);

}  // namespace ds::run
