// How much a deduplicating device can fold the data written (--dedupe):
// counted from the units' identities (pattern::dedupe_source), which name
// every duplicate and its source without generating a byte, so the report
// states what the run wrote, not only what was asked.
#pragma once

#include <cstdint>

#include "pattern/unit.h"

namespace ds::pattern {

struct DuplicateCount {
    std::uint64_t units = 0;       // units counted
    std::uint64_t duplicates = 0;  // of them, copies of a source
    unsigned sources = 0;          // distinct sources among the duplicates
    // Units over distinct contents among those counted: what a device that
    // deduplicates whole units would store them in (1: nothing folds).
    double ratio() const {
        const std::uint64_t distinct = units - duplicates + sources;
        return distinct ? static_cast<double>(units) / static_cast<double>(distinct) : 1;
    }
};

// Every unit is counted when there are at most `limit` of them (a run's
// files hold a few million units at most; about 12 ns each here), else
// `limit` units spread evenly over `files` files of `file_bytes`; `base`
// gives the data, unit size and shape.
DuplicateCount count_duplicates(const UnitIdentity& base, std::uint64_t file_bytes, unsigned files,
                                std::uint64_t limit);

}  // namespace ds::pattern
