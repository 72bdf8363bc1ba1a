// The worker's phase loop on a real file, through a fault-injecting backend:
// verification, error accounting, retries and the in-flight exclusion.
// suite threads: the sync thread pool at depth 16 under the worker
#include "engine/worker.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "engine/phases.h"
#include "faulty_backend.h"
#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"
#include "stats/distribution.h"
#include "temp_file.h"
#include "worker_plan.h"

using namespace ds;
using model::Phase;

namespace {

constexpr std::uint64_t kFileBytes = 4ULL << 20;
constexpr std::uint32_t kUnit = 4096;

// A one-worker plan as model/plan.h would make it for these sizes.
model::RunPlan plan_of(std::uint64_t file_bytes, const engine::RandomMix* mix = nullptr,
                       std::uint32_t unit = kUnit) {
    model::WorkerPlan w;
    w.file_bytes = file_bytes;
    w.unit = unit;
    w.seq_block = 64 * 1024;
    w.rand_block = unit;
    w.max_rand_block = mix && !mix->sizes.empty() ? mix->sizes.back().bytes : 4 * kUnit;
    if (mix) w.rand_mix.assign(mix->sizes.begin(), mix->sizes.end());
    if (mix) w.rand_align = mix->align;
    w.seq_depth = 8;
    w.rand_depth = 16;
    w.read_pct = mix ? mix->read_pct : 50;
    w.trim_pct = mix ? mix->trim_pct : 0;
    if (mix && mix->distribution) w.distribution = *mix->distribution;
    return test::one_worker_plan(w);
}

struct Fixture {
    test::TempFile file{kFileBytes};
    std::atomic<bool> stop{false};
    model::RunPlan plan = plan_of(kFileBytes);
    engine::Worker worker{plan, 0, file.path, file.fd, 42, pattern::data_id_from_seed(42), stop};
    test::FaultyBackend* faulty = nullptr;
    unsigned backend_depth = 1;
    model::WorkerPlan work;  // the last phase's plan (its order points here)

    // `threads`: the sync thread pool at depth 16 instead of one operation at
    // a time.  `file_bytes`: the part of the file the worker uses; `mix`,
    // the random phase's read share and distribution.
    explicit Fixture(bool uring = false, bool threads = false,
                     std::uint64_t file_bytes = kFileBytes, const engine::RandomMix* mix = nullptr,
                     std::uint32_t unit = kUnit)
        : plan(plan_of(file_bytes, mix, unit)) {
        std::unique_ptr<io::Backend> inner;
        if (uring)
            inner = std::make_unique<io::UringBackend>(file.fd, 16, worker.buffer_arena());
        else if (threads)
            inner = std::make_unique<io::ThreadedSyncBackend>(file.fd, 16);
        else
            inner = std::make_unique<io::SyncBackend>(file.fd);
        backend_depth = inner->depth();
        auto f = std::make_unique<test::FaultyBackend>(std::move(inner));
        faulty = f.get();
        worker.set_backend(std::move(f));
    }
    // The worker's plan for one phase, as a plan would bound it: `depth`
    // (0: the plan's), at most half the file's blocks and the backend's depth.
    const model::WorkerPlan* planned(std::uint64_t ops, std::uint32_t block, unsigned depth) {
        work = plan.workers[0];
        work.op_limit = ops;
        if (block) work.rand_block = work.max_rand_block = block;
        if (depth) work.rand_depth = depth;
        work = test::fitted(work, backend_depth);
        return &work;
    }
    engine::PhaseOutcome phase(Phase p, std::uint64_t ops = 0, std::uint32_t block = 0,
                               unsigned depth = 0) {
        engine::PhaseOrder order;
        order.phase = p;
        order.work = planned(ops, block, depth);
        return worker.run(order);
    }
    // A sequential phase with --seq-time `seconds`.
    engine::PhaseOutcome timed(Phase p, double seconds) {
        engine::PhaseOrder order;
        order.phase = p;
        order.work = planned(0, 0, 0);
        order.deadline_ns = engine::monotonic_ns() + model::seconds_to_ns(seconds);
        return worker.run(order);
    }
};

bool uring_usable() {
    return io::probe_io_uring().usable;
}

}  // namespace

