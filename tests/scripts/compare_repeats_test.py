#!/usr/bin/env python3
"""scripts/compare on documents whose random phase carries --repeat
estimates (data/sample-a.json with `repeats` added: present or absent,
intervals overlapping or apart): which differences it names outside the
noise, and --fail-if gating only on those.

  python3 tests/scripts/compare_repeats_test.py [--scripts DIR] [--data DIR] [unittest args]
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--data", default=os.path.join(HERE, "data"))
OPTS, REST = ap.parse_known_args()
COMPARE = os.path.join(OPTS.scripts, "compare")
SAMPLE_A = os.path.join(OPTS.data, "sample-a.json")


def run(*args):
    return subprocess.run([COMPARE, *args], capture_output=True, text=True, timeout=60)


def load(path):
    with open(path) as f:
        return json.load(f)


class RepeatsTest(unittest.TestCase):
    """Hand-made documents whose random phase carries --repeat estimates
    (sample-a with `repeats` added): compare says which differences lie
    outside the noise, and --fail-if gates only on those."""

    @classmethod
    def setUpClass(cls):
        cls.a = load(SAMPLE_A)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @staticmethod
    def est(low, high, n=5):
        mid = (low + high) / 2
        return {"median": mid, "min": low, "max": high, "low": low, "high": high,
                "confidence": 0.9375, "n": n}

    def doc(self, name, iops_scale, iops_band=None, p99_band=None):
        """sample-a with the random phase's IOPS and bandwidth times
        `iops_scale`; with `iops_band` (low, high as fractions of sample-a's
        IOPS) its repeats, IOPS and bandwidth on that band, p99 on `p99_band`
        (fractions of sample-a's p99, (0.9, 1.1) if not given)."""
        doc = copy.deepcopy(self.a)
        for it in doc["iterations"]:
            for p in it["phases"]:
                if p["phase"] != "random":
                    continue
                iops, bw = p["iops"], p["bandwidth_bytes_per_sec"]
                p99 = p["latency"]["percentiles_ns"]["p99"]
                p["iops"], p["bandwidth_bytes_per_sec"] = iops * iops_scale, bw * iops_scale
                if iops_band:
                    lo, hi = iops_band
                    plo, phi = p99_band or (0.9, 1.1)
                    p["repeats"] = {"n": 5, "iops": self.est(iops * lo, iops * hi),
                                    "bandwidth_bytes_per_sec": self.est(bw * lo, bw * hi),
                                    "p99_ns": self.est(p99 * plo, p99 * phi)}
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def random_row(self, *args):
        r = run("--json", *args)
        self.assertIn(r.returncode, (0, 2), r.stderr)
        out = json.loads(r.stdout)
        return r, out, next(row for row in out["rows"] if row["phase"] == "random")

    def test_intervals_apart_are_named(self):
        a = self.doc("apart-a.json", 1.0, (0.95, 1.05))
        b = self.doc("apart-b.json", 0.7, (0.65, 0.75))
        _, _, row = self.random_row(a, b)
        self.assertEqual(row["documents"][1]["noise"],
                         {"bandwidth": "lower", "iops": "lower", "p99": "within noise"})
        text = run(a, b).stdout
        self.assertIn("vs A: MiB/s lower, IOPS lower, p99 within noise (medians' 94 % "
                      "intervals, n=5/5)", text)

    def test_overlapping_intervals_are_within_noise(self):
        a = self.doc("overlap-a.json", 1.0, (0.8, 1.2))
        b = self.doc("overlap-b.json", 0.85, (0.7, 1.0))
        _, _, row = self.random_row(a, b)
        self.assertEqual(set(row["documents"][1]["noise"].values()), {"within noise"})
        self.assertIn("vs A: MiB/s within noise, IOPS within noise", run(a, b).stdout)

    def test_a_side_without_repeats_says_one_repeat(self):
        a = self.doc("one-a.json", 1.0)
        b = self.doc("one-b.json", 0.7, (0.65, 0.75))
        _, _, row = self.random_row(a, b)
        self.assertEqual(set(row["documents"][1]["noise"].values()), {"one repeat"})
        self.assertIn("vs A: one repeat (A has no --repeat estimates)", run(a, b).stdout)

    def test_no_repeats_anywhere_adds_no_line(self):
        a = self.doc("none-a.json", 1.0)
        b = self.doc("none-b.json", 0.7)
        self.assertNotIn("vs A:", run(a, b).stdout)

    def test_the_table_keeps_its_width(self):
        a = self.doc("width-a.json", 1.0, (0.95, 1.05))
        b = self.doc("width-b.json", 0.7, (0.65, 0.75))
        lines = run(a, b).stdout.splitlines()
        noise = [l for l in lines if "vs A:" in l]
        self.assertTrue(noise)
        self.assertTrue(all(len(l) <= 100 for l in noise), noise)
        # The longest verdicts (one run's own intervals, within noise; the
        # gate's "crossed, but within noise") fold under their column.
        a = self.own_doc("width-own-a.json", 1.0, (0.8, 1.25))
        b = self.own_doc("width-own-b.json", 0.85, (0.8, 1.25))
        text = run(a, b, "--fail-if", "random:iops<-10%").stdout
        self.assertTrue(all(len(l) <= 100 for l in text.splitlines()), text)
        flat = " ".join(text.split())
        self.assertIn("vs A: MiB/s within noise, IOPS within noise, p99 no estimate (a run's own "
                      "intervals)", flat)
        self.assertIn("ok (crossed, but within noise: the intervals overlap)", flat)

    def test_gate_fails_only_outside_the_noise(self):
        a = self.doc("gate-a.json", 1.0, (0.95, 1.05))
        apart = self.doc("gate-apart.json", 0.7, (0.65, 0.75))
        overlap = self.doc("gate-overlap.json", 0.7, (0.6, 1.0))
        r, out, _ = self.random_row(a, apart, "--fail-if", "random:iops<-10%")
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertEqual(out["gate"]["checks"][0]["noise"], "lower")
        self.assertIn("FAILED (intervals apart)",
                      " ".join(run(a, apart, "--fail-if", "random:iops<-10%").stdout.split()))
        r, out, _ = self.random_row(a, overlap, "--fail-if", "random:iops<-10%")
        self.assertEqual(r.returncode, 0, r.stdout)
        c = out["gate"]["checks"][0]
        self.assertEqual((c["verdict"], c["noise"]), ("ok", "within noise"))
        self.assertLess(c["change_pct"], -10)
        text = " ".join(run(a, overlap, "--fail-if", "random:iops<-10%").stdout.split())
        self.assertIn("ok (crossed, but within noise: the intervals overlap)", text)

    def test_gate_with_one_repeat_behaves_as_before_and_says_so(self):
        a = self.doc("gate1-a.json", 1.0)
        b = self.doc("gate1-b.json", 0.7, (0.6, 1.0))
        r = run(a, b, "--fail-if", "random:iops<-10%")
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("gate: 1 of 1 checks had one repeat", r.stdout)
        self.assertTrue(r.stdout.splitlines()[-1].startswith("gate: FAILED"))

    def own_doc(self, name, iops_scale, band):
        """sample-a with the random phase's IOPS and bandwidth times
        `iops_scale` and one run's own interval (schema: interval) of
        `band`, fractions of its IOPS; no --repeat estimates."""
        path = self.doc(name, iops_scale)
        with open(path) as f:
            doc = json.load(f)
        for it in doc["iterations"]:
            for p in it["phases"]:
                if p["phase"] == "random":
                    lo, hi = band
                    p["interval"] = {"figure": "iops", "value": p["iops"], "low": p["iops"] * lo,
                                     "high": p["iops"] * hi, "half_width_pct": 50 * (hi - lo),
                                     "confidence": 0.95, "batches": 20, "batch_s": 0.1,
                                     "correlated": False}
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_one_run_is_judged_on_its_own_interval(self):
        a = self.own_doc("own-a.json", 1.0, (0.97, 1.03))
        apart = self.own_doc("own-apart.json", 0.7, (0.97, 1.03))
        overlap = self.own_doc("own-overlap.json", 0.85, (0.8, 1.25))
        _, _, row = self.random_row(a, apart)
        self.assertEqual(row["documents"][1]["noise"],
                         {"bandwidth": "lower", "iops": "lower", "p99": "no estimate"})
        self.assertIn("vs A: MiB/s lower, IOPS lower, p99 no estimate (a run's own intervals)",
                      run(a, apart).stdout)
        r, out, _ = self.random_row(a, apart, "--fail-if", "random:iops<-10%")
        self.assertEqual((r.returncode, out["gate"]["checks"][0]["noise"]), (2, "lower"))
        r, out, _ = self.random_row(a, overlap, "--fail-if", "random:iops<-10%")
        c = out["gate"]["checks"][0]
        self.assertEqual((r.returncode, c["verdict"], c["noise"]), (0, "ok", "within noise"))
        # The p99 has no interval of one run: judged on the single figures,
        # a crossed threshold fails.
        r, out, _ = self.random_row(a, overlap, "--fail-if", "random:p99>+1000%")
        self.assertEqual(out["gate"]["checks"][0]["noise"], "no estimate")
        r, out, _ = self.random_row(a, overlap, "--fail-if", "random:p99<+1000%")
        c = out["gate"]["checks"][0]
        self.assertEqual((r.returncode, c["verdict"], c["noise"]), (2, "FAILED", "no estimate"))

    def test_damaged_repeats_give_no_verdict_and_no_traceback(self):
        a = self.doc("dmg-a.json", 1.0, (0.95, 1.05))
        for i, bad in enumerate(("x", None, [], {"iops": "fast"}, {"n": 5, "iops": {"n": "x"}})):
            b = self.doc(f"dmg-b{i}.json", 0.7, (0.65, 0.75))
            doc = load(b)
            for p in doc["iterations"][0]["phases"]:
                if p["phase"] == "random":
                    p["repeats"] = bad
            with open(b, "w") as f:
                json.dump(doc, f)
            r = run(a, b, "--fail-if", "random:iops<-10%")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertNotIn("Traceback", r.stderr)
            self.assertIn("vs A: one repeat (B has no --repeat estimates)", r.stdout)
        b = self.doc("dmg-inf.json", 0.7, (0.65, 0.75))
        with open(b) as f:
            text = f.read().replace('"n": 5}', '"n": Infinity}', 1)
        with open(b, "w") as f:
            f.write(text)
        r = run(a, b)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_gate_on_a_metric_repeat_does_not_estimate(self):
        a = self.doc("gatep-a.json", 1.0, (0.95, 1.05))
        b = self.doc("gatep-b.json", 0.7, (0.6, 1.0))
        r, out, _ = self.random_row(a, b, "--fail-if", "random:p50>+1000%")
        self.assertEqual(out["gate"]["checks"][0]["noise"], "no estimate")


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
