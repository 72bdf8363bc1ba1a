#!/usr/bin/env python3
"""scripts/plot on real result documents (data/sample-a.json, schema 1, one
iteration; data/sample-c.json, schema 2, five iterations), with synthetic
time series, sweeps and presets: every figure is a non-blank PNG of
its stated size, the paths printed are the files written, and bad input ends
with one line and exit 1.  Then what the figures say, from the figure objects
plot.py builds: time-series steps over each interval's own span from each
phase's true start, a partial last interval merged instead of spiking,
mismatch marks where the count rose, latency curves per operation type cut
where their samples stop supporting the percentile, log axes with several
labelled ticks in units, every test of a preset, sweeps of block sizes by
bandwidth.  Skipped (77) when matplotlib is missing.

  python3 tests/scripts/plot_test.py [--scripts DIR] [--data DIR] [unittest args]
"""

import argparse
import copy
import json
import math
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
MIB = 1024 * 1024
# scripts/plot.py: FIG_SIZE (10, 6) inches at DPI 100; the time series is
# TIMESERIES_SIZE (10, 8).
WIDTH, HEIGHT = 1000, 600
SIZES = {"timeseries": (1000, 800)}
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
                kind = os.path.basename(path)[len(stem) + 1:-4]
                self.assertEqual((w, h), SIZES.get(kind, (WIDTH, HEIGHT)))
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
        self.assert_figures(printed, "blocks", ["bandwidth", "latency", "sweep", "sweep-latency"])

    def test_preset_document(self):
        doc = copy.deepcopy(self.doc)
        doc["preset"] = {"name": "desktop", "tests": [
            {"label": label, "read_bandwidth_bytes_per_sec": 1e8,
             "write_bandwidth_bytes_per_sec": 0,
             "read_iops": 100, "write_iops": 0, "p99_ns": 2000000, "mismatch_total": 0,
             "exit_code": 0} for label in ("SEQ1M Q8T1", "RND4K Q32T1 read")]}
        printed = self.plot(self.write("preset.json", doc))
        self.assert_figures(printed, "preset", ["preset", "bandwidth", "latency"])

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


def record(t, span, phase, read_ops, write_ops=0, iteration=1, mismatches=0, p99=2e6,
           sweep=None):
    """A time-series line ending at t after `span` seconds."""
    rec = {"elapsed_s": t, "interval_s": span, "iteration": iteration, "phase": phase,
           "read_ops": read_ops, "write_ops": write_ops, "read_bytes": read_ops * 4096,
           "write_bytes": write_ops * 4096, "read_iops": read_ops / span,
           "write_iops": write_ops / span, "read_bytes_per_sec": read_ops * 4096 / span,
           "write_bytes_per_sec": write_ops * 4096 / span, "p50_ns": 200000,
           "p99_ns": p99, "max_ns": 9000000, "mismatches": mismatches}
    if sweep:
        rec["sweep_value"] = sweep
    return rec


