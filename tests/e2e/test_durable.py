#!/usr/bin/env python3
"""Durable writes: every --sync method on both backends with its flushes
counted from the tool's own JSON, the --sync-compare table, and the
aio_test-shaped run (--batch, 1K blocks, write-only) with all its figures."""

import os
import re

import harness
from harness import MiB, merged_phases_of

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "durable-{case}-{backend}"}

SYNC_METHODS = ("none", "osync", "dsync", "fsync", "fdatasync")


def ceil_div(a, b):
    return (a + b - 1) // b


class DurableMixin:
    def test_every_sync_method_counts_its_flushes(self):
        """8 MiB in 64K blocks = 128 sequential writes per worker; fsync and
        fdatasync every 4 writes flush 32 times per worker, osync/dsync and
        none never; random phases flush once per 4 writes (rounded up)."""
        for method in SYNC_METHODS:
            with self.subTest(method=method):
                args = ["-s", "8M", "-j", 2, "--seq-block", "64K", "--rand-ops", 1000,
                        "--read-pct", 50, "--sync", method, "--seed", 5]
                if method != "none":
                    args += ["--sync-every", 4]
                r = self.drivestress(*args)
                self.assertExit(r, 0)
                self.assertNoFilesLeft(r)
                doc = self.assertJson(r)
                self.assertEqual(doc["config"]["sync"], method)
                flushing = method in ("fsync", "fdatasync")
                for p in merged_phases_of(doc).values():  # one iteration
                    where = f"{method} {p['phase']}"
                    self.assertEqual(p["flush_latency"]["count"], p["flush_ops"], where)
                    if p["phase"] == "seq-write":
                        self.assertEqual(p["write_ops"], 2 * 128, where)
                        self.assertEqual(p["flush_ops"], 2 * 32 if flushing else 0, where)
                    elif p["phase"] == "random":
                        w = p["write_ops"]
                        self.assertGreater(w, 0, where)
                        if flushing:
                            # Per worker ceil(w_i / 4): between w/4 and w/4 + 2.
                            self.assertGreaterEqual(p["flush_ops"], ceil_div(w, 4), where)
                            self.assertLessEqual(p["flush_ops"], ceil_div(w, 4) + 1, where)
                        else:
                            self.assertEqual(p["flush_ops"], 0, where)
                    else:
                        self.assertEqual(p["flush_ops"], 0, where)
                text = r.stdout
                if flushing:
                    self.assertIn(f"sync {method} every 4 writes", text)
                    self.assertRegex(text, r"seq-write .* flushes 64 ")
                else:
                    self.assertNotIn("flushes", text)

    def test_fsync_every_write_on_one_worker_is_exact(self):
        r = self.drivestress("-s", "4M", "-j", 1, "--seq-block", "64K", "--sync", "fsync",
                             "--rand-ops", 300, "--read-pct", 0)
        self.assertExit(r, 0)
        by = merged_phases_of(self.assertJson(r))
        self.assertEqual(by["seq-write"]["flush_ops"], 64)
        self.assertEqual(by["random"]["write_ops"], 300)
        self.assertEqual(by["random"]["flush_ops"], 300)

    def test_aio_test_workload(self):
        """aio_test's shape: write-only, 1K blocks, qd 16, batches of 8, one
        file, a fixed total of writes; every figure in text and JSON."""
        ops = 20000
        r = self.drivestress("-s", "16M", "--read-pct", 0, "--rand-ops", ops, "--rand-block",
                             "1K", "--qd", 16, "--files", 1, "--batch", 8)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertEqual(doc["config"]["unit_bytes"], 1024)
        self.assertEqual(doc["config"]["batch"], 8)
        self.assertEqual(merged_phases_of(doc)["random"]["iterations"], 1)
        p = merged_phases_of(doc)["random"]
        self.assertEqual((p["write_ops"], p["read_ops"]), (ops, 0))
        ws = p["write_summary"]
        self.assertEqual(ws["writes"], ops)
        self.assertEqual((ws["errors"], ws["failed"], ws["outstanding"]), (0, 0, 0))
        self.assertEqual(ws["written_bytes"], ops * 1024)
        self.assertLessEqual(ws["min_ns"], ws["mean_ns"])
        self.assertLessEqual(ws["mean_ns"], ws["max_ns"])
        self.assertGreater(ws["min_ns"], 0)
        self.assertAlmostEqual(ws["writes_per_sec"], ops / ws["elapsed_s"], delta=1)
        self.assertAlmostEqual(ws["bytes_per_sec"], ops * 1024 / ws["elapsed_s"], delta=1024)
        m = re.search(r"writes: +(\d+) done, (\d+) errors \((\d+) failed, (\d+) outstanding\)"
                      r"  time ms min ([\d.]+) avg ([\d.]+) max ([\d.]+)  total ([\d.]+) s"
                      r"  ([\d.]+) MiB  (\d+) writes/s  ([\d.]+) MiB/s", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertEqual(int(m.group(1)), ops)
        self.assertEqual(m.group(2, 3, 4), ("0", "0", "0"))
        self.assertAlmostEqual(float(m.group(9)), ops * 1024 / MiB, delta=0.1)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)

    def test_sync_compare_has_a_row_for_every_method(self):
        r = self.drivestress("--sync-compare", "--rand-ops", 10)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        sc = self.assertJson(r)["sync_compare"]
        self.assertEqual(sc["row_ops"], 10)
        rows = sc["rows"]
        shapes = [(x["method"], x["write_bytes"], x["writes_per_op"]) for x in rows]
        expected = [(m, b, 1) for m in SYNC_METHODS for b in (4096, 8192, 16384)]
        expected += [("osync", 16384, 1), ("osync", 8192, 2), ("osync", 4096, 4)]
        self.assertEqual(shapes, expected)
        for x in rows:
            where = f"{x['method']} {x['writes_per_op']}x{x['write_bytes']}"
            if x["available"]:
                self.assertIsNone(x["reason"], where)
                self.assertEqual(x["ops"], 10, where)
                self.assertEqual(x["latency"]["count"], 10, where)
                self.assertGreater(x["verified_bytes"], 0, where)
                self.assertEqual(x["mismatches"], 0, where)
            else:
                self.assertTrue(x["reason"], where + ": n/a without a reason")
        lines = [l for l in r.stdout.splitlines() if re.match(r"  (none|osync|dsync|fsync|"
                                                               r"fdatasync) ", l)]
        self.assertEqual(len(lines), 18, r.stdout)
        for line in lines:
            self.assertTrue(" ok, " in line or " n/a " in line, line)


