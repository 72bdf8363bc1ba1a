#!/usr/bin/env python3
"""Raw-device mode (--raw-device DEV --destroy-data DEV) on loop devices over
files in /dev/shm (root only; skipped with the reason otherwise).

A free device runs every phase and verifies, inside its regions only;
corruption put on the device mid-run is reported at its absolute device
offset; a device that is mounted, has a mounted partition, is active swap or
has a holder is refused with one line naming the reason, and nothing on it
changes."""

import hashlib
import json
import os
import shutil

import harness
from harness import UNIT_BYTES, MiB, read_block, write_block

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "raw-device-{case}-{backend}"}

DEVICE_BYTES = 64 * MiB
FILES = 2
REGION = 16 * MiB  # --size: two regions of 16 MiB, the last 32 MiB untouched
ARGS = ("-j", FILES, "--seq-block", "64K", "--qd", 64)
FILL = 0xA5  # what the backing file holds before the run
UNIT = 37 * UNIT_BYTES  # the damaged unit, in region 1
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema",
                      "result.schema.json")


def raw(dev, confirm=None):
    return ("--raw-device", dev, "--destroy-data", dev if confirm is None else confirm)


def digest(path, length):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read(length)).hexdigest()


class RawDeviceCases:
    """Mixin of the cases that run I/O; instantiated per backend below."""

    def setUp(self):
        super().setUp()
        harness.require_root(self)
        self.backing = harness.backing_file(self, DEVICE_BYTES, fill=FILL)
        self.dev = harness.loop_device(self, self.backing)

    def test_runs_and_verifies(self):
        r = self.drivestress(*ARGS, "-s", "16M", "--rand-ops", 4000, *raw(self.dev),
                             target=False)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["target"]["device"], self.dev)
        self.assertEqual(doc["target"]["files"], [self.dev] * FILES)
        self.assertEqual(doc["config"]["file_size_bytes"], REGION)
        self.assertTrue(doc["target"]["direct_io"])
        self.assertEqual(doc["target"]["filesystem"], "raw device")
        s = doc["summary"]
        self.assertEqual((s["status"], s["mismatch_total"]), ("passed", 0))
        phases = [p["phase"] for _, p in harness.phases_of(doc)]
        self.assertEqual(phases, list(harness.PHASES))
        self.assertIn(f"target   {self.dev} (raw device, 64 MiB)  2 regions x 16 MiB", r.stdout)
        # Both regions were written from their start; nothing past them.
        for region in range(FILES):
            head = read_block(self.dev, region * REGION, UNIT_BYTES)
            self.assertNotEqual(head, bytes([FILL]) * UNIT_BYTES, f"region {region} not written")
        tail = read_block(self.dev, FILES * REGION, DEVICE_BYTES - FILES * REGION)
        self.assertEqual(tail.count(FILL), len(tail), "bytes past the regions changed")
        # Nothing created or removed: the device node and its backing file stay.
        self.assertTrue(os.path.exists(self.dev))
        self.assertEqual(os.path.getsize(self.backing), DEVICE_BYTES)
        self.assertNoFilesLeft(r)
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: the document (all else checked) is not validated")
        with open(SCHEMA) as f:
            jsonschema.validate(doc, json.load(f))

    def test_corruption_reports_device_offset(self):
        run = self.start(*ARGS, "-s", "16M", "--rand-time", 0, *raw(self.dev), stop="seq-read",
                         target=False)
        run.wait_stopped()
        at = REGION + UNIT  # absolute: unit 37 of region 1
        write_block(self.dev, at, bytes(UNIT_BYTES))
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        got = [(m["phase"], m["class"], m["file"], m["file_index"], m["offset_bytes"],
                m["unit_offset_bytes"]) for m in doc["mismatches"]]
        self.assertEqual(got, [(p, "zeroed", self.dev, 1, at, at)
                               for p in ("seq-read", "reverify")], r.describe())
        self.assertIn(f"{self.dev} offset {at} (unit at {at}): zeroed [seq-read, iteration 1]",
                      r.stdout)
        self.assertEqual(doc["summary"]["exit_code"], 2)

    def test_second_signal_says_no_files_were_kept(self):
        """A raw device run has no files of its own: a second signal leaves
        at once and says neither "files removed" nor "files kept"."""
        run = self.start(*ARGS, "-s", "16M", "--rand-time", 60, *raw(self.dev), stop="random:20",
                         target=False, json_out=False, stop_on_signal=True)
        run.wait_stopped()
        r = self.second_signal_later(run)
        self.assertExit(r, 130)
        self.assertIn("drivestress: second signal, exiting now\n", r.stderr)
        self.assertNotIn("files kept", r.stderr)
        self.assertNotIn("files removed", r.stderr)
        self.assertTrue(os.path.exists(self.dev))


class RawDeviceIoUring(RawDeviceCases, harness.DriveStressTest):
    backend = "io_uring"


