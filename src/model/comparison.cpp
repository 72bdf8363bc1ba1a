#include "model/comparison.h"

namespace ds::model {

ExitStatus exit_status(const BackendComparison& c) {
    ExitStatus code = ExitStatus::success;
    for (const auto& run : c.runs)
        if (run.ran) code = worse_exit_status(code, exit_status(run.result));
    return code;
}

}  // namespace ds::model
