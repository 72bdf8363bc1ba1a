#include "engine/phases.h"

#include <memory>

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

std::unique_ptr<IoPhase> make_phase(PhaseContext& c, WriteDurability* writes, const RandomMix& mix,
                                    std::uint64_t seed) {
    switch (c.order.phase) {
        case Phase::seq_write:
            return std::make_unique<SequentialPhase>(c, writes, io::OpKind::write);
        case Phase::random:
            if (c.order.replay)
                return std::make_unique<ReplayPhase>(c, writes, c.order.replay->open(c.file_index));
            return std::make_unique<RandomPhase>(c, writes, mix, seed);
        case Phase::seq_read:
        case Phase::reverify:
            break;
    }
    return std::make_unique<SequentialPhase>(c, nullptr, io::OpKind::read);
}

}  // namespace ds::engine
