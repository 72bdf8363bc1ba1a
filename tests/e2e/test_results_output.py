#!/usr/bin/env python3
"""--timeseries, --prom and the live progress line, end to end."""

import json
import os
import pty
import re
import subprocess
import sys

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "output-{case}"}

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema",
                      "timeseries.schema.json")


def load_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class Timeseries(harness.DriveStressTest):
    backend = None

    def test_seconds_add_up_to_the_phase_totals(self):
        # Wall-clock lengths summed within 50 ms: once, in the plain build.
        # Under ASan on a loaded host it once saw a random phase of 2.52 s
        # with lines of 3.0 s (a fourth line, of length 0): the intervals'
        # code runs under the sanitizers in interval-sets-the-length-of-a-line.
        harness.plain_suite_only(self, "wall-clock sums within 50 ms: run in the plain build")
        ts = os.path.join(self.tmp, "ts.ndjson")
        r = self.drivestress("-s", "16M", "-j", "2", "--seq-block", "64K", "--rand-time", "2.5",
                             "--timeseries", ts)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        lines = load_lines(ts)
        for it, phase in harness.phases_of(doc):
            mine = [l for l in lines if l["iteration"] == it and l["phase"] == phase["phase"]]
            self.assertTrue(mine, phase["phase"])
            self.assertEqual([l["second"] for l in mine], list(range(len(mine))), "no second skipped")
            for key in ("read_bytes", "write_bytes", "read_ops", "write_ops"):
                self.assertEqual(sum(l[key] for l in mine), phase[key], (phase["phase"], key))
            # Whole seconds but the last; their lengths add up to the phase's.
            self.assertTrue(all(l["interval_s"] == 1 for l in mine[:-1]))
            self.assertAlmostEqual(sum(l["interval_s"] for l in mine), phase["elapsed_s"], delta=0.05)
            for l in mine:
                if l["interval_s"]:
                    self.assertAlmostEqual(l["read_bytes_per_sec"], l["read_bytes"] / l["interval_s"])
                if l["read_ops"] + l["write_ops"]:
                    self.assertLessEqual(l["p50_ns"], l["p99_ns"])
                    self.assertLessEqual(l["p99_ns"], l["max_ns"])
        random_lines = [l for l in lines if l["phase"] == "random"]
        self.assertGreaterEqual(len(random_lines), 3)  # 2.5 s: seconds 0, 1 and a partial 2
        elapsed = [l["elapsed_s"] for l in lines]
        self.assertEqual(elapsed, sorted(elapsed))
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: lines not validated against the schema")
        with open(SCHEMA) as f:
            schema = json.load(f)
        for l in lines:
            jsonschema.validate(l, schema)

    def test_interval_sets_the_length_of_a_line(self):
        ts = os.path.join(self.tmp, "ts.ndjson")
        r = self.drivestress("-s", "8M", "-j", "1", "--seq-block", "256K", "--rand-time", "1.1",
                             "--phases", "seq-write,random", "--interval", "250ms",
                             "--timeseries", ts)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        random = harness.merged_phases_of(doc)["random"]
        mine = [l for l in load_lines(ts) if l["phase"] == "random"]
        self.assertGreaterEqual(len(mine), 4)  # 1.1 s: four whole quarters and a partial one
        self.assertEqual([l["index"] for l in mine], list(range(len(mine))))
        self.assertEqual([l["second"] for l in mine], [int(i * 0.25) for i in range(len(mine))])
        self.assertTrue(all(l["interval_s"] == 0.25 for l in mine[:-1]))
        self.assertLessEqual(mine[-1]["interval_s"], 0.25)
        self.assertAlmostEqual(sum(l["interval_s"] for l in mine), random["elapsed_s"], delta=0.05)
        for key in ("read_ops", "write_ops", "read_bytes", "write_bytes"):
            self.assertEqual(sum(l[key] for l in mine), random[key], key)
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: lines not validated against the schema")
        with open(SCHEMA) as f:
            schema = json.load(f)
        for l in mine:
            jsonschema.validate(l, schema)

    def test_sweep_lines_carry_the_point(self):
        ts = os.path.join(self.tmp, "ts.ndjson")
        r = self.drivestress("-s", "8M", "-j", "1", "--seq-block", "256K", "--sweep", "qd=1,4",
                             "--rand-ops", "2000", "--timeseries", ts)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        lines = load_lines(ts)
        for point in doc["sweep"]["points"]:
            mine = [l for l in lines if l.get("sweep_value") == point["value"]]
            self.assertEqual(sum(l["read_ops"] + l["write_ops"] for l in mine), 2000)

    def test_preset_lines_name_their_test(self):
        """--preset: one stream, each line naming its test, each test's
        lines adding up to its totals."""
        ts = os.path.join(self.tmp, "ts.ndjson")
        r = self.drivestress("-s", "8M", "--rand-ops", "500", "--seq-time", "1", "--preset",
                             "desktop", "--timeseries", ts)
        self.assertExit(r, 0)
        lines = load_lines(ts)
        labels = [t["label"] for t in r.doc["preset"]["tests"]]
        self.assertEqual(len(labels), 6)
        seen = []
        for l in lines:
            if not seen or seen[-1] != l["test"]:
                seen.append(l["test"])
        self.assertEqual(seen, labels, "one stream, the tests in order")
        for t in r.doc["preset"]["tests"]:
            for p in t["merged_phases"]:
                mine = [l for l in lines if l["test"] == t["label"] and l["phase"] == p["phase"]]
                for key in ("read_ops", "write_ops", "read_bytes", "write_bytes"):
                    self.assertEqual(sum(l[key] for l in mine), p[key], (t["label"], key))
        elapsed = [l["elapsed_s"] for l in lines]
        self.assertEqual(elapsed, sorted(elapsed), "each test continues from the one before")
        # The one-test burn-in preset too (the long-run guide promises it).
        r = self.drivestress("-s", "8M", "--rand-time", "0.5", "--duration", "1", "--preset",
                             "burn-in", "--timeseries", ts)
        self.assertExit(r, 0)
        lines = load_lines(ts)
        self.assertTrue(lines)
        self.assertEqual({l["test"] for l in lines}, {"burn-in"})
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: lines not validated against the schema")
        with open(SCHEMA) as f:
            schema = json.load(f)
        for l in lines:
            jsonschema.validate(l, schema)

    def test_mismatches_are_cumulative(self):
        ts = os.path.join(self.tmp, "ts.ndjson")
        run = self.start("-s", "8M", "-j", "1", "--seq-block", "256K", "--rand-time", "0",
                         "--timeseries", ts, stop="seq-read")
        run.wait_stopped()
        harness.write_block(self.data_file(0), 4096, bytes(4096))  # one zeroed unit
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        lines = load_lines(ts)
        counts = [l["mismatches"] for l in lines]
        self.assertEqual(counts, sorted(counts))
        self.assertEqual(counts[-1], r.doc["summary"]["mismatch_total"])