class Figures(unittest.TestCase):
    """What the figures show, read back from the matplotlib objects plot.py
    builds (its save() is replaced to keep them)."""

    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, OPTS.scripts)
        import plot  # noqa: E402  (needs matplotlib: checked in __main__)
        cls.plot = plot
        with open(SAMPLE_A) as f:
            cls.doc = json.load(f)

    def setUp(self):
        self.figs = []
        self.saved = self.plot.save
        self.plot.save = lambda fig, path: self.figs.append(fig)

    def tearDown(self):
        self.plot.save = self.saved
        import matplotlib.pyplot as plt
        plt.close("all")

    def timeseries(self, records, sweep_param=None):
        self.plot.plot_timeseries(records, "t", "unused.png", sweep_param)
        return [a for a in self.figs[-1].axes if a.get_ylabel()]  # bw, iops, latency

    def test_a_partial_last_interval_is_merged_not_a_spike(self):
        # Three whole seconds at 20k IOPS, then 65 operations in 0.5 ms
        # (130k IOPS if taken as a rate).
        recs = [record(0.2, 0.2, "seq-write", 0, 200)]
        recs += [record(0.2 + i, 1.0, "random", 20000) for i in (1, 2, 3)]
        recs.append(record(3.2005, 0.0005, "random", 65))
        segs = self.plot.segments(recs)
        self.assertEqual([k[1] for k, _ in segs], ["seq-write", "random"])
        ivs, merged = self.plot.fold_partial(segs[1][1], 1.0)
        self.assertEqual(merged, 1)
        self.assertEqual(len(ivs), 3)
        self.assertAlmostEqual(ivs[-1]["end"], 3.2005)
        self.assertEqual(sum(iv["read_ops"] for iv in ivs), 60065)  # nothing lost
        _, iops, _ = self.timeseries(recs)
        self.assertLess(iops.get_ylim()[1], 30000)
        # A phase of one short interval is the whole phase: drawn as it is.
        self.assertEqual(self.plot.fold_partial(segs[0][1], 1.0)[1], 0)

    def test_steps_span_each_interval_from_the_phase_true_start(self):
        recs = [record(0.3, 0.3, "seq-write", 0, 300), record(0.5, 0.2, "seq-read", 200),
                record(1.5, 1.0, "random", 1000), record(2.5, 1.0, "random", 3000),
                record(2.9, 0.4, "random", 800)]
        segs = self.plot.segments(recs)
        starts = [(k[1], ivs[0]["start"]) for k, ivs in segs]
        self.assertEqual([(p, round(t, 6)) for p, t in starts],
                         [("seq-write", 0.0), ("seq-read", 0.3), ("random", 0.5)])
        bw, iops, _ = self.timeseries(recs)
        # One step artist per phase and series, edges at the interval bounds.
        total = [a for a in iops.patches if type(a).__name__ == "StepPatch"
                 and a.get_edgecolor()[:3] == matplotlib_color("black")]
        edges = sorted({round(float(e), 6) for a in total for e in a.get_data().edges})
        self.assertEqual(edges, [0.0, 0.3, 0.5, 1.5, 2.5, 2.9])
        values = [round(float(v)) for a in total for v in a.get_data().values]
        self.assertEqual(sorted(values), sorted([1000, 1000, 1000, 3000, 2000]))
        # Phases shaded (axvspan: polygons) from their true start.
        shaded = sorted({round(float(min(p.get_xy()[:, 0])), 6) for p in bw.patches
                         if type(p).__name__ == "Polygon"})
        self.assertEqual(shaded, [0.0, 0.3, 0.5])

    def test_mismatches_are_marked_where_the_count_rose(self):
        recs = [record(1.0 * i, 1.0, "random", 1000, mismatches=m)
                for i, m in enumerate((0, 1, 1, 3, 3), 1)]
        _, iops, _ = self.timeseries(recs)
        marks = [c for c in iops.collections if c.get_label() == "new mismatches"]
        self.assertEqual(len(marks), 1)
        xs = sorted(round(float(x), 3) for x, _ in marks[0].get_offsets())
        self.assertEqual(xs, [1.5, 3.5])

    def test_sweep_points_are_marked_on_the_time_series(self):
        recs = [record(1.0 + i, 1.0, "random", 1000, sweep=v) for i, v in enumerate((1, 2, 4))]
        bw, _, _ = self.timeseries(recs, "qd")
        names = [t.get_text() for t in bw.texts]
        self.assertEqual(names, ["qd 1", "qd 2", "qd 4"])

    def test_latency_needs_the_operations_to_support_it(self):
        # 500 operations: p50 yes, p99 no (it needs 1,000).
        recs = [record(1.0, 1.0, "random", 500, p99=7e6), record(2.0, 1.0, "random", 5000)]
        _, _, lat = self.timeseries(recs)
        p99 = [a for a in lat.patches if type(a).__name__ == "StepPatch"
               and a.get_edgecolor()[:3] == matplotlib_color("tab:red")]
        self.assertEqual(len(p99), 1)
        values = p99[0].get_data().values
        self.assertTrue(math.isnan(values[0]))
        self.assertAlmostEqual(values[1], 2.0)

    def latency_lines(self, doc):
        self.plot.plot_latency(doc, "t", "unused.png", "doc")
        ax = self.figs[-1].axes[0]
        return ax, {l.get_label(): l for l in ax.get_lines() if not l.get_label().startswith("_")}

    def test_latency_curves_per_operation_cut_where_samples_stop(self):
        doc = copy.deepcopy(self.doc)
        random = next(p for p in doc["iterations"][0]["phases"] if p["phase"] == "random")
        random["flush_latency"] = copy.deepcopy(random["write_latency"])
        ax, lines = self.latency_lines(doc)
        names = {label.split(" (")[0] for label in lines}
        self.assertEqual(names, {"seq-write writes", "seq-read reads", "random reads",
                                 "random writes", "random flushes", "reverify reads"})
        for label, line in lines.items():
            count = int(label.split("(")[1].split(" ")[0].replace(",", ""))
            top = 100 * (1 - 10 / count)  # 10 samples beyond the last percentile drawn
            with self.subTest(curve=label):
                self.assertAlmostEqual(max(line.get_xdata()), min(5, -math.log10(1 - top / 100)))
        # The y axis: several labelled ticks within the data, each with a unit.
        lo, hi = ax.get_ylim()
        shown = [t.get_text() for t, v in zip(ax.get_yticklabels(), ax.get_yticks())
                 if lo <= v <= hi and t.get_text()]
        self.assertGreaterEqual(len(shown), 2, shown)
        for text in shown:
            self.assertRegex(text, r"^[\d.]+ (ns|µs|ms|s)$")

    def test_log_axes_label_several_ticks_in_units_at_any_span(self):
        import matplotlib.pyplot as plt
        for lo, hi in ((12.0, 15.0), (0.4, 9.0), (0.02, 30.0), (0.001, 2000.0)):
            fig, ax = plt.subplots()
            ax.plot([0, 1], [lo, hi])
            self.plot.latency_axis(ax, [lo, hi])
            fig.canvas.draw()
            ymin, ymax = ax.get_ylim()
            shown = [t.get_text() for t, v in zip(ax.get_yticklabels(), ax.get_yticks())
                     if ymin <= v <= ymax and t.get_text()]
            with self.subTest(span=(lo, hi)):
                self.assertGreaterEqual(len(shown), 2, shown)
                self.assertLessEqual(len(shown), 9, shown)
                for text in shown:
                    self.assertRegex(text, r"^[\d.]+ (ns|µs|ms|s)$")
            plt.close(fig)

    def test_too_few_samples_draw_no_curve_and_say_so(self):
        doc = copy.deepcopy(self.doc)
        for p in doc["iterations"][0]["phases"]:
            if p["phase"] == "seq-write":
                h = p["write_latency"]
                h["histogram"]["buckets"] = h["histogram"]["buckets"][:1]
                h["histogram"]["buckets"][0][1] = 5
                h["count"] = 5
        _, lines = self.latency_lines(doc)
        self.assertFalse(any(l.startswith("seq-write") for l in lines))
        note = " ".join(t.get_text() for t in self.figs[-1].texts)
        self.assertIn("seq-write writes (5)", note)

    def test_preset_plots_every_test(self):
        labels = ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1 read", "RND4K Q32T1 write"]
        preset = {"name": "desktop", "tests": [
            {"label": l, "read_bandwidth_bytes_per_sec": 100 * MIB * (i + 1),
             "write_bandwidth_bytes_per_sec": 50 * MIB, "read_iops": 100, "write_iops": 50,
             "p99_ns": 1000000 * (i + 1), "mismatch_total": 0, "exit_code": 0}
            for i, l in enumerate(labels)]}
        self.plot.plot_preset(preset, "t", "unused.png")
        ax = self.figs[-1].axes[0]
        self.assertEqual([t.get_text() for t in ax.get_xticklabels()], labels)
        heights = [round(r.get_height() / 1) for r in ax.patches][:len(labels)]
        self.assertEqual(heights, [100, 200, 300, 400])

    def test_rate_sweep_curve_is_response_and_service_against_achieved_iops(self):
        def point(requested, achieved, resp_ms, service_ms):
            pct = {"p50": resp_ms[0] * 1e6, "p99": resp_ms[1] * 1e6, "p99.9": resp_ms[2] * 1e6}
            return {"value": requested, "iops": achieved,
                    "latency": {"percentiles_ns": {"p99": service_ms * 1e6}},
                    "rate": {"requested_iops": requested, "achieved_iops": achieved,
                             "response_latency": {"percentiles_ns": pct}}}
        points = [point(100, 100, (1, 2, 3), 2), point(200, 199, (1, 2.5, 4), 2.2),
                  point(400, 310, (300, 600, 650), 5)]
        doc = {"sweep": {"parameter": "rate", "points": points,
                         "turn_up": {"index": 2, "value": 400, "requested_iops": 400,
                                     "achieved_iops": 310, "rate_met": False,
                                     "response_p99_ns": 600e6}}}
        self.assertTrue(self.plot.plot_rate_curve(doc, "t", "unused.png"))
        ax = self.figs[-1].axes[0]
        lines = {l.get_label(): l for l in ax.get_lines() if not l.get_label().startswith("_")}
        self.assertEqual(list(lines["response p99"].get_xdata()), [100, 199, 310])
        self.assertEqual(list(lines["response p99"].get_ydata()), [2, 2.5, 600])
        self.assertEqual(list(lines["service p99"].get_ydata()), [2, 2.2, 5])
        self.assertEqual(lines["service p99"].get_linestyle(), "--")
        self.assertEqual(ax.get_yscale(), "log")
        notes = [t.get_text() for t in ax.texts]
        self.assertIn("turn-up found by the run: 400 IOPS requested (rate not met)", notes)
        # Another sweep draws no rate curve.
        self.assertFalse(self.plot.plot_rate_curve({"sweep": {"parameter": "qd", "points": []}},
                                                   "t", "unused.png"))
        # --find-rate's probes, in the order probed, are drawn as one curve
        # by achieved IOPS, with the bound and the rate found marked.
        probes = [point(1000, 1000, (10, 100, 120), 90), point(500, 500, (0.2, 3, 4), 1.6),
                  point(750, 750, (0.2, 1.2, 3), 0.3)]
        doc = {"sweep": {"parameter": "rate", "points": probes, "turn_up": None},
               "find_rate": {"percentile": 99, "bound_ns": 5e6, "found_iops": 750}}
        self.assertTrue(self.plot.plot_rate_curve(doc, "t", "unused.png"))
        ax = self.figs[-1].axes[0]
        lines = {l.get_label(): l for l in ax.get_lines() if not l.get_label().startswith("_")}
        self.assertEqual(list(lines["response p99"].get_xdata()), [500, 750, 1000])
        self.assertEqual(list(lines["response p99"].get_ydata()), [3, 1.2, 100])
        notes = [t.get_text() for t in ax.texts]
        self.assertIn("find-rate: 750 IOPS meets p99 <= 5 ms", notes)
        self.assertIn("--find-rate", ax.get_title())

    def test_block_size_sweeps_are_drawn_by_bandwidth(self):
        points = [{"value": v * 1024, "iops": 1000 * 64 // v, "bandwidth_bytes_per_sec": None,
                   "p99_ns": 1e6, "p99_supported": True} for v in (4, 16, 64)]
        for pt in points:
            pt["bandwidth_bytes_per_sec"] = pt["iops"] * pt["value"]
        self.plot.plot_sweep(("rand-block", points, None), "t", "unused.png")
        self.assertEqual(self.figs[-1].axes[0].get_ylabel(), "bandwidth (MiB/s)")
        notes = [t.get_text() for t in self.figs[-1].axes[0].texts]
        self.assertIn("no saturation point (by MiB/s): still climbing at the last point", notes)
        self.plot.plot_sweep(("qd", [dict(p, value=v) for p, v in zip(points, (1, 4, 16))],
                              4), "t", "unused.png")
        self.assertEqual(self.figs[-1].axes[0].get_ylabel(), "IOPS (operations/s)")
        notes = [t.get_text() for t in self.figs[-1].axes[0].texts]
        self.assertTrue(any(n.startswith("saturation point found by the run (by IOPS): ")
                            for n in notes), notes)

    def compared_document(self, crossover_qd):
        """sample-a with a --compare-backends --sweep qd=1..128: sync ahead
        at low depth, io_uring from qd 8."""
        doc = copy.deepcopy(self.doc)
        qds = [1, 2, 4, 8, 16, 32, 64, 128]
        uring = [10000, 19000, 36000, 70000, 120000, 150000, 160000, 161000]
        sync = [12000, 21000, 38000, 52000, 60000, 62000, 62500, 63000]

        def phase(iops, p99_ms):
            return {"phase": "random", "in_flight": 1, "ops": 1000, "iops": iops,
                    "bandwidth_bytes_per_sec": iops * 4096, "p50_ns": 100000,
                    "p99_ns": int(p99_ms * 1e6), "p99_9_ns": int(p99_ms * 2e6),
                    "cpu_user_ns_per_op": 1000, "cpu_system_ns_per_op": 5000,
                    "context_switches_per_op": 0.5, "system_calls_per_op": 1}
        doc["sweep"] = {"parameter": "qd", "knee": {"value": 128},
                        "points": [{"value": q, "iops": u, "p99_ns": int(0.1e6 * q)}
                                   for q, u in zip(qds, uring)]}
        doc["compare_backends"] = {"sweep": {
            "points": [{"qd": q, "io_uring": phase(u, 0.1 * q), "sync": phase(s, 0.2 * q),
                        "iops_ratio": u / s} for q, u, s in zip(qds, uring, sync)],
            "margin_pct": 5, "crossover_qd": crossover_qd, "crossover": "words",
            "crossover_verdict": "named" if crossover_qd else "never"}}
        return doc, qds, uring, sync

    def sweep_figure(self, doc):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "compared.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        before = len(self.figs)
        self.assertEqual(self.plot.main([path, "-o", tmp]), 0)
        figs = [f for f in self.figs[before:]
                if f.axes and f.axes[0].get_title().startswith("Random phase over qd")]
        self.assertEqual(len(figs), 1)
        return figs[0]

    def test_compared_sweep_draws_both_backends_and_the_crossover(self):
        doc, qds, uring, sync = self.compared_document(8)
        fig = self.sweep_figure(doc)
        iops, p99 = fig.axes[0], fig.axes[1]
        lines = {l.get_label(): l for l in iops.lines}
        self.assertEqual([float(y) for y in lines["io_uring IOPS (operations/s)"].get_ydata()],
                         uring)
        self.assertEqual([float(y) for y in lines["sync IOPS"].get_ydata()], sync)
        self.assertEqual([float(x) for x in lines["sync IOPS"].get_xdata()], qds)
        self.assertGreaterEqual(iops.get_ylim()[1], max(uring))
        p99_lines = {l.get_label(): l for l in p99.lines}
        self.assertEqual([round(float(y), 6) for y in p99_lines["sync p99 latency"].get_ydata()],
                         [round(0.2 * q, 6) for q in qds])
        self.assertIn("io_uring p99 latency", p99_lines)
        green = [l for l in iops.lines
                 if l.get_color() == "tab:green" and list(l.get_xdata()) == [8, 8]]
        self.assertEqual(len(green), 1, "one crossover line, at qd 8")
        notes = [t.get_text() for t in iops.texts]
        self.assertIn("crossover: io_uring pays from qd 8", notes)
        legend = [t.get_text() for t in iops.get_legend().get_texts()]
        self.assertIn("sync IOPS", legend)
        # No crossover: said, and no line drawn.
        doc, *_ = self.compared_document(None)
        fig = self.sweep_figure(doc)
        notes = [t.get_text() for t in fig.axes[0].texts]
        self.assertIn("no crossover: io_uring never leads sync by 5 % to the end", notes)

    def test_sweep_notes_are_inside_the_figure(self):
        """The saturation note at the last depth (qd 128) reads leftwards:
        every note lies wholly inside its plot area (not over the p99 axis'
        labels, not past the image's edge)."""
        doc, *_ = self.compared_document(64)
        fig = self.sweep_figure(doc)
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        texts = ax.texts
        self.assertTrue(any("qd 128" in t.get_text() for t in texts))
        for t in texts:
            ext = t.get_window_extent(renderer)
            self.assertGreaterEqual(ext.x0, ax.bbox.x0, t.get_text())
            self.assertLessEqual(ext.x1, ax.bbox.x1, t.get_text())


def matplotlib_color(name):
    from matplotlib.colors import to_rgb
    return to_rgb(name)


if __name__ == "__main__":
    if PYTHON is None or subprocess.run([PYTHON, "-c", "import matplotlib"],
                                        capture_output=True).returncode != 0:
        print("SKIP: matplotlib is missing (apt-get install -y python3-matplotlib)")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
