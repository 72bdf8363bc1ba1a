// A backend decorator for tests: passes operations to a real backend and
// alters chosen completions (an errno at an offset, a short transfer, an
// -EAGAIN) and submissions (a short submit, a refused or failed one), and
// checks the engine never has two overlapping operations in flight.
// Prepared operations wait here until a submit() or reap() hands them over.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <optional>
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
    // The first write of at least `bytes` stores only its first half and
    // completes as if whole: a torn write (torn() says where the lost half was).
    void tear_first_write_of(std::uint32_t bytes) { tear_from_ = bytes; }
    std::optional<std::pair<std::uint64_t, std::uint32_t>> torn() const { return torn_; }
    // Trims complete at once, successfully, without reaching the file: a
    // device that acknowledges a discard and keeps the data.
    void ignore_trims() { ignore_trims_ = true; }
    // Every trim completes with -err.
    void fail_trims(int err) { fail_trims_ = err; }
    std::uint64_t trims() const { return trims_; }
    // Every Nth completion transfers only half of what was asked.
    void short_every(unsigned n) { short_every_ = n; }
    // Every Nth completion answers -EAGAIN (nothing transferred).
    void eagain_every(unsigned n) { eagain_every_ = n; }
    // The Nth submit() (1-based) with something queued takes only `take`
    // of it: a short submit; the rest stays queued.
    void short_submit_at(unsigned nth, unsigned take) { submit_faults_.push_back({nth, take, 0}); }
    // The Nth submit() with something queued takes none and answers -err:
    // -EAGAIN/-EBUSY leave it queued; any other errno fails every queued
    // operation, which reap() returns with -err, as Backend::submit says.
    void fail_submit_at(unsigned nth, int err) { submit_faults_.push_back({nth, 0, err}); }
    // Operations failed at submission, and submit() calls that were short or refused.
    std::uint64_t failed_at_submit() const { return failed_at_submit_; }
    std::uint64_t short_or_refused_submits() const { return short_submits_; }
    // Backend::cancel calls, and the operations in flight each was given.
    const std::vector<std::size_t>& cancels() const { return cancels_; }
    // Every operation in flight when cancel() is called completes with
    // -ECANCELED (as io_uring answers for what had not reached the device).
    void cancel_everything() { cancel_everything_ = true; }
    // Sets `flag` (a stop request) as the `n`th operation is prepared: it
    // and those before it that have not completed are in flight then.
    void stop_at_prepare(std::uint64_t n, std::atomic<bool>* flag) {
        stop_after_ = n;
        stop_flag_ = flag;
    }

    // Operations prepared over one in flight where either is a write: the
    // engine promises none (a write has its units alone).
    std::uint64_t overlaps() const { return overlaps_; }
    // Reads prepared over a read in flight: allowed (reads share a unit).
    std::uint64_t shared_reads() const { return shared_reads_; }
    // Every read, write and trim prepared (offset, length), in order; a
    // short transfer's rest is one more.
    const std::vector<std::pair<std::uint64_t, std::uint32_t>>& spans() const { return spans_; }
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
        if (++prepares_ == stop_after_ && stop_flag_) stop_flag_->store(true);
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
        const bool read = r.kind == io::OpKind::read;
        for (const auto& [span, kind] : in_flight_) {
            const auto& [off, len] = span;
            if (!(r.offset < off + len && off < r.offset + r.length)) continue;
            if (read && kind == io::OpKind::read)
                ++shared_reads_;
            else
                ++overlaps_;
        }
        in_flight_.insert({{r.offset, r.length}, r.kind});
        spans_.push_back({r.offset, r.length});
        if (r.kind == io::OpKind::trim) ++trims_;
        if (r.kind == io::OpKind::trim && (ignore_trims_ || fail_trims_)) {
            failed_.push_back({&r, -fail_trims_});  // answered at the next reap
            return;
        }
        if (tear_from_ && !torn_ && r.kind == io::OpKind::write && r.length >= tear_from_) {
            torn_ = {r.offset + r.length / 2, r.length / 2};
            tearing_ = &r;
        }
        queued_.push_back(&r);
    }
    int submit() override {
        if (queued_.empty()) return 0;
        ++submit_calls_;
        std::size_t take = queued_.size();
        for (auto& f : submit_faults_) {
            if (f.used || f.nth != submit_calls_) continue;
            f.used = true;
            ++short_submits_;
            if (f.err == EAGAIN || f.err == EBUSY) return -f.err;
            if (f.err) {
                for (io::Request* r : queued_)
                    failed_.push_back({r, -f.err});
                failed_at_submit_ += queued_.size();
                queued_.clear();
                return -f.err;
            }
            take = std::min<std::size_t>(take, f.take);
        }
        hand_over(take);
        const int n = inner_->submit();
        return n < 0 ? n : static_cast<int>(take);
    }
    bool cancel(std::span<io::Request* const> in_flight) override {
        cancels_.push_back(in_flight.size());
        if (!cancel_everything_) return inner_->cancel(in_flight);
        cancelled_.assign(in_flight.begin(), in_flight.end());
        return true;
    }
    std::size_t reap(std::span<io::Completion> out, unsigned min_complete) override {
        hand_over(queued_.size());
        std::size_t n = 0;
        for (; n < out.size() && !failed_.empty(); ++n) {
            out[n] = failed_.back();
            failed_.pop_back();
        }
        if (n == 0) n = inner_->reap(out, min_complete);
        for (std::size_t i = 0; i < n; ++i) {
            io::Request& r = *out[i].req;
            if (auto c = std::find(cancelled_.begin(), cancelled_.end(), &r);
                c != cancelled_.end()) {
                cancelled_.erase(c);  // once: the slot's next operation is a new one
                out[i].result = -ECANCELED;
            }
            if (&r == tearing_) {  // the whole length, as the engine asked
                r.length *= 2;
                out[i].result =
                    out[i].result > 0 ? static_cast<std::int32_t>(r.length) : out[i].result;
                tearing_ = nullptr;
            }
            if (!io::is_flush(r.kind))
                in_flight_.erase(in_flight_.find({{r.offset, r.length}, r.kind}));
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
    // The first `n` queued operations go to the real backend, as one submission.
    void hand_over(std::size_t n) {
        if (n) submissions_.push_back(static_cast<unsigned>(n));
        for (std::size_t i = 0; i < n; ++i) {
            if (queued_[i] == tearing_) tearing_->length /= 2;  // the device stores half
            inner_->prepare(*queued_[i]);
        }
        queued_.erase(queued_.begin(), queued_.begin() + static_cast<std::ptrdiff_t>(n));
    }
    struct SubmitFault {
        unsigned nth;
        unsigned take;
        int err;
        bool used = false;
    };
    struct Fault {
        io::OpKind kind;
        std::uint64_t offset;
        int err;
        bool used = false;
    };
    std::unique_ptr<io::Backend> inner_;
    std::vector<Fault> faults_;
    std::multiset<std::pair<std::pair<std::uint64_t, std::uint32_t>, io::OpKind>> in_flight_;
    unsigned short_every_ = 0, eagain_every_ = 0;
    std::uint64_t completions_ = 0, overlaps_ = 0, injected_ = 0, shared_reads_ = 0;
    std::uint64_t flushes_ = 0, flushes_racing_writes_ = 0, writes_in_flight_ = 0;
    std::vector<std::pair<int, std::uint64_t>> write_flags_;
    std::uint32_t tear_from_ = 0;
    std::optional<std::pair<std::uint64_t, std::uint32_t>> torn_;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> spans_;
    io::Request* tearing_ = nullptr;
    std::vector<unsigned> submissions_;
    std::vector<io::Request*> queued_;  // prepared, not yet handed to inner_
    std::vector<io::Completion> failed_;
    std::vector<SubmitFault> submit_faults_;
    unsigned submit_calls_ = 0;
    std::uint64_t failed_at_submit_ = 0, short_submits_ = 0;
    std::vector<std::size_t> cancels_;
    std::vector<io::Request*> cancelled_;
    bool cancel_everything_ = false;
    bool ignore_trims_ = false;
    int fail_trims_ = 0;
    std::uint64_t trims_ = 0;
    std::uint64_t stop_after_ = 0, prepares_ = 0;
    std::atomic<bool>* stop_flag_ = nullptr;
};

}  // namespace ds::test
