#!/usr/bin/env python3
"""What a person reads at the end of a run: the line to paste (figures),
--brief, the compact preset table, --no-verify's wording, the CPU note and
the page-cache warning of buffered runs."""

import json
import os
import re
import signal

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "reading-{case}"}


SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema",
                      "result.schema.json")


# One run's interval after a figure of the figures line, when it has one.
PLUS_MINUS = r"(?: \u00b1[\d.]+ %)?"


def line_starting(text, label):
    lines = [l for l in text.splitlines() if l.startswith(label)]
    if len(lines) != 1:
        raise AssertionError(f"expected one line starting {label!r}:\n{text}")
    return lines[0]


class Reading(harness.DriveStressTest):
    backend = "io_uring"

    def test_figures_line_quotes_the_document(self):
        # Phases long enough to quote: 256 sequential operations a pass,
        # each phase at least 1 s.
        r = self.drivestress("-s", "8M", "-j", "2", "--seq-block", "64K", "--seq-time", "1",
                             "--rand-time", "1")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        merged = harness.merged_phases_of(doc)
        for name, p in merged.items():
            self.assertFalse(p["too_short"], (name, p["too_short_reason"]))
        line = line_starting(r.stdout, "figures  ")
        # (Each figure with one run's interval, when it has one: " ±4.2 %".)
        pm = PLUS_MINUS
        m = re.fullmatch(r"figures  seq 64K: write ([\d.]+) MiB/s" + pm + r", read ([\d.]+) MiB/s" + pm +
                         r" \| random 4K, 70% reads, qd (\d+) x 2 workers: ([\d.]+)(k?) IOPS" + pm +
                         r", p99 ([\d.]+) ms \| io_uring, O_DIRECT, 2 x 8 MiB on \S+, verified", line)
        self.assertIsNotNone(m, line)
        self.assertEqual(float(m[1]),
                         round(merged["seq-write"]["write_bandwidth_bytes_per_sec"] / MiB, 1))
        self.assertEqual(float(m[2]),
                         round(merged["seq-read"]["read_bandwidth_bytes_per_sec"] / MiB, 1))
        self.assertEqual(int(m[3]), doc["backend"]["random_qd_per_worker"])
        iops = merged["random"]["iops"]
        self.assertEqual(m[4] + m[5], f"{iops / 1e3:.1f}k" if iops >= 1e3 else f"{iops:.0f}")
        self.assertEqual(float(m[6]), round(merged["random"]["latency"]["percentiles_ns"]["p99"] / 1e6, 3))
        # The paste line comes right before the verdict.
        lines = r.stdout.splitlines()
        self.assertEqual(lines[-2], line)
        self.assertEqual(lines[-1], "result   PASS (exit 0)")
        self.assertIn("cpu      usr/sys % are of one core", r.stdout)

    def test_brief_prints_only_the_result_block(self):
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "2000", "--brief")
        self.assertExit(r, 0)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        self.assertTrue(lines[0].startswith("figures  seq 1M: write "), lines[0])
        self.assertEqual(lines[1], "result   PASS (exit 0)")
        self.assertNoFilesLeft(r)

    def test_brief_sweep_keeps_the_saturation_line(self):
        r = self.drivestress("-s", "8M", "-j", "1", "--sweep", "qd=1,4", "--rand-ops", "2000",
                             "--brief")
        self.assertExit(r, 0)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 3, r.stdout)
        self.assertTrue(lines[0].startswith("saturation: by IOPS, "), lines[0])
        self.assertTrue(lines[1].startswith("figures  seq 1M: "), lines[1])
        self.assertEqual(lines[2], "result   PASS (exit 0)")

    def test_no_verify_says_not_verified(self):
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "2000", "--no-verify")
        self.assertExit(r, 0)
        self.assertNotIn("0 B verified", r.stdout)
        self.assertNotIn("mismatches 0", r.stdout)
        self.assertIn("not verified (--no-verify)", line_starting(r.stdout, "summary  "))
        self.assertEqual(r.stdout.splitlines()[-1],
                         "result   PASS, data not verified with --no-verify (exit 0)")
        self.assertTrue(line_starting(r.stdout, "figures  ").endswith(", NOT verified"))

    def test_buffered_random_reads_warn_of_the_page_cache(self):
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "2000", "--buffered")
        self.assertExit(r, 0)
        note = line_starting(r.stdout, "note     buffered: ")
        self.assertIn("page cache", note)
        self.assertIn("not the drive's", note)
        # Writes only: nothing to warn about.
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "2000", "--buffered",
                             "--read-pct", "0")
        self.assertExit(r, 0)
        self.assertNotIn("note     buffered: ", r.stdout)

    def test_preset_one_compact_table_and_every_test_in_full(self):
        r = self.drivestress("-s", "8M", "--rand-ops", "1000", "--seq-time", "1", "--preset",
                             "desktop")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(r.stdout.count("drivestress 0"), 1, "one header")
        self.assertNotIn("=== ", r.stdout)
        self.assertNotIn("iteration 1", r.stdout)
        table = r.stdout[r.stdout.index("\npreset desktop: "):].splitlines()[2:]
        self.assertIn("read", table[0])
        self.assertIn("write", table[0])
        self.assertEqual(table[1].split(), ["test", "MiB/s", "IOPS", "p99", "ms", "MiB/s", "IOPS",
                                            "p99", "ms", "result"])
        rows = {l[2:18].strip(): l[18:].split() for l in table[2:-1]}
        self.assertEqual(list(rows), ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"])
        tests = {t["label"]: t for t in doc["preset"]["tests"]}
        read, write = tests["RND4K Q32T1 read"], tests["RND4K Q32T1 write"]
        # A direction's cells quote the test, or say it was too short to
        # measure (1000 operations: as a rule under the 1 s a figure needs).
        row = next(l for l in table[2:-1] if l[2:18].strip() == "RND4K Q32T1")
        read_cells, write_cells = row[18:49].split(), row[49:80].split()
        for test, cells, key in ((read, read_cells, "read"), (write, write_cells, "write")):
            if test["too_short"]:
                self.assertEqual(cells[:2], ["too", "short:"], row)
                continue
            self.assertEqual(float(cells[0]), round(test[f"{key}_bandwidth_bytes_per_sec"] / MiB, 1))
            self.assertEqual(float(cells[2]), round(test[f"{key}_p99_ns"] / 1e6, 3))
        self.assertEqual(row[80:].split(), ["PASS"])
        self.assertEqual(table[-1], "result   PASS (exit 0)")
        # Every test keeps its full figures, not only the first.
        for t in doc["preset"]["tests"]:
            self.assertEqual(t["summary"]["exit_code"], 0)
            self.assertEqual(t["config"]["files"], 1)
            phases = [p["phase"] for p in t["merged_phases"]]
            self.assertEqual(phases[0], "seq-write")
            self.assertIn("histogram", t["merged_phases"][0]["latency"])
        self.assertEqual(tests["RND4K Q1T1 write"]["config"]["qd"], 1)
        self.assertEqual(tests["RND4K Q1T1 write"]["config"]["read_pct"], 0)
        rnd = [p for p in tests["RND4K Q1T1 write"]["merged_phases"] if p["phase"] == "random"][0]
        self.assertEqual(rnd["write_ops"], 1000)
        self.assertNoFilesLeft(r)
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: the document (all else checked) is not validated")
        with open(SCHEMA) as f:
            jsonschema.validate(doc, json.load(f))

    def test_burn_in_preset_reports_like_a_burn_in(self):
        """The burn-in preset shows what a plain burn-in shows: every
        iteration, the bytes verified and the drift table, then its row."""
        r = self.drivestress("-s", "8M", "--rand-time", "0.2", "--iterations", "3", "--preset",
                             "burn-in")
        self.assertExit(r, 0)
        for it in (1, 2, 3):
            self.assertIn("\niteration %d\n" % it, r.stdout)
        summary = line_starting(r.stdout, "summary  ")
        verified = r.doc["summary"]["verified_bytes"]
        self.assertGreater(verified, 0)
        self.assertIn(" verified in ", summary)
        self.assertIn("drift    3 iterations", r.stdout)
        self.assertIn("\npreset burn-in: ", r.stdout)
        self.assertEqual(r.stdout.count("result   "), 1, r.stdout)
        self.assertTrue(r.stdout.rstrip().endswith("result   PASS (exit 0)"), r.stdout)

    def test_wording_and_units_of_a_new_user_run(self):
        """Issue 27's wording: a block size always has a unit, tmpfs is named
        once, the default thresholds are the SSD ones, a sweep's figures
        line quotes its saturation point."""
        target_dir = self.shm_target()
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-block", "512", "--buffered",
                             "--seq-block", "64K", "--rand-ops", "2000", target=target_dir)
        self.assertExit(r, 0)
        figures = line_starting(r.stdout, "figures  ")
        self.assertIn("seq 64K: ", figures)
        self.assertIn("random 512 B, 70% reads", figures)
        s = self.drivestress("-s", "8M", "-j", "1", "--buffered", "--seq-block", "64K",
                             "--rand-ops", "2000", "--sweep", "qd=1,2,4", target=target_dir)
        self.assertExit(s, 0)
        self.assertRegex(line_starting(s.stdout, "figures  "),
                         r" \| saturation (at qd \d+: [\d.]+k? IOPS, p99 [\d.]+ ms"
                         r"|not reached by qd 4|within noise \(after qd \d+\)) \| ")
        target = line_starting(r.stdout, "target   ")
        self.assertIn("(tmpfs, in memory)", target)
        self.assertNotIn("tmpfs on tmpfs", target)
        thresholds = [t["threshold_ns"] for t in
                      harness.merged_phases_of(r.doc)["seq-write"]["latency_thresholds"]]
        self.assertEqual(thresholds, [1000000, 10000000, 100000000])

    def test_units_si_states_throughput_in_mb_per_s(self):
        """--units si: every throughput of the text report in MB/s (10^6
        bytes), as a spec sheet states it, equal to the JSON's bytes per
        second; sizes stay binary; a bad spelling is refused naming it."""
        r = self.drivestress("-s", "8M", "-j", "1", "--seq-time", "1", "--rand-ops", "500",
                             "--units", "si")
        self.assertExit(r, 0)
        self.assertNotIn("MiB/s", r.stdout)
        phases = harness.merged_phases_of(r.doc)
        for name in ("seq-write", "seq-read"):
            line = line_starting(r.stdout, f"  {name} ")
            m = re.match(rf"  {name}\s+([\d.]+) MB/s ", line)
            self.assertIsNotNone(m, line)
            self.assertAlmostEqual(float(m.group(1)),
                                   phases[name]["bandwidth_bytes_per_sec"] / 1e6, delta=0.051)
        figures = line_starting(r.stdout, "figures  ")
        self.assertRegex(figures, r"seq 1M: write [\d.]+ MB/s" + PLUS_MINUS + r", read [\d.]+ MB/s" +
                         PLUS_MINUS + r" \|")
        self.assertIn("1 x 8 MiB", figures)
        bad = self.drivestress("-s", "8M", "--units", "MB", json_out=False)
        self.assertExit(bad, 1)
        self.assertIn("--units: 'MB' is not one of iec, si", bad.stderr)

    def shm_target(self):
        import tempfile
        import shutil
        d = tempfile.mkdtemp(prefix="drivestress-e2e-newcomer-", dir="/dev/shm")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def test_preset_brief_is_the_table(self):
        r = self.drivestress("-s", "8M", "--rand-ops", "500", "--seq-time", "1", "--preset",
                             "nvme", "--brief",
                             json_out=False)
        self.assertExit(r, 0)
        lines = [l for l in r.stdout.splitlines() if l]
        self.assertTrue(lines[0].startswith("preset nvme: "), r.stdout)
        self.assertEqual(lines[-1], "result   PASS (exit 0)")
        self.assertEqual(len(lines), 1 + 2 + 2 + 1, r.stdout)  # title, 2 heads, 2 rows, result

    def test_preset_of_one_test_says_one_test(self):
        r = self.drivestress("-s", "8M", "--rand-ops", "500", "--preset", "quick", json_out=False)
        self.assertExit(r, 0)
        self.assertTrue(r.stdout.startswith("preset quick: 1 test\n"), r.stdout)
        r = self.drivestress("-s", "8M", "--rand-ops", "500", "--seq-time", "1", "--preset",
                             "nvme", json_out=False)
        self.assertExit(r, 0)
        self.assertRegex(r.stdout, r"^preset nvme: [2-9] tests\n")


