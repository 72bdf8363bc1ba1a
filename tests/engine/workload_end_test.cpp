// A worker's own end in the workload phase (its bytes, its passes over its
// range) and its ramp (fio's ramp_time): what completes in the ramp is
// verified and what it finds is counted, but it is not in the figures.
#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <memory>

#include "engine/worker.h"
#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"
#include "temp_file.h"
#include "worker_plan.h"

using namespace ds;
using model::Phase;

namespace {

constexpr std::uint64_t kFileBytes = 1ULL << 20;
constexpr std::uint32_t kUnit = 4096;
constexpr unsigned kDepth = 4;

// `largest`: the largest operation (a size mix's); without a mix every
// random operation is that size.
model::WorkerPlan plan_of(model::Access access, unsigned read_pct, std::uint32_t largest = kUnit) {
    model::WorkerPlan w;
    w.file_bytes = kFileBytes;
    w.unit = kUnit;
    w.seq_block = 64 * 1024;
    w.rand_block = kUnit;
    w.max_rand_block = largest;
    w.seq_depth = kDepth;
    w.rand_depth = kDepth;
    w.read_pct = read_pct;
    w.access = access;
    return w;
}

// One worker on a temporary file, on the sync thread pool or io_uring.
struct One {
    test::TempFile file{kFileBytes};
    std::atomic<bool> stop{false};
    model::RunPlan plan;
    std::unique_ptr<engine::Worker> worker;

    One(const model::WorkerPlan& w, bool uring) : plan(test::one_worker_plan(w)) {
        worker = std::make_unique<engine::Worker>(plan, 0, file.path, file.fd, 42, 7, stop);
        std::unique_ptr<io::Backend> b;
        if (uring)
            b = std::make_unique<io::UringBackend>(file.fd, kDepth, worker->buffer_arena());
        else
            b = std::make_unique<io::ThreadedSyncBackend>(file.fd, kDepth);
        worker->set_backend(std::move(b));
        run(Phase::seq_write, plan.workers[0]);  // every unit known
    }
    engine::PhaseOutcome run(Phase p, const model::WorkerPlan& w) {
        engine::PhaseOrder order;
        order.phase = p;
        order.work = &w;
        return worker->run(order);
    }
};

std::uint64_t ops(const engine::PhaseOutcome& o) {
    return o.counters.read_ops + o.counters.write_ops;
}

// Both backends, io_uring where the kernel lets us.
template <class F>
void on_both(F&& f) {
    for (bool uring : {false, true}) {
        if (uring && !io::probe_io_uring().usable) {
            MESSAGE("io_uring unusable here: uring case skipped");
            continue;
        }
        CAPTURE(uring);
        f(uring);
    }
}

// Flips one bit of the file at `at`, behind the worker's back.
void flip(const test::TempFile& file, std::uint64_t at) {
    unsigned char byte;
    REQUIRE(::pread(file.fd, &byte, 1, at) == 1);
    byte ^= 0x01;
    REQUIRE(::pwrite(file.fd, &byte, 1, at) == 1);
}

}  // namespace

TEST_CASE("a random workload ends by its bytes, its passes or its operations, the least") {
    on_both([](bool uring) {
        One one(plan_of(model::Access::random, 50), uring);
        model::WorkerPlan w = one.plan.workers[0];
        w.byte_limit = 100 * kUnit;
        engine::PhaseOutcome o = one.run(Phase::random, w);
        CHECK(ops(o) == 100);
        CHECK(o.counters.read_bytes + o.counters.write_bytes == 100 * kUnit);
        w.byte_limit = 0;
        w.loops = 2;  // two passes' bytes over its range: 2 x 256 operations
        CHECK(ops(one.run(Phase::random, w)) == 512);
        w.range_offset = kFileBytes / 2;  // half the file: 128 operations a pass
        CHECK(ops(one.run(Phase::random, w)) == 256);
        w.byte_limit = 10 * kUnit;
        CHECK(ops(one.run(Phase::random, w)) == 10);
        w.op_limit = 5;
        CHECK(ops(one.run(Phase::random, w)) == 5);
        // A mix: its bytes as operations of its mean size (4K and 16K
        // evenly: 10K), rounded up.
        One mixed(plan_of(model::Access::random, 50, 4 * kUnit), uring);
        w = mixed.plan.workers[0];
        w.rand_mix = {{kUnit, 50}, {4 * kUnit, 50}};
        w.byte_limit = 100 * 10 * 1024 + 1;
        o = mixed.run(Phase::random, w);
        CHECK(ops(o) == 101);
        CHECK(o.counters.mismatch_total() == 0);
    });
}

