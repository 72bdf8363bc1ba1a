#!/usr/bin/env python3
"""Clean runs: exit 0, the JSON document carries every documented key, every
byte is verified, nothing is left behind."""

import json
import os

import harness
from harness import MISMATCH_CLASSES, MiB, PHASES, merged_phases_of, phases_of

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "run-{case}", "threads": True}


class Nullable:
    """A key whose value is either null or an object with `spec`."""

    def __init__(self, spec):
        self.spec = spec


class ArrayOf:
    """A key whose value is an array of objects with `spec`."""

    def __init__(self, spec):
        self.spec = spec


# The documented shape of the --json document (schema_version 6).  A leaf is
# None; an object is a dict of its keys.
LATENCY = {
    "count": None, "min_ns": None, "mean_ns": None, "max_ns": None,
    "percentiles_ns": dict.fromkeys(["p50", "p90", "p95", "p99", "p99.9", "p99.99"]),
    "histogram": dict.fromkeys(["scheme", "sub_bucket_bits", "relative_error", "buckets"]),
}
CLASS_COUNTS = dict.fromkeys(MISMATCH_CLASSES)
PHASE = {
    **dict.fromkeys([
        "phase", "interrupted", "elapsed_s", "read_bytes", "write_bytes", "read_ops",
        "write_ops", "bandwidth_bytes_per_sec", "read_bandwidth_bytes_per_sec",
        "write_bandwidth_bytes_per_sec", "iops", "read_iops", "write_iops", "verified_bytes",
        "unverified_units", "retries", "workers"]),
    "cpu": dict.fromkeys(["user_s", "system_s", "user_pct", "system_pct", "ops_per_cpu_s",
                          "bytes_per_cpu_s"]),
    "latency": LATENCY, "read_latency": LATENCY, "write_latency": LATENCY,
    "mismatches": CLASS_COUNTS,
}
FIGURE_DRIFT = dict.fromkeys(["first", "best", "worst", "last", "first_iteration",
                              "best_iteration", "worst_iteration", "last_iteration"])
MERGED_PHASE = {
    **PHASE, "iterations": None,
    "drift": Nullable({"iterations": None, "bandwidth_bytes_per_sec": FIGURE_DRIFT,
                       "iops": FIGURE_DRIFT, "p99_ns": FIGURE_DRIFT}),
}
# An iteration's phase: figures only ("interrupted" only when true).
ITERATION_PHASE = dict.fromkeys([
    "phase", "elapsed_s", "read_bytes", "write_bytes", "read_ops", "write_ops", "verified_bytes",
    "mismatch_total", "p50_ns", "p99_ns", "max_ns", "cpu_s"])
DOCUMENT = {
    "schema_version": None,
    "tool": dict.fromkeys(["name", "version"]),
    "started_at": None,
    "in_progress": None,
    "host": dict.fromkeys(["hostname", "kernel", "machine", "cpu_model", "cpus",
                           "memory_bytes", "generator_simd"]),
    "target": dict.fromkeys(["path", "directory", "filesystem", "device", "free_bytes",
                             "direct_io", "direct_io_fallback_reason", "files"]),
    "backend": {
        **dict.fromkeys(["requested", "used", "fallback_reason", "random_qd_per_worker",
                         "seq_qd_per_worker"]),
        "io_uring": Nullable(dict.fromkeys(["setup_flags", "registered_files",
                                            "registered_buffers", "sq_entries", "notes"])),
    },
    "config": dict.fromkeys([
        "file_size_bytes", "files", "qd", "seq_block_bytes", "rand_block_bytes", "unit_bytes",
        "read_pct", "rand_time_s", "rand_ops", "iterations", "duration_s", "phases", "seed",
        "recreate", "buffered", "verify"]),
    "merged_phases": ArrayOf(MERGED_PHASE),
    "iterations": ArrayOf({"index": None, "phases": ArrayOf(ITERATION_PHASE)}),
    "mismatches": ArrayOf({
        **dict.fromkeys(["iteration", "phase", "file", "file_index", "offset_bytes",
                         "unit_offset_bytes", "length_bytes", "class", "op", "bad_bytes",
                         "errno", "expected_generation"]),
        "found": Nullable(dict.fromkeys(["run_id", "file_index", "offset_bytes", "generation",
                                         "unit_bytes"])),
    }),
    "mismatches_truncated": None,
    "jobs": ArrayOf({
        **dict.fromkeys([
            "name", "group", "copies", "access", "read_pct", "trim_pct", "block_sizes",
            "rand_mix", "qd", "start_ns", "end_ns", "seconds", "read_ops", "write_ops",
            "trim_ops", "read_bytes", "write_bytes", "iops", "bandwidth_bytes_per_sec",
            "verified_bytes", "mismatches"]),
        "latency_ns": Nullable(dict.fromkeys(["p50", "p99", "p99.9"])),
    }),
    "summary": {
        **dict.fromkeys(["written_bytes", "read_bytes", "verified_bytes", "elapsed_s",
                         "iterations_run", "mismatch_total", "stop_reason", "signal", "status",
                         "exit_code"]),
        "mismatches": CLASS_COUNTS,
    },
}
# Keys carry their unit and hold only numbers (or null when not applicable).
NUMERIC_SUFFIXES = ("_ns", "_bytes", "_bytes_per_sec", "_s", "_pct", "_ops", "_iops")


