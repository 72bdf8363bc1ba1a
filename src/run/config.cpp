#include "run/config.h"

#include <algorithm>

namespace ds::run {

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

bool RunConfig::has_phase(Phase p) const {
    return std::find(phases.begin(), phases.end(), p) != phases.end();
}

}  // namespace ds::run
