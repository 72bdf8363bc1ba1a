#include "model/verdict.h"

namespace ds::model {

bool nothing_verified(const RunEvidence& e) {
    return e.status == ExitStatus::success && (e.nop || (e.verify && e.verified_bytes == 0));
}

std::string verdict_words(const RunEvidence& e) {
    if (e.status == ExitStatus::mismatch)
        return e.health_damage_only ? "FAIL: drive health: damage reported by the drive"
                                    : "FAIL: data mismatch or I/O error";
    if (e.status == ExitStatus::error)
        return "ERROR: " + (e.error.empty() ? std::string("the run could not go on") : e.error);
    if (e.status != ExitStatus::success) return "INTERRUPTED: nothing wrong found so far";
    const char* at_duration = e.stopped_at_duration ? " (stopped at --duration)" : "";
    if (e.nop)
        return std::string("NO VERDICT: ") + (e.job_file ? "ioengine=null" : "--backend nop") +
               " moved no data (the engine's own figures)" + at_duration;
    if (nothing_verified(e)) return std::string("NO VERDICT: nothing verified") + at_duration;
    std::string pass = std::string("PASS") + at_duration;
    if (!e.verify) pass += ", data not verified with --no-verify";
    return pass;
}

std::string verdict_cell(const RunEvidence& e) {
    if (e.status == ExitStatus::mismatch)
        return e.health_damage_only ? "FAIL (health)"
                                    : "FAIL (" + std::to_string(e.mismatches) + ")";
    if (e.status == ExitStatus::error) return "ERROR";
    if (e.status != ExitStatus::success) return "INTERRUPTED";
    return nothing_verified(e) ? "NO VERDICT" : "PASS";
}

const char* status_word(ExitStatus status, bool nothing_verified) {
    if (status == ExitStatus::mismatch) return "failed";
    if (status == ExitStatus::error) return "error";
    if (status != ExitStatus::success) return "interrupted";
    return nothing_verified ? "no-verdict" : "passed";
}

bool nothing_verified(const VerifyEvidence& e) {
    return e.checked == 0 && e.lost == 0 && !e.state_lost_records && !e.finished_cleanup;
}

std::string verdict_words(const VerifyEvidence& e) {
    if (e.status == ExitStatus::mismatch)
        return e.lost ? "FAIL: data acknowledged as durable was lost"
                      : "FAIL: the state file lost its acknowledgement records (the files hold "
                        "data it has no record of: it cannot prove what was acknowledged)";
    if (e.status == ExitStatus::error)
        return e.cleanup_not_run
                   ? "ERROR: nothing verified; --cleanup runs only after a verified PASS "
                     "(files and state kept)"
                   : std::string(e.finished_cleanup ? "ERROR: " : "ERROR: verified, but ") +
                         "--cleanup refused files that are not this run's (kept, with the state "
                         "file)";
    if (e.status != ExitStatus::success) return "INTERRUPTED: nothing lost so far";
    if (e.finished_cleanup)
        return "CLEANED UP: the interrupted --cleanup is finished (it began after a PASS)";
    if (nothing_verified(e))
        return "NO VERDICT: nothing verified (the state file records no acknowledged unit)";
    return "PASS: everything acknowledged as durable is there";
}

}  // namespace ds::model
