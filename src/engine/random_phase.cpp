#include "engine/phases.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include "engine/shared_unit_map.h"

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

// The phase's smallest operation: the mix's first size, else its block.
std::uint32_t smallest(const RandomMix& mix, std::uint32_t block) {
    return mix.sizes.empty() ? block : mix.sizes.front().bytes;
}

bool is_power_of_two(std::uint64_t v) {
    return v && (v & (v - 1)) == 0;
}

// Whether the phase places its operations (phases.h): an alignment of
// their own (fio's blockalign), a size that is not a power of two, or a
// mix whose largest size does not divide the range (aligned to itself, its
// last block would end past the range).
bool places(const RandomMix& mix, std::uint32_t block, std::uint64_t range) {
    if (mix.sizes.empty()) return !is_power_of_two(block) || (mix.align && mix.align != block);
    for (const units::BlockShare& b : mix.sizes)
        if (!is_power_of_two(b.bytes)) return true;
    return mix.align != 0 || range % mix.sizes.back().bytes != 0;
}

// Draws of many blocks pick one not in flight within a few tries; a skewed
// distribution over a small file can keep drawing busy hot blocks, so after
// this many the phase waits for a completion instead.
constexpr unsigned kBusyDraws = 64;

}  // namespace

template <class Map>
RandomPhase<Map>::RandomPhase(PhaseContext& c, Map& units, BasicWriteDurability<Map>* writes,
                              const RandomMix& mix, std::uint64_t seed)
    : BasicIoPhase<Map>(c, units, writes),
      read_pct_(mix.read_pct),
      write_below_(100 - mix.trim_pct),
      placed_(places(mix, c.block, c.order.work->range())),
      align_(std::max<std::uint64_t>(
          1, (mix.align ? mix.align : smallest(mix, c.block)) >> units.unit_shift())),
      base_(units.unit_of(c.order.work->range_offset)),
      blocks_(placed_ ? std::max<std::uint64_t>(
                            1, (c.order.work->range() >> units.unit_shift()) / align_)
                      : c.order.work->range() / smallest(mix, c.block)),
      dist_(distribution_of(mix, blocks_, seed)),
      skewed_(dist_.spec().kind != stats::DistributionKind::uniform),
      prefetch_(c.verify || mix.read_pct < 100),
      claims_(kShared || mix.read_pct < 100) {
    set_sizes(mix, c.block);
    op_limit_ = ops_limit();
    if (skewed_ && !c.out.skew) {
        SkewResult& s = c.out.skew.emplace(blocks_);
        s.distribution = dist_.spec().text();
        for (std::size_t i = 0; i < s.predicted.size(); ++i)
            s.predicted[i] = dist_.predicted_hot_share(stats::SkewTally::kHotFractions[i]);
    }
    // Each worker, iteration and steady-state round draws its own sequence
    // from the run's seed (round 0 draws what a run without rounds does).
    std::uint64_t rs = seed ^ (std::uint64_t{c.worker} << 32) ^ (c.order.iteration * 0x9E37ULL) ^
                       (c.order.round * 0xD1B54A32D192ED03ULL);
    rng_[0] = stats::splitmix64(rs) | 1;
    rng_[1] = stats::splitmix64(rs);
    ahead_ = draw_block();
}

template <class Map>
void RandomPhase<Map>::set_sizes(const RandomMix& mix, std::uint32_t block) {
    const unsigned unit_shift = units_.unit_shift();
    const std::uint64_t range_units = c_.order.work->range() >> unit_shift;
    const auto add = [&](std::uint32_t bytes, unsigned below) {
        const std::uint64_t n = bytes >> unit_shift;
        const std::uint64_t last = range_units >= n ? (range_units - n) / align_ * align_ : 0;
        const unsigned shift = static_cast<unsigned>(__builtin_ctz(bytes)) - unit_shift;
        sizes_[size_count_++] = {bytes, shift, below, n, last};
    };
    size_count_ = 0;
    if (mix.sizes.empty()) add(block, 100);
    unsigned below = 0;
    for (const units::BlockShare& b : mix.sizes) {
        for (unsigned r = below; r < below + b.weight && r < 100; ++r)
            size_of_draw_[r] = static_cast<std::uint8_t>(size_count_);
        below += b.weight;
        add(b.bytes, below);
    }
    if (size_count_ > 1 && c_.out.counters.sizes.empty())
        for (const units::BlockShare& b : mix.sizes)
            c_.out.counters.sizes.push_back(SizeCounters{b.bytes});
    const std::uint64_t largest = sizes_[size_count_ - 1].units;
    block_shift_ = placed_ ? 0 : sizes_[0].unit_shift;
    claim_shift_ = placed_ ? static_cast<unsigned>(std::bit_width(largest - 1))
                           : sizes_[size_count_ - 1].unit_shift;
}

template <class Map>
unsigned RandomPhase<Map>::draw_size() {
    return size_of_draw_[stats::uniform_below(next_random(), 100)];
}

template <class Map>
std::uint64_t RandomPhase<Map>::place(std::uint64_t step) {
    const unsigned k = size_count_ > 1 ? draw_size() : 0;
    ahead_size_ = k;
    return std::min(step * align_, sizes_[k].last_first);
}

