#!/usr/bin/env python3
"""Regimes inside a phase: a random-read phase whose blkio cap is cut from
5000 to 500 IOPS 3 s into an 8 s phase is reported as two regimes, the
change within 1 s of 3 s and each regime's IOPS within 5 % of its cap; a
steady cap is one regime.  The rates come from the device's throttle; the
only timing is when the test changes it.  Root and cgroup v1 blkio (skipped
with the reason otherwise)."""

import re
import time

import harness
from test_endurance import ThrottledDevice, raw

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "regimes-{case}", "timeout": 120}

HIGH, LOW = 5000, 500


class Regimes(ThrottledDevice):
    def run_random(self, stop=None):
        return self.start("-j", 1, "-s", "16M", "--read-pct", 100, "--rand-time", 8,
                          "--phases", "seq-write,random", *raw(self.dev), target=False,
                          stop=stop, wrapper=self.cgroup.wrapper())

    def random_phase(self, r):
        self.assertExit(r, 0)
        return harness.merged_phases_of(self.assertJson(r))["random"]

    def test_a_cap_cut_partway_is_two_regimes(self):
        self.cgroup.set("read_iops", self.dev, HIGH)
        run = self.run_random(stop="random")
        run.wait_stopped()  # before the random phase
        run.resume()
        time.sleep(3)
        self.cgroup.set("read_iops", self.dev, LOW)
        r = run.finish()
        regimes = self.random_phase(r)["regimes"]
        self.assertEqual(len(regimes), 2, regimes)
        first, second = regimes
        self.assertLess(abs(second["start_s"] - 3), 1, regimes)
        self.assertLess(abs(first["value"] - HIGH) / HIGH, 0.05, regimes)
        self.assertLess(abs(second["value"] - LOW) / LOW, 0.05, regimes)
        self.assertAlmostEqual(first["start_s"] + first["length_s"], second["start_s"])
        # The text names both, under the phase's line.
        m = re.search(r"^  regimes: .*$", r.stdout, re.M)
        self.assertIsNotNone(m, r.stdout)
        # Each regime as the JSON has it, to the text's precision (a throttle
        # lets a burst through at first: CI once saw 5.2k for the 5k cap).
        shown = re.findall(r"([0-9.]+)-([0-9.]+) s ([0-9.]+)(k?) IOPS ±[0-9.]+ %", m.group(0))
        self.assertEqual(len(shown), 2, m.group(0))
        for (start, end, value, k), regime in zip(shown, regimes):
            self.assertAlmostEqual(float(start), regime["start_s"], delta=0.05)
            self.assertAlmostEqual(float(end), regime["start_s"] + regime["length_s"], delta=0.05)
            shown_value = float(value) * (1000 if k else 1)
            self.assertAlmostEqual(shown_value, regime["value"], delta=51 if k else 0.6)

    def test_a_steady_cap_is_one_regime(self):
        self.cgroup.set("read_iops", self.dev, HIGH)
        r = self.run_random().finish()
        phase = self.random_phase(r)
        self.assertEqual(len(phase["regimes"]), 1, phase["regimes"])
        self.assertNotIn("regimes:", r.stdout)
        self.assertLess(abs(phase["iops"] - HIGH) / HIGH, 0.05)
        # One run's interval of its figure (the phase's own 0.1 s samples).
        interval = phase["interval"]
        self.assertEqual(interval["figure"], "iops")
        self.assertLessEqual(interval["low"], phase["iops"])
        self.assertLessEqual(phase["iops"], interval["high"])
        self.assertGreaterEqual(interval["batches"], 5)


if __name__ == "__main__":
    harness.main()
