#include "model/verify_result.h"

#include "model/verdict.h"

namespace ds::model {

std::uint64_t VerifyOnlyResult::unrecorded_data() const {
    std::uint64_t n = 0;
    for (const auto& f : files)
        n += f.unrecorded_data;
    return n;
}

ExitStatus exit_status(const VerifyOnlyResult& r) {
    if (r.lost || r.unrecorded_data()) return ExitStatus::mismatch;
    if (!r.cleanup_refused.empty() || r.cleanup_not_run) return ExitStatus::error;
    if (r.stop_signal) return interrupted_by(r.stop_signal);
    return ExitStatus::success;
}

VerifyEvidence verify_evidence(const VerifyOnlyResult& r) {
    VerifyEvidence e;
    e.status = exit_status(r);
    e.lost = r.lost;
    e.checked = r.checked();
    e.state_lost_records = r.unrecorded_data() > 0;
    e.cleanup_refused = !r.cleanup_refused.empty();
    e.cleanup_not_run = r.cleanup_not_run;
    e.finished_cleanup = r.finished_cleanup;
    return e;
}

}  // namespace ds::model
