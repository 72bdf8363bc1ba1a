#include <sys/uio.h>

#include <utility>

#include "engine/phases.h"

namespace ds::engine {

ReplayPhase::ReplayPhase(PhaseContext& c, UnitMap& units, WriteDurability* writes,
                         std::unique_ptr<ReplayFeed> feed)
    : IoPhase(c, units, writes), feed_(std::move(feed)) {}

bool ReplayPhase::ahead() {
    if (pending_) return true;
    if (ended_) return false;
    pending_ = feed_->next();
    if (!pending_) {
        ended_ = true;
        return false;
    }
    return true;
}

// Called once before the first operation and once after each one issued:
// the due time of the operation next_op() gives next.  At the end, the
// last one's (the engine then finds the phase done).
std::uint64_t ReplayPhase::next_due() {
    if (ahead()) last_due_ = c_.order.rate_start_ns + pending_->due_ns;
    return last_due_;
}

bool ReplayPhase::more_ops() const {
    if (c_.order.deadline_ns && c_.now_ns >= c_.order.deadline_ns) return false;
    return pending_.has_value() || !ended_;
}

bool ReplayPhase::units_free(const ReplayOp& op) const {
    const bool read = op.kind == io::OpKind::read;
    for (auto [u, end] = units_.units_in(op.offset, op.length); u < end; ++u)
        if (read ? units_.busy_for_read(u) : units_.busy(u)) return false;
    return true;
}

bool ReplayPhase::next_op(Slot& s) {
    if (!more_ops() || !ahead()) return false;
    const ReplayOp& op = *pending_;
    if (!units_free(op)) return false;  // in order: wait for the unit's operation
    s.req.kind = op.kind;
    s.req.offset = op.offset;
    s.req.length = op.length;
    s.req.rw_flags = op.fua && op.kind == io::OpKind::write ? RWF_DSYNC : 0;
    const bool read = op.kind == io::OpKind::read;
    for (auto [u, end] = units_.units_in(op.offset, op.length); u < end; ++u)
        read ? units_.claim_shared(u) : units_.claim(u);
    pending_.reset();
    return true;
}

void ReplayPhase::released(const Slot& s) {
    const bool read = s.req.kind == io::OpKind::read;
    for (auto [u, end] = units_.units_in(s.first_offset, s.first_length); u < end; ++u)
        read ? units_.release_shared(u) : units_.release(u);
}

}  // namespace ds::engine
