#include "engine/engine.h"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <string>
#include <vector>

#include "model/errors.h"
#include "sys/signals.h"

namespace ds::engine {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::sys;

unsigned BatchSizer::want(unsigned in_flight) const {
    // A quarter of what is in flight (fio's iodepth_batch_complete_min in
    // scripts/bench): three quarters stay queued at the device meanwhile.
    return std::max(1u, std::min(limit_, in_flight / 4));
}

void BatchSizer::waited(std::uint64_t ns, unsigned asked) {
    // Additive increase while batches come quickly, halving when one was
    // slow: a device that slows down gets smaller batches within a few
    // waits, down to waiting for one completion (as a hard disk should).
    if (ns > kBoundNs)
        limit_ = std::max(1u, asked / 2);
    else if (ns < kBoundNs / 2 && asked >= limit_)
        limit_ = asked + 1;
}

std::uint64_t WakeMargin::ns() const {
    return std::min(kMaxNs, static_cast<std::uint64_t>(2 * mean_ns_));
}

void WakeMargin::woke(std::uint64_t late_ns) {
    // A running mean over about the last 16 wake-ups; one very late wake
    // (the thread preempted) moves it by a sixteenth of the cap at most.
    const double late = static_cast<double>(std::min(late_ns, kMaxNs));
    mean_ns_ += (late - mean_ns_) / 16;
}

Engine::Engine(io::Backend& backend, std::span<Slot> slots, const std::atomic<bool>& stop)
    : backend_(backend),
      slots_(slots),
      stop_(stop),
      free_(slots.size()),
      fresh_(slots.size()),
      done_(slots.size()) {
    for (std::size_t i = 0; i < slots_.size(); ++i)
        slots_[i].req.slot = static_cast<std::uint32_t>(i);
}

bool Engine::stopping() const {
    return stop_.load(std::memory_order_relaxed) || stop_signal() != 0;
}

std::uint64_t Engine::stamp(Turn& turn) {
    const std::uint64_t now = monotonic_ns();
    for (; turn.stamped < turn.fresh; ++turn.stamped)
        fresh_[turn.stamped]->submit_ns = now;
    return now;
}

// --batch N: N operations go to the kernel together, never fewer while
// more may come.  Without it, a phase that writes (PhaseWork::fills_writes)
// sends each quarter of the depth as soon as it is prepared (fio's
// iodepth_batch_submit in scripts/bench), the rest with the wait that
// follows, so the device is not left waiting while the reaped reads are
// verified and the writes filled; any other phase sends a refill with its
// wait (one system call): with no write to fill, an early send saves the
// device little and costs an enter.  Below a depth of 8 a refill goes with
// the wait (one system call an operation at QD 1).
// measured: docs/performance.md, Where the 70/30 mix waited
unsigned Engine::submit_every(unsigned depth, unsigned batch, bool fills_writes) {
    if (batch > 1) return batch;
    return fills_writes && depth >= 8 ? depth / 4 : 0;
}

void Engine::fill(PhaseWork& work, const EngineOptions& o, unsigned depth, unsigned batch,
                  Turn& turn, EngineTally& t) {
    const unsigned every = submit_every(depth, batch, work.fills_writes());
    for (unsigned unsubmitted = 0; turn.in_flight < depth;) {
        if (stopping()) break;
        if (batch > 1 && unsubmitted == 0 && depth - turn.in_flight < batch) break;
        Slot& s = slots_[free_.back()];
        const PhaseWork::Next next = work.next(s);
        if (next != PhaseWork::Next::issued) {
            turn.exhausted = next == PhaseWork::Next::done;
            break;
        }
        free_.pop_back();
        backend_.prepare(s.req);
        fresh_[turn.fresh++] = &s.req;
        ++turn.in_flight;
        if (every && ++unsubmitted == every) {
            stamp(turn);
            turn.fresh = turn.stamped = 0;  // a submit that reaps may free and reuse slots
            turn.in_flight -= submit(work, unsubmitted, t, o);
            unsubmitted = 0;
        }
    }
}

EngineTally Engine::run(PhaseWork& work, const EngineOptions& o) {
    // The depth is the plan's (model/plan.h); the slots and the backend
    // were made to hold it (a failure here is a bug, named, never a clamp).
    const unsigned depth = o.depth;
    if (depth == 0 || depth > slots_.size() || depth > backend_.depth())
        throw model::SetupError("engine: depth " + std::to_string(depth) + " beyond its " +
                                std::to_string(slots_.size()) + " slots or backend's " +
                                std::to_string(backend_.depth()));
    const unsigned batch = std::clamp(o.batch, 1U, depth);
    free_.resize(depth);
    for (unsigned i = 0; i < depth; ++i)
        free_[i] = depth - 1 - i;
    cancel_asked_ = false;
    if (o.schedule) return run_scheduled(work, o, depth);
    EngineTally t;
    Turn turn;
    auto publish = [&] {
        if (o.in_flight) o.in_flight->store(turn.in_flight, std::memory_order_relaxed);
    };
    while (true) {
        // --batch: with fewer than `batch` places free, wait for completions
        // rather than submit a smaller batch (unless no more can come).
        unsigned min_complete = 1;
        if (batch > 1 && turn.in_flight && depth - turn.in_flight < batch && !stopping() &&
            work.more())
            min_complete = batch - (depth - turn.in_flight);
        turn.fresh = turn.stamped = 0;
        if (min_complete == 1) fill(work, o, depth, batch, turn, t);
        publish();
        if (turn.in_flight == 0) {
            // Waiting with nothing of its own in flight: another worker
            // holds what comes next (a shared file): shortly, again.
            if (turn.exhausted || stopping()) break;
            wait_for_others(work);
            continue;
        }
        if (!cancel_asked_ && stopping()) {  // once, before the first wait that follows it
            cancel_in_flight(depth);
            cancel_asked_ = true;
        }
        const std::uint64_t wait_from = stamp(turn);
        const unsigned want = sizer_.want(turn.in_flight);
        turn.in_flight -= reap(work, std::max(min_complete, want), t, o);
        publish();
        sizer_.waited(work_now_ - wait_from, want);
    }
    t.stopped = !turn.exhausted && stopping();
    return t;
}

// The open loop (--rate).  Each turn reads the clock once and issues every
// operation already due while a slot is free, stamped with one more reading
// (so submit_ns - due_ns is what the engine added: the issue error); then
// waits for a completion or the next due time, whichever comes first.  An
// operation due while every slot was busy is issued as soon as one frees
// and marked late: its response time (completion - due) holds the wait.
// The thread's timer slack is 1 ns meanwhile, so a futex or nanosleep wakes
// at the due time instead of up to 50 us after it (the default slack); with
// o.spin it sleeps only until the due time less the wake-ups' measured
// lateness (WakeMargin) and spins the rest, reaping without a wait, so an
// operation is issued within a clock reading of its due time instead of a
// timer's wake-up later.  That spin is CPU, the more of it an operation the
// lower the rate.
// measured: docs/latency-under-load.md, The issue error measured here
EngineTally Engine::run_scheduled(PhaseWork& work, const EngineOptions& o, unsigned depth) {
    const int slack = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    EngineTally t;
    Turn turn;
    turn.due = o.schedule->next_due();
    while (true) {
        const std::uint64_t now = monotonic_ns();
        issue_due(work, *o.schedule, depth, now, turn);
        if (o.in_flight) o.in_flight->store(turn.in_flight, std::memory_order_relaxed);
        if (!cancel_asked_ && stopping() && turn.in_flight) {
            cancel_in_flight(depth);
            cancel_asked_ = true;
        }
        if (turn.in_flight == 0) {
            if (turn.exhausted || stopping()) break;
            if (turn.blocked)
                wait_for_others(work);  // another worker holds what comes next
            else
                sleep_until(work, turn.due, o.spin);
            continue;
        }
        wait_scheduled(work, o, depth, now, turn, t);
    }
    ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(slack > 0 ? slack : 0), 0, 0, 0);
    for (Slot& s : slots_)  // the next phase's loop may be closed: no due times
        s.due_ns = 0;
    t.stopped = !turn.exhausted && stopping();
    return t;
}

