#!/usr/bin/env python3
"""The filesystem fills up during a run, after the up-front space check
passed: something else takes the space while drivestress is stopped in its
sequential write.  ext2 has no fallocate, so the test files are sparse and
their writes need blocks: each failed write is counted, the phase finishes,
then the run ends with one line naming the file and offset, exit 1 (not the
drive's fault), and nothing left behind."""

import os

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "enospc-{case}-{backend}"}

ARGS = ("-s", "16M", "-j", 2, "--seq-block", "64K", "--qd", 32)


class EnospcCases:

    def fill(self, filler):
        """Takes every free block of the filesystem into `filler`."""
        with open(filler, "wb") as f:
            chunk = b"\xa5" * MiB
            try:
                while True:
                    f.write(chunk)
                    f.flush()
            except OSError as e:
                self.assertEqual(e.errno, 28, e)  # ENOSPC

    def test_filesystem_fills_up_mid_run(self):
        harness.require_root(self, "loop devices and mount")
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        point = harness.mkfs_and_mount(self, dev, fstype="ext2")
        target = os.path.join(point, "t")
        os.mkdir(target)
        filler = os.path.join(point, "filler")
        self.addCleanup(lambda: os.path.exists(filler) and os.unlink(filler))
        run = self.start(*ARGS, stop="seq-write:20", target=target)
        run.wait_stopped()
        self.fill(filler)
        run.resume()
        r = run.finish()
        self.assertExit(r, 1)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, r.describe())
        self.assertRegex(lines[0], r"^drivestress: error: " + target +
                         r"/drivestress-[01]\.dat: no space left on device writing at offset "
                         r"\d+ \(the filesystem filled up during the run\)$")
        self.assertEqual(os.listdir(target), [], "test files left behind")
        doc = self.assertJson(r)
        phases = [p for _, p in harness.phases_of(doc)]
        self.assertEqual([p["phase"] for p in phases], ["seq-write"], "the run went on")
        w = harness.merged_phases_of(doc)["seq-write"]
        self.assertGreater(w["write_errors"], 0)
        self.assertEqual(w["write_ops"] + w["write_errors"], 2 * 16 * MiB // (64 * 1024),
                         "every write of the phase was issued and accounted for")
        self.assertEqual(doc["summary"]["mismatch_total"], 0, "a full filesystem is no mismatch")
        self.assertIn(f"WRITE ERRORS {w['write_errors']}", r.stdout)

    def test_recreate_finds_the_filesystem_full(self):
        """--recreate, and between iterations something else takes the space
        (a reader holds the old files open, a filler takes the rest): the
        second iteration cannot make its files.  The run still says what
        was done (iteration 1, the summary, the result line naming the
        error), finishes the document with the error, exits 1 and leaves
        nothing behind."""
        harness.require_root(self, "loop devices and mount")
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        point = harness.mkfs_and_mount(self, dev, fstype="ext4")
        target = os.path.join(point, "t")
        os.mkdir(target)
        filler = os.path.join(point, "filler")
        self.addCleanup(lambda: os.path.exists(filler) and os.unlink(filler))
        run = self.start("-s", "16M", "-j", 2, "--phases", "seq-write,seq-read", "--recreate",
                         "--iterations", 3, stop="seq-read", target=target)
        run.wait_stopped()  # iteration 1, its files written
        held = [os.open(os.path.join(target, f"drivestress-{i}.dat"), os.O_RDONLY)
                for i in range(2)]  # unlinked by --recreate, their blocks stay taken
        self.addCleanup(lambda: [os.close(fd) for fd in held])
        self.fill(filler)
        run.resume()
        r = run.finish()
        self.assertExit(r, 1)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, r.describe())
        error = lines[0][len("drivestress: error: "):]
        self.assertRegex(lines[0], r"^drivestress: error: " + target +
                         r"/drivestress-[01]\.dat: no space left for 16 MiB")
        self.assertIn("iteration 1", r.stdout)
        self.assertRegex(r.stdout, r"(?m)^summary  32 MiB written, 32 MiB read, 32 MiB verified ")
        self.assertIn(f"result   ERROR: {error} (exit 1)\n", r.stdout)
        self.assertEqual(os.listdir(target), [], "test files left behind")
        doc = self.assertJson(r)
        self.assertFalse(doc["in_progress"])
        s = doc["summary"]
        self.assertEqual((s["status"], s["exit_code"], s["stop_reason"], s["error"]),
                         ("error", 1, "error", error))
        self.assertEqual(s["iterations_run"], 1)
        self.assertEqual(s["mismatch_total"], 0)
        self.assertEqual([p["phase"] for _, p in harness.phases_of(doc)],
                         ["seq-write", "seq-read"])
        self.assertEqual(s["written_bytes"], 2 * 16 * MiB)
        self.assertEqual(s["verified_bytes"], 2 * 16 * MiB)


