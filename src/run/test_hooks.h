// Test hooks, read from the environment so the product's command line stays
// clean.
//   DRIVESTRESS_TEST_STOP=PHASE[:N]  stops the whole process (SIGSTOP) before
//       PHASE starts, or once worker 0 has completed N operations in it, so a
//       test can damage a file or send a signal at a known point and SIGCONT.
//   DRIVESTRESS_TEST_STOP=create  stops it after the target was checked and
//       before the files are created (a test plants something at their names).
//   DRIVESTRESS_TEST_STOP=verify  (--verify-only) stops it once it holds the
//       directory's lock, before it reads anything.
//   DRIVESTRESS_TEST_STOP=cleanup:N  (--verify-only --cleanup) stops it once
//       the state's claim is withdrawn and N files are removed, so a test can
//       kill it at every point of a cleanup.
//   DRIVESTRESS_TEST_STOP_ON_SIGNAL=1  stops it when it notices the first stop
//       signal, so a test can send a second one later (not the same keypress).
//   DRIVESTRESS_TEST_SNAPSHOT_S=SECONDS  replaces the period of the snapshots
//       taken while an iteration runs (RunObserver::run_so_far).
//   DRIVESTRESS_TEST_CHECKPOINT_S=SECONDS  replaces the shortest time
//       between two snapshots taken as iterations end (0: after every one).
//   DRIVESTRESS_TEST_SYSFS_ROOT=DIR  looks the NVMe controller up in a fake
//       sysfs tree instead of /sys (drive health on a machine without NVMe).
//   DRIVESTRESS_TEST_HEALTH_LOGS=PAGE[,PAGE...]  health-log readings come from
//       these 512-byte fixture files, one per reading (the last repeats),
//       instead of the admin command; the report names them as fixtures.
//   DRIVESTRESS_TEST_HEALTH_LOGS_<controller>=PAGE[,PAGE...]  the same for
//       that controller only (DRIVESTRESS_TEST_HEALTH_LOGS_nvme1), before
//       the list for every controller (several targets, one drive damaged).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"

namespace ds::run {

struct TestHooks {
    bool stop_on_signal = false;
    bool stop_before_create = false;
    bool stop_before_verify = false;
    std::optional<std::uint64_t> stop_in_cleanup;  // after this many files removed
    std::optional<Phase> stop_phase;
    std::uint64_t stop_after_ops = 0;
    // Snapshots of the run so far while an iteration runs: a long iteration
    // (a large drive) still leaves its finished phases on disk every minute.
    double snapshot_period_s = 60;
    // Snapshots as iterations end: the first, then at most one per period,
    // so that a run of short iterations does not rewrite (and flush) its
    // --json thousands of times a second; a kill loses at most this much.
    double checkpoint_period_s = 5;
    std::string sysfs_root = "/sys";
    std::vector<std::string> health_log_fixtures;  // empty: the real admin command
    std::map<std::string, std::vector<std::string>> controller_health_log_fixtures;
    // The fixture pages of `controller`: its own, else the common list.
    const std::vector<std::string>& health_log_fixtures_of(const std::string& controller) const;
    static TestHooks from_environment();
};

}  // namespace ds::run
