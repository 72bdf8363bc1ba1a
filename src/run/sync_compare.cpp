#include "run/sync_compare.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "engine/engine.h"
#include "engine/phases.h"
#include "engine/unit_map.h"
#include "io/aligned_buffer.h"
#include "io/backend_factory.h"
#include "io/sync_backend.h"
#include "model/errors.h"
#include "model/results.h"
#include "pattern/unit.h"
#include "sys/errno_text.h"
#include "sys/signals.h"
#include "sys/unique_fd.h"

namespace ds::run {

// The vocabulary this room speaks (docs/architecture.md).
using namespace ds::model;
using namespace ds::engine;
using namespace ds::sys;

namespace {

constexpr std::uint32_t kUnit = 4096;           // verification unit of the table's file
constexpr std::uint32_t kOpBytes = 16 * 1024;   // largest bytes per durable operation
constexpr std::uint32_t kFillChunk = 1U << 20;  // fill and read-back chunk

// Errors that mean "this method is not supported here", not a drive error.
bool refusal(int err) {
    return err == EINVAL || err == EOPNOTSUPP || err == ENOTSUP || err == ENOSYS;
}

std::string open_flags_text(bool direct, SyncMethod m) {
    std::string t = "O_RDWR";
    if (direct) t += "|O_DIRECT";
    if (m == SyncMethod::osync) t += "|O_SYNC";
    if (m == SyncMethod::dsync) t += "|O_DSYNC";
    return t;
}

// One row: one durable operation at a time (its writes, then for
// fsync/fdatasync rows the flush), on a depth-1 engine.  An operation's
// latency runs from its first write's submission to its last completion.
// The first failure ends the row.
class DurableRow final : public PhaseWork {
  public:
    DurableRow(SyncCompareRow& row, UnitMap& units, const pattern::UnitIdentity& unit,
               std::uint64_t file_bytes, std::uint64_t row_ops, std::uint64_t deadline_ns,
               bool stream_fill)
        : row_(row),
          units_(units),
          unit_(unit),
          slots_(file_bytes / (row.write_bytes * row.writes_per_op)),
          row_ops_(row_ops),
          deadline_ns_(deadline_ns),
          now_ns_(monotonic_ns()),
          flush_(row.method == SyncMethod::fsync || row.method == SyncMethod::fdatasync),
          stream_fill_(stream_fill) {}

    // The failed operation, when one failed: (kind, errno, offset, length).
    struct Failure {
        io::OpKind op;
        int err;
        std::uint64_t offset;
        std::uint32_t length;
    };
    const std::optional<Failure>& failure() const { return failure_; }

    bool more() const override {
        if (failure_) return false;
        return piece_ != 0 || (row_ops_ ? row_.ops < row_ops_ : now_ns_ < deadline_ns_);
    }
    Next next(Slot& s) override {
        if (!more()) return Next::done;
        s.req.rw_flags = 0;
        s.req.buf = s.buf;
        if (piece_ == row_.writes_per_op) {  // the operation's flush
            s.req.kind =
                row_.method == SyncMethod::fsync ? io::OpKind::fsync : io::OpKind::fdatasync;
            s.req.offset = s.req.length = 0;
        } else {
            const std::uint64_t base = (cursor_ % slots_) * row_.write_bytes * row_.writes_per_op;
            s.req.kind = io::OpKind::write;
            s.req.offset = base + std::uint64_t{piece_} * row_.write_bytes;
            s.req.length = row_.write_bytes;
            units_.advance(s.req.offset, s.req.length);
            fill_units(units_, unit_, s.buf, s.req.offset, s.req.length, stream_fill_);
        }
        s.first_offset = s.req.offset;
        s.first_length = s.req.length;
        return Next::issued;
    }
    void complete(Slot& s, std::int32_t result, std::uint64_t) override {
        if (result < 0) {
            if (s.req.kind == io::OpKind::write) units_.forget(s.first_offset, s.first_length);
            failure_ = Failure{s.req.kind, -result, s.first_offset, s.first_length};
            return;
        }
        if (piece_ == 0) op_start_ns_ = s.req.submit_ns;
        if (++piece_ < row_.writes_per_op + (flush_ ? 1U : 0U)) return;
        row_.latency.record(now_ns_ - op_start_ns_);
        ++row_.ops;
        ++cursor_;
        piece_ = 0;
    }
    void reaped(std::uint64_t now_ns) override { now_ns_ = now_ns; }