TEST_CASE("a clean write and read verify every byte") {
    for (bool uring : {false, true}) {
        if (uring && !uring_usable()) {
            MESSAGE("io_uring unusable here: uring case skipped");
            continue;
        }
        CAPTURE(uring);
        Fixture f(uring);
        auto w = f.phase(Phase::seq_write);
        CHECK(w.completed);
        CHECK(w.counters.write_bytes == kFileBytes);
        CHECK(w.counters.write_ops == kFileBytes / (64 * 1024));
        auto r = f.phase(Phase::seq_read);
        CHECK(r.counters.read_bytes == kFileBytes);
        CHECK(r.counters.verified_bytes == kFileBytes);
        CHECK(r.counters.mismatch_total() == 0);
        CHECK(r.counters.read_latency.count() == r.counters.read_ops);
        CHECK(f.faulty->overlaps() == 0);
    }
}

TEST_CASE("a damaged unit is found at its exact offset and classified") {
    Fixture f;
    f.phase(Phase::seq_write);
    const std::uint64_t bad = 3 * kUnit + 1000;
    unsigned char byte;
    REQUIRE(::pread(f.file.fd, &byte, 1, bad) == 1);
    byte ^= 0x10;
    REQUIRE(::pwrite(f.file.fd, &byte, 1, bad) == 1);
    auto r = f.phase(Phase::seq_read);
    CHECK(r.counters.mismatch_total() == 1);
    CHECK(r.counters.mismatches[static_cast<int>(pattern::MismatchClass::corrupt)] == 1);
    REQUIRE(f.worker.records().size() == 1);
    const auto& rec = f.worker.records()[0];
    CHECK(rec.offset == bad);
    CHECK(rec.unit_offset == 3 * kUnit);
    CHECK(rec.bad_bytes == 1);
    CHECK(rec.phase == Phase::seq_read);
}

TEST_CASE("a read error is counted with its offset and the run goes on") {
    Fixture f;
    f.phase(Phase::seq_write);
    f.faulty->fail_at(io::OpKind::read, 5 * 64 * 1024, EIO);
    auto r = f.phase(Phase::seq_read);
    CHECK(r.completed);
    CHECK(r.counters.mismatches[static_cast<int>(pattern::MismatchClass::io_error)] == 1);
    CHECK(r.counters.verified_bytes == kFileBytes - 64 * 1024);  // everything else checked
    REQUIRE(f.worker.records().size() == 1);
    CHECK(f.worker.records()[0].offset == 5 * 64 * 1024);
    CHECK(f.worker.records()[0].error == EIO);
}

TEST_CASE("after a failed write its units are not verified, and nothing false is reported") {
    Fixture f;
    f.faulty->fail_at(io::OpKind::write, 2 * 64 * 1024, EIO);
    auto w = f.phase(Phase::seq_write);
    CHECK(w.counters.mismatches[static_cast<int>(pattern::MismatchClass::io_error)] == 1);
    auto r = f.phase(Phase::seq_read);
    CHECK(r.counters.mismatch_total() == 0);
    CHECK(r.counters.unverified_units == 64 * 1024 / kUnit);
    CHECK(r.counters.verified_bytes == kFileBytes - 64 * 1024);
}

TEST_CASE("a full filesystem is a failed write, not a drive error; the phase goes on") {
    Fixture f;
    f.faulty->fail_at(io::OpKind::write, 7 * 64 * 1024, ENOSPC);
    auto w = f.phase(Phase::seq_write);
    REQUIRE(w.no_space_at.has_value());
    CHECK(*w.no_space_at == 7 * 64 * 1024);
    CHECK(w.counters.mismatch_total() == 0);
    CHECK(w.counters.write_errors == 1);
    CHECK(w.counters.write_ops == kFileBytes / (64 * 1024) - 1);
    CHECK(w.completed);  // the runner ends the run after this phase (exit 1)
    CHECK_FALSE(f.stop.load());
    // The unit that was not written is not verified against what never landed.
    auto r = f.phase(Phase::seq_read);
    CHECK(r.counters.mismatch_total() == 0);
    CHECK(r.counters.unverified_units == 64 * 1024 / kUnit);
}

