#include <algorithm>

#include "engine/phases.h"
#include "engine/shared_unit_map.h"

namespace ds::engine {

template <class Map>
StreamPhase<Map>::StreamPhase(PhaseContext& c, Map& units, BasicWriteDurability<Map>* writes,
                              std::uint64_t seed)
    : BasicIoPhase<Map>(c, units, writes),
      read_pct_(c.order.work->read_pct),
      step_(c.order.work->offset_step),
      write_below_(100 - c.order.work->trim_pct),
      begin_(c.order.work->range_offset),
      end_(begin_ + c.order.work->range() / units.unit_bytes() * units.unit_bytes()),
      next_(begin_),
      rng_(seed ^ (std::uint64_t{c.worker} << 32) ^ (c.order.iteration * 0x9E37ULL) ^
           0x5851F42D4C957F2DULL) {}

template <class Map>
bool StreamPhase<Map>::pass_over() const {
    return step_ ? pass_bytes_ >= end_ - begin_ : next_ >= end_;
}

template <class Map>
unsigned StreamPhase<Map>::passes_done() const {
    return passes_ + (pass_over() ? 1 : 0);
}

template <class Map>
std::uint64_t StreamPhase<Map>::stepped(std::uint64_t end_of_op) const {
    const auto range = static_cast<std::int64_t>(end_ - begin_);
    std::int64_t at = static_cast<std::int64_t>(end_of_op - begin_) + step_;
    if (at < 0 || at >= range) at = step_ > 0 ? 0 : std::max<std::int64_t>(0, range + step_);
    return begin_ + static_cast<std::uint64_t>(at);
}

template <class Map>
bool StreamPhase<Map>::more_ops() const {
    const model::WorkerPlan& w = *c_.order.work;
    if (w.op_limit && issued_ >= w.op_limit) return false;
    if (w.byte_limit && issued_bytes_ >= w.byte_limit) return false;
    if (w.loops && passes_done() >= w.loops) return false;
    return !(c_.order.deadline_ns && c_.now_ns >= c_.order.deadline_ns);
}

template <class Map>
io::OpKind StreamPhase<Map>::draw_kind() {
    if (read_pct_ >= 100) return io::OpKind::read;
    if (read_pct_ == 0 && write_below_ == 100) return io::OpKind::write;
    const auto r = static_cast<unsigned>(stats::uniform_below(stats::splitmix64(rng_), 100));
    return r < read_pct_       ? io::OpKind::read
           : r >= write_below_ ? io::OpKind::trim
                               : io::OpKind::write;
}

template <class Map>
bool StreamPhase<Map>::next_op(Slot& s) {
    if (!more_ops()) return false;
    if (pass_over()) {  // the next pass
        next_ = begin_;
        pass_bytes_ = 0;
        ++passes_;
    }
    if (!drawn_) {  // drawn once: a wait for a unit does not change what comes next
        kind_ = draw_kind();
        drawn_ = true;
    }
    const auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(c_.block, end_ - next_));
    if constexpr (kShared) {
        // Another worker holds a unit of it: wait, in order (no claim is kept).
        const auto [first, last] = units_.units_in(next_, length);
        if (!units_.try_claim(first, last, kind_ != io::OpKind::read)) return false;
    }
    s.req.kind = kind_;
    s.req.offset = next_;
    s.req.length = length;
    next_ = step_ ? stepped(next_ + length) : next_ + length;
    pass_bytes_ += length;
    ++issued_;
    issued_bytes_ += length;
    drawn_ = false;
    return true;
}

template <class Map>
void StreamPhase<Map>::released(const Slot& s) {
    if constexpr (kShared) {
        const auto [first, last] = units_.units_in(s.first_offset, s.first_length);
        units_.release(first, last, s.req.kind != io::OpKind::read);
    } else {
        (void)s;  // a file of its own: nothing was claimed
    }
}

template class StreamPhase<UnitMap>;
template class StreamPhase<SharedUnitMap>;

}  // namespace ds::engine
