#include "engine/phases.h"

#include <memory>

#include "engine/shared_unit_map.h"

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

template <class Map>
std::unique_ptr<BasicIoPhase<Map>> make_phase(PhaseContext& c, Map& units,
                                              BasicWriteDurability<Map>* writes,
                                              const RandomMix& mix, std::uint64_t seed) {
    switch (c.order.phase) {
        case Phase::seq_write:
            return std::make_unique<SequentialPhase<Map>>(c, units, writes, io::OpKind::write);
        case Phase::random:
            if constexpr (std::is_same_v<Map, UnitMap>)
                if (c.order.replay)
                    return std::make_unique<ReplayPhase>(c, units, writes,
                                                         c.order.replay->open(c.file_index));
            if (c.order.work->access == Access::sequential)
                return std::make_unique<StreamPhase<Map>>(c, units, writes, seed);
            return std::make_unique<RandomPhase<Map>>(c, units, writes, mix, seed);
        case Phase::seq_read:
        case Phase::reverify:
            break;
    }
    return std::make_unique<SequentialPhase<Map>>(c, units, nullptr, io::OpKind::read);
}

template std::unique_ptr<BasicIoPhase<UnitMap>> make_phase(PhaseContext&, UnitMap&,
                                                           BasicWriteDurability<UnitMap>*,
                                                           const RandomMix&, std::uint64_t);
template std::unique_ptr<BasicIoPhase<SharedUnitMap>> make_phase(
    PhaseContext&, SharedUnitMap&, BasicWriteDurability<SharedUnitMap>*, const RandomMix&,
    std::uint64_t);

}  // namespace ds::engine
