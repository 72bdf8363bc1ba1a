#include "engine/shared_unit_map.h"

#include <algorithm>

namespace ds::engine {

SharedUnitMap::SharedUnitMap(std::uint64_t file_bytes, std::uint32_t unit_bytes)
    : unit_bytes_(unit_bytes),
      unit_shift_(static_cast<unsigned>(__builtin_ctz(unit_bytes))),
      gens_(file_bytes / unit_bytes, pattern::kUnknownGeneration),
      claims_(std::make_unique<std::atomic<std::uint32_t>[]>(gens_.size())),
      trimmed_(std::make_unique<std::atomic<std::uint64_t>[]>((gens_.size() + 63) / 64)),
      trimmed_words_((gens_.size() + 63) / 64) {}

bool SharedUnitMap::try_claim(std::uint64_t first, std::uint64_t end, bool write) {
    for (std::uint64_t u = first; u < end; ++u) {
        std::atomic<std::uint32_t>& c = claims_[u];
        std::uint32_t seen = c.load(std::memory_order_relaxed);
        bool taken;
        if (write) {
            taken = seen == 0 && c.compare_exchange_strong(seen, kWriter, std::memory_order_acquire,
                                                           std::memory_order_relaxed);
        } else {
            do {
                taken = (seen & kWriter) == 0 &&
                        c.compare_exchange_weak(seen, seen + 1, std::memory_order_acquire,
                                                std::memory_order_relaxed);
            } while (!taken && (seen & kWriter) == 0);
        }
        if (!taken) {
            release(first, u, write);  // none held while waiting: no deadlock
            return false;
        }
    }
    return true;
}

void SharedUnitMap::release(std::uint64_t first, std::uint64_t end, bool write) {
    for (std::uint64_t u = first; u < end; ++u) {
        if (write)
            claims_[u].store(0, std::memory_order_release);
        else
            claims_[u].fetch_sub(1, std::memory_order_release);
    }
}

void SharedUnitMap::advance(std::uint64_t offset, std::uint32_t length) {
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    const pattern::Generation below = floor_.load(std::memory_order_relaxed);
    pattern::Generation top = pattern::kUnknownGeneration;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u) {
        const pattern::Generation g = gens_[u];
        const pattern::Generation next =
            pattern::next_generation(g != pattern::kUnknownGeneration ? g : below);
        gens_[u] = next;
        top = std::max(top, next);
    }
    pattern::Generation high = high_.load(std::memory_order_relaxed);
    while (high < top && !high_.compare_exchange_weak(high, top, std::memory_order_relaxed)) {
    }
    untrim(offset >> unit_shift_, last);
}

void SharedUnitMap::trim(std::uint64_t offset, std::uint32_t length) {
    trims_.store(true, std::memory_order_relaxed);
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u)
        trimmed_[u >> 6].fetch_or(std::uint64_t{1} << (u & 63), std::memory_order_relaxed);
}

void SharedUnitMap::untrim(std::uint64_t first, std::uint64_t last) {
    if (!trims()) return;
    for (std::uint64_t u = first; u <= last; ++u)
        trimmed_[u >> 6].fetch_and(~(std::uint64_t{1} << (u & 63)), std::memory_order_relaxed);
}

void SharedUnitMap::forget(std::uint64_t offset, std::uint32_t length) {
    const std::uint64_t last = (offset + length - 1) >> unit_shift_;
    for (std::uint64_t u = offset >> unit_shift_; u <= last; ++u)
        gens_[u] = pattern::kUnknownGeneration;
    untrim(offset >> unit_shift_, last);
    floor_.store(high_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void SharedUnitMap::forget_unit(std::uint64_t unit) {
    gens_[unit] = pattern::kUnknownGeneration;
    untrim(unit, unit);
    floor_.store(high_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void SharedUnitMap::reset() {
    std::fill(gens_.begin(), gens_.end(), pattern::kUnknownGeneration);
    for (std::uint64_t w = 0; w < trimmed_words_; ++w)
        trimmed_[w].store(0, std::memory_order_relaxed);
    floor_.store(high_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

}  // namespace ds::engine
