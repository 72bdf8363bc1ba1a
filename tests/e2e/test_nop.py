#!/usr/bin/env python3
"""--backend nop: the engine without the device.  Every operation goes
through the same engine and ring as an IORING_OP_NOP: counted as its whole
block, nothing reaches the files, nothing is verified, and the report, the
result line and the JSON say so.  Combinations that mean something only of
a device or of data are refused with the reason.  Structure only: no figure
is judged (scripts/bench measures them)."""

import os

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "nop-{case}"}


class Nop(harness.DriveStressTest):
    def setUp(self):
        super().setUp()
        reason = harness.io_uring_unavailable_reason()
        if reason:
            self.skipTest(f"io_uring is not available here ({reason})")

    def test_every_operation_is_counted_and_nothing_is_verified(self):
        ops = 4000
        r = self.drivestress("-j", 2, "-s", "4M", "--backend", "nop", "--read-pct", 70,
                             "--rand-ops", ops, "--qd", 16, "--seed", 5)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["backend"]["used"], "io_uring")
        self.assertIn("nop: every operation is IORING_OP_NOP; no device I/O, nothing verified",
                      doc["backend"]["io_uring"]["notes"])
        self.assertFalse(doc["config"]["verify"])
        phases = harness.merged_phases_of(doc)
        self.assertEqual(sorted(phases), ["random", "seq-read", "seq-write"])  # no reverify
        rnd = phases["random"]
        self.assertEqual(rnd["read_ops"] + rnd["write_ops"], ops)
        self.assertGreater(rnd["read_ops"], 0)
        self.assertGreater(rnd["write_ops"], 0)
        # Each NOP counts as its whole block: the engine's accounting.
        self.assertEqual(rnd["read_bytes"], rnd["read_ops"] * 4096)
        self.assertEqual(phases["seq-write"]["write_bytes"], 2 * 4 * MiB)
        for name, p in phases.items():
            self.assertEqual(p["verified_bytes"], 0, name)
        self.assertEqual(doc["summary"]["status"], "no-verdict")
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        out = r.stdout
        self.assertIn("note     --backend nop: every operation is an io_uring NOP; nothing "
                      "reaches the device and nothing is verified", out)
        self.assertRegex(out, r"\nbackend  NOP on io_uring \[")
        self.assertIn("not verified (--backend nop: no data moved)", out)
        self.assertIn("NO VERDICT: --backend nop moved no data", out)
        self.assertIn("mismatches not counted: nothing verified (--backend nop)", out)
        self.assertNotIn("PASS", out)
        self.assertNoFilesLeft(r)

    def test_nothing_reaches_the_files(self):
        # Stopped before the random phase: the seq-write phase "wrote"
        # every file, and every byte of them is still the zero of a new file
        # but the first unit, which the target writes as it creates the file
        # (its identity; not the engine, not the device's figures).
        run = self.start("-j", 1, "-s", "2M", "--backend", "nop", "--rand-ops", 100,
                         stop="random")
        run.wait_stopped()
        with open(self.data_file(0), "rb") as f:
            data = f.read()
        self.assertEqual(len(data), 2 * MiB)
        self.assertEqual(data[4096:].count(0), len(data) - 4096)
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertEqual(harness.merged_phases_of(self.assertJson(r))["seq-write"]["write_ops"],
                         2 * MiB // (1 * MiB))

    def test_combinations_that_need_a_device_or_data_are_refused(self):
        for extra, named in ((("--sync", "fdatasync"), "--sync"), (("--iopoll",), "--iopoll"),
                             (("--keep",), "--keep"), (("--buffered",), "--buffered"),
                             (("--phases", "seq-write,reverify"), "--phases reverify")):
            r = self.drivestress("-s", "2M", "--backend", "nop", *extra)
            self.assertSetupError(r, "--backend nop", named)


if __name__ == "__main__":
    harness.main()