TEST_CASE("EINVAL (an alignment O_DIRECT refuses) stops the run; never a mismatch") {
    for (io::OpKind kind : {io::OpKind::write, io::OpKind::read}) {
        CAPTURE(static_cast<int>(kind));
        Fixture f;
        if (kind == io::OpKind::read) f.phase(Phase::seq_write);
        f.faulty->fail_at(kind, 3 * 64 * 1024, EINVAL);
        auto r = f.phase(kind == io::OpKind::read ? Phase::seq_read : Phase::seq_write);
        REQUIRE(r.invalid.has_value());
        CHECK(r.invalid->offset == 3 * 64 * 1024);
        CHECK(r.invalid->kind == kind);
        CHECK(r.counters.mismatch_total() == 0);
        CHECK(f.worker.records().empty());
        CHECK(f.worker.damage().empty());
        CHECK(f.stop.load());  // every worker stops issuing
        CHECK_FALSE(r.completed);
    }
}

TEST_CASE("a truncated file is noticed once; reads past its end are one extent") {
    Fixture f;
    f.phase(Phase::seq_write);
    REQUIRE(::ftruncate(f.file.fd, kFileBytes - 3 * 64 * 1024 + kUnit) == 0);
    auto r = f.phase(Phase::seq_read);
    const auto cut = kFileBytes - 3 * 64 * 1024 + kUnit;
    REQUIRE(f.worker.truncated_to().has_value());
    CHECK(*f.worker.truncated_to() == cut);
    CHECK(r.counters.mismatches[static_cast<int>(pattern::MismatchClass::short_read)] == 3);
    REQUIRE(f.worker.records().size() == 1);  // the read that straddles the cut
    CHECK(f.worker.records()[0].offset == cut);
    const auto extents = f.worker.damage().extents();
    REQUIRE(extents.size() == 1);
    CHECK(extents[0].offset == cut);
    CHECK(extents[0].length == kFileBytes - cut);
    CHECK(extents[0].reads == 3);
    CHECK(f.worker.damage().distinct_units(kUnit) == (kFileBytes - cut) / kUnit);
}

TEST_CASE("short transfers and EAGAIN are completed, not reported") {
    Fixture f;
    f.faulty->short_every(3);
    f.faulty->eagain_every(7);
    auto w = f.phase(Phase::seq_write);
    auto r = f.phase(Phase::seq_read);
    CHECK(f.faulty->injected() > 0);
    CHECK(w.counters.retries + r.counters.retries > 0);
    CHECK(r.counters.mismatch_total() == 0);
    CHECK(r.counters.verified_bytes == kFileBytes);
    CHECK(w.counters.write_bytes == kFileBytes);
}

TEST_CASE("random phase: no write overlaps anything in flight, reads after writes verify") {
    if (!uring_usable()) {
        MESSAGE("io_uring unusable here: skipped");
        return;
    }
    Fixture f(true);
    f.phase(Phase::seq_write);
    auto r = f.phase(Phase::random, 20000);
    CHECK(r.counters.read_ops + r.counters.write_ops == 20000);
    CHECK(r.counters.write_ops > 5000);
    CHECK(r.counters.read_ops > 5000);
    CHECK(f.faulty->overlaps() == 0);  // reads may share a unit (shared_reads)
    CHECK(r.counters.mismatch_total() == 0);
    // Every unit holds its latest generation: a full read agrees.
    auto v = f.phase(Phase::reverify);
    CHECK(v.counters.mismatch_total() == 0);
    CHECK(v.counters.verified_bytes == kFileBytes);
}

TEST_CASE("a hot block's reads share it; its writes have it alone; every read verifies") {
    // 90 % of the operations on 2 % of the blocks, 16 in flight on the
    // thread pool: many reads of one hot block are in flight together,
    // never beside a write of it.
    const stats::DistributionSpec hot = stats::parse_distribution("zoned:90/2,10/98");
    for (unsigned read_pct : {100U, 70U}) {
        CAPTURE(read_pct);
        const engine::RandomMix mix{read_pct, &hot};
        Fixture f(false, true, kFileBytes, &mix);
        f.phase(Phase::seq_write);
        auto r = f.phase(Phase::random, 20000);
        CHECK(r.counters.read_ops + r.counters.write_ops == 20000);
        CHECK(f.faulty->overlaps() == 0);
        CHECK(f.faulty->shared_reads() > 0);
        CHECK(r.counters.mismatch_total() == 0);
        CHECK(r.counters.verified_bytes == r.counters.read_bytes);
        REQUIRE(r.skew.has_value());
        if (read_pct == 100) CHECK(r.skew->busy_redraws == 0);  // reads never wait for reads
        auto v = f.phase(Phase::reverify);
        CHECK(v.counters.mismatch_total() == 0);
        CHECK(v.counters.verified_bytes == kFileBytes);
    }
}

