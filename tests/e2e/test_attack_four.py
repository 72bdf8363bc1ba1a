"""Issue 37, the fourth attack round: items 3 to 7 (the state file and the
run identity, items 1 and 2, are test_run_identity.py).

- Tiny rates: `--rate 1e-300` ran with "requested 0 IOPS" and, with
  --rand-ops, never ended; `--rate 0.0001` said "achieved 5 (4968592.9 %)".
  A rate below one operation a second, or one that schedules fewer than two
  operations in the random phase, is refused in one line.
- One target under two spellings (DIR ./DIR, DIR/, /proc/self/root/DIR, a
  symbolic link) was "in use by another drivestress run (pid N)", N being
  the run itself: it is "given twice", as DIR DIR is.
- Names from the outside reached the terminal raw: a directory named
  `e<ESC>[2Jz` cleared the screen on the `target` line.  Control and
  bidirectional characters are spelled out (the JSON keeps the name).
- The leftover sweep took the trailing digits of any name: copies named
  drivestress-0x5.dat, drivestress-05.dat, ... were deleted.  Only the
  names a run makes, `<prefix><n>.dat` with n in canonical decimal, are
  candidates.
- `--find-rate p99.99999999<=1h` reported "meets p100": the percentile is
  said as given."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "attack4-{cls}-{case}", "timeout": 120}

ESCAPE_NAME = "e\x1b[2Jz\u202eevil"
ESCAPED = "e\\x1b[2Jz\\u{202e}evil"


class TinyRates(harness.DriveStressTest):
    """Rates no run can schedule are refused before anything is written."""

    def test_rates_below_one_a_second_are_refused(self):
        for args in (("--rate", "1e-300"), ("--rate", "1e-300", "--rand-ops", 10),
                     ("--rate", "0.0001"), ("--rate", "0.5k", "--rand-time", "1ms"),
                     ("--rate", "1", "--rand-time", "1s"),
                     ("--sweep", "rate=0.5"), ("--sweep", "rate=100,0.001")):
            with self.subTest(args=args):
                r = self.drivestress("-s", "4M", "-j", 1, *args, json_out=False)
                self.assertExit(r, 1)
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.describe())
                self.assertIn("--rate" if args[0] == "--rate" else "--sweep", lines[0])
                self.assertRegex(lines[0], r"below 1 operation a second|fewer than 2 operations")
                self.assertEqual(r.stdout, "")
                self.assertNoFilesLeft(r)

    def test_the_lowest_rate_runs_and_ends(self):
        r = self.drivestress("-s", "4M", "-j", 1, "--rate", 1, "--rand-ops", 3)
        self.assertExit(r, 0)
        rate = self.assertJson(r)["merged_phases"]
        random = next(p for p in rate if p["phase"] == "random")
        self.assertEqual(random["read_ops"] + random["write_ops"], 3)
        self.assertEqual(random["rate"]["requested_iops"], 1)
        self.assertNoFilesLeft(r)


class GivenTwice(harness.DriveStressTest):
    """Every spelling of one target is "given twice", never "in use"."""

    def test_every_spelling_is_given_twice(self):
        link = os.path.join(self.tmp, "link")
        os.symlink(self.target, link)
        rel = os.path.relpath(self.target)
        spellings = [self.target + "/", os.path.join(self.target, "."), link,
                     "/proc/self/root" + self.target, rel, "./" + rel]
        for other in spellings:
            with self.subTest(other=other):
                r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100, self.target,
                                     target=other, json_out=False)
                self.assertSetupError(r, "given twice", other)
                self.assertNotIn("in use", r.stderr)
                self.assertNotIn(str(os.getpid()), r.stderr)
                self.assertNoFilesLeft(r)

    def test_a_raw_device_and_a_link_to_it(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 16 << 20))
        link = os.path.join(self.tmp, "dev-link")
        os.symlink(dev, link)
        r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100,
                             "--raw-device", dev, "--destroy-data", dev,
                             "--raw-device", link, "--destroy-data", link,
                             target=False, json_out=False)
        self.assertSetupError(r, "given twice", link)


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


class LeftoverNames(harness.DriveStressTest):
    """Copies of a genuine leftover under look-alike names are not ours."""

    COPIES = ["drivestress-0x5.dat", "drivestress- 5.dat", "drivestress-+5.dat",
              "drivestress-005.dat", "drivestress-05.dat", "drivestress-5.dat.bak",
              "other-5.dat"]

    def test_only_exact_names_are_swept(self):
        run = self.start("-s", "1M", "-j", 6, "--rand-ops", 100, stop="seq-read", json_out=False)
        run.wait_stopped()
        run.close()  # SIGKILL: six files left
        genuine = self.data_file(5)
        with open(genuine, "rb") as f:
            content = f.read()
        for name in self.COPIES:
            shutil.copyfile(genuine, os.path.join(self.target, name))
        r = self.drivestress("-s", "1M", "-j", 2, "--rand-ops", 100)
        self.assertExit(r, 0)
        # drivestress-2..5.dat were a killed run's: swept, and said so.
        self.assertIn("removed 4 leftover files of earlier runs", r.stderr)
        self.assertEqual(self.target_files(), sorted(self.COPIES))
        for name in self.COPIES:
            with open(os.path.join(self.target, name), "rb") as f:
                self.assertEqual(f.read(), content, name)


class FindRatePercentile(harness.DriveStressTest):
    """A percentile is reported as it was given."""

    def test_many_nines_are_not_p100(self):
        r = self.drivestress("-j", 1, "-s", "4M", "--qd", 4, "--rand-time", "300ms",
                             "--find-rate", "p99.99999999<=1h")
        self.assertExit(r, 0)
        self.assertIn("p99.99999999 <= ", r.stdout)
        self.assertNotIn("p100", r.stdout)
        self.assertEqual(self.assertJson(r)["find_rate"]["percentile"], 99.99999999)
        self.assertNoFilesLeft(r)


EVIL_HOG = r"""
import ctypes
ctypes.CDLL(None).prctl(15, ctypes.c_char_p(b"\xff\x1b[2J\xe2\x80\xaeev"), 0, 0, 0)
while True:
    pass
