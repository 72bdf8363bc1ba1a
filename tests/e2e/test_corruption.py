#!/usr/bin/env python3
"""Damage injected into the files of a running drivestress (stopped right
before seq-read) is found at high queue depth: exit 2, the right class, the
absolute offset of the first wrong byte, the number of wrong bytes.

The random phase is off, so the damaged unit is read exactly twice: by
seq-read and by reverify, and each reports it once.  RateCases damages a
unit during an open-loop (--rate) random phase instead."""

import harness
from harness import UNIT_BYTES, MiB, count_differences, first_difference, read_block, \
    write_block

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "corruption-{case}-{backend}", "threads": True}

FILES = 2
FILE_BYTES = 8 * MiB
ARGS = ("-s", "8M", "-j", FILES, "--qd", 64, "--seq-block", "64K", "--rand-time", 0)
# 512 blocks of 16K per worker: the sequential phases keep 256 in flight.
QD256_ARGS = ("-s", "8M", "-j", FILES, "--qd", 256, "--seq-block", "16K", "--rand-time", 0)
QD1_ARGS = ("-s", "8M", "-j", FILES, "--qd", 1, "--seq-block", "64K", "--rand-time", 0)
VERIFYING_PHASES = ("seq-read", "reverify")
UNIT = 37 * UNIT_BYTES  # the damaged unit, in file 0
OTHER_UNIT = 1000 * UNIT_BYTES


