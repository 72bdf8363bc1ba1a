#include "model/damage.h"

#include <algorithm>

namespace ds::model {

void DamageMap::add(std::uint64_t offset, std::uint64_t length, pattern::MismatchClass cls,
                    std::uint32_t unit) {
    std::uint64_t start = offset / unit * unit;
    std::uint64_t end = (offset + std::max<std::uint64_t>(length, 1) + unit - 1) / unit * unit;
    std::uint64_t reads = 1;
    auto& m = by_class_[static_cast<std::size_t>(cls)];
    // Swallow every extent that overlaps or touches [start, end).
    auto it = m.upper_bound(start);
    if (it != m.begin() && std::prev(it)->second.end >= start) --it;
    while (it != m.end() && it->first <= end) {
        start = std::min(start, it->first);
        end = std::max(end, it->second.end);
        reads += it->second.reads;
        it = m.erase(it);
    }
    if (m.size() >= kMaxExtents && reads == 1) {
        ++overflow_;
        return;
    }
    m.emplace(start, Span{end, reads});
}

std::vector<DamageExtent> DamageMap::extents() const {
    std::vector<DamageExtent> out;
    for (std::size_t c = 0; c < pattern::kMismatchClassCount; ++c)
        for (const auto& [start, span] : by_class_[c])
            out.push_back(
                {start, span.end - start, static_cast<pattern::MismatchClass>(c), span.reads});
    std::sort(out.begin(), out.end(), [](const DamageExtent& a, const DamageExtent& b) {
        return a.offset != b.offset ? a.offset < b.offset : a.cls < b.cls;
    });
    return out;
}

std::uint64_t DamageMap::distinct_units(std::uint32_t unit) const {
    // The union of every class's ranges, walked in offset order.
    std::uint64_t bytes = 0, covered_to = 0;
    for (const auto& e : extents()) {
        const std::uint64_t from = std::max(e.offset, covered_to);
        const std::uint64_t to = e.offset + e.length;
        if (to > from) bytes += to - from;
        covered_to = std::max(covered_to, to);
    }
    return bytes / unit;
}

bool DamageMap::empty() const {
    for (const auto& m : by_class_)
        if (!m.empty()) return false;
    return overflow_ == 0;
}

}  // namespace ds::model
