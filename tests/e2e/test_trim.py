#!/usr/bin/env python3
"""--trim-pct: trims in the random mix, every trimmed unit read back checked
against what the target promises.

On a file each trim punches a hole (SEEK_HOLE sees them while the run is
stopped before its reverify) and the reverify pass reads back exactly as
many trimmed units as there are hole units, each zeros; the text, JSON and
Prometheus textfile count the trims.  Under a size mix, zipf, 5 % trims and
--compress 2 at QD 128 a flipped bit is named at its exact offset and a
hole given another unit's data is `misdirected`.  Twenty seeds of trims,
and of everything together, pass on a healthy target.  Bad values are
refused in one line naming the option.  On real targets (root): xfs on a
loop device (its holes), a raw loop device with discard (its backing file
gets holes; the device promises nothing: zeros, 0xFF or the old data
pass), and zram (discards free its memory: mm_stat drops)."""

import os

import harness
from harness import UNIT_BYTES, read_block, write_block
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "trim-{case}-{backend}"}

MiB = 1 << 20


def hole_units(path, size):
    """Units of `path` (first `size` bytes) that are holes (SEEK_HOLE/SEEK_DATA)."""
    holes = []
    fd = os.open(path, os.O_RDONLY)
    try:
        at = 0
        while at < size:
            try:
                hole = os.lseek(fd, at, os.SEEK_HOLE)
            except OSError:
                break
            if hole >= size:
                break
            try:
                data = os.lseek(fd, hole, os.SEEK_DATA)
            except OSError:  # ENXIO: a hole to the end
                data = size
            holes.extend(range(hole // UNIT_BYTES, min(data, size) // UNIT_BYTES))
            at = data
    finally:
        os.close(fd)
    return holes


def trim_figures(doc, phase):
    p = harness.merged_phases_of(doc)[phase]
    return (p["trim_ops"], p["trim_bytes"], p["trimmed_units_read"],
            p["trim_not_honoured_units"])


class TrimCases:
    def test_trims_punch_holes_that_read_back_zeros(self):
        prom = os.path.join(self.tmp, "m.prom")
        run = self.start("-j", 2, "-s", "8M", "--qd", 16, "--rand-ops", 4000, "--trim-pct", 20,
                         "--phases", "seq-write,random,reverify", "--prom", prom,
                         stop="reverify")
        run.wait_stopped()
        holes = [hole_units(self.data_file(f), 8 * MiB) for f in (0, 1)]
        zeros = all(read_block(self.data_file(f), u * UNIT_BYTES, UNIT_BYTES) ==
                    bytes(UNIT_BYTES) for f in (0, 1) for u in holes[f][:20])
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertTrue(holes[0] and holes[1], "each file has holes")
        self.assertTrue(zeros, "a hole reads zeros")
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual(doc["config"]["trim_pct"], 20)
        ops, trimmed_bytes, read_back, not_honoured = trim_figures(doc, "random")
        self.assertAlmostEqual(ops, 800, delta=120)
        self.assertEqual(trimmed_bytes, ops * UNIT_BYTES)
        random = harness.merged_phases_of(doc)["random"]
        self.assertEqual(random["read_ops"] + random["write_ops"] + ops, 4000)
        self.assertEqual(random["trim_latency"]["count"], ops)
        self.assertEqual(not_honoured, 0)
        _, _, reverified, not_honoured = trim_figures(doc, "reverify")
        self.assertEqual(reverified, len(holes[0]) + len(holes[1]))
        self.assertEqual(not_honoured, 0)
        self.assertIsNone(harness.merged_phases_of(doc)["reverify"]["trim_not_honoured_at"])
        self.assertIsNone(harness.merged_phases_of(doc)["seq-write"]["trim_ops"])
        self.assertRegex(r.stdout, r"\n  trims: +%d done \(\S+/s\), [\d.]+ MiB dropped" % ops)
        self.assertIn("\n  trimmed:   %d reads of trimmed units, each as the target promises"
                      % reverified, r.stdout)
        self.assertIn("70% reads 20% trims for", r.stdout)
        self.assertIn("\ntrims    punched holes, which read back zeros\n", r.stdout)
        self.assertIn("random 4K, 70% reads, trim 20 %, qd", r.stdout)
        with open(prom) as f:
            text = f.read()
        self.assertIn('drivestress_trim_ops_total{target="%s",phase="random"} %d'
                      % (self.target, ops), text)

    def test_damage_under_a_mix_zipf_trims_and_compress_at_qd128_is_named(self):
        run = self.start("-j", 1, "-s", "16M", "--qd", 128, "--rand-time", 1,
                         "--rand-block", "4K:60,16K:20,128K:20", "--distribution", "zipf:1.2",
                         "--trim-pct", 5, "--compress", 2, stop="reverify")
        run.wait_stopped()
        path = self.data_file(0)
        holes = hole_units(path, 16 * MiB)
        data_units = sorted(set(range(40, 4096)) - set(holes))
        self.assertTrue(holes, "the trims left holes")
        hole = holes[len(holes) // 2] * UNIT_BYTES
        source, flipped = data_units[0] * UNIT_BYTES, data_units[-1] * UNIT_BYTES
        write_block(path, hole, read_block(path, source, UNIT_BYTES))
        unit = bytearray(read_block(path, flipped, UNIT_BYTES))
        unit[100] ^= 0x10  # in the first sector's kept bytes (--compress 2 keeps 248)
        write_block(path, flipped, bytes(unit))
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        validate(self, doc)
        found = {m["unit_offset_bytes"]: m for m in doc["mismatches"]}
        self.assertEqual(sorted(found), sorted([hole, flipped]), r.describe())
        self.assertEqual(found[hole]["class"], "misdirected")
        self.assertEqual(found[hole]["found"]["offset_bytes"], source)
        self.assertEqual((found[flipped]["class"], found[flipped]["offset_bytes"],
                          found[flipped]["bad_bytes"]), ("corrupt", flipped + 100, 1))
        self.assertIn(f"{path} offset {flipped + 100}", r.stdout)

    def test_no_false_verdict_over_20_seeds(self):
        workloads = {"trim": ("--trim-pct", 10),
                     "all": ("--trim-pct", 5, "--rand-block", "4K:60,16K:20,128K:20",
                             "--distribution", "zipf:1.2", "--compress", 2, "--dedupe", 30)}
        for name, args in workloads.items():
            for seed in range(1, 4 if harness.sanitizer() else 21):
                with self.subTest(workload=name, seed=seed):
                    r = self.drivestress("-j", 2, "-s", "2M", "--qd", 32, "--rand-ops", 600,
                                         "--seed", seed, *args)
                    self.assertExit(r, 0)
                    self.assertEqual(self.assertJson(r)["summary"]["mismatch_total"], 0)

    def test_bad_values_are_refused_naming_the_option(self):
        cases = [(("--trim-pct", "101"), "--trim-pct"),
                 (("--trim-pct", "5%"), "--trim-pct"),
                 (("--trim-pct", "40"), "--trim-pct 40 and --read-pct 70"),
                 (("--trim-pct", "60", "--read-pct", "50"), "add up to more than 100")]
        for args, name in cases:
            with self.subTest(args=args):
                r = self.drivestress(*args, json_out=False)
                self.assertSetupError(r, name)
                self.assertNoFilesLeft(r)


class TrimIoUring(TrimCases, harness.DriveStressTest):
    backend = "io_uring"


class TrimSync(TrimCases, harness.DriveStressTest):
    backend = "sync"


class RealTargetCases:
    """Filesystems and devices that trim for real (root: loop devices, zram)."""

    def test_xfs_file_gets_holes(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 320 * MiB))  # xfs: 300 MB at least
        point = harness.mkfs_and_mount(self, dev, "xfs")
        run = self.start("-j", 1, "-s", "16M", "--qd", 32, "--rand-ops", 3000, "--trim-pct", 30,
                         target=point, stop="reverify")
        run.wait_stopped()
        holes = hole_units(os.path.join(point, "drivestress-0.dat"), 16 * MiB)
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertTrue(holes, "xfs punched holes")
        doc = self.assertJson(r)
        self.assertEqual(trim_figures(doc, "reverify")[2], len(holes))

    def test_raw_loop_device_discards_into_its_backing_file(self):
        harness.require_root(self)
        backing = harness.backing_file(self, 64 * MiB)
        dev = harness.loop_device(self, backing)
        run = self.start("-s", "16M", "-j", 2, "--qd", 16, "--rand-ops", 3000, "--trim-pct", 30,
                         "--raw-device", dev, "--destroy-data", dev, target=False,
                         stop="reverify")
        run.wait_stopped()
        holes = hole_units(backing, 32 * MiB)
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertTrue(holes, "the loop device punched holes in its backing file")
        doc = self.assertJson(r)
        ops, _, read_back, not_honoured = trim_figures(doc, "random")
        self.assertGreater(ops, 0)
        self.assertEqual(not_honoured, 0)  # the device promises nothing
        self.assertGreater(trim_figures(doc, "reverify")[2], 0)
        self.assertIn("\ntrims    discards; the block layer promises nothing: zeros, 0xFF or the "
                      "old data pass, sector by sector\n", r.stdout)

    @harness.meson_case(is_parallel=False)
    def test_zram_discards_free_its_memory(self):
        harness.require_free_zram(self)
        harness.zram_sized(64 << 20)
        run = self.start("-s", "16M", "-j", 4, "--rand-ops", 4000, "--read-pct", 0,
                         "--trim-pct", 50, "--raw-device", "/dev/zram0", "--destroy-data",
                         "/dev/zram0", target=False, stop="reverify")
        run.wait_stopped()
        # The sequential write stored every page of the device; about 2000
        # trims of 4 KiB since, some written again.
        after = harness.zram_mm_stat()[0]  # orig_data_size: bytes of the pages held
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        print(f"zram0 bytes stored after the trims: {after} of {64 << 20}")
        self.assertLess(after, (64 << 20) - 4 * MiB)
        self.assertGreater(trim_figures(doc, "reverify")[2], 0)


class RealTargetsIoUring(RealTargetCases, harness.DriveStressTest):
    backend = "io_uring"


class RealTargetsSync(RealTargetCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
