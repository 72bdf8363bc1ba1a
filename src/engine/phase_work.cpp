#include "engine/phase_work.h"

#include <algorithm>
#include <cerrno>

#include "engine/shared_unit_map.h"
#include "pattern/generator.h"
#include "pattern/unit.h"
#include "sys/atomic_write.h"

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

template <class Map>
PhaseWork::Next BasicIoPhase<Map>::next(Slot& s) {
    if (writes_ && writes_->flush_due()) return *writes_->flush_first(s);
    s.req.rw_flags = 0;  // next_op may set a replayed FUA write's RWF_DSYNC
    if (!next_op(s)) {
        // Operations left, but none can go before one in flight completes
        // (--seq-time: the next block is still being written).
        if (more_ops()) return Next::wait;
        if (!writes_ || !writes_->final_flush_pending()) return Next::done;
        writes_->start_final_flush();  // the last writes get their flush too
        return *writes_->flush_first(s);
    }
    s.first_offset = s.req.offset;
    s.first_length = s.req.length;
    s.req.buf = s.buf;
    s.follows_writes = false;
    const int own_flags = std::exchange(s.req.rw_flags, 0);
    if (s.req.kind == io::OpKind::write) {
        fill(s);
        s.req.rw_flags = writes_->rw_flags() | c_.write_flags | own_flags;
        writes_->write_issued();
    } else if (s.req.kind == io::OpKind::trim) {
        // Trimmed when issued, as a write's generation is taken then: the
        // unit is claimed alone until the trim completes.  --keep records
        // the trim before it goes out.
        units_.trim(s.first_offset, s.first_length);
        writes_->trim_issued(s.first_offset, s.first_length);
    }
    return Next::issued;
}

template <class Map>
bool BasicIoPhase<Map>::more() const {
    return !(writes_ && writes_->flush_due()) && more_ops();
}

template <class Map>
void BasicIoPhase<Map>::reaped(std::uint64_t now_ns) {
    c_.now_ns = now_ns;
    c_.intervals.tick(now_ns, c_.out.counters);
    const PhaseCounters& k = c_.out.counters;
    c_.out.series.tick(now_ns, k.read_ops + k.write_ops, k.read_bytes + k.write_bytes);
    c_.progress_bytes.store(k.read_bytes + k.write_bytes, std::memory_order_relaxed);
    c_.progress_ops.store(k.read_ops + k.write_ops, std::memory_order_relaxed);
}

template <class Map>
void fill_units(const Map& units, pattern::UnitIdentity id, std::byte* buf, std::uint64_t offset,
                std::uint32_t length, bool streaming) {
    const std::uint32_t u = units.unit_bytes();
    id.unit_bytes = u;
    for (std::uint32_t done = 0; done < length; done += u) {
        id.offset = offset + done;
        id.generation = units.generation(units.unit_of(id.offset));
        if (streaming) {
            pattern::fill_unit_streaming({buf + done, u}, id);
        } else {
            pattern::fill_unit({buf + done, u}, id);
        }
    }
    if (streaming) pattern::stream_fence();
}

// The units of the write get their next generation, and the buffer what
// that generation of each unit holds.
template <class Map>
void BasicIoPhase<Map>::fill(Slot& s) {
    units_.advance(s.first_offset, s.first_length);
    fill_units(units_, c_.unit(units_.unit_bytes()), s.buf, s.first_offset, s.first_length,
               c_.stream_fill);
}

template <class Map>
void BasicIoPhase<Map>::verify(const Slot& s) {
    PhaseCounters& k = c_.out.counters;
    const std::uint32_t u = units_.unit_bytes();
    pattern::UnitIdentity id = c_.unit(u);
    for (std::uint32_t done = 0; done < s.first_length; done += u) {
        id.offset = s.first_offset + done;
        const std::uint64_t unit_index = units_.unit_of(id.offset);
        id.generation = units_.generation(unit_index);
        std::span<const std::byte> unit{s.buf + done, u};
        if (units_.trimmed(unit_index)) {
            verify_trimmed(unit, id);
            continue;
        }
        if (id.generation == pattern::kUnknownGeneration) {
            ++k.unverified_units;
            continue;
        }
        const std::size_t bad = pattern::first_mismatch(unit, id);
        k.verified_bytes += u;
        if (bad == u) continue;
        mismatch(unit, id);
    }
}