SEQ_PHASES = ("seq-write", "seq-read", "reverify")
TOO_SHORT_REASON = r"\d+\.\d+ s, \d+ operations?"


@harness.meson_case(name="too-short-{case}")
class TooShort(harness.DriveStressTest):
    """A phase under 1 s or 200 operations is marked, and no figure of it
    quoted; --seq-time and the presets make sequential phases long enough."""

    backend = "io_uring"

    def assertMarkedAlike(self, doc, text):
        """Each phase's line is marked as its JSON object says."""
        merged = harness.merged_phases_of(doc)
        for name, p in merged.items():
            line = next(l for l in text.splitlines() if l.startswith(f"  {name} "))
            if p["too_short"]:
                self.assertRegex(p["too_short_reason"], "^" + TOO_SHORT_REASON + "$")
                self.assertIn(f"(too short to measure: {p['too_short_reason']}; ", line)
            else:
                self.assertIsNone(p["too_short_reason"])
                self.assertNotIn("too short", line)
        return merged

    def test_plain_run_on_32m_marks_its_sequential_phases(self):
        r = self.drivestress("-s", "32M", "-j", "2", "--rand-ops", "1000")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        merged = self.assertMarkedAlike(doc, r.stdout)
        for name in SEQ_PHASES:  # 32 operations of 1M per file: under 200 whatever the speed
            self.assertTrue(merged[name]["too_short"], name)
            self.assertRegex(merged[name]["too_short_reason"], r"^\d+\.\d+ s, 64 operations$")
        for _, p in harness.phases_of(doc):
            self.assertEqual(p.get("too_short", False), merged[p["phase"]]["too_short"])
        line = line_starting(r.stdout, "figures  ")
        self.assertRegex(line, r"^figures  seq 1M: write too short to measure \(" + TOO_SHORT_REASON +
                         r"\), read too short to measure \(" + TOO_SHORT_REASON + r"\) \| ")
        self.assertNotIn("MiB/s", line)  # no sequential figure quoted
        self.assertSchema(doc)

    def test_brief_quotes_no_figure_of_a_short_phase(self):
        r = self.drivestress("-s", "32M", "-j", "1", "--phases", "seq-write,seq-read", "--brief",
                             json_out=False)
        self.assertExit(r, 0)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        self.assertRegex(lines[0], r"^figures  seq 1M: write too short to measure \(" +
                         TOO_SHORT_REASON + r"\), read too short to measure \(")
        self.assertNotIn("MiB/s", lines[0])
        self.assertEqual(lines[1], "result   PASS (exit 0)")

    def test_seq_time_measures_every_sequential_phase_that_long(self):
        # 2 x 8M in 64K blocks: 256 operations a pass; at least 1 s each.
        r = self.drivestress("-s", "8M", "-j", "2", "--seq-block", "64K", "--seq-time", "1",
                             "--phases", "seq-write,seq-read,reverify")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["seq_time_s"], 1)
        merged = self.assertMarkedAlike(doc, r.stdout)
        for name in SEQ_PHASES:
            p = merged[name]
            self.assertGreaterEqual(p["elapsed_s"], 1, name)
            self.assertFalse(p["too_short"], name)
            moved = p["read_bytes"] + p["write_bytes"]
            self.assertEqual(moved % (64 * 1024), 0, name)
            self.assertGreaterEqual(moved, 2 * 8 * MiB, name)  # the first pass whole
        for name in ("seq-read", "reverify"):  # every byte read was verified
            self.assertEqual(merged[name]["verified_bytes"], merged[name]["read_bytes"], name)
        line = line_starting(r.stdout, "figures  ")
        self.assertRegex(line, r"^figures  seq 64K: write [\d.]+ MiB/s" + PLUS_MINUS +
                         r", read [\d.]+ MiB/s" + PLUS_MINUS + r" \| ")
        # With --seq-time 0 (the harness adds it), one pass: the config says so.
        r = self.drivestress("-s", "8M", "-j", "1", "--phases", "seq-write,seq-read")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertIsNone(doc["config"]["seq_time_s"])
        self.assertEqual(harness.merged_phases_of(doc)["seq-write"]["write_bytes"], 8 * MiB)

    def check_preset(self, name, seq_labels):
        """Every sequential test of the preset ran each phase for at least
        its stated 5 s, on an 8 MiB file."""
        r = self.drivestress("-s", "8M", "--rand-ops", "1000", "--preset", name)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        tests = {t["label"]: t for t in doc["preset"]["tests"]}
        self.assertEqual([l for l, t in tests.items() if "random" not in t["config"]["phases"]],
                         seq_labels)
        for label in seq_labels:
            t = tests[label]
            self.assertEqual(t["config"]["seq_time_s"], 5, label)
            phases = {p["phase"]: p for p in t["merged_phases"]}
            self.assertEqual(list(phases), ["seq-write", "seq-read"], label)
            for p in phases.values():
                self.assertGreaterEqual(p["elapsed_s"], 5, (label, p["phase"]))
                self.assertGreater(p["read_bytes"] + p["write_bytes"], 8 * MiB, label)
                ops = p["read_ops"] + p["write_ops"]
                self.assertEqual(p["too_short"], ops < 200, (label, p["phase"]))
            self.assertEqual(t["too_short"], any(p["too_short"] for p in phases.values()))
        self.assertSchema(doc)

    def test_nvme_preset_measures_sequential_tests_for_5_s(self):
        harness.plain_suite_only(self)
        self.check_preset("nvme", ["SEQ128K Q32T1"])

    def test_desktop_preset_measures_sequential_tests_for_5_s(self):
        harness.plain_suite_only(self)
        self.check_preset("desktop", ["SEQ1M Q8T1", "SEQ1M Q1T1"])

    def assertSchema(self, doc):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: the document (all else checked) is not validated")
        with open(SCHEMA) as f:
            jsonschema.validate(doc, json.load(f))



