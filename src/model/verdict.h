// The verdict, worded in one place: what every report says for an exit
// status and the evidence behind it.  A verdict needs evidence: PASS means
// units were verified and none was wrong; a run or --verify-only that
// verified nothing says so and is not PASS (its exit status stays 0:
// nothing wrong was found).
#pragma once

#include <cstdint>
#include <string>

#include "model/exit_status.h"

namespace ds::model {

// What a run (or a preset's tests together) found and how it ended.
struct RunEvidence {
    ExitStatus status = ExitStatus::success;
    bool verify = true;                // false: --no-verify
    bool nop = false;                  // --backend nop: no data moved, no verdict on data
    bool job_file = false;             // the run's jobs came from a job file (its ioengine=null)
    std::uint64_t verified_bytes = 0;  // bytes read back and checked
    bool stopped_at_duration = false;
    bool health_damage_only = false;  // exit 2 from the drive's health log alone
    std::uint64_t mismatches = 0;
    std::string error;  // exit 1: why (empty: "the run could not go on")
};

// Exit 0 with verification asked for and nothing verified, or with
// --backend nop (no data moved at all).
bool nothing_verified(const RunEvidence& e);
// The result line's words: "PASS", "PASS (stopped at --duration)", "PASS,
// data not verified with --no-verify", "NO VERDICT: nothing verified",
// "FAIL: data mismatch or I/O error", "ERROR: why", "INTERRUPTED: ...".
std::string verdict_words(const RunEvidence& e);
// A table cell: "PASS", "NO VERDICT", "FAIL (mismatches)", "FAIL (health)"
// (the drive reported damage, the data was fine), "ERROR", "INTERRUPTED".
std::string verdict_cell(const RunEvidence& e);
// The JSON summary's status: "passed", "no-verdict", "failed", "error",
// "interrupted".
const char* status_word(ExitStatus status, bool nothing_verified = false);

// What --verify-only found.
struct VerifyEvidence {
    ExitStatus status = ExitStatus::success;
    std::uint64_t lost = 0;           // units lost after acknowledgement
    std::uint64_t checked = 0;        // units checked against an acknowledged generation
    bool state_lost_records = false;  // the files hold data the state has no record of
    bool cleanup_refused = false;     // --cleanup refused a file that is not the run's
    bool cleanup_not_run = false;     // --cleanup asked for without a verified PASS
    bool finished_cleanup = false;    // an interrupted --cleanup was finished
};

bool nothing_verified(const VerifyEvidence& e);
// --verify-only's result line words.
std::string verdict_words(const VerifyEvidence& e);

}  // namespace ds::model
