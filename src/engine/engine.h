// The I/O loop, and nothing else, in the shape of liburing's io_uring-cp:
// keep up to `depth` operations in flight, submit a batch and wait for a
// share of what is in flight in one system call, hand every completion back,
// refill.  It retries what is not an answer (EAGAIN and EINTR are
// resubmitted; a short transfer continues with the rest as one operation;
// a short submit is submitted again at once).
// What to issue, and what a completion means (verification, accounting,
// durability), belongs to the phase: a PhaseWork.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/rate_schedule.h"
#include "io/backend.h"
#include "sys/clock.h"

namespace ds::engine {

// One operation in flight, its buffer beside it.  `req` is what the backend
// sees (a short transfer moves its offset and buffer on); the first_* fields
// keep the operation as the phase issued it.
struct Slot {
    io::Request req;
    std::uint64_t first_offset = 0;
    std::uint32_t first_length = 0;
    std::byte* buf = nullptr;  // this slot's part of the worker's buffer
    // --rate: when the schedule said the operation was due (0: closed loop,
    // or a flush), and whether it was late: due while every slot was busy.
    // Otherwise req.submit_ns - due_ns is the schedule's issue error.
    std::uint64_t due_ns = 0;
    bool late = false;
    // A flush a --sync group issues after its writes: never given a due
    // time (a replayed trace's own flushes are, as its other events).
    bool follows_writes = false;
};

// A phase, as the loop sees it.  All calls come from the loop's thread.
class PhaseWork {
  public:
    enum class Next {
        issued,  // `s` holds the next operation
        // Nothing to issue until something completes (a flush group), or,
        // with nothing of its own in flight, until another worker releases
        // what comes next (a shared file): the loop retries after kIdleNs.
        wait,
        done,  // nothing more in this phase
    };
    virtual ~PhaseWork() = default;
    // Fills `s` (s.buf is its buffer) with the next operation.
    virtual Next next(Slot& s) = 0;
    // Whether next() could still issue something (for --batch).
    virtual bool more() const = 0;
    // An operation finished: `result` is the whole transfer's byte count, or
    // 0 at end of file, or -errno (-ECANCELED: a stop request cancelled
    // it).  `latency_ns` counts from its first submission.
    virtual void complete(Slot& s, std::int32_t result, std::uint64_t latency_ns) = 0;
    // After each wait, before its completions, with the clock then (ns).
    virtual void reaped(std::uint64_t now_ns) = 0;
    // Whether it writes data generated on this thread (each write filled as
    // it is prepared): then the loop sends each part of a refill as it is
    // ready (engine.cpp).
    virtual bool fills_writes() const { return false; }
};

struct EngineOptions {
    unsigned depth = 1;                 // operations in flight at most
    unsigned batch = 1;                 // --batch: SQEs prepared per submission
    std::uint64_t pause_after_ops = 0;  // test hook (run/test_hooks.h): pause after
    void (*pause)() = nullptr;          // this many completions, with this
    // Where the loop publishes how many operations it has in flight (for
    // the coordinator's "stopping" line); null: nowhere.
    std::atomic<unsigned>* in_flight = nullptr;
    // --rate: operations are issued when this schedule says they are due
    // (open loop; --batch does not apply); null: as soon as a slot frees.
    DueTimes* schedule = nullptr;
    // --rate: spin on the clock for the last stretch before a due time
    // (WakeMargin) instead of sleeping through it; false: sleep only.
    bool spin = false;
};

struct EngineTally {
    std::uint64_t completed = 0;
    std::uint64_t retries = 0;    // EAGAIN/EINTR resubmissions and short-transfer resumes
    std::uint64_t cancelled = 0;  // operations a stop request cancelled (-ECANCELED)
    std::uint64_t resubmits = 0;  // submit() calls again after a short or refused submit
    bool stopped = false;         // a stop request ended the phase early
};

// How many completions each wait asks for: a quarter of what is in flight,
// fewer while batches take longer than a bound.
//
// A wait for several completions serves them with one system call and one
// wake-up, and three quarters of the queue stay at the device meanwhile.
// The first completions it returns were held back until the last arrived
// and their latency is read then, so on average a batch of QD/4 adds about
// an eighth of the queue's own latency to the figures (fio's
// iodepth_batch_complete_min, which scripts/bench sets the same, does
// likewise).  A wait that takes longer than kBoundNs (a hard disk, a device
// that stalls) halves the batch, down to one completion per wait, so the
// error stays under a millisecond.  The bound sits well above what a fast
// device takes to complete a quarter of its queue: a bound such a batch
// reaches halves it on every wait, and the batching is lost.  Never a timer
// on the wait: arming one costs system time on every wait.
// measured: docs/performance.md, Where the CPU goes; Figures from the source's comments
class BatchSizer {
  public:
    static constexpr std::uint64_t kBoundNs = 1'000'000;

