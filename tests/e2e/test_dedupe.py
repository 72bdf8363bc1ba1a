#!/usr/bin/env python3
"""--dedupe PCT: that share of units copies one of 16 sources.

The files hold it (every copy of a source byte-identical, the kept files'
distinct 4 KiB blocks exactly what the report counts); the report and JSON
say how many units are copies and what that makes undetectable; a bit
flipped mid-run in a copy is named at its file and offset with exit 2 on
both backends; a unit of its own written over a copy is misdirected, while
a copy over another copy of its source goes unseen (the stated blind
spot); 20 seeds of --dedupe 30, alone and with --compress 2, pass on both
backends; --keep / --verify-only reproduce the copies; a preset's report
says what the copies hide too; bad values are refused in one line naming
the option."""

import os
import subprocess

import harness
from harness import UNIT_BYTES, read_block
from test_corruption import CorruptionCases
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "dedupe-{case}-{backend}"}

SMALL = ("-s", "1M", "-j", 2, "--qd", 16, "--seq-block", "64K", "--rand-ops", 400)
SOURCES = 16


def units_of(path):
    """Every 4 KiB unit of the file at `path`."""
    with open(path, "rb") as f:
        data = f.read()
    return [data[at:at + UNIT_BYTES] for at in range(0, len(data), UNIT_BYTES)]


def source_of(unit):
    """The source a copy holds (its header's bytes 16..23), None for a unit of its own."""
    return int.from_bytes(unit[16:24], "little") if unit[:8] == b"DSTRDUPE" else None