class Prometheus(harness.DriveStressTest):
    backend = None

    def test_textfile_is_written_with_the_run_figures(self):
        prom = os.path.join(self.tmp, "drivestress.prom")
        r = self.drivestress("-s", "8M", "-j", "1", "--seq-block", "256K", "--rand-ops", "2000",
                             "--prom", prom)
        self.assertExit(r, 0)
        with open(prom) as f:
            text = f.read()
        sample = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? -?[0-9.e+-]+$')
        for line in text.splitlines():
            if line.startswith("#"):
                self.assertRegex(line, r"^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$")
            else:
                self.assertRegex(line, sample)
        self.assertIn('drivestress_exit_status{', text)
        random_phase = harness.merged_phases_of(r.doc)["random"]  # one iteration
        for op in ("read", "write"):
            ops = [l for l in text.splitlines()
                   if l.startswith("drivestress_ops_total{") and 'phase="random"' in l
                   and f'op="{op}"' in l]
            self.assertEqual(len(ops), 1, op)
            self.assertEqual(int(ops[0].split()[-1]), random_phase[f"{op}_ops"], op)
        self.assertEqual([n for n in os.listdir(self.tmp) if ".tmp." in n], [])

    def test_verdict_of_a_run_that_verified_nothing(self):
        """The textfile's verdict is the result line's: a run that verified
        nothing is no-verdict, never passed (issue 22)."""
        prom = os.path.join(self.tmp, "drivestress.prom")
        r = self.drivestress("-s", "8M", "-j", "1", "--duration", "1us", "--prom", prom)
        self.assertExit(r, 0)
        self.assertIn("NO VERDICT", r.stdout)
        with open(prom) as f:
            on = [l for l in f.read().splitlines()
                  if l.startswith("drivestress_verdict{") and l.endswith(" 1")]
        self.assertEqual(len(on), 1, on)
        self.assertIn('verdict="no-verdict"', on[0])