template <class Map>
std::uint64_t RandomPhase<Map>::draw_block() {
    auto random = [this] { return next_random(); };
    std::uint64_t block;
    if (skewed_) {
        ahead_rank_ = dist_.draw_rank(random);
        block = dist_.unit_of(ahead_rank_);
    } else {
        block = stats::uniform_below(next_random(), blocks_);
    }
    std::uint64_t first;
    if (placed_) {
        first = place(block);
    } else {
        first = block << block_shift_;
        if (size_count_ > 1) {
            const unsigned k = draw_size();
            ahead_size_ = k;
            first &= ~((std::uint64_t{1} << sizes_[k].unit_shift) - 1);
        }
    }
    if (prefetch_) units_.prefetch(base_ + first);
    return first;
}

template <class Map>
std::uint64_t RandomPhase<Map>::ops_limit() const {
    const WorkerPlan& w = *c_.order.work;
    std::uint64_t bytes = w.byte_limit;
    if (w.loops) {
        const std::uint64_t passes = w.loops * w.range();
        bytes = bytes ? std::min(bytes, passes) : passes;
    }
    if (!bytes) return w.op_limit;
    double mean = 0;  // bytes per operation: the sizes by their weights (of 100)
    unsigned below = 0;
    for (unsigned k = 0; k < size_count_; ++k) {
        mean += static_cast<double>(sizes_[k].below - below) * sizes_[k].bytes / 100.0;
        below = sizes_[k].below;
    }
    const auto ops = static_cast<std::uint64_t>(std::ceil(static_cast<double>(bytes) / mean));
    return w.op_limit ? std::min(w.op_limit, ops) : ops;
}

template <class Map>
std::uint64_t RandomPhase<Map>::next_random() {
    // xorshift128+: cheap, and only picks offsets and read/write.
    std::uint64_t s1 = rng_[0];
    const std::uint64_t s0 = rng_[1];
    rng_[0] = s0;
    s1 ^= s1 << 23;
    rng_[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    return rng_[1] + s0;
}

template <class Map>
bool RandomPhase<Map>::more_ops() const {
    if (op_limit_ && issued_ >= op_limit_) return false;
    return !(c_.order.deadline_ns && c_.now_ns >= c_.order.deadline_ns);
}

template <class Map>
bool RandomPhase<Map>::take(std::uint64_t first, std::uint64_t key, unsigned size, bool read) {
    if constexpr (kShared) {
        (void)key;
        const std::uint64_t from = base_ + first;
        return units_.try_claim(from, from + sizes_[size].units, !read);
    } else {
        if (!claims_) return true;  // reads alone: nothing to claim (phases.h)
        if (placed_) return take_placed(first, key, size, read);
        if (read ? units_.busy_for_read(key) : units_.busy(key)) return false;
        if (read)
            units_.claim_shared(key);
        else
            units_.claim(key);
        return true;
    }
}

template <class Map>
bool RandomPhase<Map>::take_placed(std::uint64_t first, std::uint64_t key, unsigned size,
                                   bool read) {
    if constexpr (!kShared) {
        // The operation's last unit may be in the next block (phases.h).
        const std::uint64_t last = (first + sizes_[size].units - 1) >> claim_shift_;
        const auto busy = [&](std::uint64_t k) {
            return read ? units_.busy_for_read(k) : units_.busy(k);
        };
        if (busy(key) || (last != key && busy(last))) return false;
        for (std::uint64_t k = key; k <= last; ++k) {
            if (read)
                units_.claim_shared(k);
            else
                units_.claim(k);
        }
    }
    return true;
}

template <class Map>
bool RandomPhase<Map>::next_op(Slot& s) {
    if (!more_ops()) return false;
    // A block whose claim is taken is in flight (unit_map.h): a write takes
    // a block nothing covers, a read one no write covers (reads of a block
    // share it).  At most half the blocks are in flight, so a uniform draw
    // finds a free one within a few tries (a skewed one may not:
    // kBusyDraws).  Blocks are drawn one ahead so that the generation this
    // one needs (when its write is filled, or its read verified) was being
    // loaded meanwhile; the kind is drawn after the block, as it always was.
    std::uint64_t first, rank;
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
    } while (!take(first, first >> claim_shift_, size, read));
    if (skewed_) {
        c_.out.skew->busy_redraws += tries - 1;
        c_.out.skew->tally.add(rank,
                               (first >> block_shift_) ^ (std::uint64_t{c_.file_index} << 44));
    }
    s.req.offset = (base_ + first) << units_.unit_shift();
    s.req.length = sizes_[size].bytes;
    s.req.kind = read ? io::OpKind::read : r >= write_below_ ? io::OpKind::trim : io::OpKind::write;
    ++issued_;
    return true;
}

template <class Map>
void RandomPhase<Map>::released(const Slot& s) {
    if (!claims_) return;  // nothing was claimed
    const bool read = s.req.kind == io::OpKind::read;
    if constexpr (kShared) {
        const auto [first, end] = units_.units_in(s.first_offset, s.first_length);
        units_.release(first, end, !read);
    } else {
        const std::uint64_t claim = (units_.unit_of(s.first_offset) - base_) >> claim_shift_;
        if (read)
            units_.release_shared(claim);
        else
            units_.release(claim);
        if (!placed_) return;
        // A placed operation's second block (take_placed).
        const std::uint64_t last =
            (units_.unit_of(s.first_offset + s.first_length - 1) - base_) >> claim_shift_;
        if (last == claim) return;
        if (read)
            units_.release_shared(last);
        else
            units_.release(last);
    }
}

template class RandomPhase<UnitMap>;
template class RandomPhase<SharedUnitMap>;

}  // namespace ds::engine