// A trimmed unit holds what the target promises for a trim (pattern/trim.h);
// the old content where it promises nothing; where it promises zeros (0xFF),
// the old content is trim-not-honoured, counted and warned of, not a
// mismatch.  Anything else is a mismatch diagnosed against the old content.
template <class Map>
void BasicIoPhase<Map>::verify_trimmed(std::span<const std::byte> unit,
                                       const pattern::UnitIdentity& id) {
    PhaseCounters& k = c_.out.counters;
    if (scratch_.size() * 8 < unit.size()) scratch_.resize(unit.size() / 8);
    const pattern::TrimRead r = pattern::check_trimmed(unit, id, c_.trim_promise,
                                                       std::as_writable_bytes(std::span(scratch_)));
    k.verified_bytes += unit.size();
    ++k.trimmed_units_read;
    if (r == pattern::TrimRead::not_honoured) {
        if (k.trim_not_honoured++ == 0) k.first_not_honoured = id.offset;
    } else if (r == pattern::TrimRead::wrong) {
        pattern::UnitIdentity last = id;
        if (last.generation == pattern::kUnknownGeneration) last.generation = 1;
        mismatch(unit, last);
    }
}

template <class Map>
void BasicIoPhase<Map>::mismatch(std::span<const std::byte> unit, const pattern::UnitIdentity& id) {
    const pattern::Diagnosis d = pattern::diagnose(unit, id);
    MismatchRecord rec;
    rec.offset = id.offset + d.first_bad_byte;
    rec.unit_offset = id.offset;
    rec.length = static_cast<std::uint32_t>(unit.size());
    rec.cls = d.cls;
    rec.bad_bytes = d.bad_bytes;
    rec.expected_generation = id.generation;
    rec.found = d.found;
    c_.sink.record(c_.order, c_.out.counters, std::move(rec));
}

template <class Map>
void BasicIoPhase<Map>::complete(Slot& s, std::int32_t result, std::uint64_t latency_ns) {
    if (io::is_flush(s.req.kind)) {
        log(s, result, latency_ns, output::IoLogVerify::none);
        flush_done(s, result, latency_ns);
        return;
    }
    if (s.req.kind == io::OpKind::trim) {
        log(s, result, latency_ns, output::IoLogVerify::none);
        trim_done(s, result, latency_ns);
        released(s);
        return;
    }
    const bool is_read = s.req.kind == io::OpKind::read;
    PhaseCounters& k = c_.out.counters;
    const bool ok = result > 0;  // a short transfer was completed by the engine
    output::IoLogVerify outcome =
        is_read ? output::IoLogVerify::unverified : output::IoLogVerify::none;
    if (result == -ECANCELED) {
        // A stop request cancelled it: neither an error nor a mismatch.  A
        // cancelled write may have stored all, some or none of its units,
        // so they are never verified against the generation it carried.
        ++k.cancelled_ops;
        if (!is_read) units_.forget(s.first_offset, s.first_length);
    } else if (!ok) {
        failed(s, result, is_read);
    } else if (is_read) {
        c_.intervals.record_read(latency_ns);
        k.read_latency.record(latency_ns);
        ++k.read_ops;
        k.read_bytes += s.first_length;
        if (!k.sizes.empty()) k.record_size(s.first_length, true, latency_ns);
        const bool logging = c_.io_log.log != nullptr;
        const std::uint64_t bad = logging ? k.mismatch_total() : 0, good = k.verified_bytes;
        if (c_.verify) verify(s);
        if (logging) outcome = read_outcome(bad, good);
    } else {
        c_.intervals.record_write(latency_ns);
        k.write_latency.record(latency_ns);
        ++k.write_ops;
        if (s.req.rw_flags & RWF_ATOMIC) ++k.atomic_writes;
        k.write_bytes += s.first_length;
        if (!k.sizes.empty()) k.record_size(s.first_length, false, latency_ns);
    }
    if (ok && s.due_ns) scheduled_done(s, latency_ns);
    if (!is_read) writes_->write_done(s, ok);
    log(s, result, latency_ns, outcome);
    released(s);
}

