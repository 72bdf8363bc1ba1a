#include "io/uring_backend.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "io/errno_text.h"

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
//    per completion (6.1; needs SINGLE_ISSUER).  bench/floor_randread, QD
//    32, six alternations: 182-216k IOPS at 2.47 us/op against 124-160k at
//    2.96 with COOP_TASKRUN; drivestress verifying at QD 32 (with the batch
//    bound of engine.h): 179-198k against 144-164k.
//  COOP_TASKRUN: completion work is not forced on the worker with an
//    interrupt; it runs at its next system call (5.19).
// An earlier engine, whose batches halved at 50 us, measured the opposite
// for the 70/30 mix; with the present batching DEFER_TASKRUN is ahead
// there too (engine.h).
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

}  // namespace

UringBackend::UringBackend(int fd, unsigned depth, std::span<std::byte> buffers,
                           UringOptions options, std::uint64_t base)
    : fd_(fd),
      base_(base),
      depth_(depth),
      buffers_(buffers),
      cqes_(depth),
      sqpoll_(options.sqpoll) {
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
        if (options.sqpoll) p.sq_thread_idle = options.sq_thread_idle_ms;
        ret = io_uring_queue_init_params(depth, &ring_, &p);
        if (ret == 0) {
            if (options.sqpoll) features_.setup_flags.emplace_back("SQPOLL");
            if (options.iopoll) features_.setup_flags.emplace_back("IOPOLL");
            for (const char* n : choice.names)
                if (n) features_.setup_flags.emplace_back(n);
            features_.sq_entries = p.sq_entries;
            kernel_features = p.features;
            break;
        }
        if (ret != -EINVAL) break;
    }
    if (ret < 0)
        throw std::system_error(-ret, std::generic_category(),
                                options.sqpoll   ? "io_uring_setup with SQPOLL"
                                : options.iopoll ? "io_uring_setup with IOPOLL"
                                                 : "io_uring_queue_init");

    // Registered file: the kernel skips the fd table lookup and refcount per I/O.
    ret = io_uring_register_files(&ring_, &fd_, 1);
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
                                  errno_text(-ret));
    }
    // Registered buffers: pages are pinned once instead of per I/O.  Needs
    // RLIMIT_MEMLOCK headroom on kernels that account pinned memory to it.
    if (!buffers_.empty()) {
        iovec iov{buffers_.data(), buffers_.size()};
        ret = io_uring_register_buffers(&ring_, &iov, 1);
        if (ret == 0) {
            features_.fixed_buffers = true;
        } else {
            features_.notes.push_back(
                "registered buffers off: io_uring_register_buffers: " + errno_text(-ret) +
                (ret == -ENOMEM || ret == -EPERM ? " (RLIMIT_MEMLOCK too low?)" : ""));
        }
    }
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
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) {  // cannot happen while in-flight <= depth, but never drop a request
        io_uring_submit(&ring_);
        sqe = io_uring_get_sqe(&ring_);
    }
    int file = features_.fixed_files ? 0 : fd_;
    if (is_flush(r.kind)) {
        // Covers the writes that completed before it is issued; the engine
        // orders it by waiting for them, so no IOSQE_IO_DRAIN is needed.
        io_uring_prep_fsync(sqe, file, r.kind == OpKind::fdatasync ? IORING_FSYNC_DATASYNC : 0);
    } else if (features_.fixed_buffers) {
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
    if (r.kind == OpKind::write && r.rw_flags) sqe->rw_flags = r.rw_flags;  // RWF_SYNC/RWF_DSYNC
    if (features_.fixed_files) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, &r);
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

unsigned UringBackend::submit() {
    count_enter(0);
    int ret = io_uring_submit(&ring_);
    return ret > 0 ? static_cast<unsigned>(ret) : 0;
}

std::size_t UringBackend::reap(std::span<Completion> out, unsigned min_complete) {
    // Submit and wait in one system call, then take every completion that is
    // already there without another one.  The wait has no timeout: the
    // engine sizes min_complete so that a batch gathers quickly (BatchSizer).
    count_enter(min_complete);
    const int ret = io_uring_submit_and_wait(&ring_, min_complete);
    if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
        throw std::system_error(-ret, std::generic_category(), "io_uring_submit_and_wait");
    const unsigned want = static_cast<unsigned>(std::min(out.size(), cqes_.size()));
    const unsigned n = io_uring_peek_batch_cqe(&ring_, cqes_.data(), want);
    for (unsigned i = 0; i < n; ++i) {
        out[i].req = static_cast<Request*>(io_uring_cqe_get_data(cqes_[i]));
        out[i].result = cqes_[i]->res;
    }
    io_uring_cq_advance(&ring_, n);
    return n;
}

}  // namespace ds::io
