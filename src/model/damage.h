// What a person needs to judge a drive from its mismatches: not one line per
// read that saw something wrong (a flipped bit read by two phases is two
// observations; a truncated file fails every read past its end), but the
// damaged byte ranges of each file, merged into extents per class, with
// how many reads saw each, and the number of distinct units damaged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pattern/unit.h"

namespace ds::model {

struct DamageExtent {
    std::uint64_t offset = 0;  // bytes (absolute on a raw device)
    std::uint64_t length = 0;  // bytes, whole units
    pattern::MismatchClass cls = pattern::MismatchClass::corrupt;
    std::uint64_t reads = 0;  // observations merged into it (reads, or failed writes)
};

// One file's damage.  Ranges of one class that touch or overlap merge into
// one extent.  At most kMaxExtents extents are kept per class; a range that
// would add one more is still counted in overflow_observations.
class DamageMap {
  public:
    static constexpr std::size_t kMaxExtents = 4096;

    // `length` is rounded out to whole units of `unit` bytes.
    void add(std::uint64_t offset, std::uint64_t length, pattern::MismatchClass cls,
             std::uint32_t unit);
    // Extents of every class, by offset.
    std::vector<DamageExtent> extents() const;
    // Distinct units covered by any extent (a unit damaged in two classes
    // counts once).
    std::uint64_t distinct_units(std::uint32_t unit) const;
    std::uint64_t overflow_observations() const { return overflow_; }
    bool empty() const;

  private:
    struct Span {
        std::uint64_t end;
        std::uint64_t reads;
    };
    // Per class: start -> [start, end), disjoint and not touching.
    std::map<std::uint64_t, Span> by_class_[pattern::kMismatchClassCount];
    std::uint64_t overflow_ = 0;
};

}  // namespace ds::model
