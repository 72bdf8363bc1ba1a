#!/usr/bin/env python3
"""Burn-in: memory and the --json document stay bounded over a thousand
iterations, and the document rewritten during the run survives a SIGKILL
with every finished iteration in it."""

import json
import os
import shutil
import signal
import sys
import tempfile
import time

import harness

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
import validate_schema  # noqa: E402  (after the path insert)

# Resident size may grow by this much from the end of the first iteration to
# the end of the last: the figures every iteration keeps (about 0.5 KiB
# each) and the allocator's slack.  Before the iterations dropped their
# histograms it grew by 440 KiB per iteration.
RSS_GROWTH_BOUND_KIB = 1536
# The document may grow by this much per iteration (one line of figures).
JSON_BYTES_PER_ITERATION = 1024
ITERATIONS = 1000
# How long a document rewritten during a phase may take to appear: a
# liveness bound, far above the 0.2 s asked for, not a measurement.
SNAPSHOT_WAIT_S = 30


def vm_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS in /proc/{pid}/status")


def sanitizer_of(pid):
    """"ASan" or "TSan" when the process runs under one (its allocator keeps
    freed memory in quarantine or shadow, so resident size says nothing of
    drivestress's own), else None."""
    with open(f"/proc/{pid}/maps") as f:
        maps = f.read()
    for lib, name in (("libasan", "ASan"), ("libtsan", "TSan")):
        if lib in maps:
            return name
    return None


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

    def test_thousand_iterations_memory_and_json_stay_bounded(self):
        """1000 short iterations, stopped before each one starts: VmRSS and
        the document's size after iteration 1 and after iteration 999."""
        # The document is rewritten after every iteration: on tmpfs, so the
        # test does not wait for 1200 fsyncs of a growing file.
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
        out_dir = tempfile.mkdtemp(prefix="drivestress-e2e-json-", dir=shm)
        self.addCleanup(shutil.rmtree, out_dir, True)
        self.json_path = os.path.join(out_dir, "result.json")
        run = self.start("-s", "64K", "--seq-block", "64K", "-j", 2, "--rand-ops", 16,
                         "--iterations", ITERATIONS, stop="seq-write")
        samples = {}  # iterations finished -> (VmRSS KiB, document bytes)
        for finished in range(ITERATIONS):
            run.wait_stopped()
            if finished == 0 and sanitizer_of(run.proc.pid):
                self.skipTest(f"built with {sanitizer_of(run.proc.pid)}: its allocator, "
                              "not drivestress, decides the resident size")
            if finished in (1, ITERATIONS - 1):
                doc = read_json(self.json_path)
                self.assertTrue(doc["in_progress"])
                self.assertEqual(len(doc["iterations"]), finished)
                samples[finished] = (vm_rss_kib(run.proc.pid), os.path.getsize(self.json_path))
            run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertFalse(doc["in_progress"])
        self.assertEqual(doc["summary"]["iterations_run"], ITERATIONS)
        self.assertEqual([it["index"] for it in doc["iterations"]],
                         list(range(1, ITERATIONS + 1)))
        self.assertEqual([m["iterations"] for m in doc["merged_phases"]], [ITERATIONS] * 4)

        (rss_1, size_1), (rss_n, size_n) = samples[1], samples[ITERATIONS - 1]
        growth = rss_n - rss_1
        print(f"VmRSS {rss_1} KiB after iteration 1, {rss_n} KiB after {ITERATIONS - 1}: "
              f"{growth:+d} KiB; document {size_1} -> {size_n} bytes, "
              f"{(size_n - size_1) / (ITERATIONS - 2):.0f} bytes per iteration")
        self.assertLessEqual(growth, RSS_GROWTH_BOUND_KIB, "resident size grows with iterations")
        self.assertLessEqual(size_n - size_1, JSON_BYTES_PER_ITERATION * (ITERATIONS - 2),
                             "the document grows by more than a line per iteration")

    def test_sigkill_leaves_every_finished_iteration(self):
        """Killed with SIGKILL in its third iteration: the document on disk is
        valid, in progress, and has iterations 1 and 2, all phases."""
        run = self.start("-s", "8M", "-j", 2, "--rand-time", "0.3", "--iterations", 0,
                         "--duration", "10m", stop="reverify")
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