class DurableIoUring(DurableMixin, harness.DriveStressTest):
    backend = "io_uring"


class DurableSync(DurableMixin, harness.DriveStressTest):
    backend = "sync"


class DurableBadInput(harness.DriveStressTest):
    """Bad --sync, --sync-every, --batch and --sync-compare combinations:
    exit 1, one line naming the option, nothing written."""

    @harness.meson_case(name="durable-bad-options")
    def test_bad_durable_options(self):
        cases = [
            (["--sync", "always"], "--sync"),
            (["--sync-every", "4"], "--sync-every"),
            (["--sync", "fsync", "--sync-every", "0"], "--sync-every"),
            (["--qd", "4", "--batch", "8"], "--batch"),
            (["--batch", "0"], "--batch"),
            (["--sync-compare", "--sync", "dsync"], "--sync"),
            (["--sync-compare", "--files", "2"], "--files"),
            (["--sync-compare", "--size", "1028K"], "--size"),
            (["--sync-compare", "--compare-backends"], "--compare-backends"),
        ]
        for args, name in cases:
            with self.subTest(args=args):
                r = self.drivestress(*args, json_out=False)
                self.assertSetupError(r, name)
                self.assertNoFilesLeft(r)


class DurableRefused(harness.DriveStressTest):
    """A refusal the kernel really makes: O_DIRECT on a filesystem without
    it.  Probed first; when every filesystem here accepts O_DIRECT (tmpfs
    does since Linux 6.6) there is nothing real to refuse and the case skips."""

    @harness.meson_case(name="durable-sync-compare-refused-na")
    def test_refused_method_is_na_with_reason(self):
        probe = os.path.join("/dev/shm", f"drivestress-probe-{os.getpid()}")
        try:
            fd = os.open(probe, os.O_RDWR | os.O_CREAT | os.O_DIRECT | os.O_DSYNC, 0o600)
            os.close(fd)
            refused = None
        except OSError as e:
            refused = e
        finally:
            if os.path.exists(probe):
                os.unlink(probe)
        if refused is None:
            self.skipTest("tmpfs accepts O_DIRECT|O_DSYNC on this kernel: no real refusal")
        target = os.path.join("/dev/shm", f"drivestress-e2e-{os.getpid()}")
        os.mkdir(target)
        self.addCleanup(os.rmdir, target)
        r = self.drivestress("--sync-compare", "--rand-ops", 5, target=target)
        self.assertExit(r, 0)
        rows = self.assertJson(r)["sync_compare"]["rows"]
        na = [x for x in rows if not x["available"]]
        self.assertTrue(na)
        for x in na:
            self.assertIn(os.strerror(refused.errno), x["reason"])


if __name__ == "__main__":
    harness.main()