  private:
    SyncCompareRow& row_;
    UnitMap& units_;
    pattern::UnitIdentity unit_;  // file 0 of the run: its run, data and shape
    std::uint64_t slots_;         // durable operations that fit in the file
    std::uint64_t row_ops_, deadline_ns_;
    std::uint64_t now_ns_;
    bool flush_;
    bool stream_fill_;    // O_DIRECT rows: the write buffer is the device's to read
    unsigned piece_ = 0;  // writes (and flush) of the current operation done
    std::uint64_t cursor_ = 0;
    std::uint64_t op_start_ns_ = 0;
    std::optional<Failure> failure_;
};

class Table final : private MismatchSink {
  public:
    Table(const SyncCompareSetup& s, std::atomic<bool>& stop, std::vector<MismatchRecord>& records,
          ClassCounts& totals)
        : s_(s),
          stop_(stop),
          records_(records),
          totals_(totals),
          units_(s.file_bytes, kUnit),
          op_buf_(kOpBytes),
          chunk_(kFillChunk) {}

    bool stopping() const { return stop_.load() || stop_signal() != 0; }

    // Gives every unit generation 1 through the check descriptor, so rows
    // overwrite allocated, initialised blocks (as pg_test_fsync does).
    void fill() {
        PhaseOutcome out = pass(Phase::seq_write);
        if (out.counters.write_errors || out.invalid || out.no_space_at ||
            ::fdatasync(s_.check_fd) != 0)
            throw SetupError("--sync-compare: writing " + s_.path + ": " +
                             sys::errno_text(errno ? errno : EIO));
    }

    void run_row(SyncCompareRow& row) {
        int flags = O_RDWR | O_CLOEXEC | (s_.direct ? O_DIRECT : 0);
        if (row.method == SyncMethod::osync) flags |= O_SYNC;
        if (row.method == SyncMethod::dsync) flags |= O_DSYNC;
        sys::UniqueFd fd(::open(s_.path.c_str(), flags));
        if (!fd.valid()) {
            row.available = false;
            row.reason =
                "open(" + open_flags_text(s_.direct, row.method) + "): " + std::strerror(errno);
            return;
        }
        std::unique_ptr<io::Backend> backend = s_.make_backend(fd.get(), op_buf_.span());
        Slot slot;
        slot.buf = op_buf_.data();
        const std::uint64_t t0 = monotonic_ns();
        DurableRow work(row, units_, {s_.run_id, 0, 0, 1, 0, s_.data_id, s_.shape}, s_.file_bytes,
                        s_.row_ops, t0 + seconds_to_ns(s_.row_s), s_.direct);
        Engine(*backend, {&slot, 1}, stop_).run(work, {1, 1, 0});
        row.seconds = (monotonic_ns() - t0) / 1e9;
        if (const auto& f = work.failure()) fail(row, *f);
        backend.reset();
        fd.reset();
        if (!row.available) return;
        // Read every unit back and check it against its latest generation.
        if (!s_.check_direct) {
            if (::fdatasync(s_.check_fd) != 0) fail(row, {io::OpKind::fdatasync, errno, 0, 0});
            ::posix_fadvise(s_.check_fd, 0, 0, POSIX_FADV_DONTNEED);
        }
        current_ = &row;
        row.verified_bytes += pass(Phase::reverify).counters.verified_bytes;
        current_ = nullptr;
    }

