// Several workers on one file (jobs sharing it, a job's copies): one shared
// generation map with atomic claims, random and sequential streams side by
// side, on both backends.  No unit is ever in flight twice where either
// operation writes, no read finds a false mismatch, and a bit flipped while
// they run is found at its offset with the job that read it named.
// suite threads: four workers' threads on one shared map
#include "engine/shared_unit_map.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/worker.h"
#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"
#include "model/plan.h"
#include "temp_file.h"

using namespace ds;
using model::Phase;

namespace {

constexpr std::uint64_t kFileBytes = 4ULL << 20;

bool uring_usable() {
    return io::probe_io_uring().usable;
}

// What every worker's backend has in flight, across the workers: an
// operation prepared over one in flight where either writes (or trims) is
// an overlap, which the shared claims must make impossible.
class InFlight {
  public:
    void prepared(const void* who, const io::Request& r) {
        std::lock_guard lock(mu_);
        ops_.erase(&r);  // a retried or resumed operation again
        for (const auto& [req, op] : ops_) {
            if (!(r.offset < op.offset + op.length && op.offset < r.offset + r.length)) continue;
            if (r.kind == io::OpKind::read && op.kind == io::OpKind::read)
                ++shared_reads_;
            else
                ++overlaps_;
        }
        ops_[&r] = {r.offset, r.length, r.kind, who};
        lowest_ = std::min(lowest_, r.offset);
        highest_end_ = std::max(highest_end_, r.offset + r.length);
    }
    void completed(const io::Request& r) {
        std::lock_guard lock(mu_);
        ops_.erase(&r);
    }
    std::uint64_t overlaps() const { return overlaps_; }
    std::uint64_t shared_reads() const { return shared_reads_; }
    void reset_bounds() {
        std::lock_guard lock(mu_);
        lowest_ = ~std::uint64_t{0};
        highest_end_ = 0;
    }
    // The lowest offset and the highest end of everything prepared since.
    std::uint64_t lowest() const { return lowest_; }
    std::uint64_t highest_end() const { return highest_end_; }

  private:
    struct Op {
        std::uint64_t offset;
        std::uint32_t length;
        io::OpKind kind;
        const void* who;
    };
    std::mutex mu_;
    std::map<const io::Request*, Op> ops_;
    std::uint64_t overlaps_ = 0, shared_reads_ = 0;
    std::uint64_t lowest_ = ~std::uint64_t{0}, highest_end_ = 0;
};

// A backend that tells InFlight what it prepares and completes.
class WatchedBackend final : public io::Backend {
  public:
    WatchedBackend(std::unique_ptr<io::Backend> inner, InFlight& watch)
        : inner_(std::move(inner)), watch_(watch) {}
    io::BackendKind kind() const override { return inner_->kind(); }
    io::BackendDescription describe() const override { return inner_->describe(); }
    unsigned depth() const override { return inner_->depth(); }
    std::uint64_t system_calls() const override { return inner_->system_calls(); }
    void prepare(io::Request& r) override {
        if (!io::is_flush(r.kind)) watch_.prepared(this, r);
        inner_->prepare(r);
    }
    int submit() override { return inner_->submit(); }
    std::size_t reap(std::span<io::Completion> out, unsigned min_complete) override {
        const std::size_t n = inner_->reap(out, min_complete);
        for (std::size_t i = 0; i < n; ++i)
            if (!io::is_flush(out[i].req->kind)) watch_.completed(*out[i].req);
        return n;
    }
    bool cancel(std::span<io::Request* const> in_flight) override {
        return inner_->cancel(in_flight);
    }

  private:
    std::unique_ptr<io::Backend> inner_;
    InFlight& watch_;
};

// The jobs' workers on one temporary file, its shared map, a backend each.
struct Run {
    test::TempFile file{kFileBytes};
    std::atomic<bool> stop{false};
    model::RunPlan plan;
    std::unique_ptr<engine::SharedUnitMap> map;
    std::vector<std::unique_ptr<engine::Worker>> workers;
    InFlight watch;
    bool uring;

