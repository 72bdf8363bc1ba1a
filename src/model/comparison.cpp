#include "model/comparison.h"

namespace ds::model {

// Every repeat: a mismatch found by a later one is as much a finding.
ExitStatus exit_status(const ComparedRun& run) {
    ExitStatus code = ExitStatus::success;
    for (const RunResult& r : run.repeats)
        code = worse_exit_status(code, exit_status(r));
    return code;
}

ExitStatus exit_status(const BackendComparison& c) {
    ExitStatus code = ExitStatus::success;
    for (const auto& run : c.runs)
        code = worse_exit_status(code, exit_status(run));
    return code;
}

}  // namespace ds::model
