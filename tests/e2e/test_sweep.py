#!/usr/bin/env python3
"""Sweeps, backend comparison, presets and latency thresholds, end to end."""

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "sweep-{case}"}

SMALL = ("-s", "8M", "--seq-block", "256K")


class Sweep(harness.DriveStressTest):
    backend = "io_uring"

    def test_qd_sweep_one_row_and_point_per_value(self):
        r = self.drivestress(*SMALL, "-j", "1", "--sweep", "qd=1..4", "--rand-ops", "3000")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        sweep = doc["sweep"]
        self.assertEqual(sweep["parameter"], "qd")
        self.assertEqual([p["value"] for p in sweep["points"]], [1, 2, 4])
        for p in sweep["points"]:
            self.assertEqual(p["phase"], "random")
            self.assertEqual(p["read_ops"] + p["write_ops"], 3000)
            self.assertEqual(p["mismatches"]["corrupt"], 0)
            self.assertGreater(p["verified_bytes"], 0)
        rows = [l.split() for l in r.stdout.splitlines() if l.strip().split()[:1] in (["1"], ["2"], ["4"])]
        self.assertEqual([row[0] for row in rows], ["1", "2", "4"], r.stdout)
        self.assertIn("saturation: ", r.stdout)
        self.assertIn("saturation: by IOPS, ", r.stdout)
        # Files are written and verified once, then re-verified once.
        names = [p["phase"] for _, p in harness.phases_of(doc)]
        self.assertEqual(names, ["seq-write", "seq-read", "reverify"])
        self.assertNoFilesLeft(r)

    def test_rand_block_sweep_uses_aligned_multiples_of_the_unit(self):
        r = self.drivestress(*SMALL, "-j", "1", "--sweep", "rand-block=4K,16K", "--rand-ops", "2000")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["unit_bytes"], 4096)
        big = doc["sweep"]["points"][1]
        self.assertEqual(big["value"], 16384)
        self.assertEqual(big["read_bytes"] % 16384, 0)
        self.assertEqual(big["verified_bytes"], big["read_bytes"])
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        # Block sizes are judged by bandwidth, and the line says so.
        self.assertIn("saturation: by MiB/s, ", r.stdout)
        knee = doc["sweep"]["knee"]
        if knee is not None:
            self.assertEqual(knee["axis"], "bandwidth")

    def test_files_sweep_runs_on_that_many_workers(self):
        r = self.drivestress(*SMALL, "--sweep", "files=1,2", "--rand-ops", "2000")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual([p["workers"] for p in doc["sweep"]["points"]], [1, 2])
        self.assertEqual(len(doc["target"]["files"]), 2)

    def test_latency_thresholds_count_slower_requests(self):
        r = self.drivestress(*SMALL, "-j", "1", "--rand-ops", "3000",
                             "--latency-thresholds", "20us,1ms,10s")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        for phase in harness.merged_phases_of(doc).values():
            got = phase["latency_thresholds"]
            self.assertEqual([t["threshold_ns"] for t in got], [20000, 1000000, 10000000000])
            buckets = phase["latency"]["histogram"]["buckets"]
            for t in got:
                expected = sum(n for lower, n in buckets if lower > t["threshold_ns"])
                self.assertEqual(t["slower_count"], expected, phase["phase"])
                count = phase["latency"]["count"]
                self.assertAlmostEqual(t["slower_share"], expected / count if count else 0.0)