void Engine::issue_due(PhaseWork& work, DueTimes& schedule, unsigned depth, std::uint64_t now,
                       Turn& turn) {
    turn.fresh = 0;
    turn.blocked = false;
    while (!turn.exhausted && turn.in_flight < depth && !stopping() &&
           (turn.due <= now || !work.more())) {
        Slot& s = slots_[free_.back()];
        const PhaseWork::Next next = work.next(s);
        if (next != PhaseWork::Next::issued) {
            turn.exhausted = next == PhaseWork::Next::done;
            turn.blocked = !turn.exhausted;  // a flush group waits
            break;
        }
        free_.pop_back();
        s.due_ns = 0;
        s.late = false;
        if (!s.follows_writes) {  // a --sync group's flush follows its writes, unscheduled
            s.due_ns = turn.due;
            s.late = turn.due < turn.freed_at;
            turn.due = schedule.next_due();
        }
        backend_.prepare(s.req);
        fresh_[turn.fresh++] = &s.req;
        ++turn.in_flight;
    }
    const std::uint64_t stamp = turn.fresh ? monotonic_ns() : 0;
    for (unsigned i = 0; i < turn.fresh; ++i)
        fresh_[i]->submit_ns = stamp;
}

void Engine::wait_scheduled(PhaseWork& work, const EngineOptions& o, unsigned depth,
                            std::uint64_t now, Turn& turn, EngineTally& t) {
    const bool full = turn.in_flight == depth;
    const bool timed = !full && !turn.exhausted && !turn.blocked && !stopping();
    const std::uint64_t margin = o.spin ? margin_.ns() : 0;
    if (timed && margin && turn.due <= monotonic_ns() + margin) {
        // Due within the margin: take what has completed without a wait
        // (this submits too), then spin to the due time.
        turn.in_flight -= reap(work, 0, t, o);
        spin_until(turn.due);
        return;
    }
    // Never longer than 50 ms: a stop request is seen within that.
    const std::uint64_t until = std::min(turn.due - margin, monotonic_ns() + 50'000'000);
    // As many completions a wait as the closed loop asks for (BatchSizer: a
    // quarter of what is in flight, fewer while waits are slow), so a fast
    // device costs no more wake-ups than closed-loop; a due time still ends
    // the wait.
    const std::uint64_t wait_from = work_now_;
    const unsigned want = sizer_.want(turn.in_flight);
    turn.in_flight -= reap(work, want, t, o, timed ? until : 0);
    if (!timed) sizer_.waited(work_now_ - std::max(wait_from, now), want);
    if (timed && margin && work_now_ >= until) margin_.woke(work_now_ - until);
    if (full) turn.freed_at = work_now_;
    if (o.in_flight) o.in_flight->store(turn.in_flight, std::memory_order_relaxed);
}

