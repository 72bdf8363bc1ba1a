#include "run/sync_compare.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "io/aligned_buffer.h"
#include "io/sync_backend.h"
#include "io/unique_fd.h"
#include "io/uring_backend.h"
#include "pattern/unit.h"
#include "run/signals.h"
#include "run/worker.h"

namespace ds::run {

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

class Table {
  public:
    Table(const SyncCompareSetup& s, std::atomic<bool>& stop, std::vector<MismatchRecord>& records,
          ClassCounts& totals)
        : s_(s),
          stop_(stop),
          records_(records),
          totals_(totals),
          gens_(s.file_bytes / kUnit, pattern::kUnknownGeneration),
          op_buf_(kOpBytes),
          chunk_(kFillChunk) {}

    bool stopping() const { return stop_.load() || stop_signal() != 0; }

    // Gives every unit generation 1 through the check descriptor, so rows
    // overwrite allocated, initialised blocks (as pg_test_fsync does).
    bool fill() {
        for (std::uint64_t off = 0; off < s_.file_bytes; off += kFillChunk) {
            std::uint32_t len = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(kFillChunk, s_.file_bytes - off));
            fill_units(chunk_.data(), off, len);
            if (!write_all(s_.check_fd, chunk_.data(), len, off)) return false;
        }
        ::fdatasync(s_.check_fd);
        return true;
    }

    void run_row(SyncCompareRow& row) {
        int flags = O_RDWR | O_CLOEXEC | (s_.direct ? O_DIRECT : 0);
        if (row.method == SyncMethod::osync) flags |= O_SYNC;
        if (row.method == SyncMethod::dsync) flags |= O_DSYNC;
        io::UniqueFd fd(::open(s_.path.c_str(), flags));
        if (!fd.valid()) {
            row.available = false;
            row.reason =
                "open(" + open_flags_text(s_.direct, row.method) + "): " + std::strerror(errno);
            return;
        }
        std::unique_ptr<io::Backend> backend = s_.make_backend(fd.get(), op_buf_.span());
        const bool flush = row.method == SyncMethod::fsync || row.method == SyncMethod::fdatasync;
        const std::uint32_t op_bytes = row.write_bytes * row.writes_per_op;
        const std::uint64_t slots = s_.file_bytes / op_bytes;
        const std::uint64_t t0 = monotonic_ns();
        const std::uint64_t deadline = t0 + seconds_to_ns(s_.row_s);
        io::Request req;
        io::Completion done[1];
        // One operation at a time: submit, wait, check.  Returns the result.
        auto one = [&]() -> std::int32_t {
            while (true) {
                backend->prepare(req);
                std::size_t n = 0;
                while (n == 0)
                    n = backend->reap(done, 1);
                std::int32_t res = done[0].result;
                if (res == -EAGAIN || res == -EINTR) continue;
                if (res > 0 && !io::is_flush(req.kind) &&
                    static_cast<std::uint32_t>(res) < req.length) {
                    req.offset += static_cast<std::uint32_t>(res);
                    req.buf += res;
                    req.length -= static_cast<std::uint32_t>(res);
                    continue;
                }
                return res;
            }
        };
        std::uint64_t cursor = 0;
        bool failed = false;
        while (!failed && !stopping()) {
            if (s_.row_ops ? row.ops >= s_.row_ops : monotonic_ns() >= deadline) break;
            const std::uint64_t base = (cursor++ % slots) * op_bytes;
            const std::uint64_t start = monotonic_ns();
            for (unsigned w = 0; w < row.writes_per_op && !failed; ++w) {
                const std::uint64_t off = base + std::uint64_t{w} * row.write_bytes;
                fill_units(op_buf_.data(), off, row.write_bytes);
                req = io::Request{};
                req.kind = io::OpKind::write;
                req.offset = off;
                req.length = row.write_bytes;
                req.buf = op_buf_.data();
                std::int32_t res = one();
                if (res < 0) {
                    forget(off, row.write_bytes);
                    fail(row, io::OpKind::write, -res, off, row.write_bytes);
                    failed = true;
                }
            }
            if (!failed && flush) {
                req = io::Request{};
                req.kind =
                    row.method == SyncMethod::fsync ? io::OpKind::fsync : io::OpKind::fdatasync;
                std::int32_t res = one();
                if (res < 0) {
                    fail(row, req.kind, -res, 0, 0);
                    failed = true;
                }
            }
            if (failed) break;
            row.latency.record(monotonic_ns() - start);
            ++row.ops;
        }
        row.seconds = (monotonic_ns() - t0) / 1e9;
        backend.reset();
        fd.reset();
        if (row.available) verify(row);
    }

  private:
    void fill_units(std::byte* buf, std::uint64_t offset, std::uint32_t length) {
        pattern::UnitIdentity id{s_.run_id, 0, offset, 1, kUnit};
        for (std::uint32_t done = 0; done < length; done += kUnit) {
            auto& g = gens_[(offset + done) / kUnit];
            g = pattern::next_generation(g);
            id.offset = offset + done;
            id.generation = g;
            pattern::fill_unit({buf + done, kUnit}, id);
        }
    }

