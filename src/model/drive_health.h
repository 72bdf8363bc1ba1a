// Drive health during a run, for NVMe targets: the SMART / Health log read
// before and after each phase, with what changed (nvme/health_change.h) and
// the verdicts drawn from it.  The readings come from run/health_monitor.h;
// where the target is not NVMe or the log cannot be read, `reason` says why
// and the run goes on; a reading is never made up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "model/config.h"
#include "nvme/health_change.h"
#include "nvme/health_log.h"

namespace ds::model {

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

// What is held stays bounded however long a burn-in runs: the last
// kMaxPhases readings, a count of them all, and the first that was damage.
struct DriveHealth {
    bool available = false;  // an NVMe controller was found and its log read
    std::string reason;      // one line when not: what the target is on, or the read error
    std::string controller;  // "nvme0"
    std::string device;      // what the log is read through ("/dev/nvme0")
    bool fixture = false;    // readings from fixture files (run/test_hooks.h: tests only)
    static constexpr std::size_t kMaxPhases = 100;  // 25 iterations of four phases
    std::deque<PhaseHealth> phases;                 // the last kMaxPhases, in run order
    std::uint64_t phases_read = 0;                  // every phase added, those dropped included
    std::uint64_t phases_damaged = 0;               // of those, changed in a way that is damage
    std::optional<PhaseHealth> first_damage;        // kept when it leaves `phases`

    // Appends a phase's readings, dropping the oldest beyond kMaxPhases.
    void add(PhaseHealth ph);
    // A phase's change was damage: the run fails (exit 2).
    bool damaged() const { return first_damage.has_value(); }
};

// The after-reading of a phase and its verdicts: damage, thermal
// throttling (throughput `observed` at least 10 % below `reference` while a
// throttle counter rose).
PhaseHealth judge_phase_health(std::uint64_t iteration, Phase phase,
                               std::optional<nvme::HealthLog> before,
                               std::optional<nvme::HealthLog> after, double reference_bytes_per_s,
                               double observed_bytes_per_s);

}  // namespace ds::model
