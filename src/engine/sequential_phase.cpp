#include <algorithm>

#include "engine/phases.h"

namespace ds::engine {

bool SequentialPhase::more_ops() const {
    if (first_pass_ && next_offset_ < c_.file_bytes) return true;
    if (issued_ < c_.order.min_ops) return true;
    return c_.order.deadline_ns && c_.now_ns < c_.order.deadline_ns;
}

bool SequentialPhase::next_op(Slot& s) {
    if (!more_ops()) return false;
    if (next_offset_ >= c_.file_bytes) {  // the next pass (PhaseOrder::deadline_ns, min_ops)
        next_offset_ = 0;
        first_pass_ = false;
    }
    if (exclusive_) {
        // Blocks start at multiples of the block: the first unit stands for
        // the whole block, as in the random phase.
        const std::uint64_t first = c_.units.unit_of(next_offset_);
        if (c_.units.busy(first)) return false;  // more_ops() holds: the loop waits
        c_.units.claim(first);
    }
    s.req.kind = kind_;
    s.req.offset = next_offset_;
    s.req.length =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(c_.block, c_.file_bytes - next_offset_));
    next_offset_ += s.req.length;
    ++issued_;
    return true;
}

void SequentialPhase::released(const Slot& s) {
    if (exclusive_) c_.units.release(c_.units.unit_of(s.first_offset));
}

}  // namespace ds::engine
