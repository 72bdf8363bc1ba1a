#!/usr/bin/env python3
"""The drift table of a long run names a drift only outside the noise: the
first five complete runs of a phase against its last five, each side's
median with its interval (as --repeat's), "within noise" when the
intervals overlap, "too few runs" below three a side, "one sample" with
one.

Any machine: two iterations say "one sample a side", four "too few runs".

Loop device (root, cgroup v1 blkio; skipped with the reason otherwise): a
read throttle holds seq-read at one rate for five iterations and at a
quarter of it for five more (changed while the run is stopped before the
sixth seq-read, DRIVESTRESS_TEST_STOP): the seq-read row names the drift,
worse, by about -75 %.  The rates come from the device's throttle, never
from the program being told what to measure; nothing is timed."""

import re

import harness
from harness import MiB
from test_endurance import ThrottledDevice, raw

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "{cls}-{case}"}

FAST_BPS = 8 * MiB
SLOW_BPS = 2 * MiB


def drift_rows(text):
    """{(phase, figure): verdict} of the drift table."""
    at = text.index("\ndrift ")
    rows, phase = {}, None
    for line in text[at:].splitlines()[3:]:
        if not line.startswith("  "):
            break
        m = re.match(r"  (\S+)?\s+(MiB/s|IOPS|p99 ms)\s+(?:\S+ #\d+\s+){4}(.*)$", line)
        if not m:
            break
        phase = m.group(1) or phase
        rows[(phase, m.group(2))] = m.group(3)
    return rows


JSON_FIGURE = {"MiB/s": "bandwidth_bytes_per_sec", "IOPS": "iops", "p99 ms": "p99_ns"}


def json_verdicts(test, doc, rows):
    """The JSON's drift verdicts, checked against the text table's rows:
    {(phase, figure): verdict kind}."""
    phases = harness.merged_phases_of(doc)
    kinds = {}
    for (phase, figure), text in rows.items():
        v = {x["figure"]: x for x in phases[phase]["drift"]["verdicts"]}[JSON_FIGURE[figure]]
        test.assertEqual(v["text"], text, (phase, figure))
        kinds[(phase, figure)] = v["kind"]
    return kinds


class Drift(harness.DriveStressTest):
    def run_iterations(self, n):
        r = self.drivestress("-j", 1, "-s", "4M", "--phases", "seq-write,seq-read",
                             "--iterations", n)
        self.assertExit(r, 0)
        self.assertIn("drift: the first 5 runs against the last 5, named only outside the noise",
                      r.stdout)
        rows = drift_rows(r.stdout)
        return rows, json_verdicts(self, self.assertJson(r), rows)

    def test_two_iterations_say_one_sample_a_side(self):
        rows, kinds = self.run_iterations(2)
        self.assertEqual(len(rows), 4, rows)
        for key, verdict in rows.items():
            self.assertEqual(verdict, "one sample a side", key)
            self.assertEqual(kinds[key], "one_sample", key)

    def test_four_iterations_are_too_few_to_name_one(self):
        rows, kinds = self.run_iterations(4)
        self.assertEqual(len(rows), 4, rows)
        for key, verdict in rows.items():
            self.assertEqual(verdict, "too few runs (2 a side)", key)
            self.assertEqual(kinds[key], "too_few", key)


class ThrottledDrift(ThrottledDevice):
    def test_a_throttle_quartered_halfway_is_a_named_drift(self):
        harness.plain_suite_only(self)
        self.cgroup.set("read_bps", self.dev, FAST_BPS)
        run = self.start("-j", 1, "-s", "4M", "--phases", "seq-write,seq-read",
                         "--iterations", 10, *raw(self.dev), stop="seq-read", target=False,
                         wrapper=self.cgroup.wrapper())
        for iteration in range(1, 11):
            run.wait_stopped()  # before this iteration's seq-read
            if iteration == 6:
                self.cgroup.set("read_bps", self.dev, SLOW_BPS)
            run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        rows = drift_rows(r.stdout)
        verdict = rows[("seq-read", "MiB/s")]
        m = re.fullmatch(r"([-+][0-9.]+) % \(worse\)", verdict)
        self.assertIsNotNone(m, r.stdout)
        # A quarter of the rate: -75 %, give or take the throttle's slices.
        self.assertLess(float(m.group(1)), -60, verdict)
        self.assertGreater(float(m.group(1)), -90, verdict)
        kinds = json_verdicts(self, self.assertJson(r), rows)
        self.assertEqual(kinds[("seq-read", "MiB/s")], "worse")
        v = harness.merged_phases_of(r.doc)["seq-read"]["drift"]["verdicts"][0]
        self.assertEqual(v["figure"], "bandwidth_bytes_per_sec")
        self.assertEqual(v["runs_per_side"], 5)
        self.assertAlmostEqual(v["change_pct"], float(m.group(1)), delta=0.051)


class TwoIterations(ThrottledDevice):
    """Two iterations: too few runs a side to judge over the runs, so the
    first and the last are compared on their own intervals (their phases'
    slices); the throttle sets the rates."""

    def run_two(self, second_cap):
        self.cgroup.set("read_iops", self.dev, 2000)
        run = self.start("-j", 1, "-s", "4M", "--read-pct", 100, "--rand-time", 2,
                         "--phases", "seq-write,random", "--iterations", 2, *raw(self.dev),
                         stop="random", target=False, wrapper=self.cgroup.wrapper())
        for iteration in (1, 2):
            run.wait_stopped()  # before this iteration's random phase
            if iteration == 2:
                self.cgroup.set("read_iops", self.dev, second_cap)
            run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        rows = drift_rows(r.stdout)
        v = {x["figure"]: x for x in harness.merged_phases_of(r.doc)["random"]["drift"]["verdicts"]}
        return rows, v["iops"]

    def test_a_quartered_cap_is_named_on_two_runs(self):
        rows, v = self.run_two(500)
        self.assertRegex(rows[("random", "IOPS")], r"^-[0-9.]+ % \(worse, #1-last\)$", rows)
        self.assertEqual((v["kind"], v["basis"], v["runs_per_side"]),
                         ("worse", "first_and_last_runs", 1))
        self.assertLess(v["change_pct"], -60)

    def test_the_same_cap_is_within_noise_on_two_runs(self):
        rows, v = self.run_two(2000)
        self.assertEqual(rows[("random", "IOPS")], "within noise (#1-last)", rows)
        self.assertEqual((v["kind"], v["basis"]), ("within_noise", "first_and_last_runs"))


if __name__ == "__main__":
    harness.main()
