#!/usr/bin/env python3
"""--atomic and the atomic-write promise on real targets (root).

XFS on a loop device over /dev/shm does atomic writes in software (Linux
6.16 and later): --atomic runs PASS, and the kernel's own tracepoint
xfs:xfs_iomap_atomic_write_cow, filtered to that device, counts exactly
the writes the JSON counts as atomic, every random write among them; the
same run without --atomic makes none, and the header still states the
promise.  ext4 on a loop device and a raw loop device promise none: --atomic
is refused before any I/O with the reason.  A block size beyond the limit
statx reports (sequential, random, or in a size mix) is refused naming the
size and the limit.  With each --sync mode an --atomic run passes and says
what it flushed.  Skipped, with the reason printed, where XFS, a loop
device or tracefs is unavailable."""

import ctypes
import os
import platform
import re
import shutil

import harness
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "atomic-{case}-{backend}"}

MiB = 1 << 20
TRACEFS = "/sys/kernel/tracing"
EVENT = "events/xfs/xfs_iomap_atomic_write_cow"
# Small and quick: two 4 MiB files, 256 KiB sequential blocks, 600 random
# operations, half of them writes.
QUICK = ("-j", 2, "-s", "4M", "--qd", 8, "--seq-block", "256K", "--rand-ops", 600,
         "--read-pct", 50)
STATX_WRITE_ATOMIC = 0x10000
STATX_ATTR_WRITE_ATOMIC = 0x400000


def statx_atomic(path):
    """(supported, unit_min, unit_max) that statx says of `path`, read with
    the raw system call (independently of the binary under test)."""
    numbers = {"x86_64": 332, "aarch64": 291}
    nr = numbers.get(platform.machine())
    if nr is None:
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(256)
    AT_FDCWD = -100
    if libc.syscall(ctypes.c_long(nr), ctypes.c_int(AT_FDCWD), path.encode(), ctypes.c_int(0),
                    ctypes.c_uint(STATX_WRITE_ATOMIC), buf) != 0:
        return None
    raw = buf.raw
    mask = int.from_bytes(raw[0:4], "little")
    attributes = int.from_bytes(raw[8:16], "little")
    if not mask & STATX_WRITE_ATOMIC:
        return (False, 0, 0)
    return (bool(attributes & STATX_ATTR_WRITE_ATOMIC), int.from_bytes(raw[0xa8:0xac], "little"),
            int.from_bytes(raw[0xac:0xb0], "little"))


class AtomicTrace:
    """A tracefs instance of its own with the XFS atomic-write tracepoint on,
    filtered to one device: counts the atomic writes to it (removed at
    cleanup)."""

    def __init__(self, test, dev):
        if not os.path.isdir(os.path.join(TRACEFS, "instances")):
            test.skipTest(f"tracefs is not mounted on {TRACEFS} (scripts/test mounts it as root)")
        if not os.path.isdir(os.path.join(TRACEFS, EVENT)):
            test.skipTest(f"no tracepoint {EVENT} (XFS atomic writes need Linux 6.16)")
        self.dir = os.path.join(TRACEFS, "instances", f"drivestress-e2e-{os.getpid()}")
        os.mkdir(self.dir)
        test.addCleanup(os.rmdir, self.dir)
        rdev = os.stat(dev).st_rdev
        self._write("buffer_size_kb", "2048")
        # The kernel's dev_t: major << 20 | minor.
        self._write(f"{EVENT}/filter", f"dev == {os.major(rdev) << 20 | os.minor(rdev)}")
        self._write(f"{EVENT}/enable", "1")
        test.addCleanup(self._write, f"{EVENT}/enable", "0")

    def _write(self, rel, text):
        with open(os.path.join(self.dir, rel), "w") as f:
            f.write(text)

    def take(self):
        """The events since the last take: (count, byte counts), none lost."""
        with open(os.path.join(self.dir, "trace")) as f:
            text = f.read()
        self._write("trace", "")  # clears it
        m = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", text)
        assert m and m.group(1) == m.group(2), "trace events were lost:\n" + text[:400]
        sizes = [int(b, 16) for b in re.findall(r"bytecount 0x([0-9a-f]+)", text)]
        assert len(sizes) == int(m.group(1)), text[:400]
        return len(sizes), sizes


