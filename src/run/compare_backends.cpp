#include "run/compare_backends.h"

#include "run/runner.h"

namespace ds::run {

BackendComparison comparison_plan(RunConfig cfg) {
    if (!cfg.seed_given) {
        cfg.seed = random_seed();
        cfg.seed_given = true;
    }
    BackendComparison c;
    auto add = [&](std::string label, BackendChoice backend) -> RunConfig& {
        c.runs.push_back({std::move(label), cfg, {}, false});
        c.runs.back().config.backend = backend;
        return c.runs.back().config;
    };
    add("io_uring", BackendChoice::io_uring);
    add("sync", BackendChoice::sync);
    if (cfg.compare_sync_qd1) {
        RunConfig& one = add("sync qd 1", BackendChoice::sync);
        one.qd = 1;
        one.batch = 1;
    }
    if (cfg.compare_sqpoll) add("io_uring sqpoll", BackendChoice::io_uring).sqpoll = true;
    return c;
}

bool compare_run(BackendComparison& c, std::size_t i, RunObserver* observer) {
    if (i > 0) {
        const ComparedRun& prev = c.runs[i - 1];
        if (!prev.ran ||
            (prev.result.stop != StopReason::completed && prev.result.stop != StopReason::duration))
            return false;
    }
    ComparedRun& run = c.runs[i];
    run.result = Runner(run.config, observer).run();
    run.ran = true;
    return true;
}

}  // namespace ds::run
