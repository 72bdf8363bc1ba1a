#include "run/compare_backends.h"


#include "run/runner.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

BackendComparison comparison_plan(RunConfig cfg) {
    BackendComparison c;
    c.repeat = take_repeats(cfg);
    if (cfg.compare_atomic) {  // atomic first: a target without the promise refuses it before any
                               // I/O
        cfg.compare_atomic = false;
        c.atomic = true;
        c.runs.push_back({"atomic", cfg, {}, false});
        c.runs.back().config.atomic = true;
        c.runs.push_back({"plain", cfg, {}, false});
        return c;
    }
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
    if (c.stopped) return false;
    ComparedRun& run = c.runs[i];
    RunResult r = Runner(run.config, observer).run();
    c.stopped = r.stop != StopReason::completed && r.stop != StopReason::duration;
    if (!run.ran) run.result = r;
    run.repeats.push_back(std::move(r));
    run.ran = true;
    return true;
}

}  // namespace ds::run
