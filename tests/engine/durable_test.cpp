// Durable writes in the worker (--sync, --batch) and the --sync-compare
// table, on a real file through a recording, fault-injecting backend:
// flushes only with no write in flight, one per --sync-every writes, the
// listener told exactly the completed writes, failures counted.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "engine/worker.h"
#include "faulty_backend.h"
#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"
#include "run/sync_compare.h"
#include "temp_file.h"
#include "worker_plan.h"

using namespace ds;
using model::Phase;
using model::SyncMethod;

namespace {

constexpr std::uint64_t kFileBytes = 4ULL << 20;
constexpr std::uint32_t kUnit = 4096;
constexpr std::uint32_t kSeqBlock = 64 * 1024;
constexpr std::uint64_t kSeqWrites = kFileBytes / kSeqBlock;  // 64
constexpr std::uint64_t kUnitsPerBlock = kSeqBlock / kUnit;   // 16

struct TempFile : test::TempFile {
    explicit TempFile(std::uint64_t bytes = kFileBytes) : test::TempFile(bytes) {}
};

// Keeps a copy of every acknowledged map it is given.
struct RecordingListener final : model::DurabilityListener {
    std::vector<std::vector<pattern::Generation>> calls;
    void acknowledged(unsigned, std::span<const pattern::Generation> acked) override {
        calls.emplace_back(acked.begin(), acked.end());
    }
    static std::uint64_t known(const std::vector<pattern::Generation>& m) {
        return static_cast<std::uint64_t>(
            std::count_if(m.begin(), m.end(), [](auto g) { return g != 0; }));
    }
};

bool uring_usable() {
    return io::probe_io_uring().usable;
}

struct Fixture {
    TempFile file;
    std::atomic<bool> stop{false};
    model::WorkerPlan work;
    std::unique_ptr<engine::Worker> worker;
    test::FaultyBackend* faulty = nullptr;
    RecordingListener listener;

    Fixture(bool uring, SyncMethod sync, std::uint64_t every, unsigned batch = 1,
            unsigned read_pct = 50) {
        work.file_bytes = kFileBytes;
        work.unit = work.rand_block = work.max_rand_block = kUnit;
        work.seq_block = kSeqBlock;
        work.seq_depth = 8;
        work.rand_depth = 16;
        work.read_pct = read_pct;
        work.sync = sync;
        work.sync_every = every;
        work.batch = batch;
        worker = std::make_unique<engine::Worker>(test::one_worker_plan(work), 0, file.path,
                                                  file.fd, 7, pattern::data_id_from_seed(7), stop);
        std::unique_ptr<io::Backend> inner;
        if (uring)
            inner = std::make_unique<io::UringBackend>(file.fd, 16, worker->buffer_arena());
        else
            inner = std::make_unique<io::SyncBackend>(file.fd);
        work = test::fitted(work, inner->depth());
        auto f = std::make_unique<test::FaultyBackend>(std::move(inner));
        faulty = f.get();
        worker->set_backend(std::move(f));
        worker->set_durability_listener(&listener);
    }
    engine::PhaseOutcome phase(Phase p, std::uint64_t ops = 0) {
        model::WorkerPlan mine = work;
        mine.op_limit = ops;
        engine::PhaseOrder order;
        order.phase = p;
        order.work = &mine;
        return worker->run(order);
    }
};

std::vector<bool> backends() {
    std::vector<bool> b{false};
    if (uring_usable())
        b.push_back(true);
    else
        MESSAGE("io_uring unusable here: io_uring cases skipped");
    return b;
}

}  // namespace

