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
    unsigned submit() override;
    std::size_t reap(std::span<Completion> out, unsigned min_complete) override;
    std::uint64_t system_calls() const override { return enters_; }

  private:
    // Counts the io_uring_enter a liburing call about to be made will do.
    void count_enter(unsigned wait_nr);

    io_uring ring_{};
    int fd_;
    std::uint64_t base_;
    unsigned depth_;
    std::span<std::byte> buffers_;
    std::vector<io_uring_cqe*> cqes_;
    UringFeatures features_;
    bool sqpoll_ = false;
    std::uint64_t enters_ = 0;
};

}  // namespace ds::io
