#include "io/uring_backend.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <system_error>

#include "sys/atomic_write.h"
#include "sys/clock.h"
#include "sys/errno_text.h"

namespace ds::io {

namespace {

struct SetupChoice {
    unsigned flags;
    const char* names[2];
};

// Tried in order; the first the kernel accepts wins (older kernels answer
// EINVAL to flags they do not know, so each step drops one).
//  SINGLE_ISSUER: only this worker's thread submits, which lets the kernel
//    skip locking on submission (6.0).
//  DEFER_TASKRUN: completion work waits until the worker asks for
//    completions, and the worker is woken once per batch instead of once
//    per completion (6.1; needs SINGLE_ISSUER).  Ahead of COOP_TASKRUN for
//    reads and for the 70/30 mix alike, given the batches of engine.h.
//  COOP_TASKRUN: completion work is not forced on the worker with an
//    interrupt; it runs at its next system call (5.19).
// measured: docs/performance.md, Figures from the source's comments
constexpr SetupChoice kSetupChoices[] = {
    {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, {"SINGLE_ISSUER", "DEFER_TASKRUN"}},
    {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN, {"SINGLE_ISSUER", "COOP_TASKRUN"}},
    {IORING_SETUP_COOP_TASKRUN, {"COOP_TASKRUN", nullptr}},
    {0, {nullptr, nullptr}},
};
// With SQPOLL the kernel thread submits and runs completion work, so
// DEFER_TASKRUN is refused (EINVAL) and COOP_TASKRUN means nothing;
// SINGLE_ISSUER still lets it skip locking.
constexpr SetupChoice kSqpollChoices[] = {
    {IORING_SETUP_SINGLE_ISSUER, {"SINGLE_ISSUER", nullptr}},
    {0, {nullptr, nullptr}},
};

// The user_data of the backend's own cancel requests: never a Request, so
// reap() knows their completions and skips them.
char g_cancel_tag;
void* cancel_tag() {
    return &g_cancel_tag;
}

constexpr int kCancelAll = IORING_ASYNC_CANCEL_ANY | IORING_ASYNC_CANCEL_ALL;

// Whether the kernel takes IORING_ASYNC_CANCEL_ANY (5.19): with nothing in
// flight, a cancel of any request answers -ENOENT where it does and -EINVAL
// where the flag is unknown.  One system call when the ring is made.
bool probe_cancel_any(io_uring& ring) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    if (!sqe) return false;
    io_uring_prep_cancel64(sqe, 0, kCancelAll);
    io_uring_sqe_set_data(sqe, cancel_tag());
    io_uring_cqe* cqe = nullptr;
    if (io_uring_submit_and_wait(&ring, 1) < 0 || io_uring_peek_cqe(&ring, &cqe) != 0) return false;
    const bool any = cqe->res != -EINVAL;
    io_uring_cqe_seen(&ring, cqe);
    return any;
}

// Submission results that mean "not now": reap, then submit again.
bool transient(int ret) {
    return ret == -EAGAIN || ret == -EBUSY || ret == -EINTR;
}

}  // namespace

// The ring, with the modes asked for and the optional flags this kernel
// takes (tried from the most to the fewest); the kernel's feature bits.
unsigned UringBackend::init_ring(const UringOptions& options) {
    // The modes asked for are never dropped: only the optional flags are.
    unsigned required = 0;
    if (options.sqpoll) required |= IORING_SETUP_SQPOLL;
    if (options.iopoll) required |= IORING_SETUP_IOPOLL;
    std::span<const SetupChoice> choices =
        options.sqpoll ? std::span<const SetupChoice>(kSqpollChoices) : kSetupChoices;
    int ret = -EINVAL;
    unsigned kernel_features = 0;
    for (const auto& choice : choices) {
        io_uring_params p{};
        p.flags = required | choice.flags;
        // A spin must know when completion work waits for this thread
        // (DEFER_TASKRUN and COOP_TASKRUN post completions only when it
        // enters the kernel): the kernel then sets IORING_SQ_TASKRUN (5.19).
        const bool taskrun =
            options.spin_us &&
            (choice.flags & (IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN));
        if (taskrun) p.flags |= IORING_SETUP_TASKRUN_FLAG;
        if (options.sqpoll) p.sq_thread_idle = options.sq_thread_idle_ms;
        ret = io_uring_queue_init_params(depth_, &ring_, &p);
        if (ret == 0) {
            if (options.sqpoll) features_.setup_flags.emplace_back("SQPOLL");
            if (options.iopoll) features_.setup_flags.emplace_back("IOPOLL");
            for (const char* n : choice.names)
                if (n) features_.setup_flags.emplace_back(n);
            features_.sq_entries = p.sq_entries;
            kernel_features = p.features;
            taskrun_flag_ = taskrun;
            deferred_ = choice.flags & (IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_COOP_TASKRUN);
            break;
        }
        if (ret != -EINVAL) break;
    }
    if (ret < 0)
        throw std::system_error(-ret, std::generic_category(),
                                options.sqpoll   ? "io_uring_setup with SQPOLL"
                                : options.iopoll ? "io_uring_setup with IOPOLL"
                                                 : "io_uring_queue_init");
    return kernel_features;
}

