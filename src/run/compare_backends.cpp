#include "run/compare_backends.h"

#include "run/runner.h"

namespace ds::run {

BackendComparison compare_backends(RunConfig cfg, RunObserver* uring_observer,
                                   RunObserver* sync_observer) {
    BackendComparison c;
    if (!cfg.seed_given) {
        cfg.seed = random_seed();
        cfg.seed_given = true;
    }
    c.uring_config = cfg;
    c.uring_config.backend = BackendChoice::io_uring;
    c.sync_config = cfg;
    c.sync_config.backend = BackendChoice::sync;
    c.uring = Runner(c.uring_config, uring_observer).run();
    if (c.uring.stop == StopReason::completed || c.uring.stop == StopReason::duration) {
        c.sync = Runner(c.sync_config, sync_observer).run();
        c.sync_ran = true;
    }
    return c;
}

int exit_status(const BackendComparison& c) {
    return worse_exit_status(exit_status(c.uring), c.sync_ran ? exit_status(c.sync) : 0);
}

}  // namespace ds::run