class Runs(harness.DriveStressTest):
    """Shared checks of a clean run."""

    def assertShape(self, value, spec, where="$", numeric=False):
        """Checks that `value` has every key of `spec`; `numeric`: its leaves
        are numbers (an object under a key with a unit, e.g. percentiles_ns)."""
        if isinstance(spec, Nullable):
            if value is not None:
                self.assertShape(value, spec.spec, where)
        elif isinstance(spec, ArrayOf):
            self.assertIsInstance(value, list, where)
            for i, item in enumerate(value):
                self.assertShape(item, spec.spec, f"{where}[{i}]")
        elif isinstance(spec, dict):
            self.assertIsInstance(value, dict, where)
            missing = sorted(set(spec) - set(value))
            self.assertEqual(missing, [], f"keys missing in {where}")
            for key, sub in spec.items():
                with_unit = numeric or key.endswith(NUMERIC_SUFFIXES)
                if sub is not None:
                    self.assertShape(value[key], sub, f"{where}.{key}", with_unit)
                elif with_unit and value[key] is not None:
                    self.assertTrue(isinstance(value[key], (int, float))
                                    and not isinstance(value[key], bool),
                                    f"{where}.{key} is not a number: {value[key]!r}")

    def assertLatencySane(self, lat, ops, where):
        self.assertEqual(lat["count"], ops, where)
        buckets = lat["histogram"]["buckets"]
        self.assertEqual(sum(n for _, n in buckets), ops, where + " histogram total")
        self.assertLessEqual(lat["histogram"]["relative_error"], 0.01, where)
        if ops:
            pct = [lat["percentiles_ns"][k] for k in ("p50", "p90", "p95", "p99", "p99.9",
                                                      "p99.99")]
            chain = [lat["min_ns"]] + pct + [lat["max_ns"]]
            self.assertEqual(chain, sorted(chain), where + " min <= percentiles <= max")
            self.assertLessEqual(lat["min_ns"], lat["mean_ns"], where)
            self.assertLessEqual(lat["mean_ns"], lat["max_ns"], where)

    def check_clean_run(self):
        files, size = 2, 8 * MiB
        r = self.drivestress("-s", "8M", "-j", files, "--rand-time", "1")
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        self.assertIn("result   PASS (exit 0)", r.stdout)
        doc = self.assertJson(r)
        self.assertShape(doc, DOCUMENT)
        self.assertEqual(doc["schema_version"], 6)
        self.assertIs(doc["in_progress"], False)
        self.assertEqual(doc["tool"]["name"], "drivestress")

        self.assertEqual(doc["target"]["files"],
                         [self.data_file(i) for i in range(files)])
        direct = doc["target"]["direct_io"]
        self.assertEqual(direct, doc["target"]["direct_io_fallback_reason"] is None)
        self.assertEqual(doc["backend"]["requested"], self.backend)
        self.assertEqual(doc["backend"]["used"], self.backend)
        self.assertIsNone(doc["backend"]["fallback_reason"])
        self.assertEqual(doc["backend"]["io_uring"] is None, self.backend == "sync")
        self.assertEqual(doc["config"]["file_size_bytes"], size)
        self.assertEqual(doc["config"]["files"], files)

        figures = phases_of(doc)
        self.assertEqual([(i, p["phase"]) for i, p in figures], [(1, ph) for ph in PHASES])
        by_name = merged_phases_of(doc)  # one iteration: its phases, histograms included
        self.assertEqual(list(by_name), list(PHASES))
        phases = [(1, by_name[name]) for name in PHASES]
        for _, p in figures:  # the iteration's figures agree with its full phase
            full = by_name[p["phase"]]
            for key in ("read_bytes", "write_bytes", "read_ops", "write_ops", "verified_bytes"):
                self.assertEqual(p[key], full[key], (p["phase"], key))
            self.assertEqual(p["p99_ns"], full["latency"]["percentiles_ns"]["p99"], p["phase"])
            self.assertEqual(p["max_ns"], full["latency"]["max_ns"], p["phase"])
            self.assertEqual(full["iterations"], 1)
        total = files * size
        self.assertEqual(by_name["seq-write"]["write_bytes"], total)
        for name in ("seq-read", "reverify"):
            p = by_name[name]
            self.assertEqual(p["read_bytes"], total, name)
            self.assertGreater(p["verified_bytes"], 0, name)
            self.assertEqual(p["verified_bytes"], total, name + ": every byte verified")
            self.assertEqual(p["unverified_units"], 0, name)
        rnd = by_name["random"]
        self.assertGreater(rnd["read_ops"], 0)
        self.assertGreater(rnd["write_ops"], 0)
        # A plain run is one job: the random phase's workload, its figures
        # the random phase's counts.
        self.assertEqual([(j["name"], j["group"], j["copies"]) for j in doc["jobs"]],
                         [("random", 0, files)])
        job = doc["jobs"][0]
        for key in ("read_ops", "write_ops", "read_bytes", "write_bytes", "verified_bytes"):
            self.assertEqual(job[key], rnd[key], key)
        self.assertLess(job["start_ns"], job["end_ns"])
        self.assertNotIn("p99.9 ms", r.stdout, "no table of jobs for one job")
        for _, p in phases:
            where = p["phase"]
            self.assertFalse(p["interrupted"], where)
            self.assertEqual(p["workers"], files, where)
            self.assertEqual(sum(p["mismatches"].values()), 0, where)
            self.assertLatencySane(p["latency"], p["read_ops"] + p["write_ops"], where)
            self.assertLatencySane(p["read_latency"], p["read_ops"], where + " reads")
            self.assertLatencySane(p["write_latency"], p["write_ops"], where + " writes")

        self.assertEqual(doc["mismatches"], [])
        self.assertFalse(doc["mismatches_truncated"])
        s = doc["summary"]
        self.assertEqual((s["status"], s["exit_code"], s["stop_reason"], s["signal"]),
                         ("passed", 0, "completed", None))
        self.assertEqual(s["iterations_run"], 1)
        self.assertEqual(s["mismatch_total"], 0)
        self.assertEqual(s["mismatches"], dict.fromkeys(MISMATCH_CLASSES, 0))
        self.assertEqual(s["written_bytes"], sum(p["write_bytes"] for _, p in phases))
        self.assertEqual(s["verified_bytes"], sum(p["verified_bytes"] for _, p in phases))

    @harness.meson_case(name="run-qd256-mixed-{backend}")
    def test_qd256_mixed_reads_writes(self):
        """256 operations in flight per worker, half of them writes: no false
        positive from a read racing a write (sync: 256 threads per worker)."""
        ops = 20000
        r = self.drivestress("-s", "16M", "-j", 2, "--qd", 256, "--read-pct", 50,
                             "--rand-ops", ops, "--seq-block", "64K")
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertEqual(doc["backend"]["used"], self.backend)
        self.assertEqual(doc["backend"]["random_qd_per_worker"], 256)
        self.assertEqual(doc["backend"]["sync_threads_per_worker"],
                         256 if self.backend == "sync" else 0)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        rnd = [p for _, p in phases_of(doc) if p["phase"] == "random"]
        self.assertEqual(len(rnd), 1)
        done = rnd[0]["read_ops"] + rnd[0]["write_ops"]
        self.assertEqual(done, ops)
        self.assertTrue(0.4 * ops < rnd[0]["read_ops"] < 0.6 * ops, rnd[0]["read_ops"])
        self.assertGreater(rnd[0]["verified_bytes"], 0)


