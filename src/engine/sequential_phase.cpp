#include <algorithm>

#include "engine/phases.h"

namespace ds::run {

bool SequentialPhase::next_op(Slot& s) {
    if (next_offset_ >= c_.file_bytes) return false;
    s.req.kind = kind_;
    s.req.offset = next_offset_;
    s.req.length =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(c_.block, c_.file_bytes - next_offset_));
    next_offset_ += s.req.length;
    return true;
}

}  // namespace ds::run