void Engine::sleep_until(PhaseWork& work, std::uint64_t due_ns, bool spin) {
    // The sleep ends the margin early (the caller comes back for the
    // rest, spun), or after 50 ms at most: a stop request is seen within that.
    const std::uint64_t margin = spin ? margin_.ns() : 0;
    const std::uint64_t now = monotonic_ns();
    if (due_ns > now + margin) {
        const std::uint64_t until = std::min(due_ns - margin, now + 50'000'000);
        const timespec ts{static_cast<time_t>(until / 1'000'000'000ULL),
                          static_cast<long>(until % 1'000'000'000ULL)};
        ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);  // EINTR: looked at again
        work_now_ = monotonic_ns();
        if (margin && work_now_ >= until) margin_.woke(work_now_ - until);
    } else {
        spin_until(due_ns);
        work_now_ = monotonic_ns();
    }
    work.reaped(work_now_);
}

void Engine::wait_for_others(PhaseWork& work) {
    const timespec ts{0, static_cast<long>(kIdleNs)};
    ::nanosleep(&ts, nullptr);  // EINTR: looked at again
    work_now_ = monotonic_ns();
    work.reaped(work_now_);
}

void Engine::spin_until(std::uint64_t due_ns) {
    while (monotonic_ns() < due_ns) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();  // the sibling hyperthread keeps the core meanwhile
#endif
    }
}

// Backend::submit's answers, handled where they happen (as fio's
// t/io_uring does): a short submit leaves the rest queued and is submitted
// again at once; -EAGAIN/-EBUSY (no room in the kernel now) reaps what has
// completed, without waiting, then submits again (reap submits too, so a
// later count of 0 means nothing is left).  Any other error: the backend
// failed the queued operations, and they come back from reap() with it.
unsigned Engine::submit(PhaseWork& work, unsigned queued, EngineTally& t, const EngineOptions& o) {
    unsigned finished = 0;
    while (queued > 0) {
        const int n = backend_.submit();
        if (n == 0 || static_cast<unsigned>(std::max(n, 0)) >= queued) break;
        ++t.resubmits;
        if (n > 0) {
            queued -= static_cast<unsigned>(n);
        } else if (n == -EAGAIN || n == -EBUSY) {
            finished += reap(work, 0, t, o);
        } else {
            break;
        }
    }
    return finished;
}

void Engine::cancel_in_flight(unsigned depth) {
    std::vector<bool> idle(depth);
    for (std::uint32_t i : free_)
        idle[i] = true;
    std::vector<io::Request*> busy;
    for (unsigned i = 0; i < depth; ++i)
        if (!idle[i]) busy.push_back(&slots_[i].req);
    backend_.cancel(busy);
}

unsigned Engine::reap(PhaseWork& work, unsigned want, EngineTally& t, const EngineOptions& o,
                      std::uint64_t deadline_ns) {
    const std::size_t n =
        deadline_ns ? backend_.reap_until(done_, want, deadline_ns) : backend_.reap(done_, want);
    const std::uint64_t now = monotonic_ns();
    work_now_ = now;
    work.reaped(now);
    unsigned finished = 0;
    for (std::size_t i = 0; i < n; ++i) {
        io::Request& r = *done_[i].req;
        std::int32_t res = done_[i].result;
        // After a cancel, what was not answered is not issued again.
        if (cancel_asked_ && (res == -EAGAIN || res == -EINTR)) res = -ECANCELED;
        if (res == -EAGAIN || res == -EINTR) {  // not an answer: again
            ++t.retries;
            backend_.prepare(r);
            continue;
        }
        if (!io::is_flush(r.kind) && res > 0 && static_cast<std::uint32_t>(res) < r.length) {
            // Short transfer: the rest, as one operation.
            ++t.retries;
            r.offset += static_cast<std::uint32_t>(res);
            r.buf += res;
            r.length -= static_cast<std::uint32_t>(res);
            backend_.prepare(r);
            continue;
        }
        work.complete(slots_[r.slot], res, now - r.submit_ns);
        free_.push_back(r.slot);
        ++finished;
        if (res == -ECANCELED) {
            ++t.cancelled;
            continue;
        }
        if (++t.completed == o.pause_after_ops && o.pause) o.pause();
    }
    return finished;
}

}  // namespace ds::engine
