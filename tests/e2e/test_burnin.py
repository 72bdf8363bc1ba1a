#!/usr/bin/env python3
"""Burn-in: memory and the --json document stay bounded over thousands of
iterations, the document is checkpointed a bounded number of times, and
what is on disk after a SIGKILL is a valid document up to its last
checkpoint."""

import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "burnin-{case}"}

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import validate_schema  # noqa: E402  (after the path insert)

# Peak resident size may differ by this much between a run of ITERATIONS
# iterations and one of four times as many: the allocator's slack.  Before
# the iterations were summarised beyond the window it grew by about 0.5 KiB
# per iteration (3 MiB here), and the document with them.
RSS_GROWTH_BOUND_KIB = 1024
ITERATIONS = 2000
# Iterations the document lists (RunResult::kIterationWindow).
ITERATION_WINDOW = 1000
# The shortest time between two checkpoints as iterations end
# (TestHooks::checkpoint_period_s).
CHECKPOINT_PERIOD_S = 5
# How long a document rewritten during a phase may take to appear: a
# liveness bound, far above the 0.2 s asked for, not a measurement.
SNAPSHOT_WAIT_S = 30
# How long a run of 4 x ITERATIONS may take: a liveness bound (about 4 ms an
# iteration here, 10 ms with the machine's two CPUs busy), not a measurement.
ITERATIONS_EXIT_S = 240


def read_json(path):
    with open(path) as f:
        return json.load(f)