void UringBackend::register_file(const UringOptions& options, unsigned kernel_features) {
    // Registered file: the kernel skips the fd table lookup and refcount per I/O.
    const int ret = io_uring_register_files(&ring_, &fd_, 1);
    if (ret == 0) {
        features_.fixed_files = true;
    } else if (options.sqpoll && !(kernel_features & IORING_FEAT_SQPOLL_NONFIXED)) {
        // Before 5.11 the polling thread can only use registered files.
        io_uring_queue_exit(&ring_);
        throw std::system_error(-ret, std::generic_category(),
                                "io_uring_register_files (SQPOLL on this kernel needs a "
                                "registered file)");
    } else {
        features_.notes.push_back("registered files off: io_uring_register_files: " +
                                  sys::errno_text(-ret));
    }
}

void UringBackend::register_buffers() {
    // Registered buffers: pages are pinned once instead of per I/O.  Needs
    // RLIMIT_MEMLOCK headroom on kernels that account pinned memory to it.
    if (!buffers_.empty()) {
        iovec iov{buffers_.data(), buffers_.size()};
        const int ret = io_uring_register_buffers(&ring_, &iov, 1);
        if (ret == 0) {
            features_.fixed_buffers = true;
        } else {
            features_.notes.push_back(
                "registered buffers off: io_uring_register_buffers: " + sys::errno_text(-ret) +
                (ret == -ENOMEM || ret == -EPERM ? " (RLIMIT_MEMLOCK too low?)" : ""));
        }
    }
}

UringBackend::UringBackend(int fd, unsigned depth, std::span<std::byte> buffers,
                           UringOptions options, std::uint64_t base)
    : fd_(fd),
      base_(base),
      depth_(depth),
      buffers_(buffers),
      cqes_(depth),
      sqpoll_(options.sqpoll),
      nop_(options.nop),
      spin_us_(options.spin_us),
      block_device_(is_block_device(fd)) {
    const unsigned kernel_features = init_ring(options);
    register_file(options, kernel_features);
    register_buffers();
    if (nop_)
        features_.notes.emplace_back(
            "nop: every operation is IORING_OP_NOP; no device I/O, nothing verified");
    count_enter(1);
    cancel_any_ = probe_cancel_any(ring_);
    failed_.reserve(std::max(depth_, features_.sq_entries));
}

UringBackend::~UringBackend() {
    // The kernel tears a ring down asynchronously, and until then its
    // registered file keeps the test file (unlinked: its blocks not freed)
    // or the raw device (claimed exclusively) busy.  Unregistering is
    // synchronous: the next run, or mkfs right after us, finds them free.
    if (features_.fixed_files) io_uring_unregister_files(&ring_);
    if (features_.fixed_buffers) io_uring_unregister_buffers(&ring_);
    io_uring_queue_exit(&ring_);
}

