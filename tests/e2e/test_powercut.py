#!/usr/bin/env python3
"""Power-cut verification: a --keep run killed with SIGKILL in the middle of
its random phase leaves its files and a state file; `--verify-only STATE`
then finds nothing lost (exit 0) and, once a unit the state says was
acknowledged as durable is damaged, names exactly that unit as lost after
acknowledgement (exit 2).  A --keep run that ends normally verifies as all
intact.  When the binary has --sync, the run uses --sync fdatasync (acks
after every flush); otherwise the acks are the phase ends'."""

import glob
import os
import shlex
import signal
import time
import struct
import subprocess

import harness
from harness import UNIT_BYTES, MiB, read_block, write_block

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "powercut-{case}-{backend}", "threads": True}

FILES = 2
FILE_BYTES = 8 * MiB
UNITS = FILE_BYTES // UNIT_BYTES
STATE_NAME = "drivestress.state"


def has_sync_option():
    out = subprocess.run([harness.DRIVESTRESS, "--help"], capture_output=True, text=True).stdout
    return "--sync " in out or "--sync arg" in out


def read_state(path):
    """(file count, [per-file acknowledged generations]) from the state file
    (the newest record of each file; layout in src/targets/state_file.h)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"DSSTATE1", "not a state file"
    (files,) = struct.unpack_from("<I", data, 12)
    (header_bytes, copy_bytes) = struct.unpack_from("<QQ", data, 48)
    acked = []
    for i in range(files):
        best = None
        for c in range(2):
            at = header_bytes + (2 * i + c) * copy_bytes
            magic, index, seq, units = struct.unpack_from("<IIQQ", data, at)
            if magic == 0x4B415344 and index == i and (best is None or seq > best[0]):
                # Four bytes of generation per unit (state format 3).
                best = (seq, list(struct.unpack_from("<%dI" % units, data, at + 40)))
        acked.append(best[1] if best else [0] * UNITS)
    return files, acked


def unit_generation(block):
    """The generation in a unit's header (bytes 28..31)."""
    return struct.unpack_from("<I", block, 28)[0]


