#!/usr/bin/env python3
"""Every verdict backed by what was checked (issue 22): --verify-only takes
the run's lock, refuses what a run refuses at a kept name, never says PASS
without units checked against an acknowledged generation (a state file
whose records were lost is a finding of its own), handles signals like a
run, and a --cleanup killed at any point can be finished.  A run that
verified nothing says so instead of PASS."""

import hashlib
import json
import os
import signal
import stat
import struct
import subprocess

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "verdict-{case}"}

FILES = 2
STATE_NAME = "drivestress.state"


def checksums(directory):
    out = {}
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if os.path.islink(path) or not os.path.isfile(path):
            out[name] = os.readlink(path) if os.path.islink(path) else "special"
            continue
        with open(path, "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


class VerifyOnlyCases:
    """Helpers shared by the cases below."""

    def state_path(self):
        return os.path.join(self.target, STATE_NAME)

    def keep_run(self, *extra):
        r = self.drivestress("--keep", "-s", "1M", "-j", FILES, "--rand-time", "0.1", *extra,
                             json_out=False)
        self.assertExit(r, 0)
        return r

    def verify(self, *args, env_extra=None):
        """--verify-only STATE ARGS, to the end, with its --json document."""
        if os.path.exists(self.json_path):
            os.unlink(self.json_path)
        env = dict(os.environ)
        env.pop("DRIVESTRESS_TEST_STOP", None)
        env.update(env_extra or {})
        argv = harness.argv_for([harness.DRIVESTRESS, "--verify-only", self.state_path(), "--json",
                                 self.json_path, *args], env)
        p = subprocess.run(argv, capture_output=True, text=True, env=env,
                           timeout=harness.EXIT_TIMEOUT_S)
        doc = None
        if os.path.exists(self.json_path):
            with open(self.json_path) as f:
                doc = json.load(f)
        return harness.Result(p.returncode, p.stdout, p.stderr, doc, 0)

    def start_verify(self, *args, stop):
        """--verify-only STATE ARGS stopped at `stop` (DRIVESTRESS_TEST_STOP)."""
        env = dict(os.environ)
        env["DRIVESTRESS_TEST_STOP"] = stop
        run = harness.Run([harness.DRIVESTRESS, "--verify-only", self.state_path(), "--json",
                           self.json_path, *args], env, self.json_path)
        self.addCleanup(run.close)
        return run


@harness.meson_case(name="verdict-{case}-{backend}")
class LockedCases(VerifyOnlyCases):
    """Per backend: the run being verified holds its lock."""

    def test_verify_only_refused_while_the_run_runs(self):
        run = self.start("--keep", "-s", "2M", "-j", FILES, "--read-pct", 0, "--rand-ops", 3000,
                         stop="random:200", json_out=False)
        run.wait_stopped()
        before = checksums(self.target)
        for extra in ((), ("--cleanup",)):
            r = self.verify(*extra)
            self.assertSetupError(r, "--verify-only", self.target,
                                  "in use by another drivestress run (pid %d)" % run.proc.pid)
            self.assertEqual(checksums(self.target), before, "files untouched")
        run.resume()
        self.assertExit(run.finish(), 0)
        r = self.verify("--cleanup")
        self.assertExit(r, 0)
        self.assertIn("result   PASS: everything acknowledged as durable is there", r.stdout)
        self.assertNoFilesLeft(r)


class LockedIoUring(LockedCases, harness.DriveStressTest):
    backend = "io_uring"


class LockedSync(LockedCases, harness.DriveStressTest):
    backend = "sync"


class Verdict(VerifyOnlyCases, harness.DriveStressTest):

    def zero_state_records(self):
        with open(self.state_path(), "r+b") as f:
            data = f.read()
            (header_bytes,) = struct.unpack_from("<Q", data, 48)
            f.seek(header_bytes)
            f.write(bytes(len(data) - header_bytes))

    def test_lost_state_records_are_a_finding_never_pass(self):
        self.keep_run()
        self.zero_state_records()
        before = checksums(self.target)
        r = self.verify()
        self.assertExit(r, 2)
        self.assertNotIn("PASS", r.stdout)
        self.assertIn("the state file lost its records and cannot prove what was acknowledged",
                      " ".join(r.stdout.split()))  # folded at 100 columns
        self.assertTrue(r.doc["verify_only"]["state_lost_records"], r.describe())
        self.assertEqual(r.doc["verify_only"]["checked_units"], 0)
        self.assertEqual(r.doc["summary"]["status"], "failed")
        r = self.verify("--cleanup")
        self.assertExit(r, 2)
        self.assertFalse(r.doc["verify_only"]["cleaned_up"])
        self.assertEqual(checksums(self.target), before, "--cleanup removed nothing")

    def test_nothing_acknowledged_is_no_verdict_and_no_cleanup(self):
        run = self.start("--keep", "-s", "1M", "-j", FILES, stop="seq-write", json_out=False)
        run.wait_stopped()
        run.send(signal.SIGKILL)
        run.resume()
        run.finish()
        before = checksums(self.target)
        r = self.verify()
        self.assertExit(r, 0)
        self.assertNotIn("PASS", r.stdout)
        self.assertIn("result   NO VERDICT: nothing verified", r.stdout)
        self.assertEqual(r.doc["summary"]["status"], "no-verdict")
        self.assertEqual(r.doc["verify_only"]["checked_units"], 0)
        r = self.verify("--cleanup")
        self.assertExit(r, 1)
        # (Folded at 100 columns after a long state path: spaces as one.)
        self.assertIn("--cleanup runs only after a verified PASS", " ".join(r.stdout.split()))
        self.assertEqual(r.doc["summary"]["status"], "error")
        self.assertEqual(checksums(self.target), before, "--cleanup removed nothing")

    def test_cleanup_killed_at_every_point_can_be_finished(self):
        for point in range(FILES + 1):
            with self.subTest(point=point):
                self.keep_run()
                run = self.start_verify("--cleanup", stop="cleanup:%d" % point)
                run.wait_stopped()
                run.send(signal.SIGKILL)
                run.resume()
                self.assertEqual(run.finish().returncode, -signal.SIGKILL)
                # Never a durability violation over files a cleanup removed.
                r = self.verify()
                self.assertSetupError(r, self.state_path(), "interrupted", "--cleanup")
                r = self.verify("--cleanup")
                self.assertExit(r, 0)
                self.assertIn("result   CLEANED UP: the interrupted --cleanup is finished",
                              r.stdout)
                self.assertTrue(r.doc["verify_only"]["finished_interrupted_cleanup"])
                self.assertNoFilesLeft(r)

    def test_signal_stops_verify_only_cleanly(self):
        self.keep_run()
        before = checksums(self.target)
        run = self.start_verify("--cleanup", stop="verify")
        run.wait_stopped()
        run.send(signal.SIGTERM)
        run.resume()
        r = run.finish()
        self.assertExit(r, 143)
        self.assertIn("result   INTERRUPTED: nothing lost so far (exit 143)", r.stdout)
        self.assertEqual((r.doc["summary"]["status"], r.doc["summary"]["signal"]),
                         ("interrupted", signal.SIGTERM))
        self.assertEqual(checksums(self.target), before, "--cleanup not run")
        self.assertExit(self.verify("--cleanup"), 0)
        self.assertNoFilesLeft()

    def test_planted_link_fifo_or_foreign_file_at_a_kept_name_is_refused(self):
        self.keep_run()
        kept = self.data_file(0)
        aside = os.path.join(self.tmp, "aside.dat")
        os.rename(kept, aside)
        secret = os.path.join(self.tmp, "secret")
        with open(secret, "wb") as f:
            f.write(b"x" * 4096)
        os.chmod(secret, 0o600)
        plants = [("symbolic link", lambda: os.symlink(secret, kept)),
                  ("not a regular file", lambda: os.mkfifo(kept))]
        if os.geteuid() == 0:
            def foreign():
                with open(kept, "wb") as f:
                    f.write(b"y" * 4096)
                os.chown(kept, 65534, 65534)
            plants.append(("owned by uid 65534", foreign))
        for why, plant in plants:
            with self.subTest(why=why):
                plant()
                before = checksums(self.target)
                for extra in ((), ("--cleanup",)):
                    r = self.verify(*extra)  # a FIFO would hang here: the timeout fails it
                    self.assertSetupError(r, kept, why)
                self.assertEqual(checksums(self.target), before)
                os.unlink(kept)
        os.rename(aside, kept)
        self.assertExit(self.verify("--cleanup"), 0)
        self.assertNoFilesLeft()

    def test_cleanup_with_a_second_link_removes_nothing(self):
        self.keep_run()
        other = os.path.join(self.tmp, "other-link.dat")
        os.link(self.data_file(1), other)
        before = checksums(self.target)
        r = self.verify("--cleanup")
        self.assertExit(r, 1)
        self.assertIn("refused  %s: has 2 links; not removed" % self.data_file(1), r.stdout)
        self.assertEqual(checksums(self.target), before, "nothing removed, not even file 0")
        os.unlink(other)
        self.assertExit(self.verify("--cleanup"), 0)
        self.assertNoFilesLeft()

    def test_json_onto_the_state_file_is_refused(self):
        self.keep_run()
        before = checksums(self.target)
        for name in (self.state_path(), os.path.join(self.target, ".", STATE_NAME)):
            p = subprocess.run([harness.DRIVESTRESS, "--verify-only", self.state_path(),
                                "--json", name], capture_output=True, text=True,
                               timeout=harness.EXIT_TIMEOUT_S)
            self.assertSetupError(harness.Result(p.returncode, p.stdout, p.stderr, None, 0),
                                  "--json", name)
        self.assertEqual(checksums(self.target), before)

    def test_run_that_verified_nothing_is_no_verdict(self):
        r = self.drivestress("-s", "1M", "-j", 1, "--duration", "1us")
        self.assertExit(r, 0)
        self.assertNotIn("PASS", r.stdout)
        self.assertIn("result   NO VERDICT: nothing verified (stopped at --duration) (exit 0)",
                      r.stdout)
        doc = self.assertJson(r)
        self.assertEqual((doc["summary"]["status"], doc["summary"]["verified_bytes"]),
                         ("no-verdict", 0))
        # --no-verify keeps its own wording: it says what was not done.
        r = self.drivestress("-s", "1M", "-j", 1, "--no-verify", "--rand-time", "0.1")
        self.assertIn("result   PASS, data not verified with --no-verify (exit 0)", r.stdout)


if __name__ == "__main__":
    harness.main()
