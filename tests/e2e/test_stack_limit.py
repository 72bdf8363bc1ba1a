"""A small stack limit (`ulimit -s 256`): a run's soft limit is raised (its
threads get it too), so the report, whose phase results are about 110 KiB
on the stack, does not end in SIGSEGV with the test files left behind; a
hard limit too small for a run is refused in one line before anything is
written."""

import shutil

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "stack-limit-{cls}-{case}", "timeout": 120}

ARGS = ("-s", "8M", "-j", 2, "--rand-ops", 2000)


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
