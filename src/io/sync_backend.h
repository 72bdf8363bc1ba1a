// Synchronous backends: blocking pread/pwrite.
//  SyncBackend: one operation at a time per worker, on the worker's own
//    thread.  The fallback when io_uring is unavailable, and the
//    single-threaded baseline.
//  ThreadedSyncBackend: the classic thread pool, `depth` threads per worker
//    each blocked in its own pread/pwrite, so `depth` operations are in
//    flight.  It is what io_uring is compared to at equal concurrency.
// Both are driven by the same engine as io_uring: what to issue, the unit
// map, verification and the in-flight exclusion stay on the worker's
// thread; the pool threads only transfer bytes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "io/backend.h"

namespace ds::io {

// One blocking transfer (or flush, or trim) of `r` on `fd` at r.offset +
// base: bytes transferred (0 for a flush or a trim), or -errno.  EINTR is
// retried.  `block_device`: a trim is a discard (else a hole).
std::int32_t perform_sync(int fd, std::uint64_t base, const Request& r, bool block_device);

class SyncBackend final : public Backend {
  public:
    // `base` is added to every request's offset (raw-device regions).
    explicit SyncBackend(int fd, std::uint64_t base = 0)
        : fd_(fd), base_(base), block_device_(is_block_device(fd)) {}

    BackendKind kind() const override { return BackendKind::sync; }
    BackendDescription describe() const override { return {BackendKind::sync, {}, 0}; }
    unsigned depth() const override { return 1; }
    void prepare(Request& r) override { queued_ = &r; }
    int submit() override { return queued_ ? 1 : 0; }
    std::size_t reap(std::span<Completion> out, unsigned min_complete) override;
    std::uint64_t system_calls() const override { return calls_; }

  private:
    int fd_;
    std::uint64_t base_;
    bool block_device_;
    Request* queued_ = nullptr;
    std::uint64_t calls_ = 0;
};

class ThreadedSyncBackend final : public Backend {
  public:
    // Starts `depth` threads (throws std::system_error when one cannot start).
    ThreadedSyncBackend(int fd, unsigned depth, std::uint64_t base = 0);
    ~ThreadedSyncBackend() override;
    ThreadedSyncBackend(const ThreadedSyncBackend&) = delete;
    ThreadedSyncBackend& operator=(const ThreadedSyncBackend&) = delete;

    BackendKind kind() const override { return BackendKind::sync; }
    BackendDescription describe() const override {
        return {BackendKind::sync, {}, static_cast<unsigned>(threads_.size())};
    }
    unsigned depth() const override { return depth_; }
    void prepare(Request& r) override { queued_.push_back(&r); }
    int submit() override;
    std::size_t reap(std::span<Completion> out, unsigned min_complete) override;
    std::size_t reap_until(std::span<Completion> out, unsigned min_complete,
                           std::uint64_t deadline_ns) override;
    std::uint64_t system_calls() const override { return calls_.load(std::memory_order_relaxed); }

  private:
    void serve();
    void stop_threads();

    int fd_;
    std::uint64_t base_;
    unsigned depth_;
    bool block_device_;
    std::vector<Request*> queued_;  // prepared, not yet handed to the threads (worker only)
    std::mutex m_;
    std::condition_variable work_cv_;  // a thread waits for a request
    std::condition_variable done_cv_;  // the worker waits for completions
    std::vector<Request*> pending_;    // handed over, not yet taken by a thread
    std::vector<Completion> done_;     // finished, not yet reaped
    unsigned want_ = 0;                // completions the worker waits for (0: not waiting)
    bool quit_ = false;
    std::atomic<std::uint64_t> calls_{0};
    std::vector<std::thread> threads_;
};

}  // namespace ds::io