    // The jobs on the one file; its map shared when several workers are on it.
    Run(std::vector<model::JobSpec> jobs, bool uring_backend) : uring(uring_backend) {
        for (auto& j : jobs)
            j.files = {{"f", kFileBytes, 0}};
        model::RunConfig cfg;
        cfg.seq_block = 64 * 1024;
        plan = model::make_run_plan(cfg, jobs, {2});
        REQUIRE(plan.files.size() == 1);
        if (plan.files[0].shared())
            map = std::make_unique<engine::SharedUnitMap>(kFileBytes, plan.files[0].unit);
        for (unsigned i = 0; i < plan.workers.size(); ++i) {
            workers.push_back(
                std::make_unique<engine::Worker>(plan, i, file.path, file.fd, 7, 99, stop));
            workers.back()->set_shared_map(map.get());
        }
    }
    // On the calling thread: a fresh backend for worker i, as deep as its plan.
    void backend_for(unsigned i) {
        engine::Worker& w = *workers[i];
        const unsigned depth = std::max(plan.workers[i].rand_depth, plan.workers[i].seq_depth);
        std::unique_ptr<io::Backend> inner;
        if (uring)
            inner = std::make_unique<io::UringBackend>(file.fd, depth, w.buffer_arena());
        else if (depth > 1)
            inner = std::make_unique<io::ThreadedSyncBackend>(file.fd, depth);
        else
            inner = std::make_unique<io::SyncBackend>(file.fd);
        w.set_backend(std::make_unique<WatchedBackend>(std::move(inner), watch));
    }
    // One worker alone: the file laid out, or reverified.
    engine::PhaseOutcome alone(Phase phase, unsigned i = 0) {
        engine::PhaseOutcome out;
        std::thread t([&] {
            backend_for(i);
            engine::PhaseOrder order;
            order.phase = phase;
            order.work = &plan.workers[i];
            out = workers[i]->run(order);
            workers[i]->close_backend();
        });
        t.join();
        return out;
    }
    // Every worker's workload at once, each on its own thread.
    std::vector<engine::PhaseOutcome> together(void (*pause)() = nullptr, unsigned paused = 0,
                                               std::uint64_t after = 0) {
        std::vector<engine::PhaseOutcome> out(workers.size());
        std::vector<std::thread> threads;
        for (unsigned i = 0; i < workers.size(); ++i)
            threads.emplace_back([&, i] {
                backend_for(i);
                engine::PhaseOrder order;
                order.phase = Phase::random;
                order.work = &plan.workers[i];
                if (pause && i == paused) {
                    order.pause = pause;
                    order.pause_after_ops = after;
                }
                out[i] = workers[i]->run(order);
                workers[i]->close_backend();
            });
        for (auto& t : threads)
            t.join();
        return out;
    }
};

model::JobSpec job(std::string name, model::Access access, unsigned read_pct, unsigned copies,
                   unsigned depth) {
    model::JobSpec j;
    j.name = std::move(name);
    j.access = access;
    j.read_pct = read_pct;
    j.copies = copies;
    j.depth = depth;
    return j;
}

}  // namespace

TEST_CASE("shared claims: a write alone, reads together, all or none, nothing held on failure") {
    engine::SharedUnitMap m(64 * 4096, 4096);
    CHECK(m.try_claim(0, 4, false));
    CHECK(m.try_claim(2, 6, false));  // reads share units 2 and 3
    CHECK(m.claim_word(2) == 2);
    CHECK_FALSE(m.try_claim(5, 9, true));  // unit 5 is read: no write
    for (std::uint64_t u = 6; u < 9; ++u)
        CHECK(m.claim_word(u) == 0);  // what it took before failing is released
    CHECK(m.try_claim(6, 9, true));
    CHECK_FALSE(m.try_claim(8, 10, false));  // unit 8 is written: no read
    CHECK(m.claim_word(9) == 0);
    m.release(0, 4, false);
    m.release(2, 6, false);
    m.release(6, 9, true);
    for (std::uint64_t u = 0; u < 10; ++u)
        CHECK(m.claim_word(u) == 0);
}

