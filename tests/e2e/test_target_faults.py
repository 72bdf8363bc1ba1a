#!/usr/bin/env python3
"""The target changes under a running drivestress (stopped at a known point
by DRIVESTRESS_TEST_STOP): its files removed, truncated, or its filesystem
made read-only.  No crash, no hang, each named, the exit status DESIGN.md
gives (a drive-side failure is 2), and files cleaned where possible."""

import os

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "target-{case}-{backend}"}

FILES = 2
FILE_BYTES = 8 * MiB
BLOCK = 64 * 1024
ARGS = ("-s", "8M", "-j", FILES, "--seq-block", "64K", "--qd", 64)


class TargetFaultCases:

    def test_files_removed(self):
        """Unlinked while stopped: the open descriptors keep the data, every
        phase completes and verifies, the report names the files."""
        run = self.start(*ARGS, "--rand-ops", 2000, stop="seq-read")
        run.wait_stopped()
        for i in range(FILES):
            os.unlink(self.data_file(i))
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        for i in range(FILES):
            self.assertIn(f"drivestress: warning: {self.data_file(i)}: removed or replaced by someone else during "
                          "the run", r.stderr)
        doc = self.assertJson(r)
        self.assertEqual([p["phase"] for _, p in harness.phases_of(doc)], list(harness.PHASES))
        self.assertEqual(doc["summary"]["mismatch_total"], 0)

    def test_file_truncated(self):
        """File 0 cut 252 KiB before its end, inside a block: the read of that
        block comes back short, and every read past the new end fails, in
        seq-read and again in reverify (8 short reads).  The report names
        the truncation once (size now, size expected) with one extent from
        the cut to the end; only the reads that straddle the cut are listed
        as records.  File 1 verifies clean."""
        cut = FILE_BYTES - 4 * BLOCK + 4096
        run = self.start(*ARGS, "--rand-time", 0, stop="seq-read")
        run.wait_stopped()
        os.truncate(self.data_file(0), cut)
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        first = FILE_BYTES - 4 * BLOCK
        want = [(phase, "short-read", self.data_file(0), cut, first, "read")
                for phase in ("seq-read", "reverify")]
        got = [(m["phase"], m["class"], m["file"], m["offset_bytes"], m["unit_offset_bytes"],
                m["op"]) for m in doc["mismatches"]]
        self.assertEqual(got, want, r.describe())
        self.assertEqual(doc["summary"]["mismatches"]["short-read"], 8)
        self.assertEqual(doc["summary"]["damaged_units"], (FILE_BYTES - cut) // 4096)
        self.assertEqual(doc["damage"], {
            "distinct_units": (FILE_BYTES - cut) // 4096,
            "files": [{"file_index": 0, "path": self.data_file(0), "expected_bytes": FILE_BYTES,
                       "truncated_to_bytes": cut, "distinct_units": (FILE_BYTES - cut) // 4096,
                       "extents": [{"offset_bytes": cut, "length_bytes": FILE_BYTES - cut,
                                    "class": "short-read", "reads": 8}],
                       "unmerged_observations": 0}]})
        self.assertIn(f"{self.data_file(0)}: truncated during the run: {cut} bytes, should be "
                      f"{FILE_BYTES}", r.stdout)
        self.assertIn(f"{self.data_file(0)} offset {cut} +{(FILE_BYTES - cut) // 1024} KiB "
                      "short-read, 8 reads", r.stdout)
        # The two records are one place: printed once, the later read named.
        self.assertEqual(r.stdout.count("short-read ["), 1, r.stdout)
        line = next(l for l in r.stdout.splitlines() if "short-read [" in l)
        self.assertIn(f"  also seen by {want[1][0]} (iteration 1)", line)

    def test_filesystem_made_read_only(self):
        """ext4 on a loop device, mounted errors=remount-ro; an error is
        triggered in the random phase, so the kernel turns the filesystem
        read-only: every later write fails (io-error, EROFS), reads go on,
        the run ends with exit 2, and the files it cannot remove are named."""
        harness.require_root(self, "loop devices and mount")
        dev = harness.loop_device(self, harness.backing_file(self, 128 * MiB))
        point = harness.mkfs_and_mount(self, dev, options="errors=remount-ro")
        trigger = f"/sys/fs/ext4/{os.path.basename(dev)}/trigger_fs_error"
        if not os.path.exists(trigger):
            self.skipTest(f"{trigger} missing: cannot make ext4 read-only mid-run")
        target = os.path.join(point, "t")
        os.mkdir(target)
        run = self.start(*ARGS, "--rand-ops", 4000, "--read-pct", 50,
                         stop="random:200", target=target)
        run.wait_stopped()
        with open(trigger, "w") as f:
            f.write("drivestress e2e: read-only mid-run\n")
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        records = doc["mismatches"]
        self.assertTrue(records, r.describe())
        for m in records:
            self.assertEqual((m["phase"], m["class"], m["op"], m["errno"]),
                             ("random", "io-error", "write", 30), m)  # EROFS
        self.assertEqual([p["phase"] for _, p in harness.phases_of(doc)], list(harness.PHASES))
        self.assertGreater(doc["summary"]["mismatches"]["io-error"], 0)
        self.assertEqual(sum(doc["summary"]["mismatches"].values()),
                         doc["summary"]["mismatches"]["io-error"])
        for i in range(FILES):
            path = os.path.join(target, f"drivestress-{i}.dat")
            self.assertIn(f"drivestress: warning: {path}: cannot remove: Read-only file system",
                          r.stderr)


class TargetFaultsIoUring(TargetFaultCases, harness.DriveStressTest):
    backend = "io_uring"


class TargetFaultsSync(TargetFaultCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
