"""A --keep run's evidence survives its own damage, and runs are told apart
(issue 37, items 1 and 2).

- A --keep run killed, its state file's first byte changed (or its first
  4 KiB zeroed): the next plain run into the directory passed and removed
  both kept data files without a word.  A file that may be a damaged
  state file now protects the files beside it: the run is refused in one
  line naming it and how to release them (--verify-only says why it cannot
  be read; --verify-only STATE --cleanup --force removes them unverified).
- Two --keep runs with one seed: the first run's data file put in place of
  the second's verified as "written after (newer)", PASS, because the unit
  header's run identity came from the seed.  Each run now has a random run
  id in every unit header and in the state file: the other run's units are
  foreign.
- A sampled fuzz of a real state file from a killed run (byte changes and
  truncations): a plain run either refuses or leaves the kept files, and
  --verify-only either refuses or verifies; neither ever removes them, and
  no PASS comes from a state file that says something else."""

import json
import os
import random
import shutil
import signal
import subprocess

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "identity-{cls}-{case}", "timeout": 180}

STATE = "drivestress.state"
KEEP = ("--keep", "-s", "8M", "-j", 2, "--qd", 16)


class IdentityCases:
    """Mixin: instantiated per backend below."""

    def killed_keep_run(self, *extra, stop="random:300"):
        run = self.start(*KEEP, *extra, stop=stop, json_out=False)
        run.wait_stopped()
        run.send(signal.SIGKILL)
        run.finish()
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", STATE])

    def state(self):
        return os.path.join(self.target, STATE)

    def plain(self, *argv):
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", *map(str, argv)],
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        return harness.Result(p.returncode, p.stdout, p.stderr, None, 0)

    def contents(self):
        out = {}
        for n in self.target_files():
            with open(os.path.join(self.target, n), "rb") as f:
                out[n] = f.read()
        return out

    def damage(self, how):
        with open(self.state(), "r+b") as f:
            if how == "first byte":
                f.write(b"\0")
            elif how == "first 4 KiB":
                f.write(bytes(4096))
            elif how == "cut to 100 bytes":
                f.truncate(100)
                f.seek(0)
                f.write(b"\0")
            elif how == "emptied":
                f.truncate(0)

    def test_a_damaged_state_file_protects_its_files(self):
        self.killed_keep_run("--rand-time", 60)
        before = self.contents()
        for how in ("first byte", "first 4 KiB", "cut to 100 bytes", "emptied"):
            with self.subTest(damage=how):
                with open(self.state(), "wb") as f:
                    f.write(before[STATE])
                self.damage(how)
                damaged = self.contents()
                r = self.drivestress("-s", "8M", "-j", 2, "--rand-time", "200ms",
                                     json_out=False)
                self.assertSetupError(r, self.state(), "--verify-only", "--cleanup --force")
                self.assertEqual(self.contents(), damaged, "the directory must be untouched")
                r = self.plain("--verify-only", self.state())
                self.assertSetupError(r, self.state(), "--cleanup --force")
                self.assertEqual(self.contents(), damaged)
        # Released on request: the data files and the state file, nothing else.
        with open(os.path.join(self.target, "drivestress-05.dat"), "wb") as f:
            f.write(before["drivestress-1.dat"])
        r = self.plain("--verify-only", self.state(), "--cleanup", "--force")
        self.assertExit(r, 0)
        self.assertIn("RELEASED: 2 files and the state file removed unverified", r.stdout)
        self.assertEqual(self.target_files(), ["drivestress-05.dat"])

    def test_force_is_only_for_a_state_file_that_cannot_be_read(self):
        self.killed_keep_run("--rand-time", 60)
        before = self.contents()
        r = self.plain("--verify-only", self.state(), "--cleanup", "--force")
        self.assertSetupError(r, self.state(), "can be read", "--cleanup removes its files")
        r = self.plain("--verify-only", self.data_file(0), "--cleanup", "--force")
        self.assertSetupError(r, "not a state file's name")
        self.assertEqual(self.contents(), before)
        r = self.plain("--verify-only", self.state(), "--force")
        self.assertExit(r, 1)
        self.assertIn("--force works only with --verify-only STATE --cleanup", r.stderr)
        r = self.plain("--verify-only", self.state(), "--cleanup")
        self.assertExit(r, 0)
        self.assertEqual(self.target_files(), [])

    def test_another_run_with_the_same_seed_is_foreign(self):
        # The first run writes for longer: its units are newer generations.
        self.killed_keep_run("--seed", 43, "--read-pct", 0, "--rand-time", 60,
                             stop="random:6000")
        with open(self.data_file(0), "rb") as f:
            first = f.read()
        for n in self.target_files():
            os.unlink(os.path.join(self.target, n))
        self.killed_keep_run("--seed", 43, "--read-pct", 0, "--rand-time", 60,
                             stop="random:1000")
        with open(self.data_file(0), "r+b") as f:
            f.write(first)
        r = self.plain("--verify-only", self.state(), "--json", self.json_path)
        self.assertExit(r, 2)
        self.assertNotIn("PASS", r.stdout)
        self.assertIn("foreign", r.stdout)
        with open(self.json_path) as f:
            v = json.load(f)["verify_only"]
        self.assertGreater(v["lost_units"], 0)
        swapped = v["files"][0]
        # Every unit of the other run's file is lost (foreign), none newer or intact.
        self.assertEqual(swapped["lost_units"], (8 << 20) // 4096, swapped)
        self.assertEqual(swapped["newer_units"], 0, "another run's units are never newer")
        self.assertEqual(swapped["intact_units"], 0)
        self.assertEqual(v["files"][1]["lost_units"], 0)


class IdentityIoUring(IdentityCases, harness.DriveStressTest):
    backend = "io_uring"


class IdentitySync(IdentityCases, harness.DriveStressTest):
    backend = "sync"


class StateFileFuzz(harness.DriveStressTest):
    """Sampled byte changes and truncations of a real state file (the
    exhaustive in-process fuzz is tests/targets/state_file_test.cpp)."""

    SAMPLES = 24

    def test_damaged_state_never_deletes_kept_files(self):
        harness.plain_suite_only(self, "sixty runs of one reader: under the sanitizers the "
                                 "in-process fuzz of state_file_test drives it")
        run = self.start(*KEEP, "--rand-time", 60, stop="random:300", json_out=False)
        run.wait_stopped()
        run.send(signal.SIGKILL)
        run.finish()
        state = os.path.join(self.target, STATE)
        with open(state, "rb") as f:
            good = f.read()
        data = {}
        for n in ("drivestress-0.dat", "drivestress-1.dat"):
            with open(os.path.join(self.target, n), "rb") as f:
                data[n] = f.read()
        rng = random.Random(37)
        # Byte 0 and the header's fields, then anywhere; and truncations.
        offsets = [0, 7, 8, 12, 16, 24, 40, 72, 80] + \
            [rng.randrange(len(good)) for _ in range(self.SAMPLES)]
        cases = [("byte", at, v) for at in offsets for v in (0, good[at] ^ 0xFF)
                 if v != good[at]]
        cases += [("cut", n, None) for n in (0, 1, 7, 8, 100, 4095, 4096, 8192,
                                             len(good) - 4096, len(good) - 1)]
        for kind, at, value in cases:
            with self.subTest(kind=kind, at=at, value=value):
                with open(state, "wb") as f:
                    if kind == "byte":
                        f.write(good[:at] + bytes([value]) + good[at + 1:])
                    else:
                        f.write(good[:at])
                r = self.drivestress("-s", "8M", "-j", 2, "--rand-time", "100ms",
                                     json_out=False)
                self.assertNotEqual(r.returncode, 0, "a run beside kept files must be refused")
                v = subprocess.run([harness.DRIVESTRESS, "--verify-only", state],
                                   capture_output=True, text=True,
                                   timeout=harness.EXIT_TIMEOUT_S)
                if v.returncode == 0:
                    # It verified: the state it read must be the one written
                    # (a change it could not see leaves what it says intact).
                    self.assertIn("PASS", v.stdout)
                for n, content in data.items():
                    path = os.path.join(self.target, n)
                    self.assertTrue(os.path.exists(path), f"{n} removed\n" + r.describe())
                    with open(path, "rb") as f:
                        self.assertEqual(f.read(), content, n)
                self.assertIn(STATE, self.target_files())


if __name__ == "__main__":
    harness.main()
