// io_uring backend: one ring per worker, batched submission, batch reaping.
#pragma once

#include <liburing.h>

#include <span>
#include <vector>

#include "io/backend.h"

namespace ds::io {

class UringBackend final : public Backend {
  public:
    // Sets up a ring for `depth` operations on `fd`, and registers the file
    // and `buffers` (the memory every request's buf points into) where the
    // kernel allows.  Must be constructed on the thread that will submit
    // (SINGLE_ISSUER).  Throws std::system_error naming the failing call;
    // with options.sqpoll, also when the kernel refuses the polling thread.
    // `base` is added to every request's offset (raw-device regions).
    UringBackend(int fd, unsigned depth, std::span<std::byte> buffers, UringOptions options = {},
                 std::uint64_t base = 0);
    ~UringBackend() override;
    UringBackend(const UringBackend&) = delete;
    UringBackend& operator=(const UringBackend&) = delete;

    BackendKind kind() const override { return BackendKind::io_uring; }
    BackendDescription describe() const override { return {BackendKind::io_uring, features_}; }
    unsigned depth() const override { return depth_; }
    void prepare(Request& r) override;
    int submit() override;
    std::size_t reap(std::span<Completion> out, unsigned min_complete) override;
    std::size_t reap_until(std::span<Completion> out, unsigned min_complete,
                           std::uint64_t deadline_ns) override;
    // IORING_OP_ASYNC_CANCEL: one for everything (IORING_ASYNC_CANCEL_ANY,
    // 5.19), or one per request by its user_data on older kernels.
    bool cancel(std::span<Request* const> in_flight) override;
    void set_spin_us(unsigned us) override;
    // Waits that spun, and those whose completions came during the spin.
    std::uint64_t spins() const { return spins_; }
    std::uint64_t spin_hits() const { return spin_hits_; }

    static constexpr unsigned kMissesToRest = 4;  // spins ended empty in a row
    static constexpr unsigned kRestWaits = 64;    // then waits that sleep at once
    std::uint64_t system_calls() const override { return enters_; }

  private:
    // The constructor's steps: the ring (returns the kernel's feature bits),
    // the registered file, the registered buffers (each optional where the
    // kernel refuses it, with a note; see uring_backend.cpp).
    unsigned init_ring(const UringOptions& options);
    void register_file(const UringOptions& options, unsigned kernel_features);
    void register_buffers();
    // Counts the io_uring_enter a liburing call about to be made will do.
    void count_enter(unsigned wait_nr);
    // Queues a cancel of `key` (a user_data, or 0 with CANCEL_ANY); false
    // when the submission queue has no room even after submitting.
    bool queue_cancel(std::uint64_t key, int flags);
    void prep_trim(io_uring_sqe* sqe, int file, const Request& r) const;
    // A trim's completion: a discard refused for REQ_NOWAIT is issued again
    // through io-wq (true).
    bool retried_async(Request& r, int res);
    // Submission failed for good with `err`: see uring_backend.cpp.
    void fail_queued(int err);
    // Moves what has completed into out[n...]; returns the new count.
    std::size_t take_completed(std::span<Completion> out, std::size_t n);
    // Moves failed submissions into `out`; returns how many.
    std::size_t take_failed(std::span<Completion> out);
    // Submits what is queued and reads the completion ring until it holds
    // `wait_nr` or spin_us has passed; the io_uring_submit* result.
    int submit_and_spin(unsigned wait_nr);

    io_uring ring_{};
    int fd_;
    std::uint64_t base_;
    unsigned depth_;
    std::span<std::byte> buffers_;
    std::vector<io_uring_cqe*> cqes_;
    UringFeatures features_;
    bool sqpoll_ = false;
    bool nop_ = false;           // UringOptions::nop
    unsigned spin_us_ = 0;       // UringOptions::spin_us
    bool taskrun_flag_ = false;  // IORING_SETUP_TASKRUN_FLAG: the kernel flags work
    bool deferred_ = false;      // DEFER_TASKRUN or COOP_TASKRUN: posted when entering
    unsigned misses_ = 0;        // spins in a row that ended empty
    unsigned rest_ = 0;          // waits left that sleep at once
    std::uint64_t spins_ = 0;
    std::uint64_t spin_hits_ = 0;
    bool block_device_ = false;          // a trim is a discard, not a hole
    bool discard_async_ = false;         // discards go through io-wq (retried_async)
    std::vector<Request*> async_trims_;  // issued again through io-wq, not answered yet
    bool cancel_any_ = false;            // the kernel takes IORING_ASYNC_CANCEL_ANY
    int broken_ = 0;  // -errno: submission failed for good, nothing is submitted again
    std::vector<Completion> failed_;  // requests that failed at submission, for reap()
    std::uint64_t enters_ = 0;
};

}  // namespace ds::io