TEST_CASE("fdatasync every 4 writes: one flush per 4 writes, never with a write in flight") {
    for (bool uring : backends()) {
        CAPTURE(uring);
        Fixture f(uring, SyncMethod::fdatasync, 4);
        auto w = f.phase(Phase::seq_write);
        CHECK(w.counters.write_ops == kSeqWrites);
        CHECK(w.counters.flush_ops == kSeqWrites / 4);
        CHECK(w.counters.flush_latency.count() == kSeqWrites / 4);
        CHECK(f.faulty->flushes() == kSeqWrites / 4);
        CHECK(f.faulty->flushes_with_writes_in_flight() == 0);
        // Flushes are not writes: write latency counts only the writes.
        CHECK(w.counters.write_latency.count() == kSeqWrites);

        auto r = f.phase(Phase::random, 3000);
        const std::uint64_t writes = r.counters.write_ops;
        CHECK(writes > 500);
        CHECK(r.counters.flush_ops == (writes + 3) / 4);  // the last writes get a flush too
        CHECK(f.faulty->flushes_with_writes_in_flight() == 0);
        CHECK(r.counters.mismatch_total() == 0);
        CHECK(f.phase(Phase::reverify).counters.mismatch_total() == 0);
    }
}

TEST_CASE("a read-only phase issues no flush") {
    Fixture f(false, SyncMethod::fsync, 1);
    f.phase(Phase::seq_write);
    const auto flushes = f.faulty->flushes();
    auto r = f.phase(Phase::seq_read);
    CHECK(r.counters.flush_ops == 0);
    CHECK(f.faulty->flushes() == flushes);
}

TEST_CASE("the listener gets exactly the writes completed before each flush") {
    for (bool uring : backends()) {
        CAPTURE(uring);
        Fixture f(uring, SyncMethod::fsync, 4);
        f.phase(Phase::seq_write);
        // Sequential writes go out in order, four per flush: after flush k
        // the first 4k blocks are durable and nothing else, even though the
        // next group's writes were issued (and changed the worker's map)
        // while flush k was in flight.
        REQUIRE(f.listener.calls.size() == kSeqWrites / 4);
        for (std::size_t k = 0; k < f.listener.calls.size(); ++k) {
            CAPTURE(k);
            const auto& m = f.listener.calls[k];
            const std::uint64_t durable_units = (k + 1) * 4 * kUnitsPerBlock;
            CHECK(RecordingListener::known(m) == durable_units);
            CHECK(std::all_of(m.begin(), m.begin() + static_cast<long>(durable_units),
                              [](auto g) { return g == 1; }));
        }
        CHECK(std::equal(f.worker->acknowledged().begin(), f.worker->acknowledged().end(),
                         f.worker->generations().begin()));
    }
}

TEST_CASE("random phase: every acknowledged map matches the file's content") {
    // After the phase, each acked generation is at most the current one and
    // the last map (after the final flush) equals the worker's map.
    Fixture f(uring_usable(), SyncMethod::fdatasync, 8);
    f.phase(Phase::seq_write);
    f.listener.calls.clear();
    auto r = f.phase(Phase::random, 2000);
    REQUIRE(r.counters.flush_ops == f.listener.calls.size());
    REQUIRE(!f.listener.calls.empty());
    const auto& last = f.listener.calls.back();
    CHECK(std::equal(last.begin(), last.end(), f.worker->generations().begin()));
    // Generations only move forward between calls (no wrap in 2000 ops).
    for (std::size_t k = 1; k < f.listener.calls.size(); ++k)
        for (std::size_t u = 0; u < last.size(); ++u)
            if (f.listener.calls[k][u] < f.listener.calls[k - 1][u]) FAIL("generation went back");
}

TEST_CASE("a failed flush is an io-error naming the flush, and acknowledges nothing") {
    Fixture f(false, SyncMethod::fdatasync, 4);
    f.faulty->fail_at(io::OpKind::fdatasync, 0, EIO);
    auto w = f.phase(Phase::seq_write);
    CHECK(w.completed);
    CHECK(w.counters.mismatches[static_cast<int>(pattern::MismatchClass::io_error)] == 1);
    CHECK(w.counters.flush_ops == kSeqWrites / 4 - 1);
    REQUIRE(f.worker->records().size() == 1);
    CHECK(f.worker->records()[0].op == io::OpKind::fdatasync);
    CHECK(f.worker->records()[0].error == EIO);
    // The first group's units were never acknowledged, not even by later flushes.
    REQUIRE(f.listener.calls.size() == kSeqWrites / 4 - 1);
    const auto& first = f.listener.calls.front();
    CHECK(std::all_of(first.begin(), first.begin() + 4 * kUnitsPerBlock,
                      [](auto g) { return g == 0; }));
    CHECK(RecordingListener::known(f.listener.calls.back()) == (kSeqWrites - 4) * kUnitsPerBlock);
}