void UringBackend::prepare(Request& r) {
    if (broken_) {  // nothing reaches the ring any more
        failed_.push_back({&r, broken_});
        return;
    }
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) {  // cannot happen while in-flight <= depth, but never drop a request
        io_uring_submit(&ring_);
        sqe = io_uring_get_sqe(&ring_);
    }
    int file = features_.fixed_files ? 0 : fd_;
    if (nop_) {
        io_uring_prep_nop(sqe);
        io_uring_sqe_set_data(sqe, &r);
        return;
    }
    if (r.kind == OpKind::trim) {
        prep_trim(sqe, file, r);
    } else if (is_flush(r.kind)) {
        // Covers the writes that completed before it is issued; the engine
        // orders it by waiting for them, so no IOSQE_IO_DRAIN is needed.
        io_uring_prep_fsync(sqe, file, r.kind == OpKind::fdatasync ? IORING_FSYNC_DATASYNC : 0);
    } else if (features_.fixed_buffers && !(r.rw_flags & RWF_ATOMIC)) {
        // (The kernel takes RWF_ATOMIC only on a plain user buffer: a
        // registered one makes every such write EINVAL.)
        if (r.kind == OpKind::read)
            io_uring_prep_read_fixed(sqe, file, r.buf, r.length, r.offset + base_, 0);
        else
            io_uring_prep_write_fixed(sqe, file, r.buf, r.length, r.offset + base_, 0);
    } else {
        if (r.kind == OpKind::read)
            io_uring_prep_read(sqe, file, r.buf, r.length, r.offset + base_);
        else
            io_uring_prep_write(sqe, file, r.buf, r.length, r.offset + base_);
    }
    if (r.kind == OpKind::write && r.rw_flags) sqe->rw_flags = r.rw_flags;  // RWF_*SYNC, RWF_ATOMIC
    if (features_.fixed_files) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, &r);
}

// A trim: on a file, fallocate PUNCH_HOLE (5.6); on a block device, the
// block layer's own discard command (6.12: BLOCK_URING_CMD_DISCARD, which
// liburing 2.3's headers do not name), since fallocate there zeroes the
// range rather than discarding it.
void UringBackend::prep_trim(io_uring_sqe* sqe, int file, const Request& r) const {
    const std::uint64_t at = r.offset + base_;
    if (!block_device_) {
        io_uring_prep_fallocate(sqe, file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at,
                                r.length);
        return;
    }
    constexpr std::uint32_t kBlockUringCmdDiscard = _IO(0x12, 0);  // <linux/blkdev.h>
    io_uring_prep_rw(IORING_OP_URING_CMD, sqe, file, nullptr, 0, 0);
    sqe->cmd_op = kBlockUringCmdDiscard;
    sqe->addr = at;
    sqe->addr3 = r.length;
    if (discard_async_) sqe->flags |= IOSQE_ASYNC;
}

// A discard issued inline carries REQ_NOWAIT, which a bio-based driver
// without nowait support (zram, 6.18) fails with EOPNOTSUPP instead of
// EAGAIN, so io_uring never retries it from a worker.  Such a trim is
// issued again once through io-wq (IOSQE_ASYNC: no REQ_NOWAIT), as are the
// trims after it; a second EOPNOTSUPP is the device's answer.
bool UringBackend::retried_async(Request& r, int res) {
    const auto was = std::find(async_trims_.begin(), async_trims_.end(), &r);
    if (was != async_trims_.end()) {
        async_trims_.erase(was);
        return false;
    }
    if (res != -EOPNOTSUPP || !block_device_) return false;
    discard_async_ = true;
    async_trims_.push_back(&r);
    prepare(r);
    return true;
}

// liburing enters the kernel when there is something to submit (with
// SQPOLL: only when the polling thread sleeps and needs a wake-up) or when
// fewer completions than waited for are already in the ring.  Counting by
// these rules costs two loads.
void UringBackend::count_enter(unsigned wait_nr) {
    const bool to_submit = io_uring_sq_ready(&ring_) > 0;
    const bool wake = sqpoll_ && (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_NEED_WAKEUP);
    if ((to_submit && (!sqpoll_ || wake)) || (wait_nr && io_uring_cq_ready(&ring_) < wait_nr))
        ++enters_;
}

// The kernel took none of the queued requests and will not (the ring is
// unusable: EBADF, ENXIO, EOWNERDEAD, ...): each fails with `err`, and so
// does every request prepared from now on, without the ring.  The queued
// SQEs are those the kernel has not consumed, [khead, sqe_tail): they stay
// in the ring unsubmitted, since nothing is submitted to it again (reap()
// then only waits for what the kernel already had).
void UringBackend::fail_queued(int err) {
    broken_ = err;
    const unsigned mask = ring_.sq.ring_mask;
    for (unsigned i = *ring_.sq.khead; i != ring_.sq.sqe_tail; ++i) {
        const io_uring_sqe& sqe = ring_.sq.sqes[ring_.sq.array[i & mask]];
        void* data = reinterpret_cast<void*>(static_cast<std::uintptr_t>(sqe.user_data));
        if (data != cancel_tag()) failed_.push_back({static_cast<Request*>(data), err});
    }
}

