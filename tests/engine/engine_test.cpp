// The engine's batch size: how many completions one wait asks for, and how
// much of a refill goes to the kernel before it; what it
// does with a short, refused or failed submission, and with a stop request
// (Backend::cancel), through a fault-injecting backend; and the open loop
// of --rate: issued in the schedule's order, never early, late when no slot is free.
// suite threads: the sync thread pool (ThreadedSyncBackend) under the engine
#include "engine/engine.h"

#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "faulty_backend.h"
#include "io/aligned_buffer.h"
#include "io/probe.h"
#include "io/sync_backend.h"
#include "io/uring_backend.h"

using ds::engine::BatchSizer;

constexpr std::uint64_t kQuick = BatchSizer::kBoundNs / 10;
constexpr std::uint64_t kSlow = BatchSizer::kBoundNs * 8 / 5;

TEST_CASE("a batch starts at one completion and grows while waits are quick") {
    BatchSizer s;
    CHECK(s.want(32) == 1);
    for (int i = 0; i < 20; ++i)
        s.waited(kQuick, s.want(32));  // a tenth of the bound: quick
    CHECK(s.want(32) == 8);            // a quarter of what is in flight, no more
}

TEST_CASE("the limit grows only when it was what held the batch back") {
    BatchSizer s;
    for (int i = 0; i < 50; ++i)
        s.waited(kQuick, s.want(32));
    // At QD 32 the quarter (8) held every batch from its eighth wait on, so
    // the limit stopped at 9: a deeper queue does not get a batch that was
    // never shown to be quick.
    CHECK(s.want(128) == 9);
}

TEST_CASE("a slow wait halves the batch, down to one completion") {
    BatchSizer s;
    for (int i = 0; i < 20; ++i)
        s.waited(kQuick, s.want(32));
    REQUIRE(s.want(32) == 8);
    s.waited(kSlow, 8);  // over the bound for 8: a slow device
    CHECK(s.want(32) == 4);
    s.waited(kSlow, 4);
    s.waited(kSlow, 2);
    CHECK(s.want(32) == 1);
    s.waited(kSlow, 1);
    CHECK(s.want(32) == 1);  // never zero
    CHECK(s.want(2) == 1);   // and at least one, however little is in flight
}

TEST_CASE("a wait between half the bound and the bound leaves the batch as it is") {
    BatchSizer s;
    for (int i = 0; i < 3; ++i)
        s.waited(kQuick, s.want(32));
    const unsigned before = s.want(32);
    s.waited(BatchSizer::kBoundNs * 4 / 5, before);  // not quick, not over the bound
    CHECK(s.want(32) == before);
}

