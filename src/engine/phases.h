// The phases, each deciding only which operation comes next (phase_work.h
// does the rest).  Sequential phases walk the file in --seq-block steps;
// the random phase picks aligned blocks of its range that are not in
// flight; a job's stream walks its range in order.  Each runs on its
// worker's own unit map or on its file's shared one (the Map parameter).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>

#include "engine/phase_work.h"
#include "engine/rate_schedule.h"
#include "stats/distribution.h"

namespace ds::engine {

// seq-write, seq-read and reverify: every block once, in order, in one
// direction; a write takes each unit's next generation, a read verifies it.
// With a deadline (--seq-time) the first pass still covers the whole file,
// then passes start again from offset 0 until the deadline, the last one
// ending wherever the time ran out.  A later pass can reach a block whose
// operation of the pass before is still in flight (a small file, a slow
// operation): operations then mark their block busy (unit_map.h), so a unit
// is never in flight twice and a write never races another; the loop waits
// for that operation instead.
template <class Map>
class SequentialPhase final : public BasicIoPhase<Map> {
  public:
    SequentialPhase(PhaseContext& c, Map& units, BasicWriteDurability<Map>* writes, io::OpKind kind)
        : BasicIoPhase<Map>(c, units, writes), kind_(kind), exclusive_(c.order.deadline_ns != 0) {}

  private:
    using BasicIoPhase<Map>::c_;
    using BasicIoPhase<Map>::units_;
    static constexpr bool kShared = !std::is_same_v<Map, UnitMap>;
    bool next_op(Slot& s) override;
    bool more_ops() const override;
    void released(const Slot& s) override;
    io::OpKind kind_;
    bool exclusive_;  // several passes: blocks in flight are busy
    bool first_pass_ = true;
    std::uint64_t next_offset_ = 0;
    std::uint64_t issued_ = 0;  // PhaseOrder::min_ops
};

// What the random phase draws: its share of reads, where its blocks land
// and how large they are.
struct RandomMix {
    unsigned read_pct = 70;
    const stats::DistributionSpec* distribution = nullptr;  // null: uniform
    // --rand-block's sizes by weight (RunConfig::rand_mix); empty: every
    // operation is the phase's block (PhaseContext::block).
    std::span<const units::BlockShare> sizes;
    unsigned trim_pct = 0;  // --trim-pct: trims, sized and claimed as writes
    // Where every operation starts, in bytes from the range's start (fio's
    // blockalign, a multiple of the unit); 0: each at a multiple of its size.
    std::uint32_t align = 0;
};

// random: --read-pct reads, --trim-pct trims, the rest writes, of blocks picked at random
// (--distribution) among those not in flight, until the op limit or the
// deadline.  A skewed distribution's draws are tallied (PhaseOutcome::skew).
//
// A size mix: the distribution draws a block of the smallest size, the
// operation's size is drawn by weight, and the block is aligned down to it
// (so every size lands where the distribution says, aligned to itself).  An
// operation claims the block of the largest size that holds it (unit_map.h):
// two operations that overlap always share that block, so none ever races
// another, at the cost of a few more redraws on a small file.  Each size's
// operations and latencies are counted apart (PhaseCounters::sizes).
//
// Placed operations (RandomMix::align, or sizes that are not powers of two,
// as fio's bssplit=1536/..,blockalign=4k): the distribution draws one of
// the range's alignment steps, the operation starts there, pulled back to
// the last step where it still fits in the range.  Its size is any number
// of units, so it may cross a block of the largest size: it claims each
// block (of the largest size rounded up to a power of two) it touches, at
// most two as no operation is larger than one; two operations that overlap
// share a unit and so that unit's block.  One size aligned to itself keeps
// the single claim and the shift.
//
// A job's range (WorkerPlan::range_offset, range_bytes): blocks are drawn
// within it, aligned from its start.  On a file with several workers
// (Map = SharedUnitMap) an operation claims every unit it covers in the
// shared map, reads too (another worker may write them), and a block whose
// units another worker holds is drawn again.
template <class Map>
class RandomPhase final : public BasicIoPhase<Map> {
  public:
    RandomPhase(PhaseContext& c, Map& units, BasicWriteDurability<Map>* writes,
                const RandomMix& mix, std::uint64_t seed);