TEST_CASE("a flush that finds the filesystem full is no drive error") {
    Fixture f(false, SyncMethod::fsync, 4);
    f.faulty->fail_at(io::OpKind::fsync, 0, ENOSPC);
    auto w = f.phase(Phase::seq_write);
    CHECK(w.no_space_at.has_value());
    CHECK(w.no_space_in_flush);
    CHECK(w.counters.mismatch_total() == 0);
    CHECK(f.worker->records().empty());
    CHECK(w.counters.flush_ops == kSeqWrites / 4 - 1);
    // What that flush covered is never acknowledged, as for any failed flush.
    REQUIRE_FALSE(f.listener.calls.empty());
    const auto& first = f.listener.calls.front();
    CHECK(std::all_of(first.begin(), first.begin() + 4 * kUnitsPerBlock,
                      [](auto g) { return g == 0; }));
}

TEST_CASE("dsync: every write carries RWF_DSYNC, the listener hears every N writes") {
    for (bool uring : backends()) {
        CAPTURE(uring);
        Fixture f(uring, SyncMethod::dsync, 8);
        f.faulty->fail_at(io::OpKind::write, 10 * kSeqBlock, EIO);
        auto w = f.phase(Phase::seq_write);
        CHECK(f.faulty->writes_with_flags(RWF_DSYNC) == kSeqWrites);
        CHECK(f.faulty->writes_with_flags(0) == 0);
        CHECK(w.counters.flush_ops == 0);
        CHECK(f.faulty->flushes() == 0);
        CHECK(w.counters.write_errors == 1);
        CHECK(f.listener.calls.size() == kSeqWrites / 8);
        // The failed write's units are unknown in the acknowledged map.
        const auto& last = f.listener.calls.back();
        CHECK(RecordingListener::known(last) == (kSeqWrites - 1) * kUnitsPerBlock);
        CHECK(last[10 * kUnitsPerBlock] == 0);
        // Generation 1, or 2 when its write was issued after the failure
        // came back: a unit written after a unit became unknown continues
        // past every generation handed out before (engine/unit_map.h).
        CHECK((last[11 * kUnitsPerBlock] == 1 || last[11 * kUnitsPerBlock] == 2));
    }
}

TEST_CASE("failed writes are counted for the write summary, ENOSPC included") {
    Fixture f(false, SyncMethod::none, 1);
    f.faulty->fail_at(io::OpKind::write, 3 * kSeqBlock, EIO);
    auto w = f.phase(Phase::seq_write);
    CHECK(w.completed);  // EIO: counted, the run goes on
    CHECK(w.counters.write_errors == 1);
    CHECK(w.counters.write_ops == kSeqWrites - 1);
    Fixture g(false, SyncMethod::none, 1);
    g.faulty->fail_at(io::OpKind::write, 5 * kSeqBlock, ENOSPC);
    auto n = g.phase(Phase::seq_write);
    CHECK(n.no_space_at.has_value());  // the runner ends the run after the phase (exit 1)
    CHECK(n.completed);
    CHECK(n.counters.write_errors == 1);
    CHECK(n.counters.mismatch_total() == 0);
}

TEST_CASE("osync uses RWF_SYNC; none uses no flag and calls no listener") {
    Fixture o(false, SyncMethod::osync, 1);
    o.phase(Phase::seq_write);
    CHECK(o.faulty->writes_with_flags(RWF_SYNC) == kSeqWrites);
    CHECK(o.listener.calls.size() == kSeqWrites);
    Fixture n(false, SyncMethod::none, 1);
    n.phase(Phase::seq_write);
    CHECK(n.faulty->writes_with_flags(0) == kSeqWrites);
    CHECK(n.listener.calls.empty());
}

