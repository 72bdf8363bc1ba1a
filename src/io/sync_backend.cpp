#include "io/sync_backend.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "sys/quit_and_join.h"

namespace ds::io {

namespace {

// A trim: a discard on a block device, a hole in a file.
ssize_t trim(int fd, off_t at, const Request& r, bool block_device) {
    if (block_device) {
        std::uint64_t range[2] = {static_cast<std::uint64_t>(at), r.length};
        return ::ioctl(fd, BLKDISCARD, range);
    }
    return ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, at,
                       static_cast<off_t>(r.length));
}

ssize_t transfer(int fd, std::uint64_t base, const Request& r, bool block_device) {
    const auto at = static_cast<off_t>(r.offset + base);
    switch (r.kind) {
        case OpKind::read:
            return ::pread(fd, r.buf, r.length, at);
        case OpKind::write:
            if (r.rw_flags) {  // per-write O_SYNC/O_DSYNC, RWF_ATOMIC
                iovec iov{r.buf, r.length};
                return ::pwritev2(fd, &iov, 1, at, r.rw_flags);
            }
            return ::pwrite(fd, r.buf, r.length, at);
        case OpKind::fsync:
            return ::fsync(fd);
        case OpKind::fdatasync:
            return ::fdatasync(fd);
        case OpKind::trim:
            return trim(fd, at, r, block_device);
    }
    errno = EINVAL;
    return -1;
}

}  // namespace

std::int32_t perform_sync(int fd, std::uint64_t base, const Request& r, bool block_device) {
    ssize_t ret;
    do {
        ret = transfer(fd, base, r, block_device);
    } while (ret < 0 && errno == EINTR);
    return ret < 0 ? -errno : static_cast<std::int32_t>(ret);
}

std::size_t SyncBackend::reap(std::span<Completion> out, unsigned /*min_complete*/) {
    if (!queued_ || out.empty()) return 0;
    Request* r = queued_;
    queued_ = nullptr;
    ++calls_;
    out[0] = {r, perform_sync(fd_, base_, *r, block_device_)};
    return 1;
}

ThreadedSyncBackend::ThreadedSyncBackend(int fd, unsigned depth, std::uint64_t base)
    : fd_(fd), base_(base), depth_(std::max(1u, depth)), block_device_(is_block_device(fd)) {
    queued_.reserve(depth_);
    pending_.reserve(depth_);
    done_.reserve(depth_);
    threads_.reserve(depth_);
    try {
        for (unsigned i = 0; i < depth_; ++i)
            threads_.emplace_back([this] { serve(); });
    } catch (...) {
        stop_threads();
        throw;
    }
}

ThreadedSyncBackend::~ThreadedSyncBackend() {
    stop_threads();
}

void ThreadedSyncBackend::stop_threads() {
    sys::quit_and_join(m_, quit_, work_cv_, threads_);
}

int ThreadedSyncBackend::submit() {
    const auto n = static_cast<int>(queued_.size());
    if (n == 0) return 0;
    {
        std::lock_guard lk(m_);
        pending_.insert(pending_.end(), queued_.begin(), queued_.end());
    }
    queued_.clear();
    // One wake-up per request: notify_all would wake every idle thread of
    // a pool larger than what is in flight (a sweep's small depths) for
    // most of them to find nothing.
    for (int i = 0; i < n; ++i)
        work_cv_.notify_one();
    return n;
}

// A pool thread: take a request, block in its system call, hand the result
// back.  The worker is woken only once as many completions as it waits for
// are there, as io_uring wakes it once per batch.
void ThreadedSyncBackend::serve() {
    std::unique_lock lk(m_);
    while (true) {
        work_cv_.wait(lk, [&] { return quit_ || !pending_.empty(); });
        if (pending_.empty()) return;  // quit, nothing left to do
        Request* r = pending_.back();
        pending_.pop_back();
        lk.unlock();
        calls_.fetch_add(1, std::memory_order_relaxed);
        const std::int32_t result = perform_sync(fd_, base_, *r, block_device_);
        lk.lock();
        done_.push_back({r, result});
        if (want_ && done_.size() >= want_) done_cv_.notify_one();
    }
}

// Waits for `min_complete`, like UringBackend::reap (the engine keeps the
// batch small enough to gather quickly).
std::size_t ThreadedSyncBackend::reap(std::span<Completion> out, unsigned min_complete) {
    submit();
    std::unique_lock lk(m_);
    if (min_complete > 0 && done_.size() < min_complete) {
        want_ = min_complete;
        done_cv_.wait(lk, [&] { return done_.size() >= want_; });
        want_ = 0;
    }
    const std::size_t n = std::min(out.size(), done_.size());
    std::copy(done_.end() - static_cast<std::ptrdiff_t>(n), done_.end(), out.begin());
    done_.resize(done_.size() - n);
    return n;
}

// --rate: wait for `min_complete` completions or the deadline (a futex wait; the
// engine lowers its thread's timer slack, so it wakes near the deadline).
std::size_t ThreadedSyncBackend::reap_until(std::span<Completion> out, unsigned min_complete,
                                            std::uint64_t deadline_ns) {
    submit();
    std::unique_lock lk(m_);
    if (done_.size() < std::max(1u, min_complete)) {
        using clock = std::chrono::steady_clock;  // CLOCK_MONOTONIC on Linux
        const clock::time_point until{std::chrono::nanoseconds(deadline_ns)};
        want_ = std::max(1u, min_complete);
        done_cv_.wait_until(lk, until, [&] { return done_.size() >= want_; });
        want_ = 0;
    }
    const std::size_t n = std::min(out.size(), done_.size());
    std::copy(done_.end() - static_cast<std::ptrdiff_t>(n), done_.end(), out.begin());
    done_.resize(done_.size() - n);
    return n;
}

}  // namespace ds::io