class CompareBackends(harness.DriveStressTest):
    backend = None

    def test_both_backends_side_by_side(self):
        if harness.io_uring_unavailable_reason():
            self.skipTest("io_uring is not available here")
        r = self.drivestress(*SMALL, "-j", "1", "--rand-ops", "2000", "--compare-backends")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["backend"]["used"], "io_uring")
        cmp = doc["compare_backends"]
        self.assertEqual(cmp["sync"]["backend"]["used"], "sync")
        self.assertEqual([row["phase"] for row in cmp["rows"]], list(harness.PHASES))
        for row in cmp["rows"]:
            if row["sync_iops"]:
                self.assertAlmostEqual(row["iops_ratio"], row["io_uring_iops"] / row["sync_iops"])
        self.assertIn("backends compared", r.stdout)
        self.assertNoFilesLeft(r)
        # Matched concurrency: the sync run keeps --qd 32 in flight with 32 threads.
        self.assertEqual(cmp["sync"]["backend"]["sync_threads_per_worker"], 32)
        self.assertEqual(cmp["sync"]["backend"]["random_qd_per_worker"], 32)

    def test_output_is_one_header_a_section_per_backend_one_verdict(self):
        """Issue 13: one header, a labelled section per run (its concurrency
        said), ratios whose direction is stated in words, one verdict."""
        if harness.io_uring_unavailable_reason():
            self.skipTest("io_uring is not available here")
        # 1 s of random phase: the verdict quotes no phase too short to measure.
        r = self.drivestress(*SMALL, "-j", "2", "--qd", "8", "--rand-time", "1",
                             "--compare-backends", "--compare-extra", "sync-qd1")
        self.assertExit(r, 0)
        out = r.stdout
        for once in ("drivestress ", "target ", "workload ", "seed ", "verdict ", "result "):
            self.assertEqual(sum(l.startswith(once) for l in out.splitlines()), 1,
                             once + "\n" + out)
        sections = [l for l in out.splitlines() if l.startswith("=== ")]
        self.assertEqual(sections, [
            "=== io_uring: qd 8 per worker, one ring each ===",
            "=== sync: 8 threads per worker, each in a blocking pread/pwrite ===",
            "=== sync qd 1: one blocking pread/pwrite per worker, no thread pool ==="], out)
        # Each section's backend line right under its title, its summary before the next.
        lines = out.splitlines()
        for title in sections:
            self.assertTrue(lines[lines.index(title) + 1].startswith("backend  "), title)
        self.assertEqual(sum(l.startswith("summary ") for l in lines), 3)
        self.assertIn("io_uring (2 workers x qd 8) against sync (2 workers x 8 threads):", out)
        self.assertIn("io_uring (2 workers x qd 8) against sync qd 1 "
                      "(2 workers x 1, single-threaded):", out)
        verdict = [l for l in lines if l.startswith("verdict ")][0]
        self.assertIn("random at 16 operations in flight on both: ", verdict)
        doc = self.assertJson(r)
        rnd = [x for x in doc["compare_backends"]["rows"] if x["phase"] == "random"][0]
        winner = "io_uring" if rnd["iops_ratio"] >= 1 else "sync"
        factor = rnd["iops_ratio"] if winner == "io_uring" else 1 / rnd["iops_ratio"]
        # Named outside the noise (each phase's own interval), else said to be within it.
        if rnd["difference"] == "within noise":
            self.assertIn("IOPS within noise (io_uring %.2fx, each phase's own interval)"
                          % rnd["iops_ratio"], verdict)
        else:
            self.assertIn("%s %.2fx the IOPS (intervals apart" % (winner, factor), verdict)
        self.assertEqual(doc["compare_backends"]["verdict"], verdict[len("verdict  "):])
        self.assertTrue(lines[-1].startswith("result   PASS (exit 0)"), lines[-1])

    def test_qd_sweep_names_the_crossover(self):
        if harness.io_uring_unavailable_reason():
            self.skipTest("io_uring is not available here")
        r = self.drivestress(*SMALL, "-j", "1", "--rand-ops", "1000", "--compare-backends",
                             "--sweep", "qd=1..8")
        self.assertExit(r, 0)
        sw = self.assertJson(r)["compare_backends"]["sweep"]
        self.assertEqual([p["qd"] for p in sw["points"]], [1, 2, 4, 8])
        rows = [l.split() for l in r.stdout.splitlines()
                if l.split()[:1] in (["1"], ["2"], ["4"], ["8"]) and l.count("x ") == 1]
        self.assertEqual([row[0] for row in rows], ["1", "2", "4", "8"], r.stdout)
        if sw["crossover_qd"]:
            self.assertIn("verdict  crossover: io_uring pays from QD %d on" % sw["crossover_qd"],
                          r.stdout)
        else:
            self.assertIn("verdict  crossover: io_uring never pays", r.stdout)
        self.assertNoFilesLeft(r)


class Presets(harness.DriveStressTest):
    backend = None

    def test_desktop_preset_table_has_a_row_per_test(self):
        r = self.drivestress("-s", "8M", "--rand-ops", "1000", "--seq-time", "1", "--preset",
                             "desktop")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        labels = [t["label"] for t in doc["preset"]["tests"]]
        self.assertEqual(labels, ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1 read",
                                  "RND4K Q32T1 write", "RND4K Q1T1 read", "RND4K Q1T1 write"])
        for t in doc["preset"]["tests"]:
            self.assertEqual(t["mismatch_total"], 0)
            self.assertEqual(t["exit_code"], 0)
        self.assertGreater(doc["preset"]["tests"][2]["read_iops"], 0)
        self.assertEqual(doc["preset"]["tests"][2]["write_iops"], 0)
        self.assertGreater(doc["preset"]["tests"][3]["write_iops"], 0)
        table = r.stdout[r.stdout.index("preset desktop"):]
        for label in labels:
            self.assertIn(label, table)
        self.assertNoFilesLeft(r)


if __name__ == "__main__":
    harness.main()