    unsigned want(unsigned in_flight) const;
    // A wait that asked for `asked` completions took `ns`.
    void waited(std::uint64_t ns, unsigned asked);

  private:
    unsigned limit_ = 1;  // starts small: the device's pace is not known yet
};

// --rate: how early to stop sleeping before a due time.  A thread that
// sleeps until a deadline wakes after it by the host's timer latency (a few
// us on bare metal, tens in a VM: each timer is a trip through the
// hypervisor), and an operation issued then is that late.  The engine
// sleeps until the due time less this margin and spins on the clock for
// the rest, so the margin follows the wake-ups measured: twice their
// running mean lateness, at most kMaxNs (the CPU one wait may spin).
class WakeMargin {
  public:
    static constexpr std::uint64_t kStartNs = 20'000;
    static constexpr std::uint64_t kMaxNs = 100'000;

    std::uint64_t ns() const;
    // A sleep until a deadline ended `late_ns` after it.
    void woke(std::uint64_t late_ns);

  private:
    double mean_ns_ = kStartNs / 2.0;
};

class Engine {
  public:
    // `slots` (at least the largest depth) and `stop` outlive the engine.
    Engine(io::Backend& backend, std::span<Slot> slots, const std::atomic<bool>& stop);

    // Runs `work` until it is done, or until a stop request (`stop`, or a
    // signal) has ended what was in flight: the first time the loop sees
    // the request it asks the backend to cancel what is in flight
    // (Backend::cancel), and waits for the rest.  A cancelled operation
    // reaches work.complete() with -ECANCELED (so does one that answers
    // -EAGAIN or -EINTR after the cancel: it is not issued again).
    EngineTally run(PhaseWork& work, const EngineOptions& options);

  private:
    // A loop's state across its turns: operations in flight, those prepared
    // this turn (`fresh`, the first `stamped` of them given a submit time),
    // whether the work is done, and (open loop) whether a flush group waits,
    // the next due time and when the last wait with every slot busy ended.
    struct Turn {
        unsigned in_flight = 0, fresh = 0, stamped = 0;
        bool exhausted = false, blocked = false;
        std::uint64_t due = 0, freed_at = 0;
    };
    bool stopping() const;
    // The closed loop's filling: the work's next operations into free slots,
    // submitted every submit_every() of them (see engine.cpp).
    static unsigned submit_every(unsigned depth, unsigned batch, bool fills_writes);
    void fill(PhaseWork& work, const EngineOptions& o, unsigned depth, unsigned batch, Turn& turn,
              EngineTally& t);
    // One clock reading stamps every fresh operation not stamped yet.
    std::uint64_t stamp(Turn& turn);
    // run() with o.schedule: see engine.cpp.
    EngineTally run_scheduled(PhaseWork& work, const EngineOptions& o, unsigned depth);
    // The open loop's issuing: every operation already due while a slot is
    // free, each with its due time (see engine.cpp).
    void issue_due(PhaseWork& work, DueTimes& schedule, unsigned depth, std::uint64_t now,
                   Turn& turn);
    // The open loop's wait: for completions, or until the next due time
    // (spinning the last stretch with o.spin).
    void wait_scheduled(PhaseWork& work, const EngineOptions& o, unsigned depth, std::uint64_t now,
                        Turn& turn, EngineTally& t);
    // Nothing in flight and the work waits on another worker: a short
    // sleep (never a spin on a shared core), then the clock for the work.
    static constexpr std::uint64_t kIdleNs = 30'000;
    void wait_for_others(PhaseWork& work);
    // Waits until the clock reaches `due_ns` with nothing in flight.
    void sleep_until(PhaseWork& work, std::uint64_t due_ns, bool spin);
    // Spins until the clock reaches `due_ns`.
    void spin_until(std::uint64_t due_ns);
    // Waits for `want` completions, hands them to `work`; returns how many
    // operations finished (retried ones stay in flight).
    // With `deadline_ns`, for one completion or until then (maybe none).
    unsigned reap(PhaseWork& work, unsigned want, EngineTally& t, const EngineOptions& o,
                  std::uint64_t deadline_ns = 0);
    // Submits the `queued` operations prepared since the last submission;
    // returns how many operations finished meanwhile (see engine.cpp).
    unsigned submit(PhaseWork& work, unsigned queued, EngineTally& t, const EngineOptions& o);
    // Backend::cancel on the operations of slots [0, depth) that are in flight.
    void cancel_in_flight(unsigned depth);

    io::Backend& backend_;
    std::span<Slot> slots_;
    const std::atomic<bool>& stop_;
    std::vector<std::uint32_t> free_;
    std::vector<io::Request*> fresh_;
    std::vector<io::Completion> done_;
    BatchSizer sizer_;
    WakeMargin margin_;
    std::uint64_t work_now_ = 0;  // the clock after the last wait (ns)
    bool cancel_asked_ = false;   // this run asked the backend to cancel
};

using sys::monotonic_ns;

}  // namespace ds::engine