// A read that found a unit wrong is a mismatch; one that checked at least
// one unit and found none wrong is ok; one that checked nothing (content
// unknown after a failed write, or --no-verify) is unverified.
template <class Map>
output::IoLogVerify BasicIoPhase<Map>::read_outcome(std::uint64_t mismatches_before,
                                                    std::uint64_t verified_before) const {
    const PhaseCounters& k = c_.out.counters;
    if (k.mismatch_total() != mismatches_before) return output::IoLogVerify::mismatch;
    return k.verified_bytes != verified_before ? output::IoLogVerify::ok
                                               : output::IoLogVerify::unverified;
}

// Offsets in the log are the target's (IoLogTap::base); a failed push (the
// writer behind) is counted by the log itself.
template <class Map>
void BasicIoPhase<Map>::log(const Slot& s, std::int32_t result, std::uint64_t latency_ns,
                            output::IoLogVerify verify) const {
    const IoLogTap& t = c_.io_log;
    if (!t.log) return;
    output::IoRecord r{};
    r.due_ns = s.due_ns;
    r.submit_ns = s.req.submit_ns;
    r.complete_ns = s.req.submit_ns + latency_ns;
    const bool flush = io::is_flush(s.req.kind);
    r.offset = flush ? 0 : t.base + s.first_offset;
    r.length = flush ? 0 : s.first_length;
    r.result = result;
    r.target = t.target;
    const output::IoLogOp op = flush                            ? output::IoLogOp::flush
                               : s.req.kind == io::OpKind::trim ? output::IoLogOp::trim
                               : s.req.kind == io::OpKind::read ? output::IoLogOp::read
                                                                : output::IoLogOp::write;
    r.op = static_cast<std::uint8_t>(op);
    r.verify = static_cast<std::uint8_t>(verify);
    r.phase = static_cast<std::uint8_t>(c_.order.phase);  // as output::IoLogPhase (model/config.h)
    t.log->push(t.ring, r);
}

// A trim answers 0 (a NOP ring: its length).  One that failed, or was
// cancelled, may have dropped all, some or none of its units: they become
// unknown.  A target that cannot trim at all (EOPNOTSUPP; EINVAL, ENOTTY:
// no discard on this device) is a setup problem: every worker stops.
template <class Map>
void BasicIoPhase<Map>::trim_done(Slot& s, std::int32_t result, std::uint64_t latency_ns) {
    PhaseCounters& k = c_.out.counters;
    if (result >= 0) {
        ++k.trim_ops;
        k.trim_bytes += s.first_length;
        k.trim_latency.record(latency_ns);
        if (s.due_ns) scheduled_done(s, latency_ns);
        return;
    }
    units_.forget(s.first_offset, s.first_length);
    if (result == -ECANCELED) {
        ++k.cancelled_ops;
        return;
    }
    if (result == -EOPNOTSUPP || result == -EINVAL || result == -ENOTTY) {
        if (!c_.out.trim_refused) c_.out.trim_refused = -result;
        c_.stop.store(true, std::memory_order_relaxed);
        return;
    }
    record_failure(s, result);
}

