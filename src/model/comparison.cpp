#include "model/comparison.h"

namespace ds::model {

ExitStatus exit_status(const BackendComparison& c) {
    ExitStatus code = ExitStatus::success;
    // Every repeat: a mismatch found by a later one is as much a finding.
    for (const auto& run : c.runs)
        for (const RunResult& r : run.repeats)
            code = worse_exit_status(code, exit_status(r));
    return code;
}

}  // namespace ds::model