class HostLoad(harness.DriveStressTest):
    """Every phase records what else the host did (issue 23 item 2)."""
    backend = None

    def test_a_cpu_hog_is_reported_and_warned_about(self):
        """One busy process per CPU, owned and killed by the test: the run's
        phases report the foreign load in the JSON, and the text report warns
        that the figures may not repeat."""
        hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(os.cpu_count() or 1)]
        try:
            r = self.drivestress("-s", "8M", "-j", "1", "--rand-time", "2")
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        self.assertExit(r, 0)
        rnd = harness.merged_phases_of(r.doc)["random"]["host_load"]
        self.assertGreater(rnd["cpu_s"], 0)
        self.assertGreaterEqual(rnd["foreign_pct"], 20, rnd)
        self.assertTrue(rnd["busy"], rnd)
        # The hogs are named: their pids are among the top foreign processes.
        pids = {h.pid for h in hogs}
        self.assertTrue(pids & {f["pid"] for f in rnd["top_foreign"]}, rnd)
        m = re.search(r"(?m)^  host busy: \d+ % steal, \d+ % other processes during random "
                      r"\(top: (.*)\); figures may not repeat$", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        named = [int(x) for x in re.findall(r"pid (\d+) \d+ % of a core", m.group(1))]
        self.assertTrue(pids & set(named), m.group(0))

    def test_every_phase_carries_its_host_load(self):
        """Without a hog the shares are whatever the machine did (the suite
        runs tests side by side, so no figure is asserted): each phase has
        them, within 0..100 %, and a warning line exactly when busy and long
        enough to measure."""
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "2000")
        self.assertExit(r, 0)
        for name, p in harness.merged_phases_of(r.doc).items():
            load = p["host_load"]
            for key in ("steal_pct", "foreign_pct"):
                self.assertTrue(0 <= load[key] <= 100, (name, load))
            self.assertEqual(load["busy"], load["steal_pct"] >= 5 or load["foreign_pct"] >= 20)
            # Warned of only where there is a figure to spoil: a phase too
            # short to measure has none (its share is a few clock ticks).
            self.assertEqual(load["busy"] and not p["too_short"],
                             re.search(f"other processes during {name}[ ;]", r.stdout) is not None,
                             name)
            # The kernel threads' CPU is the I/O path's, a figure of its own.
            self.assertGreaterEqual(p["kernel_io_threads_cpu_s"], 0, name)
            self.assertLessEqual(p["kernel_io_threads_cpu_s"], load["cpu_s"], name)
        self.assertRegex(r.stdout, r"(?m)^  random .* kernel I/O threads \d+ % of a core")


class Progress(harness.DriveStressTest):
    backend = None

    def run_with_stderr(self, stderr_is_tty, *extra, columns=200):
        argv = [harness.DRIVESTRESS, "-s", "8M", "-j", "1", "--seq-block", "64K", "--qd", "1",
                "--rand-time", "2.5", *extra, self.target]
        if stderr_is_tty:
            master, slave = pty.openpty()
            import fcntl
            import struct
            import termios
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
            # stdout to a file: a pipe could fill while we drain the terminal.
            out_file = open(os.path.join(self.tmp, "stdout"), "w+b")
            proc = subprocess.Popen(argv, stdout=out_file, stderr=slave)
            os.close(slave)
            chunks = []
            while True:
                try:
                    data = os.read(master, 4096)
                except OSError:
                    break
                if not data:
                    break
                chunks.append(data)
            proc.wait()
            os.close(master)
            out_file.seek(0)
            out = out_file.read()
            out_file.close()
            return proc.returncode, out.decode(), b"".join(chunks).decode(errors="replace")
        proc = subprocess.run(argv, capture_output=True, text=True)
        return proc.returncode, proc.stdout, proc.stderr

    def test_status_line_only_on_a_terminal(self):
        code, out, err = self.run_with_stderr(True)
        self.assertEqual(code, 0)
        self.assertIn("[iteration 1] random", err)
        self.assertIn("IOPS", err)
        self.assertIn("mismatches 0", err)
        self.assertRegex(err, r"p99 [0-9.]+ ms")  # of the last whole second
        # The last second's rate beside the phase's average.
        self.assertRegex(err, r"last 1 s: [0-9.]+k? IOPS  [0-9.]+ MiB/s")
        self.assertRegex(err, r"\(avg [0-9.]+k? IOPS\)")
        self.assertNotIn("[iteration", out)
        code, out, err = self.run_with_stderr(False)
        self.assertEqual(code, 0)
        self.assertNotIn("[iteration", err + out)
        self.assertNotIn("\r", err + out)

    def test_status_line_fits_an_80_column_terminal(self):
        """Each refresh of the status line fits 79 columns of an 80-column
        terminal (a full line would wrap and leave lines behind): the
        average goes first, the phase, its progress and the last second's
        rate stay."""
        harness.plain_suite_only(self)  # the line is drawn under ASan by the case above
        code, out, err = self.run_with_stderr(True, columns=80)
        self.assertEqual(code, 0)
        shown = [s.split("\033[K", 1)[1] for s in err.split("\r") if "\033[K[iteration" in s]
        self.assertTrue(shown, err)
        for s in shown:
            line = s.split("\n")[0]
            self.assertLessEqual(len(line), 79, line)
            self.assertRegex(line, r"^\[iteration 1\] \S+ +(\d+%  )?last 1 s: ")
        self.assertTrue(any("random" in s and "IOPS" in s for s in shown), shown)
        self.assertFalse(any("(avg" in s for s in shown if "random" in s), shown)
        # With room, every field is there.
        code, out, err = self.run_with_stderr(True, columns=200)
        self.assertIn("(avg ", err)

    def test_never_means_never_and_json_stdout_stays_clean(self):
        code, out, err = self.run_with_stderr(True, "--progress", "never")
        self.assertEqual(code, 0)
        self.assertNotIn("[iteration", err)
        code, out, err = self.run_with_stderr(True, "--json", "-")
        self.assertEqual(code, 0)
        json.loads(out)  # the document alone on stdout
        self.assertIn("[iteration 1]", err)


if __name__ == "__main__":
    harness.main()
