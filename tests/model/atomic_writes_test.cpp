// What a target's atomic-write promise means for each write size, which
// sizes a run writes, and when --atomic refuses a run.
#include "model/atomic_writes.h"

#include <doctest/doctest.h>

#include <string>

using ds::model::AtomicPath;
using ds::model::AtomicPromise;
using ds::model::QueueAtomicLimits;
using ds::model::RunConfig;
using ds::model::WriteSize;

namespace {

constexpr std::uint32_t KiB = 1024;
constexpr std::uint32_t MiB = 1024 * KiB;

ds::sys::StatxAtomic statx(std::uint32_t lo, std::uint32_t hi, std::uint32_t opt = 0) {
    return {true, true, lo, hi, 1, opt};
}

QueueAtomicLimits queue(const char* dev, std::uint32_t lo, std::uint32_t hi,
                        std::uint64_t boundary = 0) {
    return {dev, lo, hi, hi, boundary, {}};
}

// XFS on a loop device (6.18): 4 KiB to 1 MiB, all out of place.
AtomicPromise xfs_on_loop() {
    AtomicPromise p;
    p.statx = statx(4 * KiB, MiB);
    p.queue = queue("loop3", 0, 0);
    return p;
}

// ext4 on a loop device: statx answers, nothing supported.
AtomicPromise ext4_on_loop() {
    AtomicPromise p;
    p.statx = ds::sys::StatxAtomic{true, false, 0, 0, 0, 0};
    p.queue = queue("loop4", 0, 0);
    return p;
}

AtomicPromise raw(QueueAtomicLimits q) {
    AtomicPromise p;
    p.raw = true;
    p.queue = std::move(q);
    return p;
}

bool has(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("XFS on a loop device promises 4 KiB to 1 MiB powers of two, all in software") {
    const AtomicPromise p = xfs_on_loop();
    CHECK(p.supported());
    CHECK(p.source() == ds::model::AtomicSource::statx);
    CHECK(p.unit_min() == 4 * KiB);
    CHECK(p.unit_max() == MiB);
    CHECK(p.hardware_max() == 0);
    const auto a = ds::model::atomic_answer(p, 16 * KiB);
    CHECK(a.promised);
    CHECK(a.path == AtomicPath::software);
    CHECK(ds::model::atomic_answer(p, 2 * MiB).why_not == "above 1 MiB");
    CHECK(ds::model::atomic_answer(p, 2 * KiB).why_not == "below 4 KiB");
    CHECK(ds::model::atomic_answer(p, 12 * KiB).why_not == "not a power of two");
    CHECK_FALSE(ds::model::atomic_answer(p, 12 * KiB).promised);
}

TEST_CASE("the device's own limit splits a file's writes into hardware and software") {
    AtomicPromise p;
    p.statx = statx(4 * KiB, MiB, 64 * KiB);  // unit_max_opt: XFS on an atomic device
    p.queue = queue("nvme0n1", 4 * KiB, 64 * KiB);
    CHECK(p.hardware_max() == 64 * KiB);
    CHECK(ds::model::atomic_answer(p, 64 * KiB).path == AtomicPath::hardware);
    CHECK(ds::model::atomic_answer(p, 128 * KiB).path == AtomicPath::software);
    p.statx->unit_max_opt = 0;  // a kernel that fills none: the queue decides
    p.statx->unit_max = 16 * KiB;
    CHECK(p.hardware_max() == 16 * KiB);
    CHECK(ds::model::atomic_answer(p, 16 * KiB).path == AtomicPath::hardware);
    p.queue.reset();  // and without a queue nobody knows
    CHECK(ds::model::atomic_answer(p, 16 * KiB).path == AtomicPath::unknown);
    CHECK(ds::model::atomic_answer(p, 16 * KiB).promised);
}

TEST_CASE("ext4 on a loop device and a raw loop device promise nothing, and say why") {
    const AtomicPromise e = ext4_on_loop();
    CHECK_FALSE(e.supported());
    CHECK(e.unit_max() == 0);
    CHECK(e.why_unsupported() == "statx: not supported on this file; loop4's queue: none");
    CHECK(ds::model::atomic_answer(e, 4 * KiB).why_not == "no atomic writes here");
    const AtomicPromise r = raw(queue("loop5", 0, 0));
    CHECK_FALSE(r.supported());
    CHECK(r.source() == ds::model::AtomicSource::block_queue);
    CHECK(r.why_unsupported() == "loop5's queue: none");
    AtomicPromise old;
    old.statx = ds::sys::StatxAtomic{};  // not reported: a kernel before 6.11
    old.queue_note = "no block device under the filesystem";
    CHECK(old.source() == ds::model::AtomicSource::none);
    CHECK(old.why_unsupported() ==
          "statx does not report them (before Linux 6.11?); no block device under the "
          "filesystem");
}

TEST_CASE("a raw device's writes are the device's own, within its boundary") {
    const AtomicPromise p = raw(queue("nvme0n1", 4 * KiB, 64 * KiB, 32 * KiB));
    CHECK(p.supported());
    CHECK(ds::model::atomic_answer(p, 16 * KiB).path == AtomicPath::hardware);
    CHECK(ds::model::atomic_answer(p, 64 * KiB).why_not == "larger than the 32 KiB boundary");
}

TEST_CASE("a run's write sizes: the sequential block, then the random phase's writes") {
    RunConfig c;  // 256 MiB files, 1 MiB sequential, 4 KiB random, 70 % reads
    auto sizes = ds::model::write_sizes(c);
    REQUIRE(sizes.size() == 2);
    CHECK(sizes[0].bytes == 4 * KiB);
    CHECK(sizes[0].option == "--rand-block");
    CHECK(sizes[1].bytes == MiB);
    CHECK(sizes[1].option == "--seq-block");
    c.rand_mix = {{4 * KiB, 60}, {16 * KiB, 20}, {128 * KiB, 20}};
    CHECK(ds::model::write_sizes(c).size() == 4);
    c.read_pct = 100;  // the random phase writes nothing
    CHECK(ds::model::write_sizes(c).size() == 1);
    c.read_pct = 70;
    c.rand_time_s = 0;  // no random phase
    CHECK(ds::model::write_sizes(c).size() == 1);
    c.rand_time_s = 10;
    c.rand_mix.clear();
    c.sweep = ds::model::Sweep{ds::model::SweepParam::rand_block, {4 * KiB, 8 * MiB}, false};
    sizes = ds::model::write_sizes(c);
    REQUIRE(sizes.size() == 3);
    CHECK(sizes[2].bytes == 8 * MiB);
    CHECK(sizes[2].option == "--sweep rand-block");
    c.sweep.reset();
    c.seq_block = 4 * KiB;  // one size, named once, by the sequential block
    sizes = ds::model::write_sizes(c);
    REQUIRE(sizes.size() == 1);
    CHECK(sizes[0].option == "--seq-block");
    c.seq_block = 2 * MiB;
    c.file_bytes = 3 * MiB;  // a last sequential write of 1 MiB
    sizes = ds::model::write_sizes(c);
    REQUIRE(sizes.size() == 3);
    CHECK(sizes[1].bytes == MiB);
    CHECK(sizes[1].option == "--size");
}

TEST_CASE("--atomic runs where every write size is promised, else names size and limits") {
    const AtomicPromise p = xfs_on_loop();
    const std::vector<WriteSize> ok = {{4 * KiB, "--rand-block"}, {MiB, "--seq-block"}};
    CHECK(ds::model::atomic_refusal(p, ok, 256 * MiB) == "");
    const std::vector<WriteSize> big = {{4 * KiB, "--seq-block"}, {4 * MiB, "--rand-block"}};
    const std::string why = ds::model::atomic_refusal(p, big, 256 * MiB);
    CHECK(has(why, "--rand-block 4M"));
    CHECK(has(why, "above 1 MiB"));
    CHECK(has(why, "4 KiB to 1 MiB (statx)"));
    const std::string none = ds::model::atomic_refusal(ext4_on_loop(), ok, 256 * MiB);
    CHECK(none ==
          "no atomic writes here (statx: not supported on this file; loop4's queue: none), so "
          "its 4 KiB and 1 MiB writes cannot carry RWF_ATOMIC");
    const std::vector<WriteSize> tail = {{MiB + 512 * KiB, "--size"}, {2 * MiB, "--seq-block"}};
    CHECK(has(ds::model::atomic_refusal(p, tail, 3 * MiB + 512 * KiB),
              "--size 3584K leaves a last sequential write of 1.5 MiB"));
}

TEST_CASE("a raw device's regions must start at multiples of every write size") {
    const AtomicPromise p = raw(queue("nvme0n1", 4 * KiB, 64 * KiB));
    const std::vector<WriteSize> sizes = {{4 * KiB, "--rand-block"}, {64 * KiB, "--seq-block"}};
    CHECK(ds::model::atomic_refusal(p, sizes, 1 * MiB, 1 * MiB) == "");
    const std::string why = ds::model::atomic_refusal(p, sizes, 96 * KiB, 96 * KiB);
    CHECK(has(why, "--size 96K"));
    CHECK(has(why, "64 KiB writes (--seq-block 64K)"));
}
