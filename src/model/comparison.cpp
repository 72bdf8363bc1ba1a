#include "model/comparison.h"

namespace ds::run {

int exit_status(const BackendComparison& c) {
    int code = 0;
    for (const auto& run : c.runs)
        if (run.ran) code = worse_exit_status(code, exit_status(run.result));
    return code;
}

}  // namespace ds::run
