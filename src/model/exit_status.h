// The process exit status, named (DESIGN.md's table): every mode maps its
// outcome to one of these and main returns it.  As ninja's ExitStatus, plus
// the signal that interrupted a run.
#pragma once

namespace ds::model {

enum class ExitStatus : int {
    success = 0,   // clean: no mismatch, no I/O error (a run that verified nothing too)
    error = 1,     // setup or usage error, or a run that could not go on
    mismatch = 2,  // data mismatch or I/O error detected: wins over every other status
    // 128 + n: interrupted by signal n with nothing wrong found (interrupted_by).
};

constexpr ExitStatus interrupted_by(int signal) {
    return static_cast<ExitStatus>(128 + signal);
}
// The number the process exits with.
constexpr int code_of(ExitStatus s) {
    return static_cast<int>(s);
}
constexpr bool is_interrupted(ExitStatus s) {
    return code_of(s) > 128;
}

// The more severe of two: a mismatch beats an error beats an interruption
// beats success.
constexpr ExitStatus worse_exit_status(ExitStatus a, ExitStatus b) {
    auto rank = [](ExitStatus s) {
        return s == ExitStatus::mismatch ? 3
               : s == ExitStatus::error  ? 2
               : is_interrupted(s)       ? 1
                                         : 0;
    };
    return rank(a) >= rank(b) ? a : b;
}

}  // namespace ds::model