class CorruptionCases:
    """Mixin of the cases; instantiated per backend (and queue depth) below."""

    args = ARGS
    seq_qd = 64  # operations in flight per worker in seq-read

    def run_with_damage(self, damage, iterations=1):
        """Runs drivestress, calls damage() at the stop before the last
        iteration's seq-read (earlier stops are passed to damage too, with
        their iteration number), returns the finished Result."""
        run = self.start(*self.args, "--iterations", iterations, stop="seq-read")
        for iteration in range(1, iterations + 1):
            run.wait_stopped()
            self.assertFilesPresent(FILES, FILE_BYTES)
            damage(iteration)
            run.resume()
        return run.finish()

    def overwrite(self, path, offset, data):
        """Replaces a unit; returns (first wrong byte's offset, wrong bytes)."""
        before = read_block(path, offset, len(data))
        self.assertNotEqual(before, data, "the damage changes nothing")
        write_block(path, offset, data)
        self.assertEqual(read_block(path, offset, len(data)), data, "damage did not land")
        return offset + first_difference(data, before), count_differences(data, before)

    def assertDetected(self, r, cls, offset, bad_bytes, iteration=1, file_index=0,
                       found=None, expected_generation=None):
        """One mismatch of class `cls` at `offset` in seq-read and in
        reverify of `iteration`, nothing else; reported in JSON and text."""
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertEqual(doc["backend"]["seq_qd_per_worker"], self.seq_qd,
                         "queue depth in seq-read")
        self.assertEqual(doc["backend"]["sync_threads_per_worker"],
                         self.seq_qd if self.backend == "sync" and self.seq_qd > 1 else 0,
                         "sync: one thread per operation in flight")
        path = self.data_file(file_index)
        unit = offset // UNIT_BYTES * UNIT_BYTES
        records = doc["mismatches"]
        self.assertEqual([(m["iteration"], m["phase"]) for m in records],
                         [(iteration, p) for p in VERIFYING_PHASES], r.describe())
        for m in records:
            self.assertEqual(m["class"], cls)
            self.assertEqual(m["file"], path)
            self.assertEqual(m["file_index"], file_index)
            self.assertEqual(m["offset_bytes"], offset)
            self.assertEqual(m["unit_offset_bytes"], unit)
            self.assertEqual(m["length_bytes"], UNIT_BYTES)
            self.assertEqual(m["op"], "read")
            self.assertEqual(m["bad_bytes"], bad_bytes)
            if expected_generation is not None:
                self.assertEqual(m["expected_generation"], expected_generation)
            if found is None:
                continue
            self.assertIsNotNone(m["found"], "header should parse")
            for key, want in found.items():
                self.assertEqual(m["found"][key], want, "found." + key)
        self.assertFalse(doc["mismatches_truncated"])

        s = doc["summary"]
        self.assertEqual((s["status"], s["exit_code"], s["stop_reason"]),
                         ("failed", 2, "completed"))
        self.assertEqual(s["mismatch_total"], len(VERIFYING_PHASES))
        self.assertEqual(s["mismatches"][cls], len(VERIFYING_PHASES))
        for it_index, p in harness.phases_of(doc):
            want = 1 if it_index == iteration and p["phase"] in VERIFYING_PHASES else 0
            self.assertEqual(p["mismatch_total"], want, (it_index, p["phase"]))
        for name, p in harness.merged_phases_of(doc).items():
            want = 1 if name in VERIFYING_PHASES else 0
            self.assertEqual(p["mismatches"][cls], want, name)
            self.assertEqual(sum(p["mismatches"].values()), want, name)

        # The damage first, then the place once: as the first read found it,
        # the later reads named after it.
        self.assertLess(r.stdout.index("\ndamage   "), r.stdout.index("\nmismatches ("))
        place = f"{path} offset {offset} (unit at {unit}): "
        lines = [l for l in r.stdout.splitlines() if place in l]
        self.assertEqual(len(lines), 1, r.stdout)
        first, *later = VERIFYING_PHASES
        self.assertIn(f"{place}{cls} [{first}, iteration {iteration}]", lines[0])
        if later:
            self.assertTrue(lines[0].endswith("  also seen by " + ", ".join(
                f"{p} (iteration {iteration})" for p in later)), lines[0])
        self.assertIn(f"{bad_bytes} byte differs" if bad_bytes == 1 else f"{bad_bytes} bytes differ",
                      r.stdout)
        self.assertIn("result   FAIL", r.stdout)

    # -- the cases

    def test_bit_flip(self):
        """One flipped payload bit: corrupt, at that byte, 1 byte wrong."""
        at = {}

        def flip(_):
            unit = bytearray(read_block(self.data_file(0), UNIT, UNIT_BYTES))
            unit[1000] ^= 0x10
            at["offset"], at["bad"] = self.overwrite(self.data_file(0), UNIT, unit)

        r = self.run_with_damage(flip)
        self.assertEqual((at["offset"], at["bad"]), (UNIT + 1000, 1))
        self.assertDetected(r, "corrupt", UNIT + 1000, 1, found={"offset_bytes": UNIT})

    def test_zeroed_unit(self):
        at = {}

        def zero(_):
            at["offset"], at["bad"] = self.overwrite(self.data_file(0), UNIT,
                                                     bytes(UNIT_BYTES))

        r = self.run_with_damage(zero)
        self.assertEqual(at["offset"], UNIT, "a unit's first byte is never zero")
        self.assertDetected(r, "zeroed", at["offset"], at["bad"])

    def test_stale_unit(self):
        """Generation 1 of a unit put back over generation 2: a lost write."""
        saved, at = {}, {}

        def restore_old(iteration):
            if iteration == 1:
                saved["unit"] = read_block(self.data_file(0), UNIT, UNIT_BYTES)
            else:
                at["offset"], at["bad"] = self.overwrite(self.data_file(0), UNIT,
                                                         saved["unit"])

        r = self.run_with_damage(restore_old, iterations=2)
        self.assertDetected(r, "stale", at["offset"], at["bad"], iteration=2,
                            expected_generation=2,
                            found={"generation": 1, "offset_bytes": UNIT, "file_index": 0})

    def test_misdirected_within_file(self):
        """Another unit of the same file written at UNIT."""
        at = {}

        def copy(_):
            data = read_block(self.data_file(0), OTHER_UNIT, UNIT_BYTES)
            at["offset"], at["bad"] = self.overwrite(self.data_file(0), UNIT, data)

        r = self.run_with_damage(copy)
        self.assertDetected(r, "misdirected", at["offset"], at["bad"],
                            found={"offset_bytes": OTHER_UNIT, "file_index": 0})

    def test_misdirected_from_other_file(self):
        """The unit at the same offset of file 1 written into file 0."""
        at = {}

        def copy(_):
            data = read_block(self.data_file(1), UNIT, UNIT_BYTES)
            at["offset"], at["bad"] = self.overwrite(self.data_file(0), UNIT, data)

        r = self.run_with_damage(copy)
        self.assertDetected(r, "misdirected", at["offset"], at["bad"],
                            found={"offset_bytes": UNIT, "file_index": 1})


    def check_torn(self, new_head):
        """A unit whose write was torn: half its sectors of generation 2 (the
        new write), half of generation 1 (what was there)."""
        saved, at = {}, {}
        half = UNIT_BYTES // 2

        def tear(iteration):
            old_or_new = read_block(self.data_file(0), UNIT, UNIT_BYTES)
            if iteration == 1:
                saved["old"] = old_or_new
                return
            new, old = old_or_new, saved["old"]
            torn = new[:half] + old[half:] if new_head else old[:half] + new[half:]
            at["offset"], at["bad"] = self.overwrite(self.data_file(0), UNIT, torn)

        r = self.run_with_damage(tear, iterations=2)
        self.assertDetected(r, "torn", at["offset"], at["bad"], iteration=2,
                            expected_generation=2,
                            found={"generation": 2 if new_head else 1, "offset_bytes": UNIT,
                                   "file_index": 0})
        self.assertGreaterEqual(at["offset"], UNIT + (half if new_head else 0))

    def test_torn_new_head_old_tail(self):
        self.check_torn(new_head=True)

    def test_torn_old_head_new_tail(self):
        self.check_torn(new_head=False)

    def test_cross_file_swap(self):
        """The units at UNIT of files 0 and 1 swapped: each file reports a
        misdirected unit whose header names the other file."""
        def swap(_):
            a = read_block(self.data_file(0), UNIT, UNIT_BYTES)
            b = read_block(self.data_file(1), UNIT, UNIT_BYTES)
            write_block(self.data_file(0), UNIT, b)
            write_block(self.data_file(1), UNIT, a)

        r = self.run_with_damage(swap)
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        got = [(m["phase"], m["file"], m["file_index"], m["class"], m["unit_offset_bytes"],
                m["found"]["file_index"], m["found"]["offset_bytes"])
               for m in doc["mismatches"]]
        want = [(p, self.data_file(f), f, "misdirected", UNIT, 1 - f, UNIT)
                for p in VERIFYING_PHASES for f in (0, 1)]
        self.assertEqual(got, want, r.describe())
        self.assertEqual(doc["summary"]["mismatches"]["misdirected"], 4)
        for f in (0, 1):
            self.assertIn(f"{self.data_file(f)} offset", r.stdout)
            self.assertIn(f"header says file {1 - f} offset {UNIT}", r.stdout)

