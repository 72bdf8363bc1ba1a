#include "engine/phases.h"

#include <utility>

namespace ds::engine {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// A uniform draw below `n` from a 64-bit random value, by a multiply and
// a shift (Lemire's range reduction) instead of a 64-bit division, which
// was a tenth of the engine's own CPU per NOP operation.
std::uint64_t below(std::uint64_t random, std::uint64_t n) {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((u128{random} * n) >> 64);
}

}  // namespace

RandomPhase::RandomPhase(PhaseContext& c, WriteDurability* writes, unsigned read_pct,
                         std::uint64_t seed)
    : IoPhase(c, writes),
      read_pct_(read_pct),
      blocks_(c.file_bytes / c.block),
      block_shift_(static_cast<unsigned>(__builtin_ctz(c.block)) - c.units.unit_shift()) {
    // Each worker, iteration and steady-state round draws its own sequence
    // from the run's seed (round 0 draws what a run without rounds does).
    std::uint64_t rs = seed ^ (std::uint64_t{c.file_index} << 32) ^ (c.plan.iteration * 0x9E37ULL) ^
                       (c.plan.round * 0xD1B54A32D192ED03ULL);
    rng_[0] = splitmix64(rs) | 1;
    rng_[1] = splitmix64(rs);
    ahead_ = draw_block();
}

std::uint64_t RandomPhase::draw_block() {
    const std::uint64_t first = below(next_random(), blocks_) << block_shift_;
    c_.units.prefetch(first);
    return first;
}

std::uint64_t RandomPhase::next_random() {
    // xorshift128+: cheap, and only picks offsets and read/write.
    std::uint64_t s1 = rng_[0];
    const std::uint64_t s0 = rng_[1];
    rng_[0] = s0;
    s1 ^= s1 << 23;
    rng_[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    return rng_[1] + s0;
}

bool RandomPhase::more_ops() const {
    if (c_.plan.op_limit && issued_ >= c_.plan.op_limit) return false;
    return !(c_.plan.deadline_ns && c_.now_ns >= c_.plan.deadline_ns);
}

bool RandomPhase::next_op(Slot& s) {
    if (!more_ops()) return false;
    // A block whose first unit is busy is in flight (unit_map.h); at most
    // half the blocks are in flight, so this loop ends quickly.  Blocks are
    // drawn one ahead so that the generation this one needs (when its write
    // is filled, or its read verified) was being loaded meanwhile.
    std::uint64_t first;
    do {
        first = std::exchange(ahead_, draw_block());
    } while (c_.units.busy(first));
    c_.units.claim(first);
    s.req.offset = first << c_.units.unit_shift();
    s.req.length = c_.block;
    s.req.kind = below(next_random(), 100) < read_pct_ ? io::OpKind::read : io::OpKind::write;
    ++issued_;
    return true;
}

void RandomPhase::released(const Slot& s) {
    c_.units.release(c_.units.unit_of(s.first_offset));
}

}  // namespace ds::engine
