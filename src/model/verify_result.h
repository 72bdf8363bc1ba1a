// The result of `--verify-only STATE`: every unit of a --keep run's files
// sorted by what it holds against what was acknowledged as durable
// (run/verify_only.h reads and classifies; report/ renders).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/durability.h"
#include "model/exit_status.h"
#include "model/results.h"
#include "model/verdict.h"
#include "pattern/unit.h"

namespace ds::model {

enum class UnitClass {
    intact,       // the acknowledged generation
    newer,        // a whole newer generation within the bound (allowed)
    never_acked,  // no acknowledgement covered this unit (allowed, content unconstrained)
    torn_newer,   // sectors of the acknowledged and allowed newer generations (allowed)
    trimmed,      // reads as trimmed, and a trim was recorded for it (allowed)
    lost,         // a durability violation
};

struct UnitVerdict {
    UnitClass cls = UnitClass::intact;
    pattern::Generation found_generation = 0;     // newer: the generation found
    std::optional<pattern::Diagnosis> diagnosis;  // lost: what the unit holds instead
    // lost: the generation the diagnosis compared with (the acknowledged
    // one, or the allowed newer one a damaged unit's header names).
    pattern::Generation compared_generation = 0;
};

struct VerifyFileResult {
    std::string path;
    std::uint64_t acknowledgements = 0;
    std::uint32_t bound = 1;
    bool used_older_copy = false;
    std::uint64_t intact = 0, newer = 0, never_acked = 0, torn_newer = 0, trimmed = 0, lost = 0;
    // The state holds no acknowledgement record of this file, yet units past
    // the first hold this run's data: a run records one before it writes
    // any, so the state file lost its records.
    std::uint64_t unrecorded_data = 0;
};

struct VerifyOnlyResult {
    std::string state_path;
    StateGeometry geo;
    bool direct_io = true;
    std::vector<VerifyFileResult> files;
    std::uint64_t intact = 0, newer = 0, never_acked = 0, torn_newer = 0, trimmed = 0, lost = 0;
    ClassCounts lost_by_class{};
    std::vector<MismatchRecord> lost_records;  // the first RunResult::kMaxRecords
    std::uint64_t read_bytes = 0;
    double seconds = 0;
    std::string started_at;
    std::string document_id;  // random, for the document's run_id
    bool cleaned_up = false;  // --cleanup removed the files and the state
    // --cleanup: files it would not remove, each "PATH: why" (then STATE
    // stays too, so the rest can be checked again).
    std::vector<std::string> cleanup_refused;
    bool cleanup_not_run = false;   // --cleanup asked for, but there was no verified PASS
    bool finished_cleanup = false;  // STATE was gone: an interrupted --cleanup was finished
    bool evidence_kept = false;     // --cleanup asked for after a loss: the files stay
    int stop_signal = 0;            // a stop request (signal n) ended it early

    std::uint64_t allowed() const { return newer + never_acked + torn_newer + trimmed; }
    std::uint64_t units() const { return intact + allowed() + lost; }
    // Units checked against an acknowledged generation (never-acknowledged
    // ones are not: anything may be there).
    std::uint64_t checked() const { return intact + newer + torn_newer + trimmed + lost; }
    std::uint64_t unrecorded_data() const;
};

// mismatch when a unit was lost after acknowledgement or the state file lost
// its records, else error when --cleanup refused a file or had no verified
// PASS to run after, else 128+n when a signal stopped it, else success (a
// PASS, or no verdict when nothing was verified).
ExitStatus exit_status(const VerifyOnlyResult& r);
// The evidence its verdict is worded from (model/verdict.h).
VerifyEvidence verify_evidence(const VerifyOnlyResult& r);

}  // namespace ds::model
