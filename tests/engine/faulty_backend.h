// A backend decorator for tests: passes operations to a real backend and
// alters chosen completions (an errno at an offset, a short transfer, an
// -EAGAIN), and checks the engine never has two overlapping operations in
// flight.
#pragma once

#include <cerrno>
#include <cstdint>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "io/backend.h"

namespace ds::test {

class FaultyBackend final : public io::Backend {
  public:
    explicit FaultyBackend(std::unique_ptr<io::Backend> inner) : inner_(std::move(inner)) {}

    // The first operation of `kind` covering `offset` completes with -err
    // (a flush kind: the first flush of that kind, whatever the offset).
    void fail_at(io::OpKind kind, std::uint64_t offset, int err) {
        faults_.push_back({kind, offset, err});
    }
    // Every Nth completion transfers only half of what was asked.
    void short_every(unsigned n) { short_every_ = n; }
    // Every Nth completion answers -EAGAIN (nothing transferred).
    void eagain_every(unsigned n) { eagain_every_ = n; }

    std::uint64_t overlaps() const { return overlaps_; }
    // Flushes prepared, and how many of them while a write was in flight.
    std::uint64_t flushes() const { return flushes_; }
    std::uint64_t flushes_with_writes_in_flight() const { return flushes_racing_writes_; }
    // Writes prepared without / with each RWF_* flag value seen.
    std::uint64_t writes_with_flags(int flags) const {
        std::uint64_t n = 0;
        for (auto [f, count] : write_flags_)
            if (f == flags) n += count;
        return n;
    }
    // Operations handed to the kernel per submission (submit() or reap()).
    const std::vector<unsigned>& submissions() const { return submissions_; }
    std::uint64_t injected() const { return injected_; }

    io::BackendKind kind() const override { return inner_->kind(); }
    io::BackendDescription describe() const override { return inner_->describe(); }
    unsigned depth() const override { return inner_->depth(); }
    std::uint64_t system_calls() const override { return inner_->system_calls(); }
    void prepare(io::Request& r) override {
        ++prepared_;
        if (io::is_flush(r.kind)) {
            ++flushes_;
            if (writes_in_flight_) ++flushes_racing_writes_;
            inner_->prepare(r);
            return;
        }
        if (r.kind == io::OpKind::write) {
            ++writes_in_flight_;
            bool found = false;
            for (auto& [f, count] : write_flags_)
                if (f == r.rw_flags) found = (++count, true);
            if (!found) write_flags_.push_back({r.rw_flags, 1});
        }
        for (const auto& [off, len] : in_flight_)
            if (r.offset < off + len && off < r.offset + r.length) ++overlaps_;
        in_flight_.insert({r.offset, r.length});
        inner_->prepare(r);
    }
    unsigned submit() override {
        note_submission();
        return inner_->submit();
    }
    std::size_t reap(std::span<io::Completion> out, unsigned min_complete) override {
        note_submission();
        std::size_t n = inner_->reap(out, min_complete);
        for (std::size_t i = 0; i < n; ++i) {
            io::Request& r = *out[i].req;
            if (!io::is_flush(r.kind)) in_flight_.erase({r.offset, r.length});
            if (r.kind == io::OpKind::write) --writes_in_flight_;
            ++completions_;
            for (auto& f : faults_) {
                if (!f.used && f.kind == r.kind &&
                    (io::is_flush(r.kind) ||
                     (f.offset >= r.offset && f.offset < r.offset + r.length))) {
                    f.used = true;
                    out[i].result = -f.err;
                    ++injected_;
                }
            }
            if (out[i].result <= 0) continue;
            if (eagain_every_ && completions_ % eagain_every_ == 0) {
                out[i].result = -EAGAIN;
                ++injected_;
            } else if (short_every_ && completions_ % short_every_ == 0 && out[i].result > 1) {
                out[i].result /= 2;  // the rest is transferred again by the engine
                ++injected_;
            }
        }
        return n;
    }

  private:
    void note_submission() {
        if (prepared_) submissions_.push_back(static_cast<unsigned>(prepared_));
        prepared_ = 0;
    }
    struct Fault {
        io::OpKind kind;
        std::uint64_t offset;
        int err;
        bool used = false;
    };
    std::unique_ptr<io::Backend> inner_;
    std::vector<Fault> faults_;
    std::set<std::pair<std::uint64_t, std::uint32_t>> in_flight_;
    unsigned short_every_ = 0, eagain_every_ = 0;
    std::uint64_t completions_ = 0, overlaps_ = 0, injected_ = 0;
    std::uint64_t flushes_ = 0, flushes_racing_writes_ = 0, writes_in_flight_ = 0, prepared_ = 0;
    std::vector<std::pair<int, std::uint64_t>> write_flags_;
    std::vector<unsigned> submissions_;
};

}  // namespace ds::test