TEST_CASE("a size mix: each size by its weight, none overlapping, every unit verified") {
    const std::vector<units::BlockShare> sizes{{kUnit, 60}, {4 * kUnit, 20}, {16 * kUnit, 20}};
    const stats::DistributionSpec zipf = stats::parse_distribution("zipf:1.1");
    for (const stats::DistributionSpec* dist : {(const stats::DistributionSpec*)nullptr, &zipf}) {
        for (bool uring : {false, true}) {
            if (uring && !uring_usable()) continue;
            CAPTURE(uring);
            CAPTURE(dist != nullptr);
            const engine::RandomMix mix{70, dist, sizes};
            Fixture f(uring, !uring, kFileBytes, &mix);
            f.phase(Phase::seq_write);
            auto r = f.phase(Phase::random, 20000);
            const auto& k = r.counters;
            CHECK(k.read_ops + k.write_ops == 20000);
            CHECK(f.faulty->overlaps() == 0);
            CHECK(k.mismatch_total() == 0);
            CHECK(k.verified_bytes == k.read_bytes);
            REQUIRE(k.sizes.size() == 3);
            std::uint64_t read_bytes = 0, write_bytes = 0, ops = 0;
            for (std::size_t i = 0; i < 3; ++i) {
                const model::SizeCounters& s = k.sizes[i];
                CHECK(s.bytes == sizes[i].bytes);
                const double share = 100.0 * static_cast<double>(s.read_ops + s.write_ops) / 20000;
                CHECK(share == doctest::Approx(sizes[i].weight).epsilon(0.05));
                CHECK(s.read_latency.count() == s.read_ops);
                CHECK(s.write_latency.count() == s.write_ops);
                read_bytes += s.read_ops * s.bytes;
                write_bytes += s.write_ops * s.bytes;
                ops += s.read_ops + s.write_ops;
            }
            CHECK(ops == 20000);
            CHECK(read_bytes == k.read_bytes);
            CHECK(write_bytes == k.write_bytes);
            auto v = f.phase(Phase::reverify);
            CHECK(v.counters.mismatch_total() == 0);
            CHECK(v.counters.verified_bytes == kFileBytes);
            CHECK(v.counters.sizes.empty());  // sequential phases have one size
        }
    }
}

TEST_CASE("placed sizes: each on its step, within the range, none overlapping, all verified") {
    // JESD219's bssplit at blockalign=4k (sizes that are no powers of
    // two), and an iometer mix at fio's default blockalign (its smallest
    // size, 512): a 512-byte unit, operations crossing 64K blocks.
    const std::vector<units::BlockShare> jesd219{{512, 4},   {1024, 1},  {1536, 1},  {2048, 1},
                                                 {2560, 1},  {3072, 1},  {3584, 1},  {4096, 67},
                                                 {8192, 10}, {16384, 7}, {32768, 3}, {65536, 3}};
    const std::vector<units::BlockShare> iometer{{512, 10}, {1024, 5},  {2048, 5},  {4096, 60},
                                                 {8192, 2}, {16384, 4}, {32768, 4}, {65536, 10}};
    constexpr std::uint64_t kRange = 1ULL << 20;  // 16 blocks of 64K: 8 in flight
    for (const auto& [sizes, align] : {std::pair{&jesd219, 4096U}, std::pair{&iometer, 512U}}) {
        for (bool uring : {false, true}) {
            if (uring && !uring_usable()) continue;
            CAPTURE(align);
            CAPTURE(uring);
            const engine::RandomMix mix{50, nullptr, *sizes, 0, align};
            Fixture f(uring, !uring, kRange, &mix, 512);
            f.phase(Phase::seq_write);
            const std::size_t before = f.faulty->spans().size();
            auto r = f.phase(Phase::random, 20000);
            const auto& k = r.counters;
            CHECK(k.read_ops + k.write_ops == 20000);
            CHECK(f.faulty->overlaps() == 0);
            CHECK(k.mismatch_total() == 0);
            CHECK(k.verified_bytes == k.read_bytes);
            CHECK(k.sizes.size() == sizes->size());
            std::uint64_t misplaced = 0, beyond = 0, crossing = 0;
            for (std::size_t i = before; i < f.faulty->spans().size(); ++i) {
                const auto [offset, length] = f.faulty->spans()[i];
                misplaced += offset % align != 0;
                beyond += offset + length > kRange;
                crossing += offset / 65536 != (offset + length - 1) / 65536;
            }
            CHECK(misplaced == 0);
            CHECK(beyond == 0);
            CHECK(crossing > 0);  // the two-block claims were needed
            auto v = f.phase(Phase::reverify);
            CHECK(v.counters.mismatch_total() == 0);
            CHECK(v.counters.verified_bytes == kRange);
        }
    }
}

