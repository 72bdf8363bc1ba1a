// `drivestress --verify-only STATE`: after a power cut (or a kill -9) of a
// --keep run, re-read every unit of its files and sort it into
//   intact        it holds the generation last acknowledged as durable;
//   unacked       written after the last acknowledged flush: a newer
//                 generation of this unit within the recorded bound, a unit
//                 never acknowledged, or a torn unit whose every sector is
//                 the acknowledged or an allowed newer generation (allowed);
//   lost          anything else: an acknowledged write did not survive (a
//                 durability violation, exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pattern/unit.h"
#include "run/results.h"
#include "run/state_file.h"

namespace ds::run {

enum class UnitClass {
    intact,       // the acknowledged generation
    newer,        // a whole newer generation within the bound (allowed)
    never_acked,  // no acknowledgement covered this unit (allowed, content unconstrained)
    torn_newer,   // sectors of the acknowledged and allowed newer generations (allowed)
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

// True when `g` is one of the `bound` generations after `acked` in the
// cycle 1..255 (next_generation), i.e. acked+1 .. acked+bound.
bool within_bound(pattern::Generation acked, pattern::Generation g, std::uint32_t bound);

// Classifies one unit read back.  `expected` names the unit with its
// acknowledged generation (kUnknownGeneration: never acknowledged).
UnitVerdict classify_unit(std::span<const std::byte> actual, const pattern::UnitIdentity& expected,
                          std::uint32_t bound);

struct VerifyFileResult {
    std::string path;
    std::uint64_t acknowledgements = 0;
    std::uint32_t bound = 1;
    bool used_older_copy = false;
    std::uint64_t intact = 0, newer = 0, never_acked = 0, torn_newer = 0, lost = 0;
};

struct VerifyOnlyResult {
    std::string state_path;
    StateGeometry geo;
    bool direct_io = true;
    std::vector<VerifyFileResult> files;
    std::uint64_t intact = 0, newer = 0, never_acked = 0, torn_newer = 0, lost = 0;
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

    std::uint64_t allowed() const { return newer + never_acked + torn_newer; }
    std::uint64_t units() const { return intact + allowed() + lost; }
};

// Reads STATE and every unit of its files (O_DIRECT when the filesystem
// allows it).  Throws SetupError for a missing or damaged STATE.  With
// `cleanup`, a verification without loss removes the files and STATE:
// only files that carry this run's identity (a regular file of the caller,
// one link, whose first unit's header names this run and file index), so a
// crafted STATE cannot make it remove anything else.
VerifyOnlyResult verify_only(const std::string& state_path, bool cleanup = false);

// 2 when a unit was lost after acknowledgement, 1 when --cleanup refused a
// file that is not this run's, else 0.
int exit_status(const VerifyOnlyResult& r);

}  // namespace ds::run