std::size_t UringBackend::take_failed(std::span<Completion> out) {
    const std::size_t n = std::min(out.size(), failed_.size());
    std::copy(failed_.end() - static_cast<std::ptrdiff_t>(n), failed_.end(), out.begin());
    failed_.resize(failed_.size() - n);
    return n;
}

// A short submit (the kernel took fewer than were queued) leaves the rest in
// the ring, where liburing submits them with the next call: the count says
// so, and the engine submits again at once.
int UringBackend::submit() {
    if (broken_) return broken_;
    if (io_uring_sq_ready(&ring_) == 0) return 0;
    count_enter(0);
    const int ret = io_uring_submit(&ring_);
    if (ret >= 0) return ret;
    if (transient(ret)) return ret == -EINTR ? -EAGAIN : ret;
    fail_queued(ret);
    return ret;
}

std::size_t UringBackend::reap(std::span<Completion> out, unsigned min_complete) {
    // Failed submissions first, and no wait while there are some.
    std::size_t n = take_failed(out);
    const unsigned wait_nr = n ? 0 : min_complete;
    if (!broken_) {
        // Submit and wait in one system call, then take every completion
        // that is already there without another one.  The wait has no
        // timeout: the engine sizes min_complete so that a batch gathers
        // quickly (BatchSizer).
        // No wait: still ask for events, which with DEFER_TASKRUN is what
        // posts the completions the kernel holds (--rate's spin reaps so).
        int ret;
        if (wait_nr && spin_us_ && rest_ == 0) {
            ret = submit_and_spin(wait_nr);
        } else if (wait_nr) {
            rest_ -= rest_ > 0;
            count_enter(wait_nr);
            ret = io_uring_submit_and_wait(&ring_, wait_nr);
        } else {
            ++enters_;  // asking for events always enters
            ret = io_uring_submit_and_get_events(&ring_);
        }
        if (ret < 0 && !transient(ret)) {
            // With nothing queued it was the wait that failed: the ring can
            // no longer say when anything completes.
            if (io_uring_sq_ready(&ring_) == 0)
                throw std::system_error(-ret, std::generic_category(), "io_uring_submit_and_wait");
            fail_queued(ret);
            n += take_failed(out.subspan(n));
        }
    } else if (wait_nr && io_uring_cq_ready(&ring_) < wait_nr) {
        // Submitting nothing: wait for what the kernel still has.
        io_uring_cqe* cqe = nullptr;
        ++enters_;
        (void)io_uring_wait_cqe_nr(&ring_, &cqe, wait_nr);  // EINTR: the engine looks again
    }
    return take_completed(out, n);
}

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

}  // namespace

void UringBackend::set_spin_us(unsigned us) {
    spin_us_ = us;
    misses_ = rest_ = 0;
}

// --wait spin: one system call submits and posts what has completed; then
// the completion ring is read in a loop until the batch is there or
// spin_us has passed, and what is still missing is waited for asleep.  A
// ring that posts completions only when its thread enters the kernel
// (DEFER_TASKRUN, COOP_TASKRUN) is entered when the kernel flags work for
// it (IORING_SQ_TASKRUN, asked for when the ring was made to spin), or on
// every turn when the ring was made without the flag (a sweep point that
// spins where the run's plan did not).  A thread that stays awake takes a completion without
// the wake-up of an idle CPU (on a VM, an exit to the hypervisor and back),
// at the price of the CPU it spins on.  The clock is read every 16 turns
// (a vDSO read costs more than a turn).  A spin that ends empty cost its
// whole length and saved nothing (the device is slower than the spin, or
// the host has no CPU to give it): after kMissesToRest of them in a row the
// next kRestWaits waits sleep at once, then a spin is tried again.
int UringBackend::submit_and_spin(unsigned wait_nr) {
    ++enters_;
    const int ret = io_uring_submit_and_get_events(&ring_);
    if (ret < 0) return ret;
    ++spins_;
    const std::uint64_t until = sys::monotonic_ns() + std::uint64_t{spin_us_} * 1000;
    for (unsigned turn = 1; io_uring_cq_ready(&ring_) < wait_nr; ++turn) {
        const bool flagged = taskrun_flag_
                                 ? (IO_URING_READ_ONCE(*ring_.sq.kflags) & IORING_SQ_TASKRUN) != 0
                                 : deferred_;
        if (flagged) {
            ++enters_;
            (void)io_uring_get_events(&ring_);  // EINTR: the loop looks again
        } else {
            cpu_relax();
        }
        if (turn % 16 == 0 && sys::monotonic_ns() >= until) {
            if (++misses_ == kMissesToRest) {
                misses_ = 0;
                rest_ = kRestWaits;
            }
            io_uring_cqe* cqe = nullptr;
            ++enters_;
            (void)io_uring_wait_cqe_nr(&ring_, &cqe, wait_nr);  // EINTR: the engine looks again
            return ret;
        }
    }
    ++spin_hits_;
    misses_ = 0;
    return ret;
}

