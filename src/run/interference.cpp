#include "run/interference.h"

#include <algorithm>
#include <memory>

#include "run/runner.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

// A run of `cfg` with the file's jobs `which`, made one group.
InterferenceRun run_of(const RunConfig& cfg, const std::vector<JobSpec>& jobs,
                       std::vector<unsigned> which, std::string label) {
    InterferenceRun run{std::move(label), jobs[which.front()].group, std::move(which), cfg, {}};
    std::vector<JobSpec> chosen;
    for (unsigned j : run.jobs) {
        chosen.push_back(jobs[j]);
        chosen.back().group = 0;
    }
    run.config.jobs = std::make_shared<const std::vector<JobSpec>>(std::move(chosen));
    return run;
}

}  // namespace

Interference interference_plan(RunConfig cfg) {
    Interference c;
    c.repeat = take_repeats(cfg);
    cfg.interference = false;
    if (cfg.jobs) c.jobs = *cfg.jobs;
    unsigned groups = 0;
    for (const JobSpec& j : c.jobs)
        groups = std::max(groups, j.group + 1);
    for (unsigned g = 0; g < groups; ++g) {
        std::vector<unsigned> members;
        for (unsigned j = 0; j < c.jobs.size(); ++j)
            if (c.jobs[j].group == g) members.push_back(j);
        if (members.empty()) continue;
        for (unsigned j : members)
            c.runs.push_back(run_of(cfg, c.jobs, {j}, c.jobs[j].name + " alone"));
        if (members.size() > 1)
            c.runs.push_back(
                run_of(cfg, c.jobs, members, "group " + std::to_string(g) + " together"));
    }
    return c;
}

bool interference_run(Interference& c, std::size_t i, RunObserver* observer) {
    if (c.stopped) return false;
    RunResult r = Runner(c.runs[i].config, observer).run();
    c.stopped = r.stop != StopReason::completed && r.stop != StopReason::duration;
    c.runs[i].repeats.push_back(std::move(r));
    return true;
}

}  // namespace ds::run