class Burnin(harness.DriveStressTest):
    backend = None

    def schema_errors(self, doc):
        """Schema violations of `doc`; skips the test without jsonschema."""
        try:
            validator = validate_schema.make_validator(validate_schema.DEFAULT_SCHEMA)
        except SystemExit:
            self.skipTest("python3-jsonschema (Draft 2020-12) is not installed")
        return validate_schema.errors_of(validator, doc)

    def run_iterations(self, iterations):
        """A run of `iterations` 4 KiB seq-write iterations with --json on
        tmpfs (so a run that rewrites its document every iteration fails
        the assertions rather than the time out), under peak_rss; returns
        the Result and the run's peak resident size (KiB)."""
        peak_rss = harness.PEAK_RSS or os.path.join(os.path.dirname(harness.NO_IO_URING),
                                                    "peak_rss")
        if not os.access(peak_rss, os.X_OK):
            self.fail(f"peak_rss helper not found: {peak_rss!r} (use --peak-rss)")
        sanitizer = harness.sanitizer()
        if sanitizer:
            self.skipTest(f"built with {sanitizer}: its allocator, not drivestress, decides "
                          "the resident size")
        r = self.start("-s", "4K", "--seq-block", "4K", "-j", 1, "--phases", "seq-write",
                       "--iterations", iterations, wrapper=[peak_rss]).finish(ITERATIONS_EXIT_S)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        match = re.search(r"^peak_rss_kib (\d+)$", r.stderr, re.M)
        self.assertIsNotNone(match, r.describe())
        return r, int(match.group(1))

    @harness.meson_case(timeout=420)
    def test_thousand_iterations_memory_and_json_stay_bounded(self):
        """N and 4N short iterations: the same peak resident size; the
        document lists the last 1000 iterations and summarises the others
        (totals, drift from iteration 1 to N), and was checkpointed a
        number of times bounded by the run's time, not by its iterations."""
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        out_dir = tempfile.mkdtemp(prefix="drivestress-e2e-json-", dir=shm)
        self.addCleanup(shutil.rmtree, out_dir, True)
        self.json_path = os.path.join(out_dir, "result.json")
        peaks = {}
        for n in (ITERATIONS, 4 * ITERATIONS):
            r, peaks[n] = self.run_iterations(n)
            doc = self.assertJson(r)
            self.assertFalse(doc["in_progress"])
            s = doc["summary"]
            self.assertEqual((s["iterations_run"], s["iterations_summarised"]),
                             (n, n - ITERATION_WINDOW))
            self.assertEqual([it["index"] for it in doc["iterations"]],
                             list(range(n - ITERATION_WINDOW + 1, n + 1)))
            self.assertEqual(s["written_bytes"], n * 4096)
            (m,) = doc["merged_phases"]
            self.assertEqual((m["iterations"], m["write_bytes"]), (n, n * 4096))
            drift = m["drift"]["bandwidth_bytes_per_sec"]
            self.assertEqual((m["drift"]["iterations"], drift["first_iteration"],
                              drift["last_iteration"]), (n, 1, n))
            # The first iteration's end, then one per CHECKPOINT_PERIOD_S at
            # most: a count the document's own elapsed time bounds.
            self.assertIn("checkpoints_written", doc)
            bound = 2 + s["elapsed_s"] / CHECKPOINT_PERIOD_S
            print(f"{n} iterations in {s['elapsed_s']:.2f} s: peak RSS {peaks[n]} KiB, "
                  f"{doc['checkpoints_written']} checkpoints (at most {bound:.1f})")
            self.assertGreaterEqual(doc["checkpoints_written"], 1)
            self.assertLessEqual(doc["checkpoints_written"], bound,
                                 "the document is rewritten more often than the period")
        growth = peaks[4 * ITERATIONS] - peaks[ITERATIONS]
        self.assertLessEqual(growth, RSS_GROWTH_BOUND_KIB,
                             f"peak resident size grows with iterations: {growth:+d} KiB over "
                             f"{3 * ITERATIONS} more")

    def test_sigkill_leaves_the_last_checkpoint(self):
        """Thousands of short iterations, killed with SIGKILL once the
        document was checkpointed a second time (at an instant the test
        does not choose): the document on disk is valid, in progress, and
        consistent: the last iterations listed up to the checkpoint, the
        others counted as summarised, every phase of them in merged_phases."""
        run = self.start("-s", "4K", "--seq-block", "4K", "-j", 1, "--phases", "seq-write",
                         "--iterations", 0, "--duration", "10m")
        # Waits for a checkpoint past the window: how many iterations fit in
        # a period is the machine's speed (a TSan build on a busy host did
        # 351 in two), so the condition, not the clock, decides.
        deadline = time.monotonic() + 12 * CHECKPOINT_PERIOD_S + SNAPSHOT_WAIT_S
        doc = None
        while time.monotonic() < deadline and run.proc.poll() is None:
            if os.path.exists(self.json_path):
                doc = read_json(self.json_path)  # replaced atomically: always whole
                if (doc["checkpoints_written"] >= 2
                        and doc["summary"]["iterations_run"] > ITERATION_WINDOW):
                    break
            time.sleep(0.05)
        self.assertIsNotNone(doc, "no document written")
        self.assertGreaterEqual(doc["checkpoints_written"], 2)
        self.assertGreater(doc["summary"]["iterations_run"], ITERATION_WINDOW,
                           "no checkpoint past the iteration window in time")
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL, r.describe())
        doc = self.assertJson(r)
        self.assertEqual(self.schema_errors(doc), [], "schema violations")
        self.assertTrue(doc["in_progress"])
        s = doc["summary"]
        self.assertEqual((s["status"], s["exit_code"], s["stop_reason"]), ("running", None, None))
        n = s["iterations_run"]
        self.assertGreater(n, ITERATION_WINDOW, "too few iterations for the test to mean much")
        self.assertEqual(s["iterations_summarised"], n - ITERATION_WINDOW)
        self.assertEqual([it["index"] for it in doc["iterations"]],
                         list(range(n - ITERATION_WINDOW + 1, n + 1)))
        self.assertEqual([m["iterations"] for m in doc["merged_phases"]], [n])
        self.assertEqual(s["written_bytes"], n * 4096)
        self.assertIsNone(doc["progress"]["phase"])  # written as an iteration ended

    def test_sigkill_leaves_every_finished_iteration(self):
        """Checkpointed after every iteration (DRIVESTRESS_TEST_CHECKPOINT_S
        0: as a run of iterations longer than the period is), killed with
        SIGKILL in its third iteration: the document on disk is valid, in
        progress, and has iterations 1 and 2, all phases."""
        run = self.start("-s", "8M", "-j", 2, "--rand-time", "0.3", "--iterations", 0,
                         "--duration", "10m", stop="reverify",
                         env_extra={"DRIVESTRESS_TEST_CHECKPOINT_S": "0"})
        for resumed in range(2):
            run.wait_stopped()
            run.resume()
        run.wait_stopped()  # before iteration 3's reverify
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL, r.describe())
        self.assertIn("iteration 3", r.stdout)
        doc = self.assertJson(r)
        errors = self.schema_errors(doc)
        self.assertEqual(errors, [], "schema violations")
        self.assertTrue(doc["in_progress"])
        s = doc["summary"]
        self.assertEqual((s["status"], s["exit_code"], s["stop_reason"]), ("running", None, None))
        self.assertEqual(s["iterations_run"], 2)
        self.assertEqual(s["mismatch_total"], 0)
        self.assertEqual([(it["index"], [p["phase"] for p in it["phases"]])
                          for it in doc["iterations"]],
                         [(1, list(harness.PHASES)), (2, list(harness.PHASES))])
        self.assertEqual([m["iterations"] for m in doc["merged_phases"]], [2] * 4)
        self.assertEqual(s["written_bytes"], sum(p["write_bytes"] for _, p in
                                                 harness.phases_of(doc)))
        self.assertIsNone(doc["progress"]["phase"])  # written as iteration 2 ended

    def test_long_iteration_is_rewritten_while_it_runs(self):
        """A 30 s random phase, snapshots every 0.2 s: the document shows the
        phase running and the finished phases of the iteration before it
        ends; killed then, that is what is left."""
        run = self.start("-s", "8M", "-j", 2, "--rand-time", "30", "--iterations", 1,
                         env_extra={"DRIVESTRESS_TEST_SNAPSHOT_S": "0.2"})
        deadline = time.monotonic() + SNAPSHOT_WAIT_S
        doc = None
        while time.monotonic() < deadline and run.proc.poll() is None:
            if os.path.exists(self.json_path):
                doc = read_json(self.json_path)  # replaced atomically: always whole
                if doc["progress"]["phase"] == "random":
                    break
            time.sleep(0.05)
        self.assertIsNotNone(doc, f"no document within {SNAPSHOT_WAIT_S} s")
        self.assertEqual(doc["progress"]["phase"], "random")
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL, r.describe())
        doc = self.assertJson(r)
        self.assertEqual(self.schema_errors(doc), [], "schema violations")
        self.assertTrue(doc["in_progress"])
        self.assertEqual(doc["progress"]["iteration"], 1)
        self.assertEqual(doc["progress"]["phase"], "random")
        self.assertGreater(doc["progress"]["phase_elapsed_s"], 0)
        self.assertEqual([p["phase"] for p in doc["iterations"][0]["phases"]],
                         ["seq-write", "seq-read"])
        self.assertEqual(doc["summary"]["written_bytes"], 2 * 8 * harness.MiB)


if __name__ == "__main__":
    harness.main()
