#!/usr/bin/env python3
"""A --keep run's evidence is never removed by --cleanup --force on another
state file (issue 49, items 1 and 2).

- `--path DIR/drivestress-` keeps drivestress-0.dat and -1.dat under
  drivestress-.state; an empty DIR/drivestress.state given to `--cleanup
  --force` removed them ("RELEASED: 2 files"), and the intact state then
  verified as data lost.  The reverse too: a directory run's files under
  drivestress.state, an empty drivestress-.state forced.  Now a file any
  readable state file of the directory names stays, the line saying which
  state keeps it, and what --force will remove is printed before it is.
- A state file whose format word says another version: --verify-only says
  to use the version that wrote it, and --force then deleted its files
  unverified.  Now --force refuses it, naming the format."""

import os
import struct
import subprocess

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "kept-evidence-{case}"}

KEEP = ("--keep", "-s", "1M", "-j", 2, "--rand-time", "0.1")


class KeptEvidence(harness.DriveStressTest):

    def plain(self, *argv):
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", *map(str, argv)],
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        return harness.Result(p.returncode, p.stdout, p.stderr, None, 0)

    def at(self, name):
        return os.path.join(self.target, name)

    def empty(self, name):
        open(self.at(name), "wb").close()

    def test_force_never_removes_what_another_state_keeps(self):
        for own, other in (("drivestress-.state", "drivestress.state"),
                           ("drivestress.state", "drivestress-.state")):
            with self.subTest(kept_by=own, forced=other):
                if own == "drivestress-.state":
                    r = self.drivestress(*KEEP, "--path", self.at("drivestress-"), target=False,
                                         json_out=False)
                else:
                    r = self.drivestress(*KEEP, json_out=False)
                self.assertExit(r, 0)
                self.assertEqual(self.target_files(),
                                 sorted(["drivestress-0.dat", "drivestress-1.dat", own]))
                self.empty(other)
                r = self.plain("--verify-only", self.at(other), "--cleanup", "--force")
                self.assertExit(r, 0)
                lines = r.stdout.splitlines()
                self.assertEqual(lines, [
                    f"release  {self.at(other)} (cannot be read: not a drivestress state "
                    "file): nothing verified",
                    f"  leave   {self.data_file(0)}: kept by {own}, which can be read (verify it)",
                    f"  leave   {self.data_file(1)}: kept by {own}, which can be read (verify it)",
                    "result   RELEASED: 0 files and the state file removed unverified (exit 0)"])
                self.assertEqual(self.target_files(),
                                 sorted(["drivestress-0.dat", "drivestress-1.dat", own]))
                # The evidence is whole: it verifies, then --cleanup removes it.
                r = self.plain("--verify-only", self.at(own), "--cleanup")
                self.assertExit(r, 0)
                self.assertEqual(self.target_files(), [])

    def test_force_says_what_it_removes_before_it_removes_it(self):
        r = self.drivestress(*KEEP, json_out=False)
        self.assertExit(r, 0)
        with open(self.at("drivestress.state"), "r+b") as f:
            f.write(b"\0")  # the magic's first byte: cannot be read, may be a state file
        r = self.plain("--verify-only", self.at("drivestress.state"), "--cleanup", "--force")
        self.assertExit(r, 0)
        lines = r.stdout.splitlines()
        self.assertEqual(lines[1:], [
            f"  remove  {self.data_file(0)}",
            f"  remove  {self.data_file(1)}",
            "result   RELEASED: 2 files and the state file removed unverified (exit 0)"])
        self.assertTrue(lines[0].startswith(f"release  {self.at('drivestress.state')} (cannot "
                                            "be read: "), lines[0])
        self.assertEqual(self.target_files(), [])

    def test_another_versions_state_file_is_refused_naming_its_format(self):
        r = self.drivestress(*KEEP, json_out=False)
        self.assertExit(r, 0)
        state = self.at("drivestress.state")
        with open(state, "r+b") as f:
            f.seek(8)
            f.write(struct.pack("<I", 9))  # the format word
        r = self.plain("--verify-only", state, "--cleanup", "--force")
        self.assertSetupError(r, state, "format 9", "formats 4 to 7",
                              "verify it with that version")
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", "drivestress.state"])
        r = self.plain("--verify-only", state)
        self.assertSetupError(r, state, "format 9", "version that wrote it")
        self.assertNotIn("--force", r.stderr)
        r = self.drivestress("-s", "1M", "-j", 2, json_out=False)
        self.assertSetupError(r, state, "format 9", "version that wrote it")
        self.assertNotIn("--force", r.stderr)
        self.assertEqual(len(self.target_files()), 3)


if __name__ == "__main__":
    harness.main()
