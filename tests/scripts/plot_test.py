#!/usr/bin/env python3
"""scripts/plot on real result documents (data/sample-a.json, schema 1, one
iteration; data/sample-c.json, schema 2, five iterations), with a
synthetic time series and synthetic sweeps: every figure is a non-blank PNG of
FIG_SIZE x DPI pixels, the paths printed are the files written, and bad input
ends with one line and exit 1.  Skipped (77) when matplotlib is missing.

  python3 tests/scripts/plot_test.py [--scripts DIR] [--data DIR] [unittest args]
"""

import argparse
import copy
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--data", default=os.path.join(HERE, "data"))
OPTS, REST = ap.parse_known_args()
PLOT = os.path.join(OPTS.scripts, "plot")
SAMPLE_A = os.path.join(OPTS.data, "sample-a.json")
SAMPLE_C = os.path.join(OPTS.data, "sample-c.json")
# scripts/plot.py: FIG_SIZE (10, 6) inches at DPI 100.
WIDTH, HEIGHT = 1000, 600
# The interpreter scripts/plot runs.
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else shutil.which("python3")


def png_info(path):
    """(width, height, distinct byte values of the decompressed image data)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path}: not a PNG"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    assert size is not None, f"{path}: no IHDR chunk"
    return size[0], size[1], len(set(zlib.decompress(idat)))


def timeseries_lines():
    """Half-second records of two iterations of the four phases."""
    lines, t = [], 0.0
    for it in (1, 2):
        for phase, n in (("seq-write", 3), ("seq-read", 3), ("random", 8), ("reverify", 3)):
            for i in range(n):
                t += 0.5
                r = 0 if phase == "seq-write" else 20000 + 1000 * i
                w = 0 if phase in ("seq-read", "reverify") else 8000 + 500 * i
                lines.append(json.dumps({
                    "elapsed_s": t, "iteration": it, "phase": phase,
                    "read_bytes_per_sec": r * 4096, "write_bytes_per_sec": w * 4096,
                    "read_iops": r, "write_iops": w,
                    "p50_ns": 200000 + 10000 * i, "p99_ns": 1500000 + 100000 * i,
                    "max_ns": 9000000,
                    "mismatches": 1 if (it, phase, i) == (2, "random", 4) else 0}))
    # An interval without completions: no latency figures.
    lines.append(json.dumps({"elapsed_s": t + 0.5, "iteration": 2, "phase": "reverify",
                             "read_iops": 0, "write_iops": 0, "p50_ns": None, "p99_ns": None,
                             "max_ns": None, "mismatches": 0}))
    return "\n".join(lines) + "\n"


PHASES = ("seq-write", "seq-read", "random", "reverify")

SWEEP = [(1, 12000, 150000), (2, 23000, 160000), (4, 44000, 180000), (8, 80000, 230000),
         (16, 120000, 350000), (32, 140000, 700000), (64, 143000, 1500000)]


class PlotTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SAMPLE_A) as f:
            cls.doc = json.load(f)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="plot_test.")
        self.out = os.path.join(self.tmp, "figures")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, content):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def plot(self, *args):
        r = subprocess.run([PLOT, *args, "-o", self.out], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()

    def assert_figures(self, printed, stem, kinds):
        expected = [os.path.join(self.out, f"{stem}-{k}.png") for k in kinds]
        self.assertEqual(printed, expected)
        self.assertEqual(sorted(os.listdir(self.out)),
                         sorted(os.path.basename(p) for p in expected))
        for path in expected:
            with self.subTest(figure=os.path.basename(path)):
                self.assertGreater(os.path.getsize(path), 5000)
                w, h, distinct = png_info(path)
                self.assertEqual((w, h), (WIDTH, HEIGHT))
                self.assertGreater(distinct, 16, "a blank image")

    def test_result_and_time_series(self):
        ts = self.write("run.ndjson", timeseries_lines())
        printed = self.plot(SAMPLE_A, ts)
        self.assert_figures(printed, "sample-a", ["bandwidth", "latency", "timeseries"])

    def test_result_alone(self):
        self.assert_figures(self.plot(SAMPLE_A), "sample-a", ["bandwidth", "latency"])

    def test_iterations_draw_their_trend(self):
        self.assert_figures(self.plot(SAMPLE_C), "sample-c", ["bandwidth", "latency", "trend"])

    def test_many_iterations(self):
        """100 iterations (copies of sample-c's, one interrupted): one bar per
        phase for the run, the trend under its running median; and a time
        series of 100 iterations' phases (no phase marks)."""
        with open(SAMPLE_C) as f:
            doc = json.load(f)
        its = []
        for i in range(100):
            it = copy.deepcopy(doc["iterations"][i % 5])
            it["index"] = i + 1
            its.append(it)
        its[-1]["phases"][-1]["interrupted"] = True
        doc["iterations"] = its
        del doc["iteration_detail"]
        lines = []
        for i in range(400):
            lines.append(json.dumps({"elapsed_s": 0.5 * (i + 1), "iteration": i // 4 + 1,
                                     "phase": PHASES[i % 4], "read_iops": 1000 + i,
                                     "write_iops": 500, "p50_ns": 100000, "p99_ns": 900000,
                                     "max_ns": 2000000, "mismatches": 0}))
        ts = self.write("long.ndjson", "\n".join(lines) + "\n")
        printed = self.plot(self.write("long.json", doc), ts)
        self.assert_figures(printed, "long", ["bandwidth", "latency", "trend", "timeseries"])

    def test_sweep_with_p99_per_point(self):
        doc = copy.deepcopy(self.doc)
        doc["sweep"] = {"parameter": "qd", "knee": {"value": 32},
                        "points": [{"value": v, "iops": i, "p99_ns": p} for v, i, p in SWEEP]}
        printed = self.plot(self.write("swept.json", doc))
        self.assert_figures(printed, "swept", ["bandwidth", "latency", "sweep"])

    def test_sweep_with_latency_per_point_and_no_knee(self):
        # Points shaped like phases (the binary's own --sweep output).
        doc = copy.deepcopy(self.doc)
        random = next(p for p in doc["iterations"][0]["phases"] if p["phase"] == "random")
        points = []
        for v, i, _ in SWEEP[:4]:
            pt = copy.deepcopy(random)
            pt["value"], pt["iops"] = v * 4096, i
            points.append(pt)
        doc["sweep"] = {"parameter": "rand-block", "knee": None, "points": points}
        printed = self.plot(self.write("blocks.json", doc))
        self.assert_figures(printed, "blocks", ["bandwidth", "latency", "sweep"])

    def assert_bad_input(self, *args, message):
        r = subprocess.run([PLOT, *args, "-o", self.out], capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn(message, r.stderr)

    def test_bad_input_is_one_line_and_exit_1(self):
        self.assert_bad_input(os.path.join(self.tmp, "missing.json"), message="no such file")
        self.assert_bad_input(self.write("other.json", {"a": 1}),
                              message="not a drivestress result document")
        self.assert_bad_input(SAMPLE_A, self.write("bad.ndjson", '{"elapsed_s": 1}\nnot json\n'),
                              message="bad.ndjson:2: not JSON")
        self.assert_bad_input(SAMPLE_A, self.write("nots.ndjson", '{"phase": "random"}\n'),
                              message="no elapsed_s")
        self.assertFalse(os.path.exists(os.path.join(self.out, "sample-a-bandwidth.png")))


if __name__ == "__main__":
    if PYTHON is None or subprocess.run([PYTHON, "-c", "import matplotlib"],
                                        capture_output=True).returncode != 0:
        print("SKIP: matplotlib is missing (apt-get install -y python3-matplotlib)")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
