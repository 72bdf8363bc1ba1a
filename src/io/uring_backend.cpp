#include "io/uring_backend.h"

#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

namespace ds::io {

namespace {

struct SetupChoice {
    unsigned flags;
    const char* names[2];
};

// Tried in order; the first the kernel accepts wins (older kernels answer
// EINVAL to flags they do not know, so each step drops one).
//  SINGLE_ISSUER: only this worker's thread submits, which lets the kernel
//    skip locking on submission.
//  DEFER_TASKRUN: completion work runs when we ask for events instead of
//    interrupting the worker; requires SINGLE_ISSUER.
//  COOP_TASKRUN: the older, weaker form of the same: no IPI on completion.
constexpr SetupChoice kSetupChoices[] = {
    {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, {"SINGLE_ISSUER", "DEFER_TASKRUN"}},
    {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN, {"SINGLE_ISSUER", "COOP_TASKRUN"}},
    {IORING_SETUP_COOP_TASKRUN, {"COOP_TASKRUN", nullptr}},
    {0, {nullptr, nullptr}},
};

std::string errno_text(int err) {
    return std::strerror(err);
}

}  // namespace

UringBackend::UringBackend(int fd, unsigned depth, std::span<std::byte> buffers, std::uint64_t base)
    : fd_(fd), base_(base), depth_(depth), buffers_(buffers), cqes_(depth) {
    int ret = -EINVAL;
    for (const auto& choice : kSetupChoices) {
        io_uring_params p{};
        p.flags = choice.flags;
        ret = io_uring_queue_init_params(depth, &ring_, &p);
        if (ret == 0) {
            for (const char* n : choice.names)
                if (n) features_.setup_flags.emplace_back(n);
            features_.sq_entries = p.sq_entries;
            break;
        }
        if (ret != -EINVAL) break;
    }
    if (ret < 0) throw std::system_error(-ret, std::generic_category(), "io_uring_queue_init");

    // Registered file: the kernel skips the fd table lookup and refcount per I/O.
    ret = io_uring_register_files(&ring_, &fd_, 1);
    if (ret == 0) {
        features_.fixed_files = true;
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
    io_uring_queue_exit(&ring_);
}

void UringBackend::prepare(Request& r) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (!sqe) {  // cannot happen while in-flight <= depth, but never drop a request
        io_uring_submit(&ring_);
        sqe = io_uring_get_sqe(&ring_);
    }
    int file = features_.fixed_files ? 0 : fd_;
    if (features_.fixed_buffers) {
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
    if (features_.fixed_files) sqe->flags |= IOSQE_FIXED_FILE;
    io_uring_sqe_set_data(sqe, &r);
}

unsigned UringBackend::submit() {
    int ret = io_uring_submit(&ring_);
    return ret > 0 ? static_cast<unsigned>(ret) : 0;
}

std::size_t UringBackend::reap(std::span<Completion> out, unsigned min_complete) {
    // Submit and wait in one system call, then take every completion that is
    // already there without another one.
    int ret = io_uring_submit_and_wait(&ring_, min_complete);
    if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY && ret != -ETIME)
        throw std::system_error(-ret, std::generic_category(), "io_uring_submit_and_wait");
    unsigned want = static_cast<unsigned>(std::min(out.size(), cqes_.size()));
    unsigned n = io_uring_peek_batch_cqe(&ring_, cqes_.data(), want);
    for (unsigned i = 0; i < n; ++i) {
        out[i].req = static_cast<Request*>(io_uring_cqe_get_data(cqes_[i]));
        out[i].result = cqes_[i]->res;
    }
    io_uring_cq_advance(&ring_, n);
    return n;
}

}  // namespace ds::io