TEST_CASE("a torn 64K write: each unit it did not store is named stale on its own") {
    const std::vector<units::BlockShare> sizes{{kUnit, 50}, {16 * kUnit, 50}};
    const engine::RandomMix mix{0, nullptr, sizes};
    Fixture f(false, false, kFileBytes, &mix);
    f.phase(Phase::seq_write);
    f.faulty->tear_first_write_of(16 * kUnit);
    auto r = f.phase(Phase::random, 12);
    REQUIRE(f.faulty->torn().has_value());
    const auto [torn_at, torn_bytes] = *f.faulty->torn();
    CHECK(torn_bytes == 8 * kUnit);
    auto v = f.phase(Phase::reverify);
    // The 8 units of the lost half read back as their older generation, one
    // record each at its own unit (no later write of these 12 covered them).
    const auto& recs = f.worker.records();
    REQUIRE(recs.size() == 8);
    for (std::size_t i = 0; i < recs.size(); ++i) {
        CHECK(recs[i].cls == pattern::MismatchClass::stale);
        CHECK(recs[i].unit_offset == torn_at + i * kUnit);
        CHECK(recs[i].length == kUnit);
    }
    CHECK(v.counters.mismatches[static_cast<std::size_t>(pattern::MismatchClass::stale)] == 8);
}

namespace {

// The holes of the file at `fd` (SEEK_HOLE/SEEK_DATA), as [offset, end).
std::vector<std::pair<std::uint64_t, std::uint64_t>> holes_of(int fd, std::uint64_t bytes) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> holes;
    off_t at = 0;
    while (static_cast<std::uint64_t>(at) < bytes) {
        const off_t hole = ::lseek(fd, at, SEEK_HOLE);
        if (hole < 0 || static_cast<std::uint64_t>(hole) >= bytes) break;
        off_t data = ::lseek(fd, hole, SEEK_DATA);
        if (data < 0) data = static_cast<off_t>(bytes);
        holes.emplace_back(hole, data);
        at = data;
    }
    return holes;
}

}  // namespace

TEST_CASE("trims punch holes that read back zeros; every trimmed unit is checked") {
    const std::vector<units::BlockShare> sizes{{kUnit, 60}, {4 * kUnit, 40}};
    for (bool with_mix : {false, true}) {
        for (bool uring : {false, true}) {
            if (uring && !uring_usable()) continue;
            CAPTURE(uring);
            CAPTURE(with_mix);
            engine::RandomMix mix{50, nullptr, {}, 20};
            if (with_mix) mix.sizes = sizes;
            Fixture f(uring, !uring, kFileBytes, &mix);
            f.phase(Phase::seq_write);
            auto r = f.phase(Phase::random, 6000);
            const auto& k = r.counters;
            CHECK(k.read_ops + k.write_ops + k.trim_ops == 6000);
            CHECK(static_cast<double>(k.trim_ops) == doctest::Approx(1200).epsilon(0.15));
            CHECK(k.trim_latency.count() == k.trim_ops);
            CHECK(f.faulty->overlaps() == 0);
            CHECK(k.mismatch_total() == 0);
            CHECK(k.trim_not_honoured == 0);
            // Reads of trimmed units during the phase were checked too.
            CHECK(k.verified_bytes == k.read_bytes);
            CHECK(!holes_of(f.file.fd, kFileBytes).empty());
            auto v = f.phase(Phase::reverify);
            CHECK(v.counters.mismatch_total() == 0);
            CHECK(v.counters.verified_bytes == kFileBytes);
            CHECK(v.counters.trimmed_units_read > 0);
            CHECK(v.counters.trim_not_honoured == 0);
            std::uint64_t hole_units = 0;
            for (const auto& [from, to] : holes_of(f.file.fd, kFileBytes))
                hole_units += (to - from) / kUnit;
            CHECK(v.counters.trimmed_units_read == hole_units);
            // A write after a trim is verified as any write: rewrite, read.
            f.phase(Phase::seq_write);
            auto again = f.phase(Phase::reverify);
            CHECK(again.counters.trimmed_units_read == 0);
            CHECK(again.counters.mismatch_total() == 0);
        }
    }
}