TEST_CASE("shared map: generations past every one handed out after a unit is forgotten") {
    engine::SharedUnitMap m(16 * 4096, 4096);
    m.advance(0, 4096);
    m.advance(0, 4096);
    m.advance(4096, 8192);
    CHECK(m.generation(0) == 2);
    CHECK(m.highest() == 2);
    m.forget(0, 4096);
    CHECK(m.generation(0) == pattern::kUnknownGeneration);
    m.advance(0, 4096);
    CHECK(m.generation(0) == 3);  // never 1 or 2 again
    m.trim(4096, 4096);
    CHECK(m.trimmed(1));
    CHECK(m.trims());
    m.advance(4096, 4096);
    CHECK_FALSE(m.trimmed(1));
}

TEST_CASE("writers and readers, random and sequential, on one file: no race, no false mismatch") {
    for (bool uring : {false, true}) {
        if (uring && !uring_usable()) {
            MESSAGE("io_uring unusable here: uring case skipped");
            continue;
        }
        for (unsigned qd : {1U, 64U}) {
            CAPTURE(uring);
            CAPTURE(qd);
            model::JobSpec mixed = job("mixed", model::Access::random, 50, 2, qd);
            mixed.ops = 3000;
            model::JobSpec writer = job("stream-w", model::Access::sequential, 0, 1, qd);
            writer.loops = 2;
            model::JobSpec reader = job("stream-r", model::Access::sequential, 100, 1, qd);
            reader.loops = 2;
            Run run({mixed, writer, reader}, uring);
            REQUIRE(run.plan.workers.size() == 4);
            REQUIRE(run.map);
            const auto laid = run.alone(Phase::seq_write);
            CHECK(laid.counters.write_bytes == kFileBytes);
            const auto outs = run.together();
            std::uint64_t reads = 0, writes = 0, verified = 0;
            for (const auto& o : outs) {
                CHECK(o.completed);
                CHECK(o.counters.mismatch_total() == 0);
                reads += o.counters.read_ops;
                writes += o.counters.write_ops;
                verified += o.counters.verified_bytes;
            }
            CHECK(outs[0].counters.read_ops + outs[0].counters.write_ops == 1500);
            CHECK(outs[2].counters.write_bytes == 2 * kFileBytes);  // two passes
            CHECK(outs[3].counters.read_bytes == 2 * kFileBytes);
            CHECK(reads > 0);
            CHECK(writes > 0);
            CHECK(verified > 0);
            CHECK(run.watch.overlaps() == 0);
            const auto again = run.alone(Phase::reverify);
            CHECK(again.counters.verified_bytes == kFileBytes);
            CHECK(again.counters.mismatch_total() == 0);
            for (std::uint64_t u = 0; u < run.map->units(); ++u)
                REQUIRE(run.map->claim_word(u) == 0);  // every claim released
        }
    }
}

TEST_CASE("placed sizes of several jobs on one file (JESD219's, iometer's): no race, in range") {
    for (bool uring : {false, true}) {
        if (uring && !uring_usable()) continue;
        CAPTURE(uring);
        model::JobSpec jesd = job("jesd219", model::Access::random, 40, 2, 64);
        jesd.mix = {{512, 4},  {1024, 1},  {1536, 1},  {2048, 1},  {2560, 1},  {3072, 1},
                    {3584, 1}, {4096, 67}, {8192, 10}, {16384, 7}, {32768, 3}, {65536, 3}};
        jesd.blockalign = 4096;
        jesd.ops = 4000;
        model::JobSpec iometer = job("iometer", model::Access::random, 80, 1, 16);
        iometer.mix = {{512, 10}, {1024, 5},  {2048, 5},  {4096, 60},
                       {8192, 2}, {16384, 4}, {32768, 4}, {65536, 10}};
        iometer.blockalign = 512;
        iometer.ops = 2000;
        Run run({jesd, iometer}, uring);
        REQUIRE(run.map);
        REQUIRE(run.plan.files[0].unit == 512);
        run.alone(Phase::seq_write);
        run.watch.reset_bounds();
        for (const auto& o : run.together()) {
            CHECK(o.completed);
            CHECK(o.counters.mismatch_total() == 0);
            CHECK(o.counters.verified_bytes == o.counters.read_bytes);
        }
        CHECK(run.watch.overlaps() == 0);
        CHECK(run.watch.highest_end() <= kFileBytes);
        const auto again = run.alone(Phase::reverify);
        CHECK(again.counters.verified_bytes == kFileBytes);
        CHECK(again.counters.mismatch_total() == 0);
        for (std::uint64_t u = 0; u < run.map->units(); ++u)
            REQUIRE(run.map->claim_word(u) == 0);  // every claim released
    }
}

