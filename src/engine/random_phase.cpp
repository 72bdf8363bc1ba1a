#include "engine/phases.h"

#include <utility>

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;

namespace {

// A phase's blocks under --distribution.  The hot blocks' places come from
// the run's seed alone, so every iteration, round and sweep point of a run
// heats the same blocks (a drive's cache sees one working set).
stats::Distribution distribution_of(const RandomMix& mix, std::uint64_t blocks,
                                    std::uint64_t seed) {
    static const stats::DistributionSpec uniform;
    return stats::Distribution(mix.distribution ? *mix.distribution : uniform,
                               std::max<std::uint64_t>(blocks, 1), seed);
}

// Draws of many blocks pick one not in flight within a few tries; a skewed
// distribution over a small file can keep drawing busy hot blocks, so after
// this many the phase waits for a completion instead.
constexpr unsigned kBusyDraws = 64;

}  // namespace

RandomPhase::RandomPhase(PhaseContext& c, WriteDurability* writes, const RandomMix& mix,
                         std::uint64_t seed)
    : IoPhase(c, writes),
      read_pct_(mix.read_pct),
      write_below_(100 - mix.trim_pct),
      blocks_(c.file_bytes / (mix.sizes.empty() ? c.block : mix.sizes.front().bytes)),
      dist_(distribution_of(mix, blocks_, seed)),
      skewed_(dist_.spec().kind != stats::DistributionKind::uniform),
      prefetch_(c.verify || mix.read_pct < 100) {
    const auto shift_of = [&c](std::uint32_t bytes) {
        return static_cast<unsigned>(__builtin_ctz(bytes)) - c.units.unit_shift();
    };
    if (mix.sizes.empty()) {
        sizes_[0] = {c.block, shift_of(c.block), 100};
    } else {
        size_count_ = 0;
        unsigned below = 0;
        for (const units::BlockShare& b : mix.sizes) {
            below += b.weight;
            sizes_[size_count_++] = {b.bytes, shift_of(b.bytes), below};
        }
        if (size_count_ > 1 && c.out.counters.sizes.empty())
            for (const units::BlockShare& b : mix.sizes)
                c.out.counters.sizes.push_back(SizeCounters{b.bytes});
    }
    block_shift_ = sizes_[0].unit_shift;
    claim_shift_ = sizes_[size_count_ - 1].unit_shift;
    if (skewed_ && !c.out.skew) {
        SkewResult& s = c.out.skew.emplace(blocks_);
        s.distribution = dist_.spec().text();
        for (std::size_t i = 0; i < s.predicted.size(); ++i)
            s.predicted[i] = dist_.predicted_hot_share(stats::SkewTally::kHotFractions[i]);
    }
    // Each worker, iteration and steady-state round draws its own sequence
    // from the run's seed (round 0 draws what a run without rounds does).
    std::uint64_t rs = seed ^ (std::uint64_t{c.file_index} << 32) ^
                       (c.order.iteration * 0x9E37ULL) ^ (c.order.round * 0xD1B54A32D192ED03ULL);
    rng_[0] = stats::splitmix64(rs) | 1;
    rng_[1] = stats::splitmix64(rs);
    ahead_ = draw_block();
}

std::uint64_t RandomPhase::draw_block() {
    auto random = [this] { return next_random(); };
    std::uint64_t block;
    if (skewed_) {
        ahead_rank_ = dist_.draw_rank(random);
        block = dist_.unit_of(ahead_rank_);
    } else {
        block = stats::uniform_below(next_random(), blocks_);
    }
    std::uint64_t first = block << block_shift_;
    if (size_count_ > 1) {
        const auto r = static_cast<unsigned>(stats::uniform_below(next_random(), 100));
        unsigned k = 0;
        while (r >= sizes_[k].below)
            ++k;
        ahead_size_ = k;
        first &= ~((std::uint64_t{1} << sizes_[k].unit_shift) - 1);
    }
    if (prefetch_) c_.units.prefetch(first);
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
    if (c_.order.work->op_limit && issued_ >= c_.order.work->op_limit) return false;
    return !(c_.order.deadline_ns && c_.now_ns >= c_.order.deadline_ns);
}

bool RandomPhase::next_op(Slot& s) {
    if (!more_ops()) return false;
    // A block whose claim is taken is in flight (unit_map.h): a write takes
    // a block nothing covers, a read one no write covers (reads of a block
    // share it).  At most half the blocks are in flight, so a uniform draw
    // finds a free one within a few tries (a skewed one may not:
    // kBusyDraws).  Blocks are drawn one ahead so that the generation this
    // one needs (when its write is filled, or its read verified) was being
    // loaded meanwhile; the kind is drawn after the block, as it always was.
    std::uint64_t first, rank, claim;
    unsigned size;
    bool read;
    unsigned r;
    unsigned tries = 0;
    do {
        if (++tries > kBusyDraws) return false;  // wait for a completion
        rank = ahead_rank_;
        size = ahead_size_;
        first = std::exchange(ahead_, draw_block());
        r = static_cast<unsigned>(stats::uniform_below(next_random(), 100));
        read = r < read_pct_;
        claim = first >> claim_shift_;
    } while (fills_writes() && (read ? c_.units.busy_for_read(claim) : c_.units.busy(claim)));
    if (fills_writes()) {  // else reads alone: nothing to claim (phases.h)
        if (read)
            c_.units.claim_shared(claim);
        else
            c_.units.claim(claim);
    }
    if (skewed_) {
        c_.out.skew->busy_redraws += tries - 1;
        c_.out.skew->tally.add(rank,
                               (first >> block_shift_) ^ (std::uint64_t{c_.file_index} << 44));
    }
    s.req.offset = first << c_.units.unit_shift();
    s.req.length = sizes_[size].bytes;
    s.req.kind = read ? io::OpKind::read : r >= write_below_ ? io::OpKind::trim : io::OpKind::write;
    ++issued_;
    return true;
}

void RandomPhase::released(const Slot& s) {
    if (!fills_writes()) return;  // nothing was claimed
    const std::uint64_t claim = c_.units.unit_of(s.first_offset) >> claim_shift_;
    if (s.req.kind == io::OpKind::read)
        c_.units.release_shared(claim);
    else
        c_.units.release(claim);
}

}  // namespace ds::engine