TEST_CASE("a target that keeps trimmed data: trim-not-honoured where it promises zeros") {
    const engine::RandomMix mix{0, nullptr, {}, 50};
    for (auto promise : {pattern::TrimPromise::zeros, pattern::TrimPromise::unspecified}) {
        CAPTURE(pattern::to_string(promise));
        Fixture f(false, false, kFileBytes, &mix);
        f.worker.set_trim_promise(promise);
        f.faulty->ignore_trims();
        f.phase(Phase::seq_write);
        auto r = f.phase(Phase::random, 400);
        CHECK(r.counters.trim_ops > 100);
        auto v = f.phase(Phase::reverify);
        CHECK(v.counters.mismatch_total() == 0);
        CHECK(v.counters.trimmed_units_read > 0);
        CHECK(f.worker.records().empty());
        if (promise == pattern::TrimPromise::zeros)
            CHECK(v.counters.trim_not_honoured == v.counters.trimmed_units_read);
        else
            CHECK(v.counters.trim_not_honoured == 0);
    }
}

TEST_CASE("a trimmed unit that reads back another unit's data is misdirected") {
    const engine::RandomMix mix{0, nullptr, {}, 30};
    Fixture f(false, false, kFileBytes, &mix);
    f.worker.set_trim_promise(pattern::TrimPromise::unspecified);
    f.phase(Phase::seq_write);
    f.phase(Phase::random, 300);
    const auto holes = holes_of(f.file.fd, kFileBytes);
    REQUIRE(!holes.empty());
    const std::uint64_t hole = holes.front().first;
    // The unit after the hole's run holds data: copy it into the hole.
    std::vector<std::byte> unit(kUnit);
    REQUIRE(::pread(f.file.fd, unit.data(), kUnit, static_cast<off_t>(holes.front().second)) ==
            kUnit);
    REQUIRE(::pwrite(f.file.fd, unit.data(), kUnit, static_cast<off_t>(hole)) == kUnit);
    auto v = f.phase(Phase::reverify);
    CHECK(v.counters.mismatch_total() == 1);
    const auto& recs = f.worker.records();
    REQUIRE(recs.size() == 1);
    CHECK(recs[0].cls == pattern::MismatchClass::misdirected);
    CHECK(recs[0].unit_offset == hole);
}

TEST_CASE("a failed trim leaves its units unknown; a target that cannot trim stops the run") {
    const engine::RandomMix mix{50, nullptr, {}, 25};
    {
        Fixture f(false, false, kFileBytes, &mix);
        f.faulty->fail_trims(EIO);
        f.phase(Phase::seq_write);
        auto r = f.phase(Phase::random, 400);
        CHECK(r.counters.trim_ops == 0);
        const auto io = static_cast<std::size_t>(pattern::MismatchClass::io_error);
        CHECK(r.counters.mismatches[io] == f.faulty->trims());
        CHECK(f.worker.records().front().op == io::OpKind::trim);
        auto v = f.phase(Phase::reverify);
        CHECK(v.counters.mismatch_total() == 0);  // unknown units are not judged
        CHECK(v.counters.unverified_units > 0);
    }
    {
        Fixture f(false, false, kFileBytes, &mix);
        f.faulty->fail_trims(EOPNOTSUPP);
        f.phase(Phase::seq_write);
        auto r = f.phase(Phase::random, 400);
        REQUIRE(r.trim_refused.has_value());
        CHECK(*r.trim_refused == EOPNOTSUPP);
        CHECK(r.counters.mismatch_total() == 0);
        CHECK(f.stop.load());
    }
}

