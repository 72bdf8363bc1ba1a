#!/usr/bin/env python3
"""--distribution: the random phase's blocks land where the distribution
says, every byte still verified.

At QD 1 nothing is ever in flight when a block is drawn, so the shares of
operations on the hottest 1 %, 10 % and 20 % of blocks are the
distribution's own (within two percentage points, 20000 draws); the same
seed draws the same blocks; at QD 128 a bit flipped mid-phase is found at
its exact offset and named, on both backends; bad values are refused in
one line naming the option and the accepted forms."""

import re

import harness
from harness import UNIT_BYTES, read_block
from test_corruption import CorruptionCases
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "workloads-{case}-{backend}"}

QD1 = ("-j", 1, "-s", "16M", "--qd", 1, "--read-pct", 70, "--phases", "seq-write,random")


def skew_of(doc):
    return harness.merged_phases_of(doc)["random"]["skew"]


def flip_a_bit_mid_random(test, *args):
    """Reads only at QD 128 on one file (`args` add the workload): stopped
    300 operations into the random phase, one bit of unit 37 flipped, run
    to the end.  Exit 2 and a valid document; (result, document, offset of
    the bad byte, bytes changed, the unit's offset)."""
    run = test.start("-j", 1, "--qd", 128, "--read-pct", 100, "--rand-time", 2, *args,
                     stop="random:300")
    run.wait_stopped()
    unit = 37 * UNIT_BYTES
    data = bytearray(read_block(test.data_file(0), unit, UNIT_BYTES))
    data[1000] ^= 0x10
    bad, n = CorruptionCases.overwrite(test, test.data_file(0), unit, data)
    run.resume()
    r = run.finish()
    test.assertExit(r, 2)
    test.assertNoFilesLeft(r)
    doc = test.assertJson(r)
    validate(test, doc)
    return r, doc, bad, n, unit


class SkewCases:
    def test_each_distribution_lands_on_its_predicted_share_at_qd1(self):
        # A sanitized build checks one: the draws are the same code, slower.
        dists = ("zipf:1.2", "pareto:0.3", "normal:5%", "zoned:60/10,30/20,10/70")
        for dist in dists[:1] if harness.sanitizer() else dists:
            with self.subTest(dist=dist):
                r = self.drivestress(*QD1, "--rand-ops", 20000, "--distribution", dist,
                                     "--seed", 3)
                self.assertExit(r, 0)
                doc = self.assertJson(r)
                validate(self, doc)
                self.assertEqual(doc["config"]["distribution"], dist)
                skew = skew_of(doc)
                self.assertEqual(skew["distribution"], dist)
                self.assertEqual(skew["blocks"], 4096)
                self.assertEqual(skew["ops"], 20000)
                self.assertEqual(skew["busy_redraws"], 0)  # one in flight: never busy
                for hot in skew["hot"]:
                    self.assertAlmostEqual(hot["share"], hot["predicted"], delta=0.02, msg=skew)
                self.assertLessEqual(skew["blocks_touched"], skew["blocks"])
                self.assertIn(f"  skew:      {dist}  ops on the hottest 1 % of blocks", r.stdout)
                self.assertRegex(r.stdout, r"figures .*random 4K, 70% reads, " + re.escape(dist))

    def test_the_same_seed_draws_the_same_blocks(self):
        runs = [skew_of(self.assertJson(self.drivestress(*QD1, "--rand-ops", 5000,
                                                         "--distribution", "zipf:0.8",
                                                         "--seed", 11)))
                for _ in range(2)]
        self.assertEqual(runs[0], runs[1])
        # Without the distribution the phase draws exactly as it always did:
        # no tally, and the config says uniform.
        r = self.drivestress(*QD1, "--rand-ops", 500, "--seed", 11)
        doc = self.assertJson(r)
        self.assertIsNone(skew_of(doc))
        self.assertEqual(doc["config"]["distribution"], "uniform")
        self.assertNotIn("skew:", r.stdout)

    def test_busy_hot_blocks_are_counted_at_high_queue_depth(self):
        # Writes only, a hot zone of 20 blocks at QD 64: a block being
        # written is never written again before it completes, so the hot
        # blocks are busy most of the time; the draws that found them so
        # are counted and the text says why the share falls short.
        r = self.drivestress("-j", 1, "-s", "4M", "--qd", 64, "--rand-ops", 20000,
                             "--read-pct", 0, "--distribution", "zoned:90/2,10/98",
                             "--phases", "seq-write,random")
        self.assertExit(r, 0)
        skew = skew_of(self.assertJson(r))
        self.assertGreater(skew["busy_redraws"], 0, skew)
        self.assertLess(skew["hot"][1]["share"], skew["hot"][1]["predicted"], skew)
        self.assertIn("of draws found their block in flight and drew again", r.stdout)

    def test_reads_of_a_hot_block_share_it(self):
        # Reads only, the same hot zone at QD 64: reads of a block may be in
        # flight together (none changes it), so no draw is ever redrawn and
        # the hot zone gets its share, every read verified.
        r = self.drivestress("-j", 1, "-s", "4M", "--qd", 64, "--rand-ops", 20000,
                             "--read-pct", 100, "--distribution", "zoned:90/2,10/98",
                             "--phases", "seq-write,random")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        skew = skew_of(doc)
        self.assertEqual(skew["busy_redraws"], 0, skew)
        self.assertAlmostEqual(skew["hot"][1]["share"], skew["hot"][1]["predicted"], delta=0.02)
        random = harness.merged_phases_of(doc)["random"]
        self.assertEqual(random["verified_bytes"], 20000 * UNIT_BYTES)
        self.assertNotIn("drew again", r.stdout)

    def test_a_bit_flip_under_zipf_at_qd128_is_found_at_its_offset(self):
        r, doc, bad, n, unit = flip_a_bit_mid_random(self, "-s", "2M", "--distribution",
                                                     "zipf:1.2")
        merged = harness.merged_phases_of(doc)
        # Reads only, so no write hides the damage: the random phase finds it
        # wherever zipf puts unit 37 among the hot or cold, reverify surely.
        records = doc["mismatches"]
        self.assertGreaterEqual(len(records), 1, r.describe())
        for m in records:
            self.assertEqual((m["class"], m["file_index"], m["offset_bytes"],
                              m["unit_offset_bytes"], m["bad_bytes"], m["op"]),
                             ("corrupt", 0, bad, unit, n, "read"))
        self.assertEqual(doc["summary"]["damaged_units"], 1)
        self.assertEqual(merged["reverify"]["mismatches"]["corrupt"], 1)
        self.assertIn(f"{self.data_file(0)} offset {bad} (unit at {unit}): corrupt [", r.stdout)

    def test_bad_values_are_refused_naming_the_option(self):
        for value in ("zipf:1", "zipf:", "zipf:abc", "pareto:1.5", "normal:0%",
                      "zoned:60/10,30/20", "foo"):
            with self.subTest(value=value):
                r = self.drivestress(*QD1, "--distribution", value, json_out=False)
                self.assertSetupError(r, "--distribution", value, "accepted: uniform, zipf:THETA")


class SkewIoUring(SkewCases, harness.DriveStressTest):
    backend = "io_uring"


class SkewSync(SkewCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
