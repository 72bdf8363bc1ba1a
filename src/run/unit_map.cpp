#include "run/unit_map.h"

#include <algorithm>

namespace ds::run {

UnitMap::UnitMap(std::uint64_t file_bytes, std::uint32_t unit_bytes)
    : unit_bytes_(unit_bytes),
      unit_shift_(static_cast<unsigned>(__builtin_ctz(unit_bytes))),
      gens_(file_bytes / unit_bytes, pattern::kUnknownGeneration),
      busy_(file_bytes / unit_bytes, 0) {}

void UnitMap::advance(std::uint64_t offset, std::uint32_t length) {
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u)
        gens_[u] = pattern::next_generation(gens_[u]);
}

void UnitMap::forget(std::uint64_t offset, std::uint32_t length) {
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u)
        gens_[u] = pattern::kUnknownGeneration;
}

void UnitMap::reset() {
    std::fill(gens_.begin(), gens_.end(), pattern::kUnknownGeneration);
}

}  // namespace ds::run
