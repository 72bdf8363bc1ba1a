#!/usr/bin/env python3
"""--compress RATIO: units that compress about RATIO:1, every byte still
verified.

Each 512-byte sector keeps 512/RATIO - 8 bytes (rounded to 8) of the unit
and is zero after them; the files hold exactly that shape; the report
measures the ratio; damage is found at its exact offset with its class on
both backends; 20 seeds pass on both; --keep / --verify-only reproduce the
units; bad values are refused in one line.  On zram (root, zram0 free)
the device's own mm_stat ratio is within 10 % of 2 for --compress 2,
within 15 % of 4 for --compress 4, and at least 0.98 without it."""

import json
import os
import subprocess

import harness
from harness import UNIT_BYTES, read_block
from test_corruption import CorruptionCases
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "compress-{case}-{backend}"}

SMALL = ("-s", "1M", "-j", 2, "--qd", 16, "--seq-block", "64K", "--rand-ops", 400)
KEPT = {2: 248, 4: 120, 8: 56}  # stream bytes a sector keeps (pattern::sector_random_bytes)


def sectors_shaped(unit, keep):
    """True when every sector of `unit` is non-zero somewhere in its first
    `keep` bytes and zero after them."""
    for at in range(0, len(unit), 512):
        sector = unit[at:at + 512]
        if any(sector[keep:]) or not any(sector[:keep]):
            return False
    return True


class CompressCases:
    def test_files_hold_the_shape_and_the_report_measures_it(self):
        for ratio, keep in KEPT.items():
            with self.subTest(ratio=ratio):
                run = self.start(*SMALL, "--compress", ratio, stop="reverify")
                run.wait_stopped()
                units = [read_block(self.data_file(f), u * UNIT_BYTES, UNIT_BYTES)
                         for f in (0, 1) for u in (0, 1, 100, 255)]
                run.resume()
                r = run.finish()
                self.assertExit(r, 0)
                for unit in units:
                    self.assertEqual(unit[:8], b"DSTRUNIT")
                    self.assertTrue(sectors_shaped(unit, keep), unit[:600])
                doc = self.assertJson(r)
                validate(self, doc)
                self.assertEqual(doc["config"]["compress"], ratio)
                data = doc["data"]
                self.assertEqual((data["compress"], data["sampled_units"]), (ratio, 256))
                self.assertAlmostEqual(data["measured_ratio"], ratio, delta=ratio * 0.05)
                self.assertRegex(r.stdout, rf"workload .*\n?.*compress {ratio}\b")
                self.assertIn(f"data: compress {ratio} (measured "
                              f"{data['measured_ratio']:.2f}:1 over 256 sampled units)",
                              r.stdout)

    def test_default_is_incompressible_and_says_nothing_more(self):
        run = self.start(*SMALL, stop="reverify")
        run.wait_stopped()
        unit = read_block(self.data_file(0), 100 * UNIT_BYTES, UNIT_BYTES)
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertFalse(sectors_shaped(unit, 504), "a default unit has no zero tails")
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["compress"], 1)
        self.assertAlmostEqual(doc["data"]["measured_ratio"], 1.0, delta=0.01)
        self.assertNotIn("data:", r.stdout)
        self.assertNotIn("compress", r.stdout)

    def test_twenty_seeds_pass(self):
        # A sanitized build runs 4 seeds (one of each ratio), as the other seed sweeps.
        for seed in range(1, 5 if harness.sanitizer() else 21):
            ratio = (1.5, 2, 4, 8)[seed % 4]
            with self.subTest(seed=seed, ratio=ratio):
                r = self.drivestress(*SMALL, "--compress", ratio, "--seed", seed)
                self.assertExit(r, 0)
                self.assertIn("result   PASS", r.stdout)
                s = self.assertJson(r)["summary"]
                self.assertGreater(s["verified_bytes"], 0)

    def test_a_bit_flip_in_the_zeros_and_in_the_kept_bytes_is_found_at_its_offset(self):
        unit = 37 * UNIT_BYTES
        for at in (1000, 1100):  # sector 1's zeros (1000 - 512 >= 248); sector 2's data
            with self.subTest(at=at):
                run = self.start("-s", "2M", "-j", 1, "--qd", 64, "--read-pct", 100,
                                 "--rand-ops", 200, "--compress", 2, stop="reverify")
                run.wait_stopped()
                data = bytearray(read_block(self.data_file(0), unit, UNIT_BYTES))
                self.assertEqual(data[at] == 0, at == 1000)
                data[at] ^= 0x10
                bad, n = CorruptionCases.overwrite(self, self.data_file(0), unit, data)
                run.resume()
                r = run.finish()
                self.assertExit(r, 2)
                self.assertNoFilesLeft(r)
                records = self.assertJson(r)["mismatches"]
                self.assertEqual(len(records), 1, r.describe())
                m = records[0]
                self.assertEqual((m["class"], m["offset_bytes"], m["unit_offset_bytes"],
                                  m["bad_bytes"], bad, n),
                                 ("corrupt", unit + at, unit, 1, unit + at, 1))

    def test_keep_then_verify_only_reproduces_the_units(self):
        r = self.drivestress(*SMALL, "--compress", 4, "--keep", json_out=False)
        self.assertExit(r, 0)
        state = os.path.join(self.target, "drivestress.state")
        with open(state, "rb") as f:
            self.assertEqual(int.from_bytes(f.read(12)[8:12], "little"), 5)  # format 5
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", "--verify-only", state,
                            "--cleanup"], capture_output=True, text=True,
                           timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("PASS", p.stdout)
        self.assertEqual(self.target_files(), [])

    def test_bad_values_are_refused_naming_the_option(self):
        for value in ("0.5", "9", "0", "-2", "2x", "abc", "1e1", ""):
            with self.subTest(value=value):
                r = self.drivestress(*SMALL, "--compress", value, json_out=False)
                self.assertSetupError(r, "--compress", f"'{value}'", "from 1 to 8")


