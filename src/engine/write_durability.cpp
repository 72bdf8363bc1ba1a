#include "engine/write_durability.h"

#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "engine/shared_unit_map.h"

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

int flags_of(SyncMethod m) {
    return m == SyncMethod::osync ? RWF_SYNC : (m == SyncMethod::dsync ? RWF_DSYNC : 0);
}

}  // namespace

template <class Map>
BasicWriteDurability<Map>::BasicWriteDurability(SyncMethod method, std::uint64_t every, Map& units,
                                                DurableMaps& maps)
    : flushes_(method == SyncMethod::fsync || method == SyncMethod::fdatasync),
      per_write_(method == SyncMethod::osync || method == SyncMethod::dsync),
      rw_flags_(flags_of(method)),
      every_(std::max<std::uint64_t>(1, every)),
      kind_(method == SyncMethod::fsync ? io::OpKind::fsync : io::OpKind::fdatasync),
      units_(units),
      maps_(maps) {}

template <class Map>
std::optional<PhaseWork::Next> BasicWriteDurability<Map>::flush_first(Slot& s) {
    if (!flush_due_) return std::nullopt;
    if (writes_in_flight_ != 0 || flush_in_flight_) return PhaseWork::Next::wait;
    if (maps_.listener) acknowledgeable(units_, maps_.snapshot);
    s.req.kind = kind_;
    s.req.offset = 0;
    s.req.length = 0;
    s.req.rw_flags = 0;
    s.req.buf = s.buf;
    s.first_offset = 0;
    s.first_length = 0;
    s.follows_writes = true;
    flush_due_ = false;
    flush_in_flight_ = true;
    group_writes_ = 0;
    return PhaseWork::Next::issued;
}

template <class Map>
void BasicWriteDurability<Map>::trim_issued(std::uint64_t offset, std::uint32_t length) {
    if (!maps_.listener) return;
    bool recorded = false;
    for (auto [u, end] = units_.units_in(offset, length); u < end; ++u) {
        // The snapshot too: a flush in flight acknowledges it next.
        maps_.snapshot[u] |= kTrimmedBit;
        if (acked_trimmed(maps_.acked[u])) continue;
        maps_.acked[u] |= kTrimmedBit;
        recorded = true;
    }
    if (recorded) maps_.listener->acknowledged(maps_.file_index, maps_.acked);
}

template <class Map>
void acknowledgeable(const Map& units, std::span<pattern::Generation> out) {
    const auto g = units.generations();
    std::copy(g.begin(), g.end(), out.begin());
    if (!units.trims()) return;
    for (std::uint64_t u = 0; u < g.size(); ++u)
        if (units.trimmed(u)) out[u] |= kTrimmedBit;
}

template <class Map>
void BasicWriteDurability<Map>::write_issued() {
    ++writes_in_flight_;
    if (flushes_ && ++group_writes_ >= every_) flush_due_ = true;
}

template <class Map>
void BasicWriteDurability<Map>::write_done(const Slot& s, bool ok) {
    --writes_in_flight_;
    if (!per_write_) return;
    auto acked = maps_.acked.begin();
    for (auto [u, end] = units_.units_in(s.first_offset, s.first_length); u < end; ++u)
        acked[u] = ok ? units_.generation(u) : pattern::kUnknownGeneration;
    // Every completed write is durable already (RWF_SYNC/RWF_DSYNC).
    if (maps_.listener && ++synced_since_notice_ >= every_) {
        maps_.listener->acknowledged(maps_.file_index, maps_.acked);
        synced_since_notice_ = 0;
    }
}

template <class Map>
bool BasicWriteDurability<Map>::flush_done(std::int32_t result) {
    flush_in_flight_ = false;
    if (result >= 0) {
        if (maps_.listener) {
            // The snapshot becomes what is acknowledged; its buffer takes the
            // next flush's snapshot.
            std::swap(maps_.acked, maps_.snapshot);
            maps_.listener->acknowledged(maps_.file_index, maps_.acked);
        }
        return true;
    }
    if (maps_.listener) {
        // What this flush covered may be lost, and a later flush can succeed
        // without it (the error is reported once): those units stay unknown
        // until written again, so no later flush acknowledges them.
        auto gens = units_.generations();
        for (std::size_t u = 0; u < gens.size(); ++u)
            if (maps_.snapshot[u] != maps_.acked[u] && gens[u] == maps_.snapshot[u])
                units_.forget_unit(u);
    }
    return result != -ENOSPC && result != -EDQUOT;
}

template <class Map>
void BasicWriteDurability<Map>::finish() {
    if (per_write_ && maps_.listener && synced_since_notice_ > 0)
        maps_.listener->acknowledged(maps_.file_index, maps_.acked);
    synced_since_notice_ = 0;
}

template class BasicWriteDurability<UnitMap>;
template class BasicWriteDurability<SharedUnitMap>;
template void acknowledgeable(const UnitMap&, std::span<pattern::Generation>);
template void acknowledgeable(const SharedUnitMap&, std::span<pattern::Generation>);

}  // namespace ds::engine