TEST_CASE("a stream with an offset step goes as fio's rw=read:-8k does, every read verified") {
    on_both([](bool uring) {
        One one(plan_of(model::Access::sequential, 100), uring);
        const std::uint64_t low = 5 * kUnit + 7, high = 200 * kUnit + 9;
        flip(one.file, low);
        flip(one.file, high);
        model::WorkerPlan w = one.plan.workers[0];
        w.loops = 1;
        engine::PhaseOutcome o = one.run(Phase::random, w);  // block after block
        CHECK(o.counters.read_ops == kFileBytes / kUnit);
        REQUIRE(one.worker->records().size() == 2);
        CHECK(one.worker->records()[0].offset == low);
        // Backwards, a unit a time: 0, then the end less two units down to
        // unit 1, then 0 again (the last unit is never read, as in fio):
        // the flip at the higher offset is found first.
        w.offset_step = -2 * static_cast<std::int64_t>(kUnit);
        o = one.run(Phase::random, w);
        CHECK(o.counters.read_ops == kFileBytes / kUnit);  // a pass: the range's bytes
        CHECK(o.counters.mismatch_total() == 2);
        REQUIRE(one.worker->records().size() == 4);
        CHECK(one.worker->records()[2].offset == high);
        CHECK(one.worker->records()[3].offset == low);
        // Forward holes (rw=read:4k): every other unit, wrapping to the start
        // after the last: the flip in unit 5 is never read, unit 200's twice.
        w.offset_step = kUnit;
        o = one.run(Phase::random, w);
        CHECK(o.counters.read_ops == kFileBytes / kUnit);
        CHECK(o.counters.mismatch_total() == 2);
        REQUIRE(one.worker->records().size() == 6);
        CHECK(one.worker->records()[4].offset == high);
        CHECK(one.worker->records()[5].offset == high);
    });
}

TEST_CASE("a ramp's operations are verified and their damage counted, not their figures") {
    on_both([](bool uring) {
        One one(plan_of(model::Access::sequential, 100), uring);
        const std::uint64_t bad = 5 * kUnit + 100;
        flip(one.file, bad);
        model::WorkerPlan w = one.plan.workers[0];
        w.loops = 1;                  // one pass in order over the file, reads
        w.ramp_ns = 600'000'000'000;  // the pass is over long before
        engine::PhaseOutcome o = one.run(Phase::random, w);
        CHECK(o.completed);
        CHECK(ops(o) == 0);
        CHECK(o.counters.read_bytes == 0);
        CHECK(o.counters.read_latency.count() == 0);
        CHECK(o.counters.verified_bytes == kFileBytes);
        CHECK(o.counters.mismatch_total() == 1);
        REQUIRE(one.worker->records().size() == 1);
        CHECK(one.worker->records()[0].offset == bad);
        // Without a ramp the same pass is in the figures.
        w.ramp_ns = 0;
        o = one.run(Phase::random, w);
        CHECK(o.counters.read_ops == kFileBytes / kUnit);
        CHECK(o.counters.read_latency.count() == kFileBytes / kUnit);
        CHECK(o.counters.mismatch_total() == 1);
    });
}