  private:
    // A sequential pass over the whole file through the check descriptor.
    PhaseOutcome pass(Phase phase) {
        PhaseOrder plan;
        plan.phase = phase;
        PhaseOutcome out;
        IntervalRecorder intervals;
        std::atomic<std::uint64_t> bytes{0}, ops{0};
        std::atomic<bool> stop{false};
        PhaseContext ctx{
            plan,  s_.run_id, 0,    s_.file_bytes, kFillChunk, true, s_.check_direct, out,
            *this, intervals, stop, bytes,         ops,        0,    s_.data_id,      s_.shape};
        DurableMaps maps;
        WriteDurability writes(SyncMethod::none, 1, units_, maps);
        io::SyncBackend backend(s_.check_fd);
        Slot slot;
        slot.buf = chunk_.data();
        auto work = make_phase(ctx, units_, &writes, {0, nullptr}, 0);  // sequential: no mix
        Engine(backend, {&slot, 1}, stop).run(*work, {1, 1, 0});
        return out;
    }

    // A failed write or flush: "n/a" when it is a refusal on the row's first
    // operation (the method is not supported), else an I/O error.
    void fail(SyncCompareRow& row, const DurableRow::Failure& f) {
        if (row.ops == 0 && refusal(f.err)) {
            row.available = false;
            row.reason = std::string(io::to_string(f.op)) + " with " +
                         open_flags_text(s_.direct, row.method) + ": " + std::strerror(f.err);
            return;
        }
        ++row.mismatches;
        MismatchRecord rec;
        rec.phase = Phase::seq_write;
        rec.offset = rec.unit_offset = f.offset;
        rec.length = f.length;
        rec.cls = pattern::MismatchClass::io_error;
        rec.error = f.err;
        rec.op = f.op;
        add(std::move(rec));
    }

    // The read-back's mismatches (MismatchSink).
    void record(const PhaseOrder& plan, PhaseCounters& c, MismatchRecord rec) override {
        ++c.mismatches[static_cast<std::size_t>(rec.cls)];
        if (current_) ++current_->mismatches;
        rec.phase = plan.phase;
        add(std::move(rec));
    }
    void note_truncation() override {}

    void add(MismatchRecord rec) {
        ++totals_[static_cast<std::size_t>(rec.cls)];
        rec.iteration = 1;
        rec.path = s_.path;
        if (records_.size() < RunResult::kMaxRecords) records_.push_back(std::move(rec));
    }

    const SyncCompareSetup& s_;
    std::atomic<bool>& stop_;
    std::vector<MismatchRecord>& records_;
    ClassCounts& totals_;
    UnitMap units_;
    io::AlignedBuffer op_buf_;
    io::AlignedBuffer chunk_;
    SyncCompareRow* current_ = nullptr;  // the row being read back
};

}  // namespace

BackendFactory default_backend_factory(io::BackendKind kind) {
    return [kind](int fd, std::span<std::byte> buffers) {
        // One operation at a time: sync on the row's own thread, no pool.
        const bool blocking = io::backend_flags(kind) & io::kBlockingCalls;
        return io::make_backend(kind, fd, blocking ? 1 : 2, buffers);
    };
}

std::vector<SyncCompareRow> sync_compare_rows() {
    std::vector<SyncCompareRow> rows;
    for (SyncMethod m : kAllSyncMethods)
        for (std::uint32_t bytes : {4096U, 8192U, 16384U}) {
            SyncCompareRow r;
            r.method = m;
            r.write_bytes = bytes;
            rows.push_back(r);
        }
    // O_SYNC, 16K per durable operation, in one, two or four writes.
    for (unsigned n : {1U, 2U, 4U}) {
        SyncCompareRow r;
        r.method = SyncMethod::osync;
        r.write_bytes = kOpBytes / n;
        r.writes_per_op = n;
        r.group = true;
        rows.push_back(r);
    }
    return rows;
}

SyncCompareResult run_sync_compare(const SyncCompareSetup& setup, std::atomic<bool>& stop,
                                   std::vector<MismatchRecord>& records, ClassCounts& totals) {
    SyncCompareResult res;
    res.row_s = setup.row_ops ? 0 : setup.row_s;
    res.row_ops = setup.row_ops;
    res.direct_io = setup.direct;
    Table table(setup, stop, records, totals);
    table.fill();
    for (SyncCompareRow row : sync_compare_rows()) {
        if (table.stopping()) {
            res.interrupted = true;
            break;
        }
        table.run_row(row);
        res.rows.push_back(std::move(row));
    }
    if (table.stopping()) res.interrupted = true;
    return res;
}

}  // namespace ds::run
