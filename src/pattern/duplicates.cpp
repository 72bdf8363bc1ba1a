#include "pattern/duplicates.h"

#include <algorithm>
#include <bitset>

namespace ds::pattern {

DuplicateCount count_duplicates(const UnitIdentity& base, std::uint64_t file_bytes, unsigned files,
                                std::uint64_t limit) {
    DuplicateCount c;
    const std::uint64_t units = base.unit_bytes ? file_bytes / base.unit_bytes : 0;
    if (units == 0 || files == 0 || limit == 0) return c;
    const std::uint64_t total = units * files;
    const std::uint64_t n = std::min(limit, total);
    std::bitset<kDedupeSources> seen;
    for (std::uint64_t k = 0; k < n; ++k) {
        // k < limit (2^22 from the report) times total (2^42 units of 512
        // bytes is 2 PiB) stays within 64 bits.
        const std::uint64_t pick = n == total ? k : k * total / n;
        UnitIdentity id = base;
        id.file_index = static_cast<std::uint32_t>(pick / units);
        id.offset = pick % units * base.unit_bytes;
        if (const auto source = dedupe_source(id)) {
            ++c.duplicates;
            seen.set(*source);
        }
    }
    c.units = n;
    c.sources = static_cast<unsigned>(seen.count());
    return c;
}

}  // namespace ds::pattern