namespace {

// The bit the pause flips: in the second half of the file, which only the
// readers read.
int g_flip_fd = -1;
std::atomic<bool> g_flipped{false};
constexpr std::uint64_t kFlipAt = (3ULL << 20) + 5 * 4096 + 123;

// On the worker's thread (no assertion there: it is checked after).
void flip_bit() {
    unsigned char byte;
    if (::pread(g_flip_fd, &byte, 1, kFlipAt) != 1) return;
    byte ^= 0x04;
    g_flipped = ::pwrite(g_flip_fd, &byte, 1, kFlipAt) == 1;
}

}  // namespace

TEST_CASE("four copies on one file find a bit flipped while they run, at its offset, job named") {
    for (bool uring : {false, true}) {
        if (uring && !uring_usable()) {
            MESSAGE("io_uring unusable here: uring case skipped");
            continue;
        }
        CAPTURE(uring);
        // Two writers in the first half, two readers passing over the second.
        model::JobSpec writer = job("writer", model::Access::random, 30, 2, 8);
        writer.range_bytes = kFileBytes / 2;
        writer.ops = 2000;
        model::JobSpec reader = job("reader", model::Access::sequential, 100, 2, 8);
        reader.offset = kFileBytes / 2;
        reader.loops = 3;
        Run run({writer, reader}, uring);
        REQUIRE(run.map);
        run.alone(Phase::seq_write);
        g_flip_fd = run.file.fd;
        g_flipped = false;
        const auto outs = run.together(flip_bit, 2, 10);  // the first reader, mid-pass
        REQUIRE(g_flipped);
        CHECK(outs[0].counters.mismatch_total() == 0);
        CHECK(outs[1].counters.mismatch_total() == 0);
        // The reader that paused reads the unit later in its pass (and on
        // the passes after); the other may have been done before the flip.
        CHECK(outs[2].counters.mismatch_total() >= 1);
        bool named = false;
        for (unsigned i = 2; i < 4; ++i) {
            for (const auto& rec : run.workers[i]->records()) {
                CHECK(rec.offset == kFlipAt);
                CHECK(rec.unit_offset == kFlipAt / 4096 * 4096);
                CHECK(rec.cls == pattern::MismatchClass::corrupt);
                CHECK(rec.job == "reader");
                named = true;
            }
        }
        CHECK(named);
        CHECK(run.watch.overlaps() == 0);
    }
}

TEST_CASE("a worker alone on its file keeps to its range, random or sequential, no map shared") {
    for (model::Access access : {model::Access::random, model::Access::sequential}) {
        CAPTURE(static_cast<int>(access));
        model::JobSpec j = job("ranged", access, 50, 1, 4);
        j.offset = 1ULL << 20;
        j.range_bytes = 1ULL << 20;
        j.ops = 600;
        Run run({j}, false);
        CHECK_FALSE(run.map);  // one worker: its own UnitMap
        run.alone(Phase::seq_write);
        run.watch.reset_bounds();
        const auto outs = run.together();
        CHECK(outs[0].counters.read_ops + outs[0].counters.write_ops == 600);
        CHECK(outs[0].counters.mismatch_total() == 0);
        CHECK(outs[0].counters.verified_bytes > 0);
        CHECK(run.watch.lowest() >= 1ULL << 20);
        CHECK(run.watch.highest_end() <= 2ULL << 20);
        if (access == model::Access::sequential) {  // 600 blocks: the range twice over
            CHECK(run.watch.lowest() == 1ULL << 20);
            CHECK(run.watch.highest_end() == 2ULL << 20);
        }
        const auto again = run.alone(Phase::reverify);
        CHECK(again.counters.mismatch_total() == 0);
        CHECK(again.counters.verified_bytes == kFileBytes);
    }
}
