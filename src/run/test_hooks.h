// Test hooks: pause points and fakes that only a test installs.  The product
// binary installs none (src/main.cpp), reads no environment for them, and
// each point costs one test of a default value.  The tests' hooked build
// (tests/helpers/drivestress_hooked.cpp) fills them from its environment
// and installs them before running the program; tests/README.md lists them.
//
//   pause         what a pause point does (the hooked build: SIGSTOP the
//                 whole process, so a test can damage a file or send a
//                 signal at a known point, then SIGCONT); null: nothing.
//   stop_phase, stop_after_ops   pause before PHASE starts, or once worker 0
//                 has completed N operations in it.
//   stop_before_create   after the target was checked, before the files are
//                 created (a test plants something at their names).
//   stop_before_verify   --verify-only: once it holds the directory's lock.
//   stop_in_cleanup      --verify-only --cleanup: once the state's claim is
//                 withdrawn and N files are removed.
//   stop_on_signal   when it notices the first stop signal (a test sends a
//                 second one later, not the same keypress).
//   snapshot_period_s, checkpoint_period_s   how often the run so far is
//                 written while an iteration runs, and as iterations end.
//   jobs          the run's jobs instead of the options' one (model/job.h):
//                 several jobs at once, groups, shared files, without a
//                 job file.  Their files are the run's ("drivestress-N.dat",
//                 0 bytes: --size's); internal, for the tests only.
//   health log fixtures   health-log readings from 512-byte fixture files
//                 (per controller, or for all), named as fixtures.  (A fake
//                 sysfs or procfs is sys/system_tree.h's, installed apart.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/job.h"

namespace ds::run {

struct TestHooks {
    void (*pause)() = nullptr;
    bool stop_on_signal = false;
    bool stop_before_create = false;
    bool stop_before_verify = false;
    std::optional<std::uint64_t> stop_in_cleanup;  // after this many files removed
    std::optional<model::Phase> stop_phase;
    std::uint64_t stop_after_ops = 0;
    // Snapshots of the run so far while an iteration runs: a long iteration
    // (a large drive) still leaves its finished phases on disk every minute.
    double snapshot_period_s = 60;
    // Snapshots as iterations end: the first, then at most one per period,
    // so that a run of short iterations does not rewrite (and flush) its
    // --json thousands of times a second; a kill loses at most this much.
    double checkpoint_period_s = 5;
    std::vector<model::JobSpec> jobs;              // empty: the configuration's one job
    std::vector<std::string> health_log_fixtures;  // empty: the real admin command
    std::map<std::string, std::vector<std::string>> controller_health_log_fixtures;
    // The fixture pages of `controller`: its own, else the common list.
    const std::vector<std::string>& health_log_fixtures_of(const std::string& controller) const;
    // A pause point: `pause` when it is set (and `when`).
    void pause_if(bool when) const {
        if (when && pause) pause();
    }
};

// Installs the hooks of this process (before anything runs; once).  The
// product never calls it: the defaults above are the product's behaviour.
void install_test_hooks(const TestHooks& hooks);
// The hooks installed, or the defaults.
const TestHooks& test_hooks();

}  // namespace ds::run