TEST_CASE("sweep points: larger aligned random blocks and a lower depth still verify") {
    Fixture f(uring_usable());
    f.phase(Phase::seq_write);
    auto r = f.phase(Phase::random, 5000, 4 * kUnit, 4);
    CHECK(r.counters.read_ops + r.counters.write_ops == 5000);
    CHECK(r.counters.read_bytes % (4 * kUnit) == 0);
    CHECK(r.counters.write_bytes % (4 * kUnit) == 0);
    CHECK(f.faulty->overlaps() == 0);
    CHECK(r.counters.mismatch_total() == 0);
    CHECK(r.counters.verified_bytes == r.counters.read_bytes);
    auto v = f.phase(Phase::reverify);
    CHECK(v.counters.mismatch_total() == 0);
    CHECK(v.counters.verified_bytes == kFileBytes);
}

TEST_CASE("a stop request drains and reports an incomplete phase") {
    Fixture f;
    f.stop = true;
    auto w = f.phase(Phase::seq_write);
    CHECK_FALSE(w.completed);
    CHECK(w.counters.write_ops == 0);
}

TEST_CASE("sync thread pool: 16 in flight, no unit twice, every read verifies") {
    Fixture f(false, true);
    CHECK(f.faulty->depth() == 16);
    CHECK(f.faulty->describe().sync_threads == 16);
    auto w = f.phase(Phase::seq_write);
    CHECK(w.counters.write_bytes == kFileBytes);
    auto r = f.phase(Phase::random, 20000);
    CHECK(r.counters.read_ops + r.counters.write_ops == 20000);
    CHECK(r.counters.write_ops > 5000);
    CHECK(r.counters.read_ops > 5000);
    CHECK(f.faulty->overlaps() == 0);
    CHECK(r.counters.mismatch_total() == 0);
    auto v = f.phase(Phase::reverify);
    CHECK(v.counters.mismatch_total() == 0);
    CHECK(v.counters.verified_bytes == kFileBytes);
    // One pread/pwrite per operation, nothing else counted.
    CHECK(f.faulty->system_calls() ==
          w.counters.write_ops + r.counters.read_ops + r.counters.write_ops + v.counters.read_ops);
}

TEST_CASE("sync thread pool: a damaged unit is found at its exact offset") {
    Fixture f(false, true);
    f.phase(Phase::seq_write);
    const std::uint64_t unit = 37 * kUnit;
    std::vector<std::byte> zero(kUnit);
    REQUIRE(::pwrite(f.file.fd, zero.data(), kUnit, static_cast<off_t>(unit)) == kUnit);
    auto r = f.phase(Phase::seq_read);
    CHECK(r.counters.mismatch_total() == 1);
    REQUIRE(f.worker.records().size() == 1);
    CHECK(f.worker.records()[0].offset == unit);
    CHECK(f.worker.records()[0].cls == pattern::MismatchClass::zeroed);
}

TEST_CASE("sync thread pool: short transfers and EAGAIN are completed, not reported") {
    Fixture f(false, true);
    f.faulty->short_every(3);
    f.faulty->eagain_every(7);
    auto w = f.phase(Phase::seq_write);
    auto r = f.phase(Phase::seq_read);
    CHECK(f.faulty->injected() > 0);
    CHECK(r.counters.mismatch_total() == 0);
    CHECK(r.counters.verified_bytes == kFileBytes);
    CHECK(w.counters.write_bytes == kFileBytes);
}

TEST_CASE("sync thread pool: a stop request drains what is in flight") {
    Fixture f(false, true);
    f.phase(Phase::seq_write);
    f.stop = true;
    auto r = f.phase(Phase::random, 20000);
    CHECK_FALSE(r.completed);
    CHECK(r.counters.read_ops + r.counters.write_ops == 0);
}

TEST_CASE("sync thread pool at depth 1 (a sweep's QD 1) is the single-threaded baseline") {
    Fixture f(false, true);
    f.phase(Phase::seq_write);
    const std::uint64_t pool_calls = f.faulty->system_calls();
    auto r = f.phase(Phase::random, 2000, 0, 1);
    CHECK(r.counters.read_ops + r.counters.write_ops == 2000);
    CHECK(r.counters.mismatch_total() == 0);
    // Counted by the worker's own single-threaded backend, not by the pool.
    CHECK(r.counters.system_calls == 2000);
    CHECK(f.faulty->system_calls() == pool_calls);
    auto v = f.phase(Phase::reverify);
    CHECK(v.counters.mismatch_total() == 0);
    CHECK(v.counters.verified_bytes == kFileBytes);
}

