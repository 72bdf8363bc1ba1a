"""Names from outside the program reach the terminal inert and the JSON
exact: a target directory named with a terminal escape and a bidirectional
override (once `e<ESC>[2Jz` cleared the screen on the `target` line), and a
foreign process named so on the host-busy line.  Control and bidirectional
characters are spelled out in the text."""

import json
import os
import subprocess
import sys
import time

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "hostile-names-{cls}-{case}", "timeout": 120}

ESCAPE_NAME = "e\x1b[2Jz\u202eevil"
ESCAPED = "e\\x1b[2Jz\\u{202e}evil"


class TerminalEscapes(harness.DriveStressTest):
    """A hostile directory name is shown inertly; the JSON keeps it."""

    def setUp(self):
        super().setUp()
        self.evil = os.path.join(self.tmp, ESCAPE_NAME)
        os.mkdir(self.evil)

    def check_clean(self, text):
        for bad in ("\x1b", "\u202e", "\r"):
            self.assertNotIn(bad, text)

    def test_text_report_and_messages(self):
        r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100, target=self.evil)
        self.assertExit(r, 0)
        self.check_clean(r.stdout)
        self.check_clean(r.stderr)
        self.assertIn(f"target   {os.path.join(self.tmp, ESCAPED)} (", r.stdout)
        self.assertEqual(self.assertJson(r)["target"]["path"], self.evil)
        self.assertNoFilesLeft(r, self.evil)
        # The text on stderr (--json - takes stdout), and a refusal's line.
        r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100, "--json", "-",
                             target=self.evil, json_out=False)
        self.assertExit(r, 0)
        self.check_clean(r.stderr)
        self.assertEqual(json.loads(r.stdout)["target"]["path"], self.evil)
        r = self.drivestress("-s", "4M", self.evil, target=self.evil + "/", json_out=False)
        self.assertSetupError(r, "given twice", ESCAPED)
        self.check_clean(r.stderr)
        self.assertNoFilesLeft(r, self.evil)


EVIL_HOG = r"""
import ctypes
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(b"\xff\x1b[2J\xe2\x80\xaeev"), 0, 0, 0)
while True:
    pass
"""


class HostileProcessNames(harness.DriveStressTest):
    """The host-busy line names the top foreign processes: a local user's
    process named with a terminal escape, a bidi override and a byte that is
    not UTF-8 is named inertly in the text and exactly in the JSON."""

    def test_a_hog_with_a_hostile_name(self):
        hogs = [subprocess.Popen([sys.executable, "-c", EVIL_HOG])
                for _ in range(os.cpu_count() or 1)]
        try:
            time.sleep(0.2)  # named before the run starts
            r = self.drivestress("-s", "8M", "-j", 1, "--rand-time", "1.5")
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        self.assertExit(r, 0)
        self.assertNotIn("\x1b", r.stdout)
        self.assertNotIn("\u202e", r.stdout)
        self.assertIn("\\x1b[2J\\u{202e}ev", r.stdout)
        top = harness.merged_phases_of(r.doc)["random"]["host_load"]["top_foreign"]
        named = [f for f in top if f["pid"] in {h.pid for h in hogs}]
        self.assertTrue(named, top)
        self.assertTrue(named[0]["comm"].endswith("\x1b[2J\u202eev"), named[0])
        self.assertNoFilesLeft(r)


if __name__ == "__main__":
    harness.main()
