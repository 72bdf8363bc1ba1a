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

#include "model/verify_result.h"
#include "pattern/unit.h"
#include "targets/state_file.h"

namespace ds::run {

// True when `g` is one of the `bound` generations after `acked`, i.e.
// acked < g <= acked + bound with no wrap: an earlier generation, however
// far back, is never within the bound.
bool within_bound(pattern::Generation acked, pattern::Generation g, std::uint32_t bound);

// Classifies one unit read back.  `acked` names the unit with its
// acknowledged generation (kUnknownGeneration: never acknowledged; with
// kTrimmedBit, a recorded trim: all zeros is `trimmed`, else the unit is
// judged by the generation below the bit).
model::UnitVerdict classify_unit(std::span<const std::byte> actual,
                                 const pattern::UnitIdentity& acked, std::uint32_t bound);

// Reads STATE and every unit of its files (O_DIRECT when the filesystem
// allows it).  Throws SetupError for a missing or damaged STATE.  With
// `cleanup`, a verification without loss removes the files and STATE:
// only files that carry this run's identity (a regular file of the caller,
// one link, whose first unit's header names this run and file index), so a
// crafted STATE cannot make it remove anything else.
model::VerifyOnlyResult verify_only(const std::string& state_path, bool cleanup = false);

}  // namespace ds::run
