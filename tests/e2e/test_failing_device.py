#!/usr/bin/env python3
"""A real device that fails under a run (root only): a loop device in
direct-I/O mode whose backing file is truncated while drivestress is stopped
before seq-read.  Reads past the new end fail in the kernel with EIO: each
is an `io-error` at its absolute device offset, the run goes on (reverify
runs and the other region verifies clean), exit 2.  Both backends."""

import os

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "failing-device-{case}-{backend}"}

DEVICE_BYTES = 64 * MiB
FILES = 2
REGION = 32 * MiB
BLOCK = 64 * 1024
LOST = 4 * BLOCK  # cut off the end of region 1: four sequential blocks
ARGS = ("-j", FILES, "--seq-block", "64K", "--qd", 64, "--rand-time", 0)


class FailingDeviceCases:

    @harness.meson_case(name="failing-device-truncated-backing-{backend}")
    def test_truncated_backing_file_gives_io_errors(self):
        harness.require_root(self)
        # /tmp (ext4) supports O_DIRECT, which the loop driver's direct mode needs.
        backing = harness.backing_file(self, DEVICE_BYTES, directory="/tmp")
        dev = harness.loop_device(self, backing, direct_io=True)
        with open(f"/sys/block/{os.path.basename(dev)}/loop/dio") as f:
            if f.read().strip() != "1":
                self.skipTest("the loop driver did not enable direct I/O on " + backing)
        run = self.start(*ARGS, "--raw-device", dev, "--destroy-data", dev, stop="seq-read",
                         target=False)
        run.wait_stopped()
        os.truncate(backing, DEVICE_BYTES - LOST)
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        want = [(phase, "io-error", dev, 1, offset, "read", 5)  # EIO
                for phase in ("seq-read", "reverify")
                for offset in range(DEVICE_BYTES - LOST, DEVICE_BYTES, BLOCK)]
        got = [(m["phase"], m["class"], m["file"], m["file_index"], m["offset_bytes"], m["op"],
                m["errno"]) for m in doc["mismatches"]]
        self.assertEqual(got, want, r.describe())
        # The run went on: every phase ran to the end, the rest verified.
        ran = [(p["phase"], p["interrupted"]) for _, p in harness.phases_of(doc)]
        self.assertEqual(ran, [("seq-write", False), ("seq-read", False), ("reverify", False)])
        s = doc["summary"]
        self.assertEqual((s["status"], s["exit_code"], s["mismatches"]["io-error"]),
                         ("failed", 2, 8))
        self.assertEqual(s["verified_bytes"], 2 * (DEVICE_BYTES - LOST))
        self.assertIn(f"{dev} offset {DEVICE_BYTES - LOST}", r.stdout)


class FailingDeviceIoUring(FailingDeviceCases, harness.DriveStressTest):
    backend = "io_uring"


class FailingDeviceSync(FailingDeviceCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