  private:
    using BasicIoPhase<Map>::c_;
    using BasicIoPhase<Map>::units_;
    static constexpr bool kShared = !std::is_same_v<Map, UnitMap>;
    // Takes the claims of an operation of size index `size` at `first`
    // (relative to the range: `key` its largest block); false when taken.
    bool take(std::uint64_t first, std::uint64_t key, unsigned size, bool read);
    // take() of a placed operation on the worker's own map: the blocks of
    // its first and last units (one or two).
    bool take_placed(std::uint64_t first, std::uint64_t key, unsigned size, bool read);
    // Sets the sizes, the draw table and how operations are placed.
    void set_sizes(const RandomMix& mix, std::uint32_t block);
    // A placed operation's first unit: alignment step `step`, size drawn.
    std::uint64_t place(std::uint64_t step);
    unsigned draw_size();
    bool next_op(Slot& s) override;
    bool more_ops() const override;
    void released(const Slot& s) override;
    // Also whether operations claim their blocks: only where a write or trim
    // may be in flight.  A phase of reads alone changes nothing a read could
    // race, and its reads share their claims anyway, so it takes none and
    // spares the claims' hash set on every operation.
    // measured: docs/performance.md, The NOP row against a real t/io_uring
    bool fills_writes() const override { return read_pct_ < 100; }
    std::uint64_t next_random();
    // A random block's first unit, its generation prefetched; its size in ahead_size_.
    std::uint64_t draw_block();
    // The operations the worker's limits allow (0: none): its op_limit;
    // its bytes (fio's io_size) and passes (loops, each its range's bytes)
    // as operations of its size, or of a mix's mean size (rounded up).
    std::uint64_t ops_limit() const;

    // One operation size: its bytes, its units (log2 when a power of two),
    // the draw (of 100) below which it is picked (the weights so far,
    // summed) and, placed, the last first unit where it fits in the range.
    struct OpSize {
        std::uint32_t bytes;
        unsigned unit_shift;
        unsigned below;
        std::uint64_t units;
        std::uint64_t last_first;
    };

    unsigned read_pct_;
    unsigned write_below_;  // a draw of 100 at or above it (and not a read) is a trim
    std::array<OpSize, units::kMaxMixSizes> sizes_{};  // ascending
    // The size each draw of 100 picks: one look-up whatever the count.
    std::array<std::uint8_t, 100> size_of_draw_{};
    unsigned size_count_ = 1;
    // Operations are placed (the comment above): at align_ units' steps,
    // claiming up to two blocks.  False: aligned to their own sizes.
    // measured: docs/performance.md, Placed operations: the one-size path did not move
    bool placed_ = false;
    std::uint64_t align_ = 1;
    std::uint64_t base_;    // the range's first unit
    std::uint64_t blocks_;  // blocks of the smallest size in the range (placed: steps)
    unsigned block_shift_;  // log2 of units per block of the smallest size
    unsigned claim_shift_;  // log2 of units per block of the largest size
    std::uint64_t issued_ = 0;
    std::uint64_t op_limit_;  // its operations at most (0: none): ops_limit()
    std::uint64_t rng_[2];
    stats::Distribution dist_;  // over blocks_
    bool skewed_;               // not uniform: draws are ranked and tallied
    // Whether a drawn block's generation will be read (a write's fill, a
    // read's verification): only then is it prefetched.  Reads without
    // verification never look at it, so a prefetch would be a cache miss
    // paid for nothing.
    // measured: docs/performance.md, The mix, zipf, size-mix and NOP rows again
    bool prefetch_;
    // Operations claim their blocks: where a write or trim may be in flight,
    // and on a shared file always.
    bool claims_;
    std::uint64_t ahead_;  // the block the next pick starts from (in the range)
    std::uint64_t ahead_rank_ = 0;
    unsigned ahead_size_ = 0;  // index in sizes_
};

// One operation of a replayed trace (--replay), placed in this worker's
// file: when it is due (ns from the replay's start, scaled by its speed),
// its kind (read, write, trim; fdatasync for the trace's flushes and
// syncs), where (whole units) and whether it is a FUA write (RWF_DSYNC).
struct ReplayOp {
    std::uint64_t due_ns = 0;
    io::OpKind kind = io::OpKind::read;
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    bool fua = false;
};

// A worker's operations of the trace, in the trace's order (run/replay.h).
class ReplayFeed {
  public:
    virtual ~ReplayFeed() = default;
    virtual std::optional<ReplayOp> next() = 0;
};

// The run's trace, as each worker's phase opens it.
class ReplaySource {
  public:
    virtual ~ReplaySource() = default;
    // The operations that land in file `file_index`, from the start.
    virtual std::unique_ptr<ReplayFeed> open(unsigned file_index) const = 0;
    // Issued at their due times (open loop); false: --replay-speed 0, each
    // as soon as a place in the queue is free (closed loop).
    virtual bool timed() const = 0;
};

// random under --replay: the trace's operations in its order, each issued
// at its due time (the engine's open loop, as --rate: an operation due while
// every place is busy goes late and says so).  Writes carry the units' next
// generations and reads are verified like the random phase's; an operation
// claims each unit it covers (reads shared), and one whose units are busy
// waits for them, in order: the trace's order within a file is kept.
//
// Replay runs on a file with one worker only (the plain run's).
class ReplayPhase final : public IoPhase, public DueTimes {
  public:
    ReplayPhase(PhaseContext& c, UnitMap& units, WriteDurability* writes,
                std::unique_ptr<ReplayFeed> feed);
    std::uint64_t next_due() override;