class CompressIoUring(CompressCases, harness.DriveStressTest):
    backend = "io_uring"


class CompressSync(CompressCases, harness.DriveStressTest):
    backend = "sync"


class CompressedDamageCases:
    """The damage cases of test_corruption under --compress 2: each class,
    its exact offset and bytes, in seq-read and reverify."""

    args = CorruptionCases.args + ("--compress", 2)
    seq_qd = CorruptionCases.seq_qd
    run_with_damage = CorruptionCases.run_with_damage
    overwrite = CorruptionCases.overwrite
    assertDetected = CorruptionCases.assertDetected
    check_torn = CorruptionCases.check_torn
    test_bit_flip = CorruptionCases.test_bit_flip
    test_zeroed_unit = CorruptionCases.test_zeroed_unit
    test_stale_unit = CorruptionCases.test_stale_unit
    test_misdirected_within_file = CorruptionCases.test_misdirected_within_file
    test_misdirected_from_other_file = CorruptionCases.test_misdirected_from_other_file
    test_torn_new_head_old_tail = CorruptionCases.test_torn_new_head_old_tail
    test_torn_old_head_new_tail = CorruptionCases.test_torn_old_head_new_tail


class CompressedDamageIoUring(CompressedDamageCases, harness.DriveStressTest):
    backend = "io_uring"


class CompressedDamageSync(CompressedDamageCases, harness.DriveStressTest):
    backend = "sync"


def zram_ratio():
    orig, compr = harness.zram_mm_stat()[:2]
    return orig / compr if compr else 0.0


class ZramCases:
    """A real compressing device: zram0 as a raw device, its own figures."""

    @harness.meson_case(is_parallel=False)
    def test_zram_reaches_the_ratio_asked(self):
        harness.require_free_zram(self)
        # Each run writes every byte of the device (4 regions of 16 MiB);
        # drivestress leaves a raw device's contents, so mm_stat after the
        # run describes exactly the data it wrote.
        for ratio, lo, hi in ((2, 1.8, 2.2), (4, 3.4, 4.6), (1, 0.98, 1.02)):
            with self.subTest(ratio=ratio):
                harness.zram_sized(64 << 20)
                r = self.drivestress("-s", "16M", "-j", 4, "--rand-ops", 2000,
                                     "--compress", ratio, "--raw-device", "/dev/zram0",
                                     "--destroy-data", "/dev/zram0", target=False)
                self.assertExit(r, 0)
                got = zram_ratio()
                print(f"zram0 --compress {ratio}: mm_stat ratio {got:.3f}, "
                      f"estimate {self.assertJson(r)['data']['measured_ratio']:.3f}")
                self.assertGreaterEqual(got, lo)
                self.assertLessEqual(got, hi)


class Zram(ZramCases, harness.DriveStressTest):
    backend = "io_uring"


if __name__ == "__main__":
    harness.main()