std::size_t UringBackend::take_completed(std::span<Completion> out, std::size_t n) {
    const auto want = static_cast<unsigned>(std::min(out.size() - n, cqes_.size()));
    const unsigned got = io_uring_peek_batch_cqe(&ring_, cqes_.data(), want);
    for (unsigned i = 0; i < got; ++i) {
        void* data = io_uring_cqe_get_data(cqes_[i]);
        if (data == cancel_tag()) continue;  // a cancel's own answer
        auto* req = static_cast<Request*>(data);
        if (req->kind == OpKind::trim && retried_async(*req, cqes_[i]->res)) continue;
        // A NOP answers 0: taken as the whole transfer, so the engine goes
        // on as after a read or write (a 0 would be a short transfer).
        const std::int32_t res = nop_ && cqes_[i]->res == 0 && !is_flush(req->kind)
                                     ? static_cast<std::int32_t>(req->length)
                                     : cqes_[i]->res;
        out[n++] = {req, res};
    }
    io_uring_cq_advance(&ring_, got);
    return n;
}

// --rate: submit and wait for `min_complete` completions, or until the next
// operation is due, in one io_uring_enter (IORING_ENTER_EXT_ARG, 5.11).  The kernel
// sleeps on an hrtimer with no slack, so it wakes at the due time, not the
// 50 us later a futex or nanosleep of a normal thread may.
std::size_t UringBackend::reap_until(std::span<Completion> out, unsigned min_complete,
                                     std::uint64_t deadline_ns) {
    std::size_t n = take_failed(out);
    const std::uint64_t now_ns = sys::monotonic_ns();
    if (n || broken_ || deadline_ns <= now_ns) return n + reap(out.subspan(n), 0);
    const std::uint64_t wait = deadline_ns - now_ns;
    __kernel_timespec ts{static_cast<long long>(wait / 1'000'000'000ULL),
                         static_cast<long long>(wait % 1'000'000'000ULL)};
    io_uring_cqe* cqe = nullptr;
    count_enter(std::max(1u, min_complete));
    const int ret =
        io_uring_submit_and_wait_timeout(&ring_, &cqe, std::max(1u, min_complete), &ts, nullptr);
    if (ret < 0 && ret != -ETIME && !transient(ret)) {
        if (io_uring_sq_ready(&ring_) == 0)
            throw std::system_error(-ret, std::generic_category(),
                                    "io_uring_submit_and_wait_timeout");
        fail_queued(ret);
        n += take_failed(out.subspan(n));
    }
    return take_completed(out, n);
}

bool UringBackend::queue_cancel(std::uint64_t key, int flags) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe && submit() >= 0) sqe = io_uring_get_sqe(&ring_);
    if (!sqe) return false;
    io_uring_prep_cancel64(sqe, key, flags);
    io_uring_sqe_set_data(sqe, cancel_tag());
    return true;
}

// A request the block layer already holds cannot be cancelled (the cancel
// finds nothing, and it completes when the device answers): what this
// reaches are requests still waiting in io_uring itself (its async workers'
// queue, a poll).  The cancels' own completions are skipped by reap().
bool UringBackend::cancel(std::span<Request* const> in_flight) {
    if (broken_) return true;
    if (cancel_any_) {
        queue_cancel(0, kCancelAll);
    } else {
        for (Request* r : in_flight)
            if (!queue_cancel(reinterpret_cast<std::uintptr_t>(r), 0)) break;
    }
    submit();  // at once, not with the next wait
    return true;
}

}  // namespace ds::io