class RunIoUring(Runs):
    backend = "io_uring"

    @harness.meson_case(name="run-clean-{backend}")
    def test_clean_run(self):
        self.check_clean_run()

class RunSync(Runs):
    backend = "sync"

    @harness.meson_case(name="run-clean-{backend}")
    def test_clean_run(self):
        self.check_clean_run()

    @harness.meson_case(name="run-sync-qd-note")
    def test_qd_note(self):
        """--qd 8 on sync: 8 threads per worker, said in the header; --qd 1:
        the single-threaded baseline, said too."""
        r = self.drivestress("-s", "1M", "-j", 1, "--qd", 8, "--rand-ops", 100,
                             "--seq-block", "64K")
        self.assertExit(r, 0)
        self.assertIn("sync [8 threads per worker, blocking pread/pwrite]  qd 8 per worker",
                      r.stdout)
        self.assertNotIn("ignored", r.stdout)
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["qd"], 8)
        self.assertEqual(doc["backend"]["random_qd_per_worker"], 8)
        self.assertEqual(doc["backend"]["seq_qd_per_worker"], 8)
        self.assertEqual(doc["backend"]["sync_threads_per_worker"], 8)
        r = self.drivestress("-s", "1M", "-j", 1, "--qd", 1, "--rand-ops", 100)
        self.assertExit(r, 0)
        self.assertIn("sync [single-threaded, blocking pread/pwrite]  qd 1 per worker", r.stdout)
        doc = self.assertJson(r)
        self.assertEqual(doc["backend"]["random_qd_per_worker"], 1)
        self.assertEqual(doc["backend"]["sync_threads_per_worker"], 0)

    def test_json_to_stdout(self):
        """`--json -`: stdout is exactly the document, the text report moves
        to stderr."""
        r = self.drivestress("-s", "1M", "-j", 1, "--rand-ops", 100, "--json", "-",
                             json_out=False)
        self.assertExit(r, 0)
        doc = json.loads(r.stdout)
        self.assertEqual(doc["summary"]["exit_code"], 0)
        self.assertIn("result   PASS (exit 0)", r.stderr)
        self.assertNoFilesLeft(r)

    def test_leftover_files_replaced(self):
        """Files a killed run left behind are recognised as ours and replaced."""
        run = self.start("-s", "1M", "-j", 2, "--rand-ops", 100, stop="seq-read")
        run.wait_stopped()
        run.close()  # SIGKILL: no cleanup
        self.assertEqual(self.target_files(), ["drivestress-0.dat", "drivestress-1.dat"])
        r = self.drivestress("-s", "1M", "-j", 2, "--rand-ops", 100)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)

    @harness.meson_case(name="run-path-prefix")
    def test_path_prefix_target(self):
        """--path PREFIX names a prefix: files <prefix><n>.dat.  (A
        positional TARGET must be a directory: see the bad-input tests.)"""
        prefix = os.path.join(self.target, "pre-")
        run = self.start("-s", "1M", "-j", 2, "--rand-ops", 100, "--path", prefix, target=False,
                         stop="seq-read")
        run.wait_stopped()
        self.assertEqual(self.target_files(), ["pre-0.dat", "pre-1.dat"])
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        self.assertEqual(self.assertJson(r)["target"]["files"],
                         [prefix + "0.dat", prefix + "1.dat"])


if __name__ == "__main__":
    harness.main()
