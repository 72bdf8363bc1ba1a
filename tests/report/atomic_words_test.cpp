// Atomic writes in words: each target's promise, its answer for the run's
// write sizes, an NVMe namespace's Identify, and --atomic with each --sync.
#include "report/atomic_words.h"

#include <doctest/doctest.h>

#include <string>

using ds::model::AtomicPromise;
using ds::model::QueueAtomicLimits;
using ds::model::RunConfig;
using ds::model::SyncMethod;
using ds::report::atomic_promise_text;

namespace {

constexpr std::uint32_t KiB = 1024;
constexpr std::uint32_t MiB = 1024 * KiB;

AtomicPromise file(std::uint32_t lo, std::uint32_t hi, std::uint32_t opt,
                   std::uint32_t device_max) {
    AtomicPromise p;
    p.statx = ds::sys::StatxAtomic{true, true, lo, hi, 1, opt};
    p.queue = QueueAtomicLimits{"loop3", device_max ? lo : 0, device_max, device_max, 0, {}};
    return p;
}

}  // namespace

TEST_CASE("a file's promise: its range, and how much of it the device does itself") {
    CHECK(atomic_promise_text(file(4 * KiB, MiB, 0, 0)) ==
          "4 KiB to 1 MiB, none hardware-optimised (software, out of place)");
    CHECK(atomic_promise_text(file(4 * KiB, MiB, 64 * KiB, 64 * KiB)) ==
          "4 KiB to 1 MiB, up to 64 KiB hardware-optimised (above: software, out of place)");
    CHECK(atomic_promise_text(file(4 * KiB, 16 * KiB, 0, 16 * KiB)) ==
          "4 KiB to 16 KiB, all hardware-optimised (the device's own)");
    AtomicPromise unknown = file(4 * KiB, 4 * KiB, 0, 0);
    unknown.queue.reset();
    CHECK(atomic_promise_text(unknown) ==
          "4 KiB (hardware or software path unknown: no block queue read)");
}

TEST_CASE("no promise: not supported, and what was read") {
    AtomicPromise p;
    p.statx = ds::sys::StatxAtomic{true, false, 0, 0, 0, 0};
    p.queue = QueueAtomicLimits{"loop4", 0, 0, 0, 0, {}};
    CHECK(atomic_promise_text(p) ==
          "not supported (statx: not supported on this file; loop4's queue: none)");
    AtomicPromise raw;
    raw.raw = true;
    raw.queue = QueueAtomicLimits{"nvme0n1", 4 * KiB, 64 * KiB, 128 * KiB, 128 * KiB, {}};
    CHECK(atomic_promise_text(raw) ==
          "4 KiB to 64 KiB, the device's own (nvme0n1's queue, not across 128 KiB boundaries)");
}

TEST_CASE("the answer for each of the run's write sizes") {
    const std::vector<ds::model::WriteSize> sizes = {{16 * KiB, "--rand-block"},
                                                     {2 * MiB, "--seq-block"}};
    CHECK(ds::report::atomic_sizes_text(file(4 * KiB, MiB, 0, 0), sizes) ==
          "16 KiB writes: promised, software path; 2 MiB writes: not promised (above 1 MiB)");
    CHECK(ds::report::atomic_sizes_text(file(4 * KiB, 2 * MiB, 64 * KiB, 64 * KiB), sizes) ==
          "16 KiB writes: promised, hardware path; 2 MiB writes: promised, software path");
}

TEST_CASE("an NVMe namespace: what any write and a power failure are promised") {
    ds::model::NvmeAtomicFacts n;
    n.device = "/dev/nvme0n1";
    ds::nvme::AtomicIdentify id;
    id.lba_bytes = 4096;
    id.awun = 255;
    id.awupf = 0;
    n.identify = id;
    CHECK(ds::report::nvme_atomic_text(n) ==
          "nvme0n1: any write untorn against other commands up to 1 MiB (AWUN), across a power "
          "failure up to 4 KiB (AWUPF); no atomic boundaries");
    n.identify->namespace_atomics = true;
    n.identify->nawun = 7;
    n.identify->nawupf = 3;
    n.identify->nabsn = 31;
    CHECK(ds::report::nvme_atomic_text(n) ==
          "nvme0n1: any write untorn against other commands up to 32 KiB (NAWUN), across a "
          "power failure up to 16 KiB (NAWUPF); not across boundaries of 128 KiB (NABSN) from "
          "byte 0 (NABO)");
    n.identify.reset();
    n.reason = "/dev/nvme0n1: open: Permission denied";
    CHECK(ds::report::nvme_atomic_text(n) ==
          "nvme0n1: Identify unread (/dev/nvme0n1: open: Permission denied)");
}

TEST_CASE("--atomic says what each --sync mode flushes") {
    RunConfig c;
    c.atomic = true;
    CHECK(ds::report::atomic_run_text(c, false) ==
          "--atomic: every write carries RWF_ATOMIC; nothing flushed: untorn, not durable (a cut "
          "may lose acknowledged writes, never tear one)");
    c.sync = SyncMethod::dsync;
    CHECK(ds::report::atomic_run_text(c, true) ==
          "--atomic: every write carries RWF_ATOMIC (from unregistered buffers: the kernel's "
          "rule); each also durable on completion (RWF_DSYNC)");
    c.sync = SyncMethod::osync;
    CHECK(ds::report::atomic_run_text(c, false).find("(RWF_SYNC)") != std::string::npos);
    c.sync = SyncMethod::fdatasync;
    c.sync_every = 8;
    CHECK(ds::report::atomic_run_text(c, false).ends_with(
        "an fdatasync after every 8 writes per worker makes them durable"));
}

TEST_CASE("the header: a line per target, its NVMe namespace's, and --atomic's") {
    RunConfig c;
    ds::model::RunResult r;
    r.targets.resize(2);
    r.targets[0].name = "/mnt/xfs";
    r.targets[0].atomic = file(4 * KiB, MiB, 0, 0);
    r.targets[1].name = "nvme0n1";
    r.targets[1].atomic.raw = true;
    r.targets[1].atomic.queue = QueueAtomicLimits{"nvme0n1", 0, 0, 0, 0, {}};
    r.targets[1].atomic.nvme = ds::model::NvmeAtomicFacts{"/dev/nvme0n1", {}, "no permission"};
    CHECK(ds::report::atomic_header_lines(c, r) ==
          "atomic   /mnt/xfs: 4 KiB to 1 MiB, none hardware-optimised (software, out of place); "
          "4 KiB writes: promised, software path; 1 MiB writes: promised, software path\n"
          "atomic   nvme0n1: not supported (nvme0n1's queue: none); no write of this run is "
          "promised\n"
          "atomic   nvme0n1: nvme0n1: Identify unread (no permission)\n");
    c.atomic = true;
    r.targets.resize(1);
    const std::string lines = ds::report::atomic_header_lines(c, r);
    CHECK(lines.find("atomic   4 KiB to 1 MiB") == 0);  // one target: no name
    CHECK(lines.find("\natomic   --atomic: every write carries RWF_ATOMIC") != std::string::npos);
}
