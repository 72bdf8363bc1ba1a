#include "engine/unit_map.h"

#include <algorithm>

namespace ds::engine {

BusyUnits::BusyUnits() : slots_(256, kEmpty), shift_(64 - 8) {}

bool BusyUnits::contains(std::uint64_t unit) const {
    for (std::size_t i = home(unit);; i = (i + 1) & mask()) {
        if (slots_[i] == kEmpty) return false;
        if (slots_[i] >> 1 == unit) return true;
    }
}

bool BusyUnits::claimed_alone(std::uint64_t unit) const {
    const std::uint64_t alone = key(unit, false);
    for (std::size_t i = home(unit);; i = (i + 1) & mask()) {
        if (slots_[i] == alone) return true;
        if (slots_[i] == kEmpty) return false;
    }
}

void BusyUnits::insert(std::uint64_t unit, bool shared) {
    if (kSlotsPerUnit * (size_ + 1) > slots_.size()) grow();
    std::size_t i = home(unit);
    while (slots_[i] != kEmpty)
        i = (i + 1) & mask();
    slots_[i] = key(unit, shared);
    ++size_;
}

void BusyUnits::erase(std::uint64_t unit, bool shared) {
    const std::uint64_t k = key(unit, shared);
    std::size_t hole = home(unit);
    while (slots_[hole] != k)
        hole = (hole + 1) & mask();
    // Backward shift: an entry after the hole moves into it when the hole
    // lies on its probe path (between its home and where it sits).
    for (std::size_t j = (hole + 1) & mask(); slots_[j] != kEmpty; j = (j + 1) & mask()) {
        if (((j - home(slots_[j] >> 1)) & mask()) >= ((j - hole) & mask())) {
            slots_[hole] = slots_[j];
            hole = j;
        }
    }
    slots_[hole] = kEmpty;
    --size_;
}

void BusyUnits::grow() {
    std::vector<std::uint64_t> old(slots_.size() * 2, kEmpty);
    old.swap(slots_);
    --shift_;
    size_ = 0;
    for (std::uint64_t k : old)
        if (k != kEmpty) insert(k >> 1, (k & 1) != 0);
}

UnitMap::UnitMap(std::uint64_t file_bytes, std::uint32_t unit_bytes)
    : unit_bytes_(unit_bytes),
      unit_shift_(static_cast<unsigned>(__builtin_ctz(unit_bytes))),
      gens_(file_bytes / unit_bytes, pattern::kUnknownGeneration) {}

void UnitMap::advance(std::uint64_t offset, std::uint32_t length) {
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u) {
        const pattern::Generation g = gens_[u];
        const pattern::Generation next =
            pattern::next_generation(g != pattern::kUnknownGeneration ? g : floor_);
        gens_[u] = next;
        high_ = std::max(high_, next);
    }
    untrim(offset >> unit_shift_, last);
}

void UnitMap::trim(std::uint64_t offset, std::uint32_t length) {
    if (trimmed_.empty()) trimmed_.assign((gens_.size() + 63) / 64, 0);
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u)
        trimmed_[u >> 6] |= std::uint64_t{1} << (u & 63);
}

void UnitMap::untrim(std::uint64_t first, std::uint64_t last) {
    if (trimmed_.empty()) return;
    for (std::uint64_t u = first; u <= last; ++u)
        trimmed_[u >> 6] &= ~(std::uint64_t{1} << (u & 63));
}

void UnitMap::forget(std::uint64_t offset, std::uint32_t length) {
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u)
        gens_[u] = pattern::kUnknownGeneration;
    untrim(offset >> unit_shift_, last);
    floor_ = high_;
}

void UnitMap::reset() {
    std::fill(gens_.begin(), gens_.end(), pattern::kUnknownGeneration);
    std::fill(trimmed_.begin(), trimmed_.end(), 0);
    floor_ = high_;
}

}  // namespace ds::engine
