#!/usr/bin/env python3
"""--rand-block with a mix of sizes (fio's bssplit) and --unit.

Each size takes its weight of the operations (within 1.5 percentage points
of 20000), its operations and bytes add up to the phase's, every read is
verified and the reverify pass finds every unit as the mix left it; the
text, JSON and Prometheus textfile give each size's figures.  A bit
flipped mid-phase under a mix, zipf and --compress 2 at QD 128 is named at its own 4 KiB
unit, whatever size of read covered it.  Twenty seeds of a mix, zipf and
all of them with --compress 2 pass on a healthy target.  Bad mixes and units are refused in
one line naming the option."""

import os

import harness
from harness import UNIT_BYTES
from test_rate import validate
from test_workloads import flip_a_bit_mid_random

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "block-mix-{case}-{backend}"}

MIX = "4K:60,16K:20,128K:20"
SIZES = {4096: 60, 16384: 20, 131072: 20}


class BlockMixCases:
    def test_each_size_takes_its_weight_and_every_unit_verifies(self):
        prom = os.path.join(self.tmp, "m.prom")
        r = self.drivestress("-j", 2, "-s", "16M", "--qd", 16, "--rand-ops", 20000,
                             "--rand-block", MIX, "--phases", "seq-write,random,reverify",
                             "--prom", prom)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual(doc["config"]["rand_mix"], MIX)
        self.assertEqual(doc["config"]["unit_bytes"], UNIT_BYTES)
        phases = harness.merged_phases_of(doc)
        random = phases["random"]
        sizes = random["sizes"]
        self.assertEqual([s["bytes"] for s in sizes], sorted(SIZES))
        ops = random["read_ops"] + random["write_ops"]
        self.assertEqual(ops, 20000)
        self.assertEqual(sum(s["read_ops"] + s["write_ops"] for s in sizes), ops)
        self.assertEqual(sum(s["read_ops"] * s["bytes"] for s in sizes), random["read_bytes"])
        self.assertEqual(sum(s["write_ops"] * s["bytes"] for s in sizes), random["write_bytes"])
        for s in sizes:
            self.assertEqual(s["weight_pct"], SIZES[s["bytes"]])
            self.assertAlmostEqual(s["share_pct"], s["weight_pct"], delta=1.5, msg=s)
            self.assertEqual(s["latency"]["count"], s["read_ops"] + s["write_ops"])
            self.assertEqual(s["read_latency"]["count"], s["read_ops"])
        self.assertEqual(random["verified_bytes"], random["read_bytes"])
        self.assertEqual(phases["reverify"]["verified_bytes"], 2 * 16 << 20)
        self.assertIsNone(phases["reverify"]["sizes"])
        for size in ("4K", "16K", "128K"):
            self.assertRegex(r.stdout, rf"\n  bs {size}: +\d+\.\d % of ops  \S+ IOPS  ")
        self.assertIn(f"random bs {MIX}, 70% reads,", r.stdout)
        self.assertIn(f"blocks {MIX}", r.stdout)
        with open(prom) as f:
            text = f.read()
        for size in SIZES:
            self.assertRegex(text, r'drivestress_size_latency_seconds_count\{[^}]*'
                                   rf'phase="random",op="read",bs="{size}"\}} [1-9]')

    def test_a_bit_flip_under_a_mix_zipf_and_compress_at_qd128_is_named_at_its_unit(self):
        r, doc, bad, n, unit = flip_a_bit_mid_random(
            self, "-s", "4M", "--rand-block", MIX, "--distribution", "zipf:1.2", "--compress", 2)
        # Reads of 4K, 16K or 128K cover unit 37; each names the unit alone.
        records = doc["mismatches"]
        self.assertGreaterEqual(len(records), 1, r.describe())
        for m in records:
            self.assertEqual((m["class"], m["file_index"], m["offset_bytes"],
                              m["unit_offset_bytes"], m["length_bytes"], m["bad_bytes"]),
                             ("corrupt", 0, bad, unit, UNIT_BYTES, n))
        self.assertEqual(doc["summary"]["damaged_units"], 1)
        self.assertIn(f"{self.data_file(0)} offset {bad} (unit at {unit}): corrupt [", r.stdout)

    def test_no_false_verdict_over_20_seeds(self):
        # Healthy target, short runs at QD 32 with writes in the mix: every
        # seed of every workload passes (a sanitized build runs 3 seeds).
        workloads = {"mix": ("--rand-block", MIX),
                     "zipf": ("--distribution", "zipf:1.2"),
                     "all": ("--rand-block", MIX, "--distribution", "zipf:1.2", "--compress", 2)}
        for seed in range(1, 4 if harness.sanitizer() else 21):
            for name, args in workloads.items():
                with self.subTest(seed=seed, workload=name):
                    r = self.drivestress("-s", "4M", "-j", 1, "--qd", 32, "--rand-ops", 1500,
                                         "--phases", "seq-write,random,reverify", "--seed", seed,
                                         *args, json_out=False)
                    self.assertExit(r, 0)
                    self.assertIn("mismatches 0", r.stdout)

    def test_unit_below_one_size(self):
        r = self.drivestress("-j", 1, "-s", "4M", "--rand-ops", 2000, "--rand-block", "16K",
                             "--unit", "4K", "--phases", "seq-write,random,reverify")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual((doc["config"]["rand_block_bytes"], doc["config"]["unit_bytes"],
                          doc["config"]["rand_mix"]), (16384, 4096, None))
        random = harness.merged_phases_of(doc)["random"]
        self.assertEqual(random["read_bytes"] + random["write_bytes"], 2000 * 16384)
        self.assertIsNone(random["sizes"])
        self.assertIn("| random 16K, 70% reads,", r.stdout)

    def test_bad_mixes_are_refused_naming_the_option(self):
        cases = [(("--rand-block", "4K:60,16K:20"), "--rand-block", "sum to 80, not 100"),
                 (("--rand-block", "3K:50,4K:50"), "--rand-block", "power of two"),
                 (("--rand-block", "4K:60,4K:40"), "--rand-block", "4K is listed twice"),
                 (("--rand-block", "4K:50,16K:50", "--unit", "8K"), "--unit", "does not divide"),
                 (("--rand-block", "4K:50,128K:50", "-s", "192K", "--seq-block", "64K"),
                  "--size 192K", "largest size 128K"),
                 (("--rand-block", "4K:50,16K:50", "--sweep", "rand-block=4K,8K"),
                  "--sweep rand-block", "--rand-block")]
        for args, *names in cases:
            with self.subTest(args=args):
                r = self.drivestress(*args, json_out=False)
                self.assertSetupError(r, *names)
                self.assertNoFilesLeft(r)


class BlockMixIoUring(BlockMixCases, harness.DriveStressTest):
    backend = "io_uring"


class BlockMixSync(BlockMixCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