class FarBackCases:
    """A unit put back many generations later: 255 and 256 writes back it
    was the same one-byte generation (or the one before), which a run read
    as intact (or "one back").  Sequential phases only, so every iteration
    moves every unit exactly one generation on."""

    def test_stale_255_and_256_generations_back(self):
        units = 16
        a, b = 3 * UNIT_BYTES, 11 * UNIT_BYTES
        last = 257
        run = self.start("-s", units * UNIT_BYTES, "-j", 1, "--qd", 4, "--seq-block", "16K",
                         "--phases", "seq-write,seq-read", "--iterations", last,
                         stop="seq-read")
        saved = {}
        for iteration in range(1, last + 1):
            run.wait_stopped()
            if iteration == 1:
                saved[a] = read_block(self.data_file(0), a, UNIT_BYTES)  # generation 1
            if iteration == 2:
                saved[b] = read_block(self.data_file(0), b, UNIT_BYTES)  # generation 2
            if iteration == last:  # every unit holds generation 257
                for at, data in saved.items():
                    write_block(self.data_file(0), at, data)
            run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        records = sorted((m["unit_offset_bytes"], m["iteration"], m["phase"], m["class"],
                          m["expected_generation"], m["found"]["generation"])
                         for m in doc["mismatches"])
        self.assertEqual(records, [(a, last, "seq-read", "stale", last, 1),
                                   (b, last, "seq-read", "stale", last, 2)], r.describe())
        self.assertEqual(doc["summary"]["mismatches"]["stale"], 2)


class SeqTimeCases:
    """--seq-time: damage injected after seq-read's first whole pass is found
    by the later passes, each at the damaged byte's exact offset, and by
    reverify's (every pass verifies against the map, as the first does)."""

    def test_damage_during_a_seq_time_pass(self):
        seq_block = 64 * 1024
        per_pass = FILE_BYTES // seq_block  # worker 0's operations in one pass
        # Stopped in seq-read's second pass: the first whole pass is done.
        run = self.start("-s", "8M", "-j", FILES, "--qd", 8, "--seq-block", "64K",
                         "--seq-time", "2s", "--phases", "seq-write,seq-read,reverify",
                         stop=f"seq-read:{per_pass + 8}")
        run.wait_stopped()
        unit_at = 100 * seq_block + 5 * UNIT_BYTES  # far ahead in the pass
        unit = bytearray(read_block(self.data_file(0), unit_at, UNIT_BYTES))
        unit[1000] ^= 0x04
        bad, wrong = CorruptionCases.overwrite(self, self.data_file(0), unit_at, unit)
        self.assertEqual((bad, wrong), (unit_at + 1000, 1))
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["seq_time_s"], 2)
        merged = harness.merged_phases_of(doc)
        # More than one pass, and none ended before the stated time.
        for name in ("seq-write", "seq-read", "reverify"):
            self.assertGreater(merged[name]["read_bytes"] + merged[name]["write_bytes"],
                               FILES * FILE_BYTES, name)
            self.assertGreaterEqual(merged[name]["elapsed_s"], 2, name)
        # (The first 100 records are kept: every pass found it, so they may
        # all be seq-read's.)
        records = doc["mismatches"]
        self.assertIn("seq-read", {m["phase"] for m in records}, r.describe())
        for m in records:
            self.assertEqual((m["class"], m["file_index"], m["offset_bytes"], m["unit_offset_bytes"],
                              m["bad_bytes"], m["op"]),
                             ("corrupt", 0, bad, unit_at, 1, "read"))
        # Every pass that read the unit after the damage found it, and only it.
        for name in ("seq-read", "reverify"):
            counts = merged[name]["mismatches"]
            self.assertGreaterEqual(counts["corrupt"], 1, name)
            self.assertEqual(sum(counts.values()), counts["corrupt"], name)
        self.assertEqual(sum(merged["seq-write"]["mismatches"].values()), 0)
        self.assertEqual(doc["summary"]["damaged_units"], 1)
        self.assertIn(f"{self.data_file(0)} offset {bad} ", r.stdout)