  private:
    bool next_op(Slot& s) override;
    bool more_ops() const override;
    void released(const Slot& s) override;
    bool ahead();  // the next operation in pending_; false at the end
    bool units_free(const ReplayOp& op) const;

    std::unique_ptr<ReplayFeed> feed_;
    std::optional<ReplayOp> pending_;
    std::uint64_t last_due_ = 0;
    bool ended_ = false;
};

// A job's sequential stream (model::Access::sequential), its workload phase:
// operations in order through its range, wrapping at its end (each pass a
// loop), each c.block bytes (the last of a pass maybe fewer), each a read,
// write or trim drawn by the job's shares (rw=read, write, trim: all of
// one).  With an offset step (fio's rw=read:-8k, reads only) each operation
// after the first starts that far from the end of the one before, as fio's
// get_next_seq_offset places it: beyond the range a forward step wraps to
// its start, a backward one to its end less the step; a pass is then the
// range's bytes of operations.  Ends by the worker's own limits:
// operations, bytes, passes, the deadline.  On a file with several workers an operation claims its
// units in the shared map; one whose units another worker holds waits (the stream keeps its order,
// and the engine retries shortly when nothing of its own is in flight).  On a file of its own a
// stream never reaches its own operations (the plan keeps its depth within half of its range), so
// it claims nothing.
template <class Map>
class StreamPhase final : public BasicIoPhase<Map> {
  public:
    StreamPhase(PhaseContext& c, Map& units, BasicWriteDurability<Map>* writes, std::uint64_t seed);

  private:
    using BasicIoPhase<Map>::c_;
    using BasicIoPhase<Map>::units_;
    static constexpr bool kShared = !std::is_same_v<Map, UnitMap>;
    bool next_op(Slot& s) override;
    bool more_ops() const override;
    void released(const Slot& s) override;
    bool fills_writes() const override { return read_pct_ < 100; }
    io::OpKind draw_kind();
    // The pass has reached the range's end (a stepped one: its bytes).
    bool pass_over() const;
    unsigned passes_done() const;
    // Where the operation after one ending at `end_of_op` starts (a step's).
    std::uint64_t stepped(std::uint64_t end_of_op) const;

    unsigned read_pct_;
    std::int64_t step_;
    std::uint64_t pass_bytes_ = 0;      // a stepped pass's bytes so far
    unsigned write_below_;              // a draw of 100 at or above it (and not a read) is a trim
    std::uint64_t begin_, end_, next_;  // the range, and the next operation's offset
    std::uint64_t rng_;
    std::uint64_t issued_ = 0, issued_bytes_ = 0;
    unsigned passes_ = 0;  // passes started again from begin_
    io::OpKind kind_ = io::OpKind::read;
    bool drawn_ = false;  // kind_ is the next operation's (it waited for a unit)
};

// The phase named in `c.order` on `units`, ready to run (`writes` is
// ignored by the phases that only read).
template <class Map>
std::unique_ptr<BasicIoPhase<Map>> make_phase(PhaseContext& c, Map& units,
                                              BasicWriteDurability<Map>* writes,
                                              const RandomMix& mix, std::uint64_t seed);

}  // namespace ds::engine