def atomic_counts(doc):
    """{phase: (write_ops, atomic_writes)} over the run."""
    return {p["phase"]: (p["write_ops"], p["atomic_writes"]) for p in doc["merged_phases"]}


def xfs(test):
    """A mounted XFS on a fresh loop device over /dev/shm, its device,
    and what statx says of a file on it."""
    harness.require_root(test)
    if not shutil.which("mkfs.xfs"):
        test.skipTest("mkfs.xfs not installed")
    dev = harness.loop_device(test, harness.backing_file(test, 320 * MiB))  # 300 MB at least
    point = harness.mkfs_and_mount(test, dev, "xfs")
    probe = os.path.join(point, "statx-probe")
    open(probe, "w").close()
    promise = statx_atomic(probe)
    os.unlink(probe)
    if not promise or not promise[0]:
        test.skipTest(f"XFS here promises no atomic writes (statx: {promise}): Linux 6.16+")
    return point, dev, promise


class AtomicCases:
    """On XFS, through each backend: the flag is carried by sqe->rw_flags or pwritev2."""

    def test_xfs_every_write_atomic_and_none_without(self):
        point, dev, (_, lo, hi) = xfs(self)
        trace = AtomicTrace(self, dev)
        r = self.drivestress(*QUICK, "--atomic", target=point)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual(doc["summary"]["status"], "passed")
        self.assertTrue(doc["config"]["atomic"])
        counts = atomic_counts(doc)
        for phase, (writes, atomic) in counts.items():
            self.assertEqual(atomic, writes, phase)  # every write of every phase
        self.assertGreater(counts["random"][1], 200)
        self.assertEqual(counts["seq-write"][1], 2 * 4 * MiB // (256 << 10))
        events, sizes = trace.take()
        self.assertEqual(events, sum(a for _, a in counts.values()),
                         "the tracepoint counts every write the run made atomic")
        self.assertEqual(sizes.count(256 << 10), counts["seq-write"][1])
        self.assertEqual(sizes.count(4096), counts["random"][1])
        promise = doc["targets"][0]["atomic_writes"]
        self.assertEqual((promise["unit_min_bytes"], promise["unit_max_bytes"]), (lo, hi))
        self.assertEqual(promise["source"], "statx")
        self.assertTrue(promise["requested"])
        self.assertEqual(promise["hardware_max_bytes"], 0)  # a loop device does none itself
        self.assertIn(f"\natomic   {promise['text']}; 4 KiB writes: promised, software path; "
                      "256 KiB writes: promised, software path\n", r.stdout)
        self.assertIn("\natomic   --atomic: every write carries RWF_ATOMIC", r.stdout)

        r = self.drivestress(*QUICK, target=point)  # the same, without --atomic
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(trace.take()[0], 0)
        self.assertTrue(all(a == 0 for _, a in atomic_counts(doc).values()))
        self.assertFalse(doc["targets"][0]["atomic_writes"]["requested"])
        self.assertIn("\natomic   " + doc["targets"][0]["atomic_writes"]["text"], r.stdout)
        self.assertNotIn("--atomic:", r.stdout)
        self.assertNoFilesLeft(r, point)

    def test_xfs_compare_atomic_rows_and_the_cost(self):
        """--compare-atomic: the atomic row (the document's run) makes every
        write RWF_ATOMIC, the plain row none (the tracepoint counts only the
        first's), and the verdict states the cost of 16 KiB writes."""
        point, dev, _ = xfs(self)
        trace = AtomicTrace(self, dev)
        r = self.drivestress("-j", 1, "-s", "4M", "--qd", 8, "--seq-block", "256K",
                             "--rand-block", "16K", "--rand-ops", 400, "--compare-atomic",
                             target=point)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertTrue(doc["config"]["atomic"])
        counts = atomic_counts(doc)
        self.assertEqual(counts["random"], (400, 400))  # random writes unless asked otherwise
        cmp = doc["compare_atomic"]
        self.assertNotIn("compare_backends", doc)
        self.assertEqual(cmp["baseline"], "plain")
        self.assertEqual([run["label"] for run in cmp["runs"]], ["atomic", "plain"])
        self.assertEqual([run["exit_code"] for run in cmp["runs"]], [0, 0])
        plain = {p["phase"]: p for p in cmp["plain"]["merged_phases"]}
        self.assertEqual(plain["random"]["atomic_writes"], 0)
        self.assertEqual(trace.take()[0], sum(a for _, a in counts.values()),
                         "the tracepoint counts the atomic row's writes and none of plain's")
        self.assertRegex(r.stdout, r"\nverdict  (atomic costs [0-9.]+x the IOPS of plain 16 KiB "
                                   r"writes here|atomic and plain 16 KiB writes within noise|"
                                   r"atomic 16 KiB writes ran|random too short)")
        self.assertNoFilesLeft(r, point)

    def test_xfs_atomic_with_each_sync_mode(self):
        point, _, _ = xfs(self)
        said = {"osync": "each also durable on completion (RWF_SYNC)",
                "dsync": "each also durable on completion (RWF_DSYNC)",
                "fsync": "an fsync after every 4 writes per worker makes them durable",
                "fdatasync": "an fdatasync after every 4 writes per worker makes them durable"}
        for mode, words in said.items():
            with self.subTest(sync=mode):
                r = self.drivestress("-j", 1, "-s", "2M", "--seq-block", "256K", "--rand-ops", 200,
                                     "--read-pct", 50, "--sync", mode, "--sync-every", 4,
                                     "--atomic", target=point)
                self.assertExit(r, 0)
                doc = self.assertJson(r)
                self.assertIn(words, r.stdout)
                counts = atomic_counts(doc)
                self.assertTrue(all(a == w for w, a in counts.values()), counts)
                flushes = harness.merged_phases_of(doc)["random"]["flush_ops"]
                if mode in ("fsync", "fdatasync"):
                    self.assertGreater(flushes, 0)
                else:
                    self.assertEqual(flushes, 0)


@harness.meson_case(name="atomic-{case}")
class AtomicRefusals(harness.DriveStressTest):
    """Refused before any I/O, in one line naming the target, the size and
    the limits (on either backend alike: the default one)."""

    def test_xfs_sizes_beyond_the_limit_refused(self):
        point, _, (_, lo, hi) = xfs(self)
        big = 2 * hi
        limit = f"{hi >> 20} MiB" if hi >= MiB else f"{hi >> 10} KiB"
        for option, value, extra in (("--rand-block", big, ("--unit", "4K")),
                                     ("--seq-block", big, ()),
                                     ("--rand-block", f"4K:50,{big >> 10}K:50", ())):
            with self.subTest(option=option, value=value):
                r = self.drivestress("-s", 2 * big, "-j", 1, "--rand-ops", 100, option, value,
                                     *extra, "--atomic", target=point)
                self.assertSetupError(r, "--atomic", point, option, f"above {limit}",
                                      f"{lo >> 10} KiB to {limit} (statx)")
                self.assertNoFilesLeft(r, point)
        r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100, "--seq-block", "12K",
                             "--atomic", target=point)
        self.assertSetupError(r, "--seq-block 12K", "not a power of two")

    def test_xfs_compare_atomic_sweeps_the_size(self):
        """--compare-atomic --sweep rand-block: both rows at each size, the
        cost by size in a table, the verdict and the JSON; a size beyond the
        promise is refused before any I/O, named."""
        point, _, (_, lo, hi) = xfs(self)
        r = self.drivestress("-j", 1, "-s", "4M", "--qd", 4, "--seq-block", "256K",
                             "--rand-ops", 200, "--compare-atomic", "--sweep", "rand-block=4K,16K",
                             "--repeat", 2, target=point)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        sweep = doc["compare_atomic"]["sweep"]
        self.assertEqual([p["rand_block_bytes"] for p in sweep["points"]], [4096, 16384])
        for p in sweep["points"]:
            self.assertEqual((p["atomic"]["ops"], p["plain"]["ops"]), (200, 200))
            self.assertAlmostEqual(p["iops_cost"], p["plain"]["iops"] / p["atomic"]["iops"])
        verdict = ("verdict  what RWF_ATOMIC costs in IOPS by write size (plain / atomic): "
                   "4 KiB ")
        self.assertIn("\n" + verdict, r.stdout)
        self.assertTrue(sweep["verdict"].startswith(verdict[9:]), sweep["verdict"])
        self.assertRegex(r.stdout, r"\nrepeat 2/2  atomic +4 KiB [0-9]+ IOPS  16 KiB [0-9]+ IOPS\n")
        self.assertEqual(sweep["repeats"], 2)
        table = r.stdout[r.stdout.index("\nsweep rand-block: random phase, atomic and plain"):]
        table = table[:table.index("\nverdict")].strip("\n").splitlines()
        self.assertEqual(len(table), 4, table)  # title, heads, a row per size
        self.assertTrue(table[2].split()[:2] == ["4", "KiB"], table)
        for line in table:
            self.assertLessEqual(len(line), 100, line)
        self.assertNoFilesLeft(r, point)
        big = 2 * hi
        limit = f"{hi >> 20} MiB" if hi >= MiB else f"{hi >> 10} KiB"
        r = self.drivestress("-j", 1, "-s", 2 * big, "--rand-ops", 100, "--compare-atomic",
                             "--sweep", f"rand-block=4K,{big}", target=point)
        self.assertSetupError(r, "--atomic", point, "--sweep rand-block", f"above {limit}")
        self.assertNoFilesLeft(r, point)

    def test_ext4_refused_with_the_reason(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        point = harness.mkfs_and_mount(self, dev, "ext4")
        r = self.drivestress(*QUICK, "--atomic", target=point)
        self.assertSetupError(r, "--atomic", point, "ext4", "no atomic writes here",
                              f"{os.path.basename(dev)}'s queue: none",
                              "4 KiB and 256 KiB writes cannot carry RWF_ATOMIC")
        self.assertEqual(os.listdir(point), ["lost+found"], "files left behind")
        # --compare-atomic's atomic row runs first: refused before the plain row writes.
        r = self.drivestress(*QUICK, "--compare-atomic", target=point)
        self.assertSetupError(r, "--atomic", point, "no atomic writes here")
        self.assertEqual(os.listdir(point), ["lost+found"], "files left behind")
        r = self.drivestress(*QUICK, target=point)  # the promise, stated without --atomic
        self.assertExit(r, 0)
        self.assertIn("\natomic   not supported (", r.stdout)
        self.assertFalse(self.assertJson(r)["targets"][0]["atomic_writes"]["supported"])

    def test_raw_loop_device_refused(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 16 * MiB))
        r = self.drivestress("-s", "4M", "-j", 2, "--rand-ops", 100, "--raw-device", dev,
                             "--destroy-data", dev, "--atomic", target=False)
        self.assertSetupError(r, "--atomic", f"--raw-device {dev}",
                              f"{os.path.basename(dev)}'s queue: none")
        with open(dev, "rb") as f:
            self.assertEqual(f.read(MiB), bytes(MiB), "nothing was written")


class AtomicIoUring(AtomicCases, harness.DriveStressTest):
    backend = "io_uring"


class AtomicSync(AtomicCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