@harness.meson_case(name="as-shipped-{case}", timeout=300)
class AsShipped(harness.DriveStressTest):
    """The defaults as a user gets them (nothing added by the harness), on a
    loop-device ext4: every sequential figure measured, every line of the
    report within 100 columns; --wide one line per phase."""

    as_shipped = True
    assertSchema = TooShort.assertSchema

    def loop_filesystem(self, size):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, size))
        return harness.mkfs_and_mount(self, dev)

    def assertMeasuredWithin100(self, r):
        self.assertExit(r, 0)
        too_wide = [l for l in r.stdout.splitlines() if len(l) > 100]
        self.assertEqual(too_wide, [], r.stdout)
        self.assertNotIn("too short", r.stdout)
        doc = self.assertJson(r)
        self.assertTrue(doc["config"]["seq_until_measured"])
        for name, p in harness.merged_phases_of(doc).items():
            self.assertFalse(p["too_short"], name)
            if name != "random":
                self.assertGreaterEqual(p["elapsed_s"], 1, name)
                self.assertGreaterEqual(p["read_ops"] + p["write_ops"], 200, name)
                self.assertIsNotNone(p["kernel_io_threads_cpu_s"], name)
        self.assertIn("kernel I/O threads", r.stdout)
        figures = r.stdout[r.stdout.index("\nfigures  "):]
        self.assertRegex(figures, r"^\nfigures  seq 1M: write [0-9.]+ MiB/s" + PLUS_MINUS +
                         r", read [0-9.]+ MiB/s" + PLUS_MINUS + "\n")
        self.assertSchema(doc)
        return doc

    # Alone (meson runs no other test beside it): then no other process
    # takes the CPU, and the run's own kernel threads must not be called
    # other load.  Steal is the hypervisor's and may be real: a warning
    # of it is true.
    @harness.meson_case(is_parallel=False)
    def test_default_run(self):
        harness.plain_suite_only(self)
        point = self.loop_filesystem(1536 * MiB)
        r = self.drivestress(target=point)
        doc = self.assertMeasuredWithin100(r)
        self.assertEqual(sorted(os.listdir(point)), ["lost+found"])
        for name, p in harness.merged_phases_of(doc).items():
            load = p["host_load"]
            self.assertLess(load["foreign_pct"], 20, (name, load))
            self.assertGreater(p["kernel_io_threads_cpu_s"], 0, name)  # a loop device's workers
            if load["busy"]:
                self.assertGreaterEqual(load["steal_pct"], 5, (name, load))
        self.assertNotRegex(r.stdout, r"host busy: \d+ % steal, ([2-9]\d|100) % other processes")

    def test_quick_run_of_scripts_run(self):
        harness.plain_suite_only(self)
        # scripts/run without arguments: --size 64M --files 2 --rand-time 5s .
        point = self.loop_filesystem(512 * MiB)
        doc = self.assertMeasuredWithin100(
            self.drivestress("--size", "64M", "--files", "2", "--rand-time", "5s", target=point))
        # 64 operations a pass: the passes went on until a figure was measured.
        self.assertGreater(harness.merged_phases_of(doc)["seq-write"]["write_ops"], 128)

    def test_wide_keeps_a_phase_on_one_line(self):
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "300", "--seq-time", "0",
                             "--wide")
        self.assertExit(r, 0)
        for name in ("seq-write", "seq-read", "random", "reverify"):
            line = line_starting(r.stdout, f"  {name} ")
            self.assertIn("kernel I/O threads", line)
            self.assertIn(">1ms ", line)
        self.assertIn("(too short to measure: ", line_starting(r.stdout, "  seq-write "))
        r = self.drivestress("-s", "8M", "-j", "1", "--rand-ops", "300", "--seq-time", "0")
        self.assertExit(r, 0)
        self.assertEqual([l for l in r.stdout.splitlines() if len(l) > 100], [], r.stdout)
        self.assertFalse(any("kernel I/O threads" in l for l in r.stdout.splitlines()
                             if l.startswith("  seq-write ")), r.stdout)


@harness.meson_case(timeout=120)
class ReportLinesReachTheFile(harness.DriveStressTest):
    """Redirected to a file, each phase's line of the text report is in the
    file when the next phase starts (the escaping stream flushes stdout
    under it): in time for tail -f, and not lost to a SIGKILL."""

    def test_phase_lines_are_in_the_file_while_stopped(self):
        run = self.start("-s", "8M", "-j", 1, "--rand-time", "0.2", stop="reverify")
        run.wait_stopped()
        so_far = run.stdout_so_far()
        for phase in ("seq-write", "seq-read", "random"):
            self.assertRegex(so_far, rf"(?m)^  {phase} ", so_far)
        run.send(signal.SIGKILL)
        r = run.finish()
        self.assertEqual(r.returncode, -signal.SIGKILL)
        self.assertRegex(r.stdout, r"(?m)^  random ")


if __name__ == "__main__":
    harness.main()