class DedupeCases:
    def test_files_hold_the_copies_and_the_report_counts_them(self):
        run = self.start(*SMALL, "--dedupe", 30, stop="reverify")
        run.wait_stopped()
        files = [units_of(self.data_file(f)) for f in (0, 1)]
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        copies = {}
        for units in files:
            self.assertEqual(units[0][:8], b"DSTRUNIT")  # a file's mark is never a copy
            for unit in units:
                if source_of(unit) is not None:
                    copies.setdefault(source_of(unit), set()).add(unit)
                else:
                    self.assertEqual(unit[:8], b"DSTRUNIT")
        self.assertEqual(sorted(copies), list(range(SOURCES)))
        self.assertTrue(all(len(c) == 1 for c in copies.values()), "copies differ")
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual(doc["config"]["dedupe"], 30)
        data = doc["data"]
        dupes = sum(1 for units in files for u in units if source_of(u) is not None)
        self.assertEqual((data["dedupe_pct"], data["counted_units"], data["duplicate_units"],
                          data["dedupe_sources"]), (30, 512, dupes, SOURCES))
        self.assertAlmostEqual(dupes / 512, 0.30, delta=0.06)
        self.assertAlmostEqual(data["dedupe_ratio"], 512 / (512 - dupes + SOURCES), places=6)
        self.assertRegex(r.stdout, r"workload .*\n?.*dedupe 30 %")
        self.assertIn(f"data: dedupe 30 % ({dupes} of 512 units hold one of 16 sources, "
                      f"{data['dedupe_ratio']:.2f}:1; a lost, torn or misdirected write between "
                      "two units of one source is undetectable)", r.stdout)

    def test_default_has_no_copies_and_says_nothing_more(self):
        r = self.drivestress(*SMALL)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["dedupe"], 0)
        self.assertEqual((doc["data"]["duplicate_units"], doc["data"]["dedupe_ratio"]), (0, 1))
        self.assertNotIn("dedupe", r.stdout)

    def test_with_compress_both_in_the_data_line(self):
        r = self.drivestress(*SMALL, "--dedupe", 12.5, "--compress", 2)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual((doc["config"]["dedupe"], doc["config"]["compress"]), (12.5, 2))
        self.assertRegex(r.stdout, r"data: compress 2 \(measured [\d.]+:1 over 256 sampled "
                                   r"units\), dedupe 12\.5 % \(\d+ of 512 units")
        self.assertRegex(r.stdout, r"compress 2  dedupe 12\.5 %")

    def test_a_bit_flip_in_a_copy_mid_random_is_named_at_its_offset(self):
        run = self.start("-j", 1, "-s", "4M", "--qd", 128, "--read-pct", 100, "--rand-time", 2,
                         "--dedupe", 30, stop="random:300")
        run.wait_stopped()
        units = units_of(self.data_file(0))
        index = next(i for i in range(37, len(units)) if source_of(units[i]) is not None)
        unit = index * UNIT_BYTES
        data = bytearray(units[index])
        data[1000] ^= 0x10
        bad, n = CorruptionCases.overwrite(self, self.data_file(0), unit, data)
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        validate(self, doc)
        records = doc["mismatches"]
        self.assertGreaterEqual(len(records), 1, r.describe())
        for m in records:
            self.assertEqual((m["class"], m["file_index"], m["offset_bytes"],
                              m["unit_offset_bytes"], m["bad_bytes"]),
                             ("corrupt", 0, bad, unit, n))
        self.assertEqual(doc["summary"]["damaged_units"], 1)
        self.assertIn(f"{self.data_file(0)} offset {bad} (unit at {unit}): corrupt [", r.stdout)

    def test_misdirected_onto_a_copy_is_found_between_copies_it_is_not(self):
        run = self.start("-j", 1, "-s", "2M", "--qd", 16, "--rand-ops", 200, "--dedupe", 30,
                         stop="reverify")
        run.wait_stopped()
        units = units_of(self.data_file(0))
        copies = [i for i in range(1, len(units)) if source_of(units[i]) is not None]
        own = next(i for i in range(1, len(units)) if source_of(units[i]) is None)
        victim = copies[0]
        twin = next(i for i in copies[1:] if source_of(units[i]) == source_of(units[victim]))
        # A unit of its own over a copy: detectable.  The copy meant for
        # `victim` landing on `twin`, of the same source: the same bytes,
        # nothing to see.
        CorruptionCases.overwrite(self, self.data_file(0), victim * UNIT_BYTES, units[own])
        harness.write_block(self.data_file(0), twin * UNIT_BYTES, units[victim])
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        records = self.assertJson(r)["mismatches"]
        self.assertEqual([(m["class"], m["unit_offset_bytes"], m["found"]["offset_bytes"])
                          for m in records],
                         [("misdirected", victim * UNIT_BYTES, own * UNIT_BYTES)], r.describe())

    def test_twenty_seeds_pass(self):
        # Healthy target, short runs at QD 32 with writes: every seed of both
        # workloads passes (a sanitized build runs 3 seeds).
        workloads = {"dedupe": ("--dedupe", 30), "dedupe+compress": ("--dedupe", 30,
                                                                     "--compress", 2)}
        for seed in range(1, 4 if harness.sanitizer() else 21):
            for name, args in workloads.items():
                with self.subTest(seed=seed, workload=name):
                    r = self.drivestress("-s", "2M", "-j", 1, "--qd", 32, "--rand-ops", 1000,
                                         "--seed", seed, *args, json_out=False)
                    self.assertExit(r, 0)
                    self.assertIn("result   PASS", r.stdout)
                    self.assertIn("mismatches 0", r.stdout)

    def test_keep_then_verify_only_and_the_distinct_blocks(self):
        r = self.drivestress(*SMALL, "--dedupe", 25, "--compress", 2, "--keep")
        self.assertExit(r, 0)
        data = self.assertJson(r)["data"]
        state = os.path.join(self.target, "drivestress.state")
        with open(state, "rb") as f:
            self.assertEqual(int.from_bytes(f.read(12)[8:12], "little"), 6)  # format 6
        # What a device deduplicating 4 KiB blocks finds in the kept files.
        blocks = [u for f in (0, 1) for u in units_of(self.data_file(f))]
        self.assertEqual(len(set(blocks)),
                         data["counted_units"] - data["duplicate_units"] + data["dedupe_sources"])
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", "--verify-only", state,
                            "--cleanup"], capture_output=True, text=True,
                           timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("PASS", p.stdout)
        self.assertIn("dedupe 25 %: a lost or torn write to a unit that copies a source cannot "
                      "be seen", p.stdout)
        self.assertEqual(self.target_files(), [])

    def test_a_preset_says_what_the_copies_hide(self):
        r = self.drivestress("--preset", "quick", "-s", "1M", "-j", 1, "--rand-time", 1,
                             "--dedupe", 20)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["preset"]["tests"][0]["exit_code"], 0)
        self.assertEqual(doc["config"]["dedupe"], 20)
        self.assertRegex(r.stdout, r"\n  data: dedupe 20 % \(\d+ of 256 units hold one of \d+ "
                                   r"sources, [\d.]+:1; a lost, torn or misdirected\s+write")

    def test_bad_values_are_refused_naming_the_option(self):
        for value in ("101", "100.1", "x", "-1", "12.25", "25%", "1e1", ""):
            with self.subTest(value=value):
                r = self.drivestress(*SMALL, "--dedupe", value, json_out=False)
                self.assertSetupError(r, "--dedupe", f"'{value}'", "from 0 to 100")
                self.assertNoFilesLeft(r)


class DedupeIoUring(DedupeCases, harness.DriveStressTest):
    backend = "io_uring"


class DedupeSync(DedupeCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