class RateCases:
    """--rate: the open-loop random phase verifies every read as the closed
    loop does.  A bit flipped in the middle of the phase (stopped once worker
    0 completed 300 of its operations) is found by the random phase itself,
    at that byte: on 1 MiB (256 units) its ~4000 reads read every unit
    again after the damage, and reverify finds it once more."""

    def test_bit_flip_during_a_rate_phase(self):
        _, doc = flip_mid_random_phase(self, "-s", "1M", "-j", 1, "--qd", 8, "--read-pct", 100,
                                       "--rate", 2000, "--rand-time", 2)
        rate = harness.merged_phases_of(doc)["random"]["rate"]
        self.assertIsNotNone(rate, "the random phase ran open-loop")
        self.assertEqual(rate["requested_iops"], 2000)


def flip_mid_random_phase(test, *args):
    """Runs drivestress `args` (one file of 1 MiB, reads only), stopped once
    worker 0 completed 300 random-phase operations, with a bit of unit 37
    flipped then: exit 2, every mismatch that byte, found by the random
    phase and once by reverify, named in the text.  (result, document)."""
    run = test.start(*args, stop="random:300")
    run.wait_stopped()
    unit = 37 * UNIT_BYTES
    data = bytearray(read_block(test.data_file(0), unit, UNIT_BYTES))
    data[1000] ^= 0x10
    bad, n = CorruptionCases.overwrite(test, test.data_file(0), unit, data)
    test.assertEqual((bad, n), (unit + 1000, 1))
    run.resume()
    r = run.finish()
    test.assertExit(r, 2)
    test.assertNoFilesLeft(r)
    doc = test.assertJson(r)
    merged = harness.merged_phases_of(doc)
    test.assertGreaterEqual(merged["random"]["mismatches"]["corrupt"], 1,
                            "the random phase read the damaged unit")
    test.assertEqual(merged["reverify"]["mismatches"]["corrupt"], 1)
    test.assertEqual(merged["seq-read"]["mismatches"]["corrupt"], 0)
    records = doc["mismatches"]
    test.assertIn("random", {m["phase"] for m in records})
    for m in records:
        test.assertEqual((m["class"], m["file_index"], m["offset_bytes"],
                          m["unit_offset_bytes"], m["bad_bytes"], m["op"]),
                         ("corrupt", 0, bad, unit, 1, "read"))
    test.assertEqual(doc["summary"]["damaged_units"], 1)
    test.assertIn(f"{test.data_file(0)} offset {bad} (unit at {unit}): corrupt [random",
                  r.stdout)
    return r, doc


class RateIoUring(RateCases, harness.DriveStressTest):
    backend = "io_uring"


class RateSync(RateCases, harness.DriveStressTest):
    backend = "sync"


class SeqTimeIoUring(SeqTimeCases, harness.DriveStressTest):
    backend = "io_uring"


class SeqTimeSync(SeqTimeCases, harness.DriveStressTest):
    backend = "sync"


class FarBackIoUring(FarBackCases, harness.DriveStressTest):
    backend = "io_uring"


class FarBackSync(FarBackCases, harness.DriveStressTest):
    backend = "sync"


class CorruptionIoUring(CorruptionCases, harness.DriveStressTest):
    backend = "io_uring"


class CorruptionSync(CorruptionCases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(name="corruption-qd256-{case}-{backend}")
class CorruptionQd256Sync(CorruptionCases, harness.DriveStressTest):
    """The thread pool at 256 per worker: exact offsets all the same."""
    backend = "sync"
    args = QD256_ARGS
    seq_qd = 256


@harness.meson_case(name="corruption-qd1-{case}-{backend}")
class CorruptionQd1Sync(CorruptionCases, harness.DriveStressTest):
    """The single-threaded baseline."""
    backend = "sync"
    args = QD1_ARGS
    seq_qd = 1


if __name__ == "__main__":
    harness.main()