TEST_CASE("--batch 8: operations are submitted eight at a time") {
    if (!uring_usable()) {
        MESSAGE("io_uring unusable here: skipped");
        return;
    }
    Fixture f(true, SyncMethod::none, 1, 8, 0);
    f.phase(Phase::seq_write);
    auto before = f.faulty->submissions().size();
    auto r = f.phase(Phase::random, 2000);  // 250 batches
    CHECK(r.counters.write_ops == 2000);
    std::vector<unsigned> sizes(f.faulty->submissions().begin() + static_cast<long>(before),
                                f.faulty->submissions().end());
    REQUIRE(!sizes.empty());
    CHECK(std::all_of(sizes.begin(), sizes.end(), [](unsigned n) { return n == 8; }));
    CHECK(f.faulty->overlaps() == 0);
    CHECK(f.phase(Phase::reverify).counters.mismatch_total() == 0);
}

TEST_CASE("sync-compare: a refused flush is n/a with its reason, a failed write an io-error") {
    TempFile file(1ULL << 20);
    std::atomic<bool> stop{false};
    std::vector<model::MismatchRecord> records;
    model::ClassCounts totals{};
    unsigned row = 0;
    run::SyncCompareSetup setup{
        file.path, file.fd, false, false, 1ULL << 20, 99, 0, 5, [&](int fd, std::span<std::byte>) {
            auto f = std::make_unique<test::FaultyBackend>(std::make_unique<io::SyncBackend>(fd));
            f->fail_at(io::OpKind::fsync, 0, EINVAL);
            f->fail_at(io::OpKind::fdatasync, 0, EOPNOTSUPP);
            if (row++ == 1) f->fail_at(io::OpKind::write, 8192, EIO);
            return f;
        }};
    auto res = run::run_sync_compare(setup, stop, records, totals);
    REQUIRE(res.rows.size() == 18);
    for (const auto& r : res.rows) {
        CAPTURE(std::string(model::to_string(r.method)));
        CAPTURE(r.write_bytes);
        const bool flush = r.method == SyncMethod::fsync || r.method == SyncMethod::fdatasync;
        CHECK(r.available == !flush);
        if (flush) {
            CHECK(r.reason.find(r.method == SyncMethod::fsync ? "fsync" : "fdatasync") !=
                  std::string::npos);
            CHECK(r.reason.find(std::strerror(
                      r.method == SyncMethod::fsync ? EINVAL : EOPNOTSUPP)) != std::string::npos);
            CHECK(r.ops == 0);
        } else if (&r != &res.rows[1]) {
            CHECK(r.ops == 5);
            CHECK(r.latency.count() == 5);
            CHECK(r.mismatches == 0);
            CHECK(r.verified_bytes == (1ULL << 20));
        }
    }
    // Row 1 (none, 8K): its second write failed with EIO after one durable write.
    CHECK(res.rows[1].ops == 1);
    CHECK(res.rows[1].mismatches == 1);
    CHECK(totals[static_cast<int>(pattern::MismatchClass::io_error)] == 1);
    REQUIRE(records.size() == 1);
    CHECK(records[0].op == io::OpKind::write);
    CHECK(records[0].error == EIO);
}

TEST_CASE("sync-compare: a unit damaged behind the table's back is found") {
    // The read-back is real: corrupt the file between the fill and a row's
    // verification by failing nothing but flipping a byte through a backend
    // that writes one wrong byte after its first write.
    TempFile file(1ULL << 20);
    std::atomic<bool> stop{false};
    std::vector<model::MismatchRecord> records;
    model::ClassCounts totals{};
    unsigned row = 0;
    run::SyncCompareSetup setup{
        file.path, file.fd, false, false, 1ULL << 20, 99, 0, 3, [&](int fd, std::span<std::byte>) {
            if (row++ == 4) {
                // Before row 4 runs: damage a unit far from its writes.
                unsigned char b = 0;
                REQUIRE(::pread(fd, &b, 1, 900 * 1024 + 77) == 1);
                b ^= 1;
                REQUIRE(::pwrite(fd, &b, 1, 900 * 1024 + 77) == 1);
            }
            return std::make_unique<io::SyncBackend>(fd);
        }};
    run::run_sync_compare(setup, stop, records, totals);
    CHECK(totals[static_cast<int>(pattern::MismatchClass::corrupt)] >= 1);
    REQUIRE(!records.empty());
    CHECK(records[0].offset == 900 * 1024 + 77);
}