class PowercutCases:
    """Mixin of the cases; instantiated per backend below."""

    def run_args(self, *extra):
        args = ["--keep", "-s", "8M", "-j", FILES, "--qd", 16] + list(extra)
        if has_sync_option():
            args += ["--sync", "fdatasync"]
        return args

    def state_path(self):
        return os.path.join(self.target, STATE_NAME)

    def verify(self, *extra, units=UNITS):
        argv = [harness.DRIVESTRESS, "--verify-only", self.state_path(), "--json",
                self.json_path] + list(extra)
        if os.path.exists(self.json_path):
            os.unlink(self.json_path)
        p = subprocess.run(argv, capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        doc = None
        if os.path.exists(self.json_path):
            with open(self.json_path) as f:
                import json
                doc = json.load(f)
        result = harness.Result(p.returncode, p.stdout, p.stderr, doc, 0)
        self.assertIsNotNone(doc, result.describe())
        v = doc["verify_only"]
        self.assertEqual(v["intact_units"] + v["written_after_ack_units"] + v["lost_units"],
                         FILES * units, "every unit classified once")
        self.assertEqual(v["written_after_ack_units"],
                         v["newer_units"] + v["never_acknowledged_units"] + v["torn_units"]
                         + v["trimmed_units"])
        self.assertEqual(doc["summary"]["exit_code"], p.returncode)
        self.assertEqual(doc["summary"]["mismatch_total"], v["lost_units"])
        return result, v

    def acked_intact_unit(self, file_index, skip=()):
        """Offset and generation of a unit of the file that the state says was
        acknowledged and that still holds that generation."""
        _, acked = read_state(self.state_path())
        path = self.data_file(file_index)
        for unit in range(5, UNITS):
            g = acked[file_index][unit]
            if g == 0 or unit * UNIT_BYTES in skip:
                continue
            block = read_block(path, unit * UNIT_BYTES, UNIT_BYTES)
            if unit_generation(block) == g:
                return unit * UNIT_BYTES, g
        self.fail("no acknowledged unit found in the state")

    def test_kill9_mid_random_then_verify(self):
        run = self.start(*self.run_args("--read-pct", 30, "--rand-time", 60),
                         stop="random:300")
        run.wait_stopped()
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", STATE_NAME])
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL, r.describe())
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", STATE_NAME])

        result, v = self.verify()
        self.assertExit(result, 0)
        self.assertEqual(v["lost_units"], 0)
        self.assertGreater(v["intact_units"], 0)
        if not has_sync_option():
            # Acknowledged at the end of seq-write; the random writes since
            # are newer generations (allowed).
            self.assertGreater(v["newer_units"], 0, result.describe())
            self.assertEqual([f["acknowledgements"] for f in v["files"]], [1, 1])
        self.assertIn("lost after acknowledgement", result.stdout)
        self.assertIn("PASS", result.stdout)

        # Damage acknowledged units: zero one, flip bytes inside another.
        zero_at, zero_gen = self.acked_intact_unit(1)
        write_block(self.data_file(1), zero_at, bytes(UNIT_BYTES))
        flip_unit, flip_gen = self.acked_intact_unit(0)
        original = read_block(self.data_file(0), flip_unit, UNIT_BYTES)
        flipped = bytearray(original)
        for i in range(100, 104):
            flipped[i] ^= 0xFF
        write_block(self.data_file(0), flip_unit, bytes(flipped))

        result, v = self.verify()
        self.assertExit(result, 2)
        self.assertEqual(v["lost_units"], 2, result.describe())
        records = {(m["file_index"], m["unit_offset_bytes"]): m for m in result.doc["mismatches"]}
        self.assertEqual(sorted(records), [(0, flip_unit), (1, zero_at)])
        z = records[(1, zero_at)]
        self.assertEqual((z["class"], z["offset_bytes"], z["expected_generation"], z["phase"],
                          z["file"]),
                         ("zeroed", zero_at, zero_gen, "verify-only", self.data_file(1)))
        c = records[(0, flip_unit)]
        self.assertEqual((c["class"], c["offset_bytes"], c["bad_bytes"], c["expected_generation"]),
                         ("corrupt", flip_unit + 100, 4, flip_gen))
        # (Prose folds at 100 columns: compared with its spaces as one.)
        self.assertIn("%s offset %d (unit at %d): zeroed" % (self.data_file(1), zero_at, zero_at),
                      " ".join(result.stdout.split()))
        self.assertIn("DURABILITY VIOLATION", result.stdout)
        self.assertEqual(result.doc["summary"]["status"], "failed")
        # --cleanup never removes the evidence of a loss, and says how it
        # goes once inspected.
        result, _ = self.verify("--cleanup")
        self.assertExit(result, 2)
        self.assertIn(STATE_NAME, self.target_files())
        self.assertIn("kept the files and %s: they are the evidence of the loss"
                      % self.state_path(), " ".join(result.stdout.split()))
        # The command to copy stands alone on its lines (two when the
        # paths are long), each whole: one glob that matches exactly the
        # run's files, then the state file.
        after = result.stdout.split("with:\n", 1)[1].splitlines()
        rm = [shlex.split(l) for l in after if l.startswith("         rm -- ")]
        self.assertTrue(rm and all(c[:2] == ["rm", "--"] for c in rm), result.stdout)
        words = [w for c in rm for w in c[2:]]
        self.assertEqual(words, [self.data_file(0)[:-len("0.dat")] + "[0-%d].dat" % (FILES - 1),
                                 self.state_path()])
        self.assertEqual(sorted(glob.glob(words[0])), [self.data_file(i) for i in range(FILES)])
        for line in result.stdout.splitlines():
            self.assertLessEqual(len(line), 100, result.stdout)
        self.refusal_names_the_way_out()

    def test_kill9_mid_random_with_trims(self):
        """--trim-pct under --keep: every trim is recorded before it is
        issued, so after a kill -9 a trimmed unit reads as a hole (zeros) or
        as its previous content, and a trimmed unit holding another unit's
        data is lost (misdirected).  No --sync: the only acknowledgement
        is the sequential write's, so every trim is known to the state file
        only through its own record."""
        run = self.start("--keep", "-s", "8M", "-j", FILES, "--qd", 16, "--read-pct", 30,
                         "--trim-pct", 30, "--rand-time", 60, stop="random:600")
        run.wait_stopped()
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL, r.describe())
        with open(self.state_path(), "rb") as f:
            self.assertEqual(struct.unpack_from("<I", f.read(12), 8)[0], 7, "state format 7")
        result, v = self.verify()
        self.assertExit(result, 0)
        self.assertEqual(v["lost_units"], 0, result.describe())
        self.assertGreater(v["trimmed_units"], 0, result.describe())
        self.assertIn("trimmed %d)" % v["trimmed_units"], result.stdout)

        # A unit recorded as trimmed that reads zeros, given the content of
        # an acknowledged unit of the same file: misdirected, lost.
        _, acked = read_state(self.state_path())
        path = self.data_file(0)
        trimmed = [u for u in range(5, UNITS) if acked[0][u] & 0x80000000
                   and read_block(path, u * UNIT_BYTES, UNIT_BYTES) == bytes(UNIT_BYTES)]
        self.assertTrue(trimmed, "a unit recorded as trimmed reads as a hole")
        source_at, _ = self.acked_intact_unit(0)
        target_at = trimmed[0] * UNIT_BYTES
        write_block(path, target_at, read_block(path, source_at, UNIT_BYTES))
        result, v = self.verify()
        self.assertExit(result, 2)
        self.assertEqual(v["lost_units"], 1, result.describe())
        m = result.doc["mismatches"][0]
        self.assertEqual((m["class"], m["unit_offset_bytes"], m["file_index"]),
                         ("misdirected", target_at, 0))

    def refusal_names_the_way_out(self):
        """After a loss the next run's refusal is no dead end: it names the
        command that removes the kept files, and that command works."""
        for extra in ((), ("--keep",)):
            r = self.drivestress("-s", "8M", "-j", FILES, "--rand-time", "0.2", *extra,
                                 json_out=False)
            self.assertExit(r, 1)
            self.assertIn("after a loss they are its evidence (--cleanup keeps them)", r.stderr)
            self.assertIn("--verify-only %s" % self.state_path(), r.stderr)
        command = r.stderr.strip().split("remove them with: ", 1)[1]
        self.assertEqual(shlex.split(command),
                         ["rm", "--", self.data_file(0), self.data_file(1), self.state_path()])
        subprocess.run(shlex.split(command), check=True)
        self.assertEqual(self.target_files(), [])

    def test_completed_run_verifies_intact(self):
        r = self.drivestress(*self.run_args("--rand-time", "0.5"))
        self.assertExit(r, 0)
        self.assertEqual(r.doc["target"]["state_file"], self.state_path())
        self.assertIn("state    " + self.state_path(), r.stdout)
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", STATE_NAME])
        result, v = self.verify()
        self.assertExit(result, 0)
        self.assertEqual(v["intact_units"], FILES * UNITS, result.describe())
        self.assertEqual(result.doc["summary"]["status"], "passed")
        result, v = self.verify("--cleanup")
        self.assertExit(result, 0)
        self.assertTrue(v["cleaned_up"])
        self.assertNoFilesLeft(result)

    def test_rolled_back_after_the_run_is_lost(self):
        """No --sync: only phase ends acknowledge, and while the random
        phase runs any newer generation is allowed.  Once the run is over
        nothing may be newer or older: files rolled back to their state
        before the random phase (a drive that lost every random write it
        acknowledged) are lost after acknowledgement, not "newer"."""
        run = self.start("--keep", "-s", "8M", "-j", FILES, "--qd", 16, "--read-pct", 0,
                         "--rand-ops", 4000, stop="random")
        run.wait_stopped()
        before = [open(self.data_file(i), "rb").read() for i in range(FILES)]
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        for i in range(FILES):
            with open(self.data_file(i), "r+b") as f:
                f.write(before[i])
        result, v = self.verify()
        self.assertExit(result, 2)
        self.assertGreater(v["lost_units"], 0, result.describe())
        self.assertEqual(v["newer_units"], 0, result.describe())
        self.assertEqual(result.doc["summary"]["mismatches"]["stale"], v["lost_units"])
        for f in v["files"]:
            self.assertEqual(f["bound_writes"], 0, "the last record was a phase end's")

    def rollback_mid_run(self, *extra):
        """Copies the files aside in iteration 2's random phase, lets the run
        go on to iteration 4's random phase, kills it with -9 there and puts
        the old files back.  Every unit then holds an earlier generation than
        the one acknowledged (iteration 4's seq-write moved every unit past
        it): all lost, diagnosed stale, however many generations back (a
        one-byte generation read them as "newer" modulo 255)."""
        units = 16
        run = self.start("--keep", "-s", units * UNIT_BYTES, "-j", FILES, "--qd", 4, "--seq-block", "16K",
                         "--read-pct", 0, "--rand-ops", 12000, "--iterations", 4,
                         "--phases", "seq-write,random", "--seed", 7, *extra, stop="random:50")
        old = None
        for iteration in range(1, 5):
            run.wait_stopped()
            if iteration == 2:
                old = [read_block(self.data_file(i), 0, units * UNIT_BYTES) for i in range(FILES)]
            if iteration < 4:
                run.resume()
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL, r.describe())
        for i in range(FILES):
            with open(self.data_file(i), "r+b") as f:
                f.write(old[i])
        _, acked = read_state(self.state_path())
        back = [acked[i][u] - unit_generation(old[i][u * UNIT_BYTES:(u + 1) * UNIT_BYTES])
                for i in range(FILES) for u in range(units)]
        self.assertGreaterEqual(min(back), 255, "every unit rolled back 255+ generations")
        result, v = self.verify(units=units)
        self.assertExit(result, 2)
        self.assertEqual(v["lost_units"], FILES * units, result.describe())
        self.assertEqual(v["newer_units"], 0, result.describe())
        self.assertEqual(result.doc["summary"]["mismatches"]["stale"], FILES * units)
        self.assertIn("DURABILITY VIOLATION", result.stdout)
        self.assertNotIn("PASS", result.stdout)
        return v

    def test_rollback_across_iterations_is_stale(self):
        """Only phase ends acknowledged: any newer generation is allowed,
        never an older one."""
        v = self.rollback_mid_run()
        self.assertEqual(v["bound_writes"], 4294967295, "any newer")

    def test_rollback_with_long_flush_interval_is_stale(self):
        """--sync-every 300: the bound (2 x 300 + qd) is past 254, and is
        kept exactly."""
        if not has_sync_option():
            self.skipTest("this drivestress has no --sync")
        v = self.rollback_mid_run("--sync", "fsync", "--sync-every", 300)
        self.assertEqual(v["bound_writes"], 604)

    def test_sigint_keeps_files(self):
        run = self.start(*self.run_args("--rand-time", 60), stop="random:200")
        run.wait_stopped()
        run.send(signal.SIGINT)
        run.resume()
        r = run.finish()
        self.assertExit(r, 130)
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", STATE_NAME])
        result, v = self.verify()
        self.assertExit(result, 0)
        # The interrupted random phase was acknowledged when it stopped.  A
        # write the stop request cancelled while in flight leaves its unit's
        # content unknown: never acknowledged, allowed, never lost (seen
        # under TSan, where a write is still in flight at the signal).
        self.assertEqual(v["lost_units"], 0, result.describe())
        self.assertEqual(v["intact_units"] + v["never_acknowledged_units"], FILES * UNITS,
                         result.describe())
        self.assertLessEqual(v["never_acknowledged_units"], FILES * 16, result.describe())  # --qd 16


    def test_second_signal_keeps_files(self):
        """A second signal later than the first: the leave-at-once path
        keeps the files and the state too, and what was acknowledged
        verifies."""
        run = self.start(*self.run_args("--rand-time", 60), stop="random:200", json_out=False,
                         stop_on_signal=True)
        run.wait_stopped()
        r = self.second_signal_later(run)
        self.assertIn(r.returncode, (130, 143), r.describe())
        self.assertIn("second signal, exiting now (files kept)", r.stderr)
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", STATE_NAME])
        result, v = self.verify()
        self.assertExit(result, 0)
        self.assertEqual(v["lost_units"], 0)

