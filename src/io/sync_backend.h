// Synchronous backend: pread/pwrite, one operation at a time per worker.
// The fallback when io_uring is unavailable, and the baseline it is compared to.
#pragma once

#include "io/backend.h"

namespace ds::io {

class SyncBackend final : public Backend {
  public:
    explicit SyncBackend(int fd) : fd_(fd) {}

    BackendKind kind() const override { return BackendKind::sync; }
    unsigned depth() const override { return 1; }
    void prepare(Request& r) override { queued_ = &r; }
    unsigned submit() override { return queued_ ? 1 : 0; }
    std::size_t reap(std::span<Completion> out, unsigned min_complete) override;

  private:
    int fd_;
    Request* queued_ = nullptr;
};

}  // namespace ds::io
