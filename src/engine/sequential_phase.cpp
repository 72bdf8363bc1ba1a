#include <algorithm>

#include "engine/phases.h"
#include "engine/shared_unit_map.h"

namespace ds::engine {

template <class Map>
bool SequentialPhase<Map>::more_ops() const {
    if (first_pass_ && next_offset_ < c_.file_bytes) return true;
    if (issued_ < c_.order.min_ops) return true;
    return c_.order.deadline_ns && c_.now_ns < c_.order.deadline_ns;
}

template <class Map>
bool SequentialPhase<Map>::next_op(Slot& s) {
    if (!more_ops()) return false;
    if (next_offset_ >= c_.file_bytes) {  // the next pass (PhaseOrder::deadline_ns, min_ops)
        next_offset_ = 0;
        first_pass_ = false;
    }
    const auto length =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(c_.block, c_.file_bytes - next_offset_));
    if (exclusive_) {
        if constexpr (kShared) {
            // Every unit of the block, in the file's shared map.
            const auto [first, end] = units_.units_in(next_offset_, length);
            if (!units_.try_claim(first, end, true)) return false;  // the loop waits
        } else {
            // Blocks start at multiples of the block: the first unit stands
            // for the whole block, as in the random phase.
            const std::uint64_t first = units_.unit_of(next_offset_);
            if (units_.busy(first)) return false;  // more_ops() holds: the loop waits
            units_.claim(first);
        }
    }
    s.req.kind = kind_;
    s.req.offset = next_offset_;
    s.req.length = length;
    next_offset_ += s.req.length;
    ++issued_;
    return true;
}

template <class Map>
void SequentialPhase<Map>::released(const Slot& s) {
    if (!exclusive_) return;
    if constexpr (kShared) {
        const auto [first, end] = units_.units_in(s.first_offset, s.first_length);
        units_.release(first, end, true);
    } else {
        units_.release(units_.unit_of(s.first_offset));
    }
}

template class SequentialPhase<UnitMap>;
template class SequentialPhase<SharedUnitMap>;

}  // namespace ds::engine