class EnospcIoUring(EnospcCases, harness.DriveStressTest):
    backend = "io_uring"


class EnospcSync(EnospcCases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(name="enospc-{case}")
class EnospcComparison(harness.DriveStressTest):
    """A comparison's later repeat that ends in an error says it as a
    single run does: on standard error, in its held report and in the
    result line; the document is that run's."""
    backend = None

    def test_a_later_compare_repeat_finds_the_filesystem_full(self):
        harness.require_root(self, "loop devices and mount")
        if harness.io_uring_unavailable_reason():
            self.skipTest("io_uring is not available here")
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        point = harness.mkfs_and_mount(self, dev, fstype="ext2")
        target = os.path.join(point, "t")
        os.mkdir(target)
        filler = os.path.join(point, "filler")
        self.addCleanup(lambda: os.path.exists(filler) and os.unlink(filler))
        run = self.start(*ARGS, "--rand-ops", 100, "--compare-backends", "--repeat", 2,
                         stop="seq-write:20", target=target)
        for k in range(3):  # io_uring, sync, then io_uring's second repeat
            run.wait_stopped()
            if k == 2:
                EnospcCases.fill(self, filler)
            run.resume()
        r = run.finish()
        self.assertExit(r, 1)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, r.describe())
        self.assertRegex(lines[0], r"^drivestress: error: " + target +
                         r"/drivestress-[01]\.dat: no space left on device writing at offset ")
        error = lines[0][len("drivestress: error: "):]
        self.assertIn("\n=== io_uring: qd 32 per worker, one ring each, repeat 2 ===\n", r.stdout)
        self.assertIn(f"result   ERROR: {error} (exit 1)\n", r.stdout)
        doc = self.assertJson(r)
        self.assertEqual((doc["summary"]["exit_code"], doc["summary"]["error"]), (1, error))
        self.assertEqual(os.listdir(target), [], "test files left behind")


@harness.meson_case(name="preset-space-{case}")
class PresetSpace(harness.DriveStressTest):
    """A preset checks the space of its biggest test before its first."""
    backend = None

    def test_preset_checks_the_whole_preset_first(self):
        harness.require_root(self, "loop devices and mount")
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        point = harness.mkfs_and_mount(self, dev, fstype="ext4")
        target = os.path.join(point, "t")
        os.mkdir(target)
        # nvme: SEQ128K Q32T1 on one 8 MiB file (fits), then RND4K Q32T16
        # on 16 of them (128 MiB: does not).
        r = self.drivestress("--preset", "nvme", "-s", "8M", "--rand-ops", "100", target=target)
        self.assertSetupError(r, "--preset nvme", "RND4K Q32T16")
        self.assertIn("need 128 MiB (16 x 8 MiB)", r.stderr)
        self.assertIn("checked before the first test", r.stderr)
        self.assertEqual(r.stdout, "", "no test ran")
        self.assertIsNone(r.doc)
        self.assertNoFilesLeft(r, target)

    def test_preset_that_fits_runs(self):
        r = self.drivestress("--preset", "nvme", "-s", "1M", "--rand-ops", "100",
                             "--seq-time", "0.2", json_out=False)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)


@harness.meson_case(name="enospc-{case}")
class SharedFilesystemSpace(harness.DriveStressTest):
    """Two target directories on one filesystem share its free space: each
    fits alone, both do not, and the run is refused before anything is
    written (it once checked each alone and ran out of space mid-run)."""
    backend = None

    def test_targets_on_one_filesystem_need_their_sum(self):
        harness.require_root(self, "loop devices and mount")
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        point = harness.mkfs_and_mount(self, dev, fstype="ext4")
        dirs = [os.path.join(point, name) for name in ("a", "b")]
        for d in dirs:
            os.mkdir(d)
        free = os.statvfs(point).f_bavail * os.statvfs(point).f_frsize
        size_mib = free * 2 // 3 // MiB  # one fits, two do not
        r = self.drivestress("-j", 1, "-s", f"{size_mib}M", *dirs, target=False)
        self.assertSetupError(r, dirs[0], dirs[1])
        self.assertIn(f"need {2 * size_mib} MiB together (2 x 1 x {size_mib} MiB)", r.stderr)
        self.assertEqual(r.stdout, "", "nothing ran")
        for d in dirs:
            self.assertEqual(os.listdir(d), [], d)
        # Half of it each fits: the run goes ahead.
        r = self.drivestress("-j", 1, "-s", f"{size_mib // 2}M", "--rand-time", 0.2, *dirs,
                             target=False, json_out=False)
        self.assertExit(r, 0)
        for d in dirs:
            self.assertEqual(os.listdir(d), [], d)


if __name__ == "__main__":
    harness.main()