TEST_CASE(
    "cancelled writes are neither errors nor mismatches, and their units are never verified") {
    for (bool threads : {false, true}) {
        CAPTURE(threads);
        Fixture f(false, threads);
        f.faulty->cancel_everything();  // what was in flight at the stop comes back -ECANCELED
        f.faulty->stop_at_prepare(5, &f.stop);
        auto w = f.phase(Phase::seq_write);
        CHECK_FALSE(w.completed);
        CHECK(w.counters.write_errors == 0);
        CHECK(w.counters.mismatch_total() == 0);
        CHECK(f.worker.records().empty());
        CHECK(w.counters.cancelled_ops > 0);
        const std::uint64_t per_block = 64 * 1024 / kUnit;
        // Only the units of writes that completed hold a generation: the
        // cancelled ones (whatever reached the file) and those never issued
        // are unknown.
        std::uint64_t known = 0;
        for (auto g : f.worker.generations())
            known += g != pattern::kUnknownGeneration;
        CHECK(known == w.counters.write_ops * per_block);
        f.stop = false;
        auto v = f.phase(Phase::reverify);
        CHECK(v.counters.mismatch_total() == 0);
        CHECK(v.counters.verified_bytes == w.counters.write_bytes);
        CHECK(v.counters.unverified_units == kFileBytes / kUnit - known);
    }
}

TEST_CASE("--seq-time: pass after pass over 2 blocks at depth 8, none in flight twice") {
    // Two 64K blocks and eight places in flight: every pass after the first
    // reaches a block whose operation of the pass before may still be in
    // flight, and must wait for it rather than issue it again.
    constexpr std::uint64_t kSmall = 128 * 1024;
    for (int backend : {0, 1, 2}) {  // sync, sync thread pool, io_uring
        if (backend == 2 && !uring_usable()) {
            MESSAGE("io_uring unusable here: uring case skipped");
            continue;
        }
        CAPTURE(backend);
        Fixture f(backend == 2, backend == 1, kSmall);
        auto w = f.timed(Phase::seq_write, 0.2);
        CHECK(w.completed);
        CHECK(w.counters.write_bytes % (64 * 1024) == 0);
        CHECK(w.counters.write_bytes > 2 * kSmall);  // more than one pass
        CHECK(f.faulty->overlaps() == 0);
        auto r = f.timed(Phase::seq_read, 0.2);
        CHECK(r.counters.read_bytes > 2 * kSmall);
        CHECK(r.counters.verified_bytes == r.counters.read_bytes);
        CHECK(r.counters.mismatch_total() == 0);
        CHECK(f.faulty->overlaps() == 0);
        // Every unit took one generation per pass that reached it: a plain
        // read of the file agrees with the map.
        auto v = f.phase(Phase::reverify);
        CHECK(v.counters.verified_bytes == kSmall);
        CHECK(v.counters.mismatch_total() == 0);
    }
}

TEST_CASE("--seq-time: damage is found at its exact offset by every pass that reads it") {
    Fixture f(false, true, 128 * 1024);
    f.timed(Phase::seq_write, 0.1);
    const std::uint64_t bad = 17 * kUnit + 99;
    unsigned char byte;
    REQUIRE(::pread(f.file.fd, &byte, 1, bad) == 1);
    byte ^= 0x01;
    REQUIRE(::pwrite(f.file.fd, &byte, 1, bad) == 1);
    auto r = f.timed(Phase::seq_read, 0.1);
    const std::uint64_t passes = r.counters.read_ops / 2;  // the damaged block's reads
    CHECK(passes > 1);
    CHECK(r.counters.mismatch_total() >= passes);
    REQUIRE(!f.worker.records().empty());
    for (const auto& rec : f.worker.records()) {
        CHECK(rec.offset == bad);
        CHECK(rec.unit_offset == 17 * kUnit);
        CHECK(rec.cls == pattern::MismatchClass::corrupt);
        CHECK(rec.bad_bytes == 1);
    }
}
