#include "model/config.h"

#include "units/units.h"

#include <algorithm>
#include <cmath>

namespace ds::model {

std::string_view to_string(Phase p) {
    switch (p) {
        case Phase::seq_write:
            return "seq-write";
        case Phase::seq_read:
            return "seq-read";
        case Phase::random:
            return "random";
        case Phase::reverify:
            return "reverify";
    }
    return "?";
}

std::optional<Phase> phase_from_string(std::string_view s) {
    for (Phase p : kAllPhases)
        if (to_string(p) == s) return p;
    return std::nullopt;
}

std::string_view to_string(BackendChoice b) {
    switch (b) {
        case BackendChoice::automatic:
            return "auto";
        case BackendChoice::io_uring:
            return "io_uring";
        case BackendChoice::sync:
            return "sync";
    }
    return "?";
}

std::string_view to_string(SyncMethod m) {
    switch (m) {
        case SyncMethod::none:
            return "none";
        case SyncMethod::osync:
            return "osync";
        case SyncMethod::dsync:
            return "dsync";
        case SyncMethod::fsync:
            return "fsync";
        case SyncMethod::fdatasync:
            return "fdatasync";
    }
    return "?";
}

std::optional<SyncMethod> sync_method_from_string(std::string_view s) {
    for (SyncMethod m : kAllSyncMethods)
        if (to_string(m) == s) return m;
    return std::nullopt;
}

std::string_view to_string(Arrivals a) {
    return a == Arrivals::poisson ? "poisson" : "fixed";
}

std::optional<Arrivals> arrivals_from_string(std::string_view s) {
    if (s == "fixed") return Arrivals::fixed;
    if (s == "poisson") return Arrivals::poisson;
    return std::nullopt;
}

std::uint64_t seconds_to_ns(double s) {
    return s > 0 ? static_cast<std::uint64_t>(std::llround(s * 1e9)) : 0;
}

std::string_view to_string(SweepParam p) {
    switch (p) {
        case SweepParam::qd:
            return "qd";
        case SweepParam::files:
            return "files";
        case SweepParam::rand_block:
            return "rand-block";
        case SweepParam::rate:
            return "rate";
    }
    return "?";
}

std::uint32_t RunConfig::max_rand_block() const {
    std::uint32_t b = rand_mix.empty() ? rand_block : rand_mix.back().bytes;
    b = std::max(b, replay_block);
    if (sweep && sweep->param == SweepParam::rand_block)
        for (auto v : sweep->values)
            b = std::max<std::uint32_t>(b, static_cast<std::uint32_t>(v));
    return b;
}

std::string RunConfig::rand_block_text() const {
    if (rand_mix.size() > 1) return units::block_mix_text(rand_mix);
    return units::format_size_option(min_rand_block());
}

RunConfig RunConfig::for_target(std::size_t t) const {
    RunConfig one = *this;
    one.more_targets.clear();
    if (t == 0) return one;
    const TargetSpec& spec = more_targets.at(t - 1);
    one.target = spec.target;
    one.target_may_be_prefix = false;
    one.raw_device = spec.raw_device;
    one.raw_device_confirm = spec.raw_device_confirm;
    return one;
}

bool RunConfig::has_phase(Phase p) const {
    return std::find(phases.begin(), phases.end(), p) != phases.end();
}

}  // namespace ds::model