"""


class HostileProcessNames(harness.DriveStressTest):
    """Issue 35 (the host-busy line names the top foreign processes): a local
    user's process named with a terminal escape, a bidi override and a byte
    that is not UTF-8 is named inertly in the text and exactly in the JSON."""

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


class ReportLinesReachTheFile(harness.DriveStressTest):
    """The text report goes through an escaping stream whose fflush did not
    reach stdout: redirected to a file, a phase's line sat in stdout's
    buffer, late for tail -f and lost to a SIGKILL (burn-in's test failed
    under ASan on it).  Each line is in the file when the next phase starts."""

    def test_phase_lines_are_in_the_file_while_stopped(self):
        run = self.start("-s", "8M", "-j", 1, "--rand-time", "0.2", stop="reverify")
        run.wait_stopped()
        so_far = run.stdout_so_far()
        for phase in ("seq-write", "seq-read", "random"):
            self.assertRegex(so_far, rf"(?m)^  {phase} ", so_far)
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL)
        self.assertRegex(r.stdout, r"(?m)^  random ")


class NoHooksInTheProduct(harness.DriveStressTest):
    """Issue 35: the product binary reads no test hook.  A hostile or stale
    environment (DRIVESTRESS_TEST_STOP=create left exported) once stopped
    every run with SIGSTOP; only the tests' hooked build obeys it now."""

    def test_the_product_ignores_test_hook_variables(self):
        env = dict(os.environ, DRIVESTRESS_TEST_STOP="create",
                   DRIVESTRESS_TEST_STOP_ON_SIGNAL="1", DRIVESTRESS_TEST_SYSFS_ROOT="/nonexistent",
                   DRIVESTRESS_TEST_HEALTH_LOGS="/nonexistent/page")
        argv = self.command("-j", 1, "-s", "1M", "--rand-ops", 100)
        self.assertEqual(argv[0], harness.DRIVESTRESS)
        p = subprocess.run(argv, env=env, capture_output=True, text=True,
                           timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("result   PASS", p.stdout)
        self.assertNotIn("fixture", p.stdout)
        self.assertNoFilesLeft()
        # The hooked build of the same program does stop there.
        run = self.start("-j", 1, "-s", "1M", "--rand-ops", 100, stop="create")
        self.assertEqual(run.argv[0], harness.HOOKED)
        run.wait_stopped()
        run.resume()
        self.assertExit(run.finish(), 0)


if __name__ == "__main__":
    harness.main()
