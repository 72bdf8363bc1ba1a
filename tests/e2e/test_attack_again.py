"""Issue 22 attacked again, beyond its list: what held is in the report of
that work; what did not is here.

- A user's lock directory came from $XDG_RUNTIME_DIR alone: two runs of one
  user whose environments differ (a login shell, sudo, cron, a script that
  sets it) each took a lock in its own directory and both went ahead in
  one target directory.  A user's run now locks in every usable candidate.
- A small stack limit (`ulimit -s 256`) ended a run in a SIGSEGV in the
  report (a phase's results are about 110 KiB on the stack) with the test
  files left behind.  The soft limit is raised (threads get it too); a
  hard limit too small for a run is refused in one line before anything is
  written."""

import os
import shutil
import subprocess

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "again-{cls}-{case}", "timeout": 120}

NOBODY = 65534
ARGS = ("-s", "8M", "-j", 2, "--rand-ops", 2000)


def setpriv(uid):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


class UserLockDirectories(harness.DriveStressTest):
    """Two runs of one user, one with $XDG_RUNTIME_DIR and one without."""

    def test_runs_with_different_environments_meet(self):
        harness.require_root(self, "a second user")
        if not shutil.which("setpriv"):
            self.skipTest("setpriv not installed")
        xdg = os.path.join(self.tmp, "xdg")
        os.mkdir(xdg, 0o700)
        for d in (self.tmp, self.target, xdg):
            os.chown(d, NOBODY, NOBODY)
        os.chmod(self.tmp, 0o755)
        fallback = f"/tmp/drivestress-{NOBODY}"
        if not os.path.exists(fallback):  # made by these runs: removed after
            self.addCleanup(lambda: os.path.isdir(fallback) and not os.listdir(fallback)
                            and os.rmdir(fallback))
        without = ["env", "-u", "XDG_RUNTIME_DIR"] + setpriv(NOBODY)
        with_xdg = ["env", f"XDG_RUNTIME_DIR={xdg}"] + setpriv(NOBODY)
        for first_env, second_env in ((without, with_xdg), (with_xdg, without)):
            with self.subTest(first=first_env[1]):
                first = self.start(*ARGS, stop="seq-read", json_out=False, wrapper=first_env)
                first.wait_stopped()
                p = subprocess.run(self.command(*ARGS, json_out=False, wrapper=second_env),
                                   capture_output=True, text=True,
                                   timeout=harness.EXIT_TIMEOUT_S)
                r = harness.Result(p.returncode, p.stdout, p.stderr, None, 0)
                self.assertSetupError(r, "in use by another drivestress run",
                                      f"pid {first.proc.pid}")
                first.resume()
                self.assertExit(first.finish(), 0)
                self.assertNoFilesLeft()


class StackLimitMixin:
    """RLIMIT_STACK below what a run needs."""

    def limited(self, limit):
        if not shutil.which("prlimit"):
            self.skipTest("prlimit (util-linux) not installed")
        return self.drivestress(*ARGS, json_out=False,
                                wrapper=("prlimit", f"--stack={limit}", "--"))

    def test_small_soft_limit_is_raised(self):
        r = self.limited("262144:unlimited")
        self.assertExit(r, 0)
        self.assertIn("PASS", r.stdout)
        self.assertNoFilesLeft(r)

    def test_small_hard_limit_is_refused(self):
        r = self.limited("262144:262144")
        self.assertSetupError(r, "RLIMIT_STACK is 256 KiB", "ulimit -s")
        self.assertNoFilesLeft(r)


class StackLimitIoUring(StackLimitMixin, harness.DriveStressTest):
    backend = "io_uring"


class StackLimitSync(StackLimitMixin, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