TEST_CASE("a device as fast as a loop device over tmpfs keeps its quarter batch") {
    // 8 completions at QD 32 in 47 us (170k IOPS): the old 50 us bound
    // halved this batch whenever the host slowed it a little.
    BatchSizer s;
    for (int i = 0; i < 20; ++i)
        s.waited(47'000, s.want(32));
    for (int i = 0; i < 20; ++i)
        s.waited(60'000, s.want(32));
    CHECK(s.want(32) == 8);
}

// ---- submission and cancellation, through a fault-injecting backend ----

namespace {

constexpr std::uint32_t kBlock = 4096;
constexpr unsigned kOps = 64;

struct ScratchFile {
    std::string path;
    int fd = -1;
    ScratchFile() {
        char name[] = "/tmp/drivestress-engine-test-XXXXXX";
        fd = ::mkstemp(name);
        REQUIRE(fd >= 0);
        path = name;
        REQUIRE(::ftruncate(fd, kOps * kBlock) == 0);
    }
    ~ScratchFile() {
        ::close(fd);
        ::unlink(path.c_str());
    }
};

// Reads every block of the file once, and keeps what each completion said.
class ReadEveryBlock final : public ds::engine::PhaseWork {
  public:
    // With `stop`: sets it (a stop request) once 6 operations were issued.
    explicit ReadEveryBlock(std::atomic<bool>* stop = nullptr) : stop_(stop) {}
    Next next(ds::engine::Slot& s) override {
        if (issued_ == kOps) return Next::done;
        if (stop_ && issued_ == 5) stop_->store(true);
        s.req.kind = ds::io::OpKind::read;
        s.req.offset = std::uint64_t{issued_++} * kBlock;
        s.req.length = kBlock;
        s.req.buf = s.buf;
        s.first_offset = s.req.offset;
        s.first_length = kBlock;
        return Next::issued;
    }
    bool more() const override { return issued_ < kOps; }
    void complete(ds::engine::Slot&, std::int32_t result, std::uint64_t) override {
        results.push_back(result);
    }
    void reaped(std::uint64_t) override {}
    bool fills_writes() const override { return data; }
    std::vector<std::int32_t> results;
    bool data = false;  // as a phase that writes

  private:
    unsigned issued_ = 0;
    std::atomic<bool>* stop_;
};

struct EngineFixture {
    ScratchFile file;
    ds::io::AlignedBuffer arena{std::size_t{8} * kBlock};
    std::vector<ds::engine::Slot> slots{8};
    ds::test::FaultyBackend* faulty = nullptr;
    std::unique_ptr<ds::io::Backend> backend;
    std::atomic<bool> stop{false};

    explicit EngineFixture(bool uring) {
        std::unique_ptr<ds::io::Backend> inner;
        if (uring)
            inner = std::make_unique<ds::io::UringBackend>(file.fd, 8, arena.span());
        else
            inner = std::make_unique<ds::io::ThreadedSyncBackend>(file.fd, 8);
        auto f = std::make_unique<ds::test::FaultyBackend>(std::move(inner));
        faulty = f.get();
        backend = std::move(f);
        for (std::size_t i = 0; i < slots.size(); ++i)
            slots[i].buf = arena.data() + i * kBlock;
    }
    // --qd 8 --batch 4: the engine submits itself every 4 prepared operations.
    ds::engine::EngineTally run(ReadEveryBlock& work) {
        ds::engine::Engine engine(*backend, slots, stop);
        return engine.run(work, {8, 4, 0, nullptr, nullptr});
    }
};

std::vector<bool> backends_here() {
    if (ds::io::probe_io_uring().usable) return {false, true};
    MESSAGE("io_uring unusable here: uring cases skipped");
    return {false};
}

long count(const std::vector<std::int32_t>& v, std::int32_t value) {
    return std::count(v.begin(), v.end(), value);
}

}  // namespace

TEST_CASE("a short submit is submitted again at once, and every operation completes once") {
    for (bool uring : backends_here()) {
        CAPTURE(uring);
        EngineFixture f(uring);
        f.faulty->short_submit_at(1, 1);  // the first batch of 4: only 1 taken
        ReadEveryBlock work;
        const auto t = f.run(work);
        CHECK(f.faulty->short_or_refused_submits() == 1);
        CHECK(t.resubmits == 1);
        // The other 3 went to the kernel right then, not with a later batch.
        REQUIRE(f.faulty->submissions().size() >= 2);
        CHECK(f.faulty->submissions()[0] == 1);
        CHECK(f.faulty->submissions()[1] == 3);
        CHECK(work.results.size() == kOps);
        CHECK(count(work.results, kBlock) == kOps);
    }
}

TEST_CASE("a submit refused for lack of room (-EAGAIN) reaps, then submits again") {
    for (bool uring : backends_here()) {
        CAPTURE(uring);
        EngineFixture f(uring);
        f.faulty->fail_submit_at(2, EAGAIN);
        ReadEveryBlock work;
        const auto t = f.run(work);
        CHECK(f.faulty->short_or_refused_submits() == 1);
        CHECK(t.resubmits >= 1);
        CHECK(f.faulty->failed_at_submit() == 0);
        CHECK(count(work.results, kBlock) == kOps);
    }
}

TEST_CASE("a failed submit fails the queued operations with its errno; nothing is thrown") {
    for (bool uring : backends_here()) {
        CAPTURE(uring);
        EngineFixture f(uring);
        f.faulty->fail_submit_at(3, EIO);
        ReadEveryBlock work;
        ds::engine::EngineTally t;
        CHECK_NOTHROW(t = f.run(work));
        // The batch of 4 that submit refused comes back as 4 I/O errors, the
        // rest as they were done.
        CHECK(f.faulty->failed_at_submit() == 4);
        CHECK(work.results.size() == kOps);
        CHECK(count(work.results, -EIO) == 4);
        CHECK(count(work.results, kBlock) == kOps - 4);
        CHECK(t.completed == kOps);
    }
}

TEST_CASE("a stop request cancels what is in flight once; cancelled operations are not retried") {
    for (bool uring : backends_here()) {
        CAPTURE(uring);
        EngineFixture f(uring);
        f.faulty->cancel_everything();
        ReadEveryBlock work(&f.stop);
        const auto t = f.run(work);
        CHECK(t.stopped);
        REQUIRE(f.faulty->cancels().size() == 1);
        // The 6th is issued as the stop comes; the batch of 4 was submitted.
        const auto in_flight = static_cast<long>(f.faulty->cancels()[0]);
        CHECK(in_flight == 6 - static_cast<long>(t.completed));
        CHECK(count(work.results, -ECANCELED) == in_flight);
        CHECK(t.cancelled == static_cast<std::uint64_t>(in_flight));
        CHECK(count(work.results, kBlock) == static_cast<long>(t.completed));
        CHECK(work.results.size() < kOps);  // nothing issued after the stop
    }
}

// ---- the open loop (--rate) ----

namespace {

// Reads `ops` blocks, and keeps each operation's due and submission times.
class ScheduledReads final : public ds::engine::PhaseWork {
  public:
    explicit ScheduledReads(unsigned ops) : ops_(ops) {}
    Next next(ds::engine::Slot& s) override {
        if (issued_ == ops_) return Next::done;
        s.req.kind = ds::io::OpKind::read;
        s.req.offset = std::uint64_t{issued_++ % kOps} * kBlock;
        s.req.length = kBlock;
        s.req.buf = s.buf;
        s.first_offset = s.req.offset;
        s.first_length = kBlock;
        return Next::issued;
    }
    bool more() const override { return issued_ < ops_; }
    void complete(ds::engine::Slot& s, std::int32_t result, std::uint64_t) override {
        results.push_back(result);
        due.push_back(s.due_ns);
        submitted.push_back(s.req.submit_ns);
        late += s.late;
    }
    void reaped(std::uint64_t) override {}
    std::vector<std::int32_t> results;
    std::vector<std::uint64_t> due, submitted;
    unsigned late = 0;

  private:
    unsigned ops_;
    unsigned issued_ = 0;
};

// Counts the operations prepared before each submit() the engine makes
// itself (a wait submits the rest, as UringBackend's does).
class SubmitCounter final : public ds::io::Backend {
  public:
    explicit SubmitCounter(int fd, unsigned depth) : inner_(fd, depth) {}
    ds::io::BackendKind kind() const override { return inner_.kind(); }
    ds::io::BackendDescription describe() const override { return inner_.describe(); }
    unsigned depth() const override { return inner_.depth(); }
    void prepare(ds::io::Request& r) override {
        ++pending_;
        inner_.prepare(r);
    }
    int submit() override {
        sizes.push_back(std::exchange(pending_, 0));
        return inner_.submit();
    }
    std::size_t reap(std::span<ds::io::Completion> out, unsigned n) override {
        pending_ = 0;
        return inner_.reap(out, n);
    }
    std::uint64_t system_calls() const override { return inner_.system_calls(); }
    std::vector<unsigned> sizes;

  private:
    ds::io::ThreadedSyncBackend inner_;
    unsigned pending_ = 0;
};

}  // namespace

TEST_CASE("a phase that writes sends each quarter of the depth as it is prepared") {
    for (bool data : {false, true}) {
        CAPTURE(data);
        ScratchFile file;
        ds::io::AlignedBuffer arena{std::size_t{32} * kBlock};
        std::vector<ds::engine::Slot> slots(32);
        for (std::size_t i = 0; i < slots.size(); ++i)
            slots[i].buf = arena.data() + i * kBlock;
        SubmitCounter backend(file.fd, 32);
        std::atomic<bool> stop{false};
        ds::engine::Engine engine(backend, slots, stop);
        ReadEveryBlock work;
        work.data = data;
        engine.run(work, {32, 1, 0, nullptr, nullptr});
        CHECK(work.results.size() == kOps);
        if (!data) {
            CHECK(backend.sizes.empty());  // every fill went with its wait
        } else {
            // The first fill (32 free slots): four parts of 8, each sent alone.
            REQUIRE(backend.sizes.size() >= 4);
            CHECK(std::vector<unsigned>(backend.sizes.begin(), backend.sizes.begin() + 4) ==
                  std::vector<unsigned>{8, 8, 8, 8});
            CHECK(std::all_of(backend.sizes.begin(), backend.sizes.end(),
                              [](unsigned n) { return n == 8; }));
        }
    }
}

namespace {

// A SyncBackend that takes 2 ms an operation: slower than any schedule below.
class SlowBackend final : public ds::io::Backend {
  public:
    explicit SlowBackend(int fd) : inner_(fd) {}
    ds::io::BackendKind kind() const override { return inner_.kind(); }
    ds::io::BackendDescription describe() const override { return inner_.describe(); }
    unsigned depth() const override { return 1; }
    void prepare(ds::io::Request& r) override { inner_.prepare(r); }
    int submit() override { return inner_.submit(); }
    std::size_t reap(std::span<ds::io::Completion> out, unsigned n) override {
        ::usleep(2000);
        return inner_.reap(out, n);
    }
    std::uint64_t system_calls() const override { return inner_.system_calls(); }

  private:
    ds::io::SyncBackend inner_;
};

}  // namespace

TEST_CASE("with a schedule, operations are issued in its order and never before they are due") {
    // Both ways to wait for a due time: sleeping through it, and sleeping
    // to a margin before it and spinning the rest (the spin reaps without
    // waiting, so every completion must still come back).
    for (bool uring : backends_here())
        for (bool spin : {false, true}) {
            CAPTURE(uring);
            CAPTURE(spin);
            EngineFixture f(uring);
            ds::engine::Engine engine(*f.backend, f.slots, f.stop);
            const std::uint64_t start = ds::engine::monotonic_ns() + 1'000'000;
            ds::engine::RateSchedule schedule(20'000, ds::model::Arrivals::fixed, start, 0, 1);
            ScheduledReads work(200);
            ds::engine::EngineOptions o{8, 1, 0, nullptr, nullptr, &schedule, spin};
            engine.run(work, o);
            REQUIRE(work.results.size() == 200);
            CHECK(count(work.results, kBlock) == 200);
            std::vector<std::uint64_t> due = work.due;
            std::sort(due.begin(), due.end());
            for (std::size_t i = 0; i < due.size(); ++i)
                CHECK(due[i] == start + i * 50'000);  // every one of the schedule, once
            for (std::size_t i = 0; i < due.size(); ++i)
                CHECK(work.submitted[i] >= work.due[i]);
        }
}

TEST_CASE("the wake margin follows how late sleeps end, within its cap") {
    ds::engine::WakeMargin m;
    CHECK(m.ns() == ds::engine::WakeMargin::kStartNs);
    for (int i = 0; i < 200; ++i)
        m.woke(5'000);  // a host whose timers wake 5 us late
    CHECK(m.ns() >= 9'900);
    CHECK(m.ns() <= 10'000);  // twice the lateness
    m.woke(10'000'000);       // one sleep preempted for 10 ms
    CHECK(m.ns() <= 10'000 + 2 * ds::engine::WakeMargin::kMaxNs / 16);
    for (int i = 0; i < 200; ++i)
        m.woke(1'000'000);  // a host that wakes a millisecond late: no more spin than the cap
    CHECK(m.ns() == ds::engine::WakeMargin::kMaxNs);
    for (int i = 0; i < 400; ++i)
        m.woke(0);
    CHECK(m.ns() < 1'000);
}

TEST_CASE("an operation due while every slot is busy is issued when one frees, marked late") {
    ScratchFile file;
    ds::io::AlignedBuffer arena{kBlock};
    std::vector<ds::engine::Slot> slots(1);
    slots[0].buf = arena.data();
    SlowBackend backend(file.fd);
    std::atomic<bool> stop{false};
    ds::engine::Engine engine(backend, slots, stop);
    // 10k/s (100 us apart) at depth 1 on a 2 ms device: from the second on,
    // each is due before the one in flight completes.
    ds::engine::RateSchedule schedule(10'000, ds::model::Arrivals::fixed,
                                      ds::engine::monotonic_ns(), 0, 1);
    ScheduledReads work(10);
    engine.run(work, {1, 1, 0, nullptr, nullptr, &schedule});
    REQUIRE(work.results.size() == 10);
    CHECK(work.late == 9);
    for (std::size_t i = 1; i < work.due.size(); ++i)  // issued after the previous completed
        CHECK(work.submitted[i] >= work.submitted[i - 1] + 2'000'000);
}

TEST_CASE("a schedule slower than the device leaves every slot free: nothing is late") {
    // 200/s (5 ms apart) at depth 8: all eight slots busy would need a
    // 4 KiB read to take 40 ms.
    EngineFixture f(false);
    ds::engine::Engine engine(*f.backend, f.slots, f.stop);
    ds::engine::RateSchedule schedule(200, ds::model::Arrivals::fixed, ds::engine::monotonic_ns(),
                                      0, 1);
    ScheduledReads work(20);
    engine.run(work, {8, 1, 0, nullptr, nullptr, &schedule});
    REQUIRE(work.results.size() == 20);
    CHECK(work.late == 0);
}
