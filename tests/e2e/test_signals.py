#!/usr/bin/env python3
"""SIGINT/SIGTERM in every phase: the phase in progress stops and is reported
as interrupted, no later phase runs, the files are removed, exit 130/143.
A second signal leaves at once, files removed.  A mismatch found earlier
still wins: exit 2."""

import signal

import harness
from harness import PHASES, phases_of

FILES = 2
# 128 sequential blocks per worker, so 20 operations are well inside a phase.
ARGS = ("-s", "8M", "-j", FILES, "--seq-block", "64K")
# Long enough that a signal ignored by the random phase shows as a timeout.
LONG_RANDOM = ("--rand-time", 30)
# Short, when the run has to get through the random phase to reverify.
SHORT_RANDOM = ("--rand-ops", 2000)
STOP_AFTER_OPS = 20
# A signalled run drains what is in flight and exits; far below LONG_RANDOM.
PROMPT_S = 10


class SignalCases:
    """Mixin of the cases; instantiated per backend below."""

    def start_stopped(self, phase, *extra, json_out=True):
        """Starts a run and waits until worker 0 is 20 operations into phase."""
        random = SHORT_RANDOM if phase == "reverify" else LONG_RANDOM
        run = self.start(*ARGS, *random, *extra, stop=f"{phase}:{STOP_AFTER_OPS}",
                         json_out=json_out)
        run.wait_stopped()
        self.assertFilesPresent(FILES, 8 * harness.MiB)
        return run

    def signal_and_finish(self, run, *signals):
        for sig in signals:
            run.send(sig)
        run.resume()
        r = run.finish()
        self.assertLess(r.seconds, PROMPT_S, "did not exit promptly\n" + r.describe())
        return r

    def check_interrupted(self, phase, sig):
        run = self.start_stopped(phase)
        r = self.signal_and_finish(run, sig)
        self.assertExit(r, 128 + sig)
        self.assertNoFilesLeft(r)
        self.assertIn("INTERRUPTED", r.stdout)
        doc = self.assertJson(r)
        ran = [(i, p["phase"], p["interrupted"]) for i, p in phases_of(doc)]
        before = PHASES[:PHASES.index(phase)]
        # The phase in progress is the last one and is marked interrupted.
        self.assertEqual(ran, [(1, p, False) for p in before] + [(1, phase, True)])
        s = doc["summary"]
        self.assertEqual((s["stop_reason"], s["signal"], s["status"], s["exit_code"]),
                         ("signal", sig, "interrupted", 128 + sig))
        self.assertEqual(s["mismatch_total"], 0)

    def test_sigint_in_seq_write(self):
        self.check_interrupted("seq-write", signal.SIGINT)

    def test_sigint_in_seq_read(self):
        self.check_interrupted("seq-read", signal.SIGINT)

    def test_sigint_in_random(self):
        self.check_interrupted("random", signal.SIGINT)

    def test_sigint_in_reverify(self):
        self.check_interrupted("reverify", signal.SIGINT)

    def test_sigterm(self):
        self.check_interrupted("random", signal.SIGTERM)

    def test_sigint_twice(self):
        """Two SIGINTs while stopped (they merge into one pending signal)."""
        run = self.start_stopped("random", json_out=False)
        r = self.signal_and_finish(run, signal.SIGINT, signal.SIGINT)
        self.assertExit(r, 130)
        self.assertNoFilesLeft(r)

    def test_second_signal(self):
        """SIGINT and SIGTERM both pending: the second to be handled takes the
        leave-at-once path; the exit code is that of the first handled."""
        run = self.start_stopped("random", json_out=False)
        r = self.signal_and_finish(run, signal.SIGINT, signal.SIGTERM)
        self.assertIn(r.returncode, (130, 143), r.describe())
        self.assertIn("second signal", r.stderr)
        self.assertNoFilesLeft(r)

    def test_mismatch_wins_over_signal(self):
        """A mismatch found before the signal: exit 2, not 130."""
        run = self.start(*ARGS, "--rand-time", 0, "--iterations", 2, stop="seq-read")
        run.wait_stopped()
        path, unit = self.data_file(0), 5 * harness.UNIT_BYTES
        harness.write_block(path, unit, bytes(harness.UNIT_BYTES))
        run.resume()
        run.wait_stopped()  # before iteration 2's seq-read: iteration 1 found it
        r = self.signal_and_finish(run, signal.SIGINT)
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertEqual([(m["iteration"], m["class"], m["offset_bytes"])
                          for m in doc["mismatches"]],
                         [(1, "zeroed", unit), (1, "zeroed", unit)])
        s = doc["summary"]
        self.assertEqual((s["stop_reason"], s["signal"], s["status"], s["exit_code"]),
                         ("signal", signal.SIGINT, "failed", 2))


class SignalsIoUring(SignalCases, harness.DriveStressTest):
    backend = "io_uring"


class SignalsSync(SignalCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
