// Synchronous backend: pread/pwrite, one operation at a time per worker.
// The fallback when io_uring is unavailable, and the baseline it is compared to.
#pragma once

#include "io/backend.h"

namespace ds::io {

class SyncBackend final : public Backend {
  public:
    // `base` is added to every request's offset (raw-device regions).
    explicit SyncBackend(int fd, std::uint64_t base = 0) : fd_(fd), base_(base) {}

    BackendKind kind() const override { return BackendKind::sync; }
    BackendDescription describe() const override { return {BackendKind::sync, {}}; }
    unsigned depth() const override { return 1; }
    void prepare(Request& r) override { queued_ = &r; }
    unsigned submit() override { return queued_ ? 1 : 0; }
    std::size_t reap(std::span<Completion> out, unsigned min_complete) override;

  private:
    int fd_;
    std::uint64_t base_;
    Request* queued_ = nullptr;
};

}  // namespace ds::io