class PowercutIoUring(PowercutCases, harness.DriveStressTest):
    backend = "io_uring"


class PowercutSync(PowercutCases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(name="powercut-{case}")
class PowercutInput(harness.DriveStressTest):
    """Bad STATE paths and conflicting options: exit 1, one line."""

    def run_plain(self, *argv):
        p = subprocess.run([harness.DRIVESTRESS] + [str(a) for a in argv], capture_output=True,
                           text=True, timeout=harness.EXIT_TIMEOUT_S)
        return harness.Result(p.returncode, p.stdout, p.stderr, None, 0)

    def test_bad_state_and_conflicts(self):
        missing = os.path.join(self.tmp, "none.state")
        self.assertSetupError(self.run_plain("--verify-only", missing), missing)
        notes = os.path.join(self.tmp, "notes.txt")
        with open(notes, "w") as f:
            f.write("not a state file\n" * 10)
        r = self.run_plain("--verify-only", notes)
        self.assertSetupError(r, notes, "not a drivestress state file")
        self.assertSetupError(self.run_plain("--verify-only", notes, "-s", "8M"), "--size")
        self.assertSetupError(self.run_plain("--verify-only", notes, self.target), "TARGET")
        self.assertSetupError(self.run_plain("--cleanup", self.target), "--cleanup")
        self.assertSetupError(self.run_plain("--keep", "--compare-backends", self.target),
                              "--keep")
        # A foreign file where the state file goes is never overwritten, and
        # nothing is created.
        foreign = os.path.join(self.target, STATE_NAME)
        with open(foreign, "w") as f:
            f.write("precious\n")
        r = self.run_plain("--keep", "-s", "1M", "-j", 1, "--progress", "never", self.target)
        self.assertSetupError(r, foreign, "is not a drivestress state file; refusing to replace it")
        self.assertEqual(self.target_files(), [STATE_NAME])
        with open(foreign) as f:
            self.assertEqual(f.read(), "precious\n")


if __name__ == "__main__":
    harness.main()