    void forget(std::uint64_t offset, std::uint32_t length) {
        for (std::uint32_t done = 0; done < length; done += kUnit)
            gens_[(offset + done) / kUnit] = pattern::kUnknownGeneration;
    }

    static bool write_all(int fd, std::byte* buf, std::uint32_t len, std::uint64_t off) {
        while (len > 0) {
            ssize_t n = ::pwrite(fd, buf, len, static_cast<off_t>(off));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            buf += n;
            len -= static_cast<std::uint32_t>(n);
            off += static_cast<std::uint64_t>(n);
        }
        return true;
    }

    // A failed write or flush: "n/a" when it is a refusal on the row's first
    // operation (the method is not supported), else an I/O error.  Returns
    // true when it was a refusal.
    bool fail(SyncCompareRow& row, io::OpKind op, int err, std::uint64_t off, std::uint32_t len) {
        if (row.ops == 0 && refusal(err)) {
            row.available = false;
            row.reason = std::string(io::to_string(op)) + " with " +
                         open_flags_text(s_.direct, row.method) + ": " + std::strerror(err);
            return true;
        }
        ++row.mismatches;
        MismatchRecord rec;
        rec.phase = Phase::seq_write;
        rec.path = s_.path;
        rec.offset = off;
        rec.unit_offset = off;
        rec.length = len;
        rec.cls = pattern::MismatchClass::io_error;
        rec.error = err;
        rec.op = op;
        add(std::move(rec));
        return false;
    }

    void add(MismatchRecord rec) {
        ++totals_[static_cast<std::size_t>(rec.cls)];
        rec.iteration = 1;
        if (records_.size() < RunResult::kMaxRecords) records_.push_back(std::move(rec));
    }

    // Reads the whole file back through the check descriptor and checks
    // every unit against its latest generation.
    void verify(SyncCompareRow& row) {
        if (!s_.check_direct) {
            ::fdatasync(s_.check_fd);
            ::posix_fadvise(s_.check_fd, 0, 0, POSIX_FADV_DONTNEED);
        }
        for (std::uint64_t off = 0; off < s_.file_bytes; off += kFillChunk) {
            std::uint32_t len = static_cast<std::uint32_t>(
                std::min<std::uint64_t>(kFillChunk, s_.file_bytes - off));
            std::uint32_t got = 0;
            while (got < len) {
                ssize_t n = ::pread(s_.check_fd, chunk_.data() + got, len - got,
                                    static_cast<off_t>(off + got));
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) {
                    ++row.mismatches;
                    MismatchRecord rec;
                    rec.phase = Phase::reverify;
                    rec.path = s_.path;
                    rec.offset = off + got;
                    rec.unit_offset = off + got;
                    rec.length = len - got;
                    rec.cls = n == 0 ? pattern::MismatchClass::short_read
                                     : pattern::MismatchClass::io_error;
                    rec.error = n == 0 ? 0 : errno;
                    add(std::move(rec));
                    break;
                }
                got += static_cast<std::uint32_t>(n);
            }
            for (std::uint32_t u = 0; u + kUnit <= got; u += kUnit) {
                pattern::UnitIdentity id{s_.run_id, 0, off + u, gens_[(off + u) / kUnit], kUnit};
                if (id.generation == pattern::kUnknownGeneration) continue;
                std::span<const std::byte> unit{chunk_.data() + u, kUnit};
                row.verified_bytes += kUnit;
                if (pattern::first_mismatch(unit, id) == kUnit) continue;
                pattern::Diagnosis d = pattern::diagnose(unit, id);
                ++row.mismatches;
                MismatchRecord rec;
                rec.phase = Phase::reverify;
                rec.path = s_.path;
                rec.offset = id.offset + d.first_bad_byte;
                rec.unit_offset = id.offset;
                rec.length = kUnit;
                rec.cls = d.cls;
                rec.bad_bytes = d.bad_bytes;
                rec.expected_generation = id.generation;
                rec.found = d.found;
                add(std::move(rec));
            }
        }
    }

    const SyncCompareSetup& s_;
    std::atomic<bool>& stop_;
    std::vector<MismatchRecord>& records_;
    ClassCounts& totals_;
    std::vector<pattern::Generation> gens_;
    io::AlignedBuffer op_buf_;
    io::AlignedBuffer chunk_;
};

}  // namespace

BackendFactory default_backend_factory(io::BackendKind kind) {
    return [kind](int fd, std::span<std::byte> buffers) -> std::unique_ptr<io::Backend> {
        if (kind == io::BackendKind::io_uring)
            return std::make_unique<io::UringBackend>(fd, 2, buffers);
        return std::make_unique<io::SyncBackend>(fd);
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
    if (!table.fill())
        throw std::system_error(errno, std::generic_category(),
                                "--sync-compare: writing " + setup.path);
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
