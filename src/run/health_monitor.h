// Reads drive health during a run: finds the NVMe controller behind the
// target, its temperature (hwmon) for the per-second statistics, and its
// SMART / Health log, before and after each phase (model/drive_health.h
// holds what is read and judged).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/drive_health.h"
#include "nvme/controller.h"
#include "nvme/health_log.h"
#include "run/test_hooks.h"

namespace ds::run {

// Finds the controller and reads the log through it (one per target).
class HealthMonitor {
  public:
    // `target`: the directory or the raw device.  Probes once: health.available
    // says whether readings follow, health.reason why not.
    HealthMonitor(const std::string& target, const TestHooks& hooks, model::DriveHealth& health);
    bool on() const { return health_.available; }
    // Degrees Celsius of the controller's composite sensor, or nullopt.
    std::optional<double> temperature() const;
    // A reading, or the reason there is none.
    std::optional<nvme::HealthLog> read(std::string& why);

  private:
    model::DriveHealth& health_;  // the target's, in RunResult::targets
    std::optional<nvme::NvmeController> controller_;
    std::vector<std::string> fixtures_;  // tests: the pages read instead of the drive
    std::size_t readings_ = 0;           // of fixtures_
};

}  // namespace ds::run
