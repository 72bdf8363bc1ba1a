#include "model/interference.h"

namespace ds::model {

ExitStatus exit_status(const Interference& c) {
    ExitStatus code = ExitStatus::success;
    for (const InterferenceRun& run : c.runs)
        for (const RunResult& r : run.repeats)
            code = worse_exit_status(code, exit_status(r));
    return code;
}

}  // namespace ds::model