class RawDeviceSync(RawDeviceCases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(name="raw-device-{case}")
class RawDevice(harness.DriveStressTest):
    """Geometry and refusals (no backend choice involved)."""

    def setUp(self):
        super().setUp()
        harness.require_root(self)
        self.backing = harness.backing_file(self, DEVICE_BYTES)
        self.dev = harness.loop_device(self, self.backing)

    def assertRefused(self, r, *names):
        self.assertSetupError(r, *names)
        self.assertIsNone(r.doc, "no result document for a refused run")
        self.assertNoFilesLeft(r)

    def test_says_what_was_on_the_device(self):
        """An unmounted ext4 filesystem is named (type, label, UUID) before
        the run overwrites it, in the output and the document; then a
        partition table; then the run's own data; then nothing known."""
        mkfs = shutil.which("mkfs.ext4")
        if not mkfs:
            self.skipTest("mkfs.ext4 not installed")
        uuid = "0b1c2d3e-4f50-4617-8283-949596979899"
        harness.sh(mkfs, "-q", "-F", "-L", "newcomer-fs", "-U", uuid, self.dev)
        r = self.drivestress(*ARGS, "-s", "8M", "--rand-ops", 200, *raw(self.dev), target=False)
        self.assertExit(r, 0)
        held = f'ext4 filesystem, label "newcomer-fs", UUID {uuid}'
        self.assertEqual(r.doc["target"]["previous_contents"], [held])
        self.assertIn(f"before   {self.dev} held: {held} (overwritten by this run)\n", r.stdout)
        # Printed with the target, before any phase's line.
        self.assertLess(r.stdout.index("before   "), r.stdout.index("iteration 1"))
        # What the run left: its own units.
        r = self.drivestress(*ARGS, "-s", "8M", "--rand-ops", 200, *raw(self.dev), target=False)
        self.assertEqual(r.doc["target"]["previous_contents"],
                         ["drivestress data of an earlier run"])
        # A partition table (sfdisk: one partition, dos label).
        if shutil.which("sfdisk"):
            write_block(self.dev, 0, bytes(65536))
            harness.sh("bash", "-c", f"echo 'start=2048, type=83' | sfdisk -q {self.dev}")
            r = self.drivestress(*ARGS, "-s", "8M", "--rand-ops", 200, *raw(self.dev),
                                 target=False)
            self.assertEqual(r.doc["target"]["previous_contents"], ["dos partition table"])
        write_block(self.dev, 0, bytes(128 * 1024))
        r = self.drivestress(*ARGS, "-s", "8M", "--rand-ops", 200, *raw(self.dev), target=False)
        self.assertEqual(r.doc["target"]["previous_contents"], [])
        self.assertIn(f"before   {self.dev} held no filesystem, swap or partition table "
                      "signature", r.stdout)
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: the document (all else checked) is not validated")
        with open(SCHEMA) as f:
            jsonschema.validate(r.doc, json.load(f))

    def test_default_regions_split_the_device(self):
        """No --size: device size / files, rounded down to the sequential block."""
        r = self.drivestress("-j", 3, "--seq-block", "1M", "--rand-ops", 300, *raw(self.dev),
                             target=False)
        self.assertExit(r, 0)
        self.assertEqual(self.assertJson(r)["config"]["file_size_bytes"], 21 * MiB)

    def test_compare_backends_reopens_the_device(self):
        """Two runs in one process: the second opens the device exclusively
        while the first one's io_uring rings are still being torn down."""
        if harness.io_uring_unavailable_reason():
            self.skipTest("io_uring is not available here")
        r = self.drivestress("-j", 2, "-s", "8M", "--rand-ops", 500, "--compare-backends",
                             *raw(self.dev), target=False)
        self.assertExit(r, 0)

    def test_buffered(self):
        r = self.drivestress("-j", 2, "-s", "8M", "--rand-ops", 500, "--buffered",
                             *raw(self.dev), target=False)
        self.assertExit(r, 0)
        self.assertFalse(self.assertJson(r)["target"]["direct_io"])

    def test_same_device_by_another_name(self):
        """Compared by device number: a symlink to the device is the device."""
        link = os.path.join(self.tmp, "alias")
        os.symlink(self.dev, link)
        r = self.drivestress("-j", 1, "-s", "4M", "--rand-ops", 100,
                             *raw(self.dev, confirm=link), target=False)
        self.assertExit(r, 0)

    def test_destroy_data_names_another_device(self):
        other = harness.loop_device(self, harness.backing_file(self, 8 * MiB))
        r = self.drivestress(*raw(self.dev, confirm=other), target=False)
        self.assertRefused(r, "--destroy-data " + other, "not the same device", self.dev)

    def test_destroy_data_missing(self):
        r = self.drivestress("--raw-device", self.dev, target=False)
        self.assertRefused(r, "--destroy-data", self.dev)

    def test_destroy_data_alone(self):
        r = self.drivestress("--destroy-data", self.dev, target=False)
        self.assertRefused(r, "--raw-device")

    def test_destroy_data_not_a_device(self):
        r = self.drivestress(*raw(self.dev, confirm="/dev/null"), target=False)
        self.assertRefused(r, "--destroy-data /dev/null", "not a block device")

    def test_raw_device_not_a_device(self):
        path = os.path.join(self.tmp, "plain")
        open(path, "w").close()
        r = self.drivestress(*raw(path), target=False)
        self.assertRefused(r, "--raw-device " + path, "not a block device")

    def test_raw_device_and_target(self):
        """Both given: two targets of one run (test_targets.py has more)."""
        r = self.drivestress("-j", 1, "-s", "4M", "--rand-ops", 100, *raw(self.dev))
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual([(t["path"], t["raw_device"], t["status"]) for t in doc["targets"]],
                         [(os.path.realpath(self.target), False, "passed"),
                          (self.dev, True, "passed")])
        self.assertNoFilesLeft(r)

    def test_regions_larger_than_device(self):
        r = self.drivestress("-j", 4, "-s", "32M", *raw(self.dev), target=False)
        self.assertRefused(r, self.dev, "more than the device")

    def check_untouched_refusal(self, dev, *names):
        before = digest(dev, 4 * MiB)
        r = self.drivestress("-j", 1, "-s", "1M", "--rand-ops", 10, *raw(dev), target=False)
        self.assertRefused(r, *names)
        self.assertEqual(digest(dev, 4 * MiB), before, "the refused device changed")
        return r

    def freeze(self, point):
        """A mounted filesystem writes its own metadata now and then (journal
        commits, lazy inode-table init): frozen, nothing but drivestress
        could change the device while it is compared."""
        harness.sh("sync")
        if harness.sh("fsfreeze", "-f", point, check=False).returncode == 0:
            self.addCleanup(harness.sh, "fsfreeze", "-u", point, check=False)

    def test_mounted_filesystem(self):
        point = harness.mkfs_and_mount(self, self.dev)
        with open(os.path.join(point, "keep"), "w") as f:
            f.write("precious")
        self.freeze(point)
        self.check_untouched_refusal(self.dev, self.dev, "mounted on " + point)
        with open(os.path.join(point, "keep")) as f:
            self.assertEqual(f.read(), "precious")

    def test_mounted_partition(self):
        if not shutil.which("sfdisk"):
            self.skipTest("sfdisk not installed (Debian package fdisk)")
        parted = harness.loop_device(self, harness.backing_file(self, DEVICE_BYTES),
                                     partscan=True)
        harness.sh("sh", "-c", f"printf 'size=24M\\nsize=24M\\n' | sfdisk -q {parted}")
        harness.sh("blockdev", "--rereadpt", parted, check=False)
        if not os.path.exists(f"/sys/class/block/{os.path.basename(parted)}p2"):
            harness.sh("partx", "--add", parted, check=False)  # where the reread did not show them
        part = harness.partition_node(self, parted, 2)
        point = harness.mkfs_and_mount(self, part)
        self.freeze(point)
        self.check_untouched_refusal(parted, parted, "/dev/" + os.path.basename(parted) + "p2",
                                     "mounted on " + point)

    def test_active_swap(self):
        if not shutil.which("mkswap") or not shutil.which("swapon"):
            self.skipTest("mkswap/swapon not installed")
        harness.sh("mkswap", self.dev)
        p = harness.sh("swapon", self.dev, check=False)
        if p.returncode != 0:
            self.skipTest(f"swapon refused here: {p.stderr.strip()}")
        self.addCleanup(harness.sh, "swapoff", self.dev, check=False)
        self.check_untouched_refusal(self.dev, self.dev, "active swap")

    def test_backs_a_loop_device(self):
        """A loop device over this device is a user the holders list misses."""
        upper = harness.loop_device(self, self.dev)
        self.check_untouched_refusal(self.dev, self.dev, "backs loop device " + upper)

    def test_holder(self):
        """A device-mapper target on the device makes it held."""
        if not shutil.which("dmsetup"):
            self.skipTest("dmsetup not installed (Debian package dmsetup)")
        if not os.path.exists("/dev/mapper/control"):
            self.skipTest("no device-mapper in this kernel (/dev/mapper/control missing)")
        name = "drivestress-e2e-" + os.path.basename(self.tmp)
        sectors = DEVICE_BYTES // 512
        p = harness.sh("dmsetup", "create", name, "--table", f"0 {sectors} linear {self.dev} 0",
                       check=False)
        if p.returncode != 0:
            self.skipTest(f"dmsetup create failed: {p.stderr.strip()}")
        self.addCleanup(harness.sh, "dmsetup", "remove", "--retry", name, check=False)
        self.check_untouched_refusal(self.dev, self.dev, "held by dm-")


if __name__ == "__main__":
    harness.main()