// Response time counts from when the operation was due, so the time it
// waited for a slot (late) or for the engine (issue error) is in it.
template <class Map>
void BasicIoPhase<Map>::scheduled_done(const Slot& s, std::uint64_t latency_ns) {
    PhaseCounters& k = c_.out.counters;
    const std::uint64_t waited = s.req.submit_ns > s.due_ns ? s.req.submit_ns - s.due_ns : 0;
    const std::uint64_t response = latency_ns + waited;
    k.response_latency.record(response);
    if (!k.response_by_direction.empty() && !io::is_flush(s.req.kind))
        k.response_by_direction[s.req.kind == io::OpKind::read   ? PhaseCounters::kResponseRead
                                : s.req.kind == io::OpKind::trim ? PhaseCounters::kResponseTrim
                                                                 : PhaseCounters::kResponseWrite]
            .record(response);
    c_.intervals.record_response(response);
    if (s.late) {
        ++k.late_ops;
        k.max_lateness_ns = std::max(k.max_lateness_ns, waited);
        if (waited > tolerance_ns_) ++k.late_beyond_tolerance_ops;
    } else {
        k.issue_error.record(waited);
    }
}

template <class Map>
void BasicIoPhase<Map>::flush_done(Slot& s, std::int32_t result, std::uint64_t latency_ns) {
    PhaseCounters& k = c_.out.counters;
    if (result >= 0) {
        k.flush_latency.record(latency_ns);
        ++k.flush_ops;
    }
    // A cancelled flush made nothing durable (flush_done keeps what it
    // covered unacknowledged) and is no error.
    if (result == -ECANCELED) ++k.cancelled_ops;
    // A replayed trace's own flush is no --sync group's: it acknowledges nothing.
    const bool not_full =
        s.follows_writes ? writes_->flush_done(result) : result != -ENOSPC && result != -EDQUOT;
    if (!s.follows_writes && result >= 0 && s.due_ns) scheduled_done(s, latency_ns);
    if (result < 0 && not_full && result != -ECANCELED) {
        MismatchRecord rec;
        rec.op = s.req.kind;
        rec.cls = pattern::MismatchClass::io_error;
        rec.error = -result;
        c_.sink.record(c_.order, k, std::move(rec));
    }
    // ENOSPC/EDQUOT from a flush: buffered writes whose blocks were only
    // allocated at write-back found the filesystem full.
    if (!not_full && !c_.out.no_space_at) {
        c_.out.no_space_at = 0;
        c_.out.no_space_in_flush = true;
    }
}

// A failed read or write.  EINVAL and a full filesystem are not the drive's
// fault; anything else is an I/O error (or, for a read at the end of the
// file, a short read) with the offset where the transfer stopped.
template <class Map>
void BasicIoPhase<Map>::failed(Slot& s, std::int32_t result, bool is_read) {
    PhaseCounters& k = c_.out.counters;
    if (!is_read) units_.forget(s.first_offset, s.first_length);
    if (result == -EINVAL) {
        if (!c_.out.invalid) c_.out.invalid = s.req;
        c_.stop.store(true, std::memory_order_relaxed);
        return;
    }
    if (!is_read) ++k.write_errors;
    if (!is_read && (result == -ENOSPC || result == -EDQUOT)) {
        if (!c_.out.no_space_at) c_.out.no_space_at = s.req.offset;
        return;
    }
    if (result == 0 && is_read) c_.sink.note_truncation();
    record_failure(s, result);
}

// A failed operation's record, from where the transfer stopped: a read that
// found the end of the file (0) is short-read, anything else io-error.
template <class Map>
void BasicIoPhase<Map>::record_failure(const Slot& s, std::int32_t result) {
    MismatchRecord rec;
    rec.offset = s.req.offset;
    rec.unit_offset = s.first_offset;
    rec.length = s.first_length;
    rec.op = s.req.kind;
    if (result == 0 && s.req.kind == io::OpKind::read) {
        rec.cls = pattern::MismatchClass::short_read;
    } else {
        rec.cls = pattern::MismatchClass::io_error;
        rec.error = -result;
    }
    c_.sink.record(c_.order, c_.out.counters, std::move(rec));
}

template class BasicIoPhase<UnitMap>;
template class BasicIoPhase<SharedUnitMap>;
template void fill_units(const UnitMap&, pattern::UnitIdentity, std::byte*, std::uint64_t,
                         std::uint32_t, bool);
template void fill_units(const SharedUnitMap&, pattern::UnitIdentity, std::byte*, std::uint64_t,
                         std::uint32_t, bool);

}  // namespace ds::engine
