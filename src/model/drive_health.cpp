#include "model/drive_health.h"

namespace ds::model {

void DriveHealth::add(PhaseHealth ph) {
    ++phases_read;
    if (ph.change && ph.change->damaged()) {
        ++phases_damaged;
        if (!first_damage) first_damage = ph;
    }
    phases.push_back(std::move(ph));
    while (phases.size() > kMaxPhases)
        phases.pop_front();
}

PhaseHealth judge_phase_health(std::uint64_t iteration, Phase phase,
                               std::optional<nvme::HealthLog> before,
                               std::optional<nvme::HealthLog> after, double reference_bytes_per_s,
                               double observed_bytes_per_s) {
    PhaseHealth ph;
    ph.iteration = iteration;
    ph.phase = phase;
    ph.before = std::move(before);
    ph.after = std::move(after);
    ph.reference_bytes_per_s = reference_bytes_per_s;
    ph.observed_bytes_per_s = observed_bytes_per_s;
    if (!ph.before || !ph.after) return ph;
    ph.change = nvme::compare_health(*ph.before, *ph.after);
    if (ph.change->comparable)
        ph.thermal =
            nvme::judge_thermal(ph.change->delta, reference_bytes_per_s, observed_bytes_per_s);
    return ph;
}

}  // namespace ds::model
