// Drive health during a run, for NVMe targets: the SMART / Health log read
// before and after each phase, with what changed (nvme/health_change.h) and
// the verdicts drawn from it.  The readings come from run/health_monitor.h;
// where the target is not NVMe or the log cannot be read, `reason` says why
// and the run goes on; a reading is never made up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "nvme/health_change.h"
#include "nvme/health_log.h"

namespace ds::run {

// One phase's readings and verdicts.
struct PhaseHealth {
    std::size_t target = 0;  // the target's index in RunResult::targets
    std::uint64_t iteration = 0;
    Phase phase = Phase::seq_write;
    std::optional<nvme::HealthLog> before, after;
    std::string unreadable;  // why a reading is missing ("" when both were read)
    std::optional<nvme::HealthChange> change;
    nvme::ThermalVerdict thermal = nvme::ThermalVerdict::none;
    double reference_bytes_per_s = 0;  // what the phase does unthrottled
    double observed_bytes_per_s = 0;
};

struct DriveHealth {
    bool available = false;  // an NVMe controller was found and its log read
    std::string reason;      // one line when not: what the target is on, or the read error
    std::string controller;  // "nvme0"
    std::string device;      // what the log is read through ("/dev/nvme0")
    bool fixture = false;    // readings from DRIVESTRESS_TEST_HEALTH_LOGS (tests only)
    std::vector<PhaseHealth> phases;
    bool damaged() const;  // a phase's change is damage: the run fails (exit 2)
};

// The after-reading of a phase and its verdicts: damage, thermal
// throttling (throughput `observed` at least 10 % below `reference` while a
// throttle counter rose).
PhaseHealth judge_phase_health(std::uint64_t iteration, Phase phase,
                               std::optional<nvme::HealthLog> before,
                               std::optional<nvme::HealthLog> after, double reference_bytes_per_s,
                               double observed_bytes_per_s);

}  // namespace ds::run
