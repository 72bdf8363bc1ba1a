#!/usr/bin/env python3
"""scripts/bench's NOP and mix rows, and the floor modes under them
(structure only: no figure is judged, nothing is timed).

- bench/floor_randread nop: every operation a NOP on the same ring; the
  file it registered is left as it was; mix70: reads and writes in about
  that share, each write's block fresh data (the file is no longer zero),
  reads + writes = ops; a mode it does not know exits 2;
- scripts/bench: the NOP group runs drivestress --backend nop, the NOP floor
  and, with --tio, t/io_uring -N1, in one row against each other; both mix
  rows carry the mix floor; t/io_uring's per-second lines are parsed in its
  own units; the NOP goal compares CPU per operation with the floor's.

  python3 tests/scripts/bench_test.py --scripts DIR --floor BUILD/bench/floor_randread
"""

import argparse
import errno
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--floor", default=None)
ap.add_argument("--data", default=None)
OPTS, REST = ap.parse_known_args()
sys.path.insert(0, OPTS.scripts)
import bench  # noqa: E402

MiB = 1024 * 1024


def direct_io_dir():
    """A directory under which O_DIRECT works, or None."""
    for d in ("/var/tmp", "/tmp", os.getcwd()):
        try:
            fd, path = tempfile.mkstemp(prefix="noise-bench-probe-", dir=d)
            os.close(fd)
            try:
                os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
                return d
            finally:
                os.unlink(path)
        except OSError as e:
            if e.errno not in (errno.EINVAL, errno.EACCES, errno.EPERM, errno.ENOENT):
                raise
    return None


class FloorModes(unittest.TestCase):
    def setUp(self):
        if not OPTS.floor or not os.access(OPTS.floor, os.X_OK):
            self.skipTest("bench/floor_randread not built (--floor)")
        d = direct_io_dir()
        if not d:
            self.skipTest("no directory here takes O_DIRECT")
        fd, self.path = tempfile.mkstemp(prefix="noise-bench-floor-", dir=d)
        self.addCleanup(os.unlink, self.path)
        os.ftruncate(fd, 4 * MiB)  # reads as zeros
        os.close(fd)

    def floor(self, mode, seconds="0.2"):
        p = subprocess.run([OPTS.floor, self.path, "8", seconds, "4096", mode],
                           capture_output=True, text=True, timeout=60)
        if p.returncode and "ring" in p.stderr:
            self.skipTest(f"io_uring not usable here: {p.stderr.strip()}")
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    def file_is_zero(self):
        with open(self.path, "rb") as f:
            data = f.read()
        return data.count(0) == len(data)

    def test_nop_moves_no_data(self):
        d = self.floor("nop")
        self.assertGreater(d["ops"], 0)
        self.assertEqual((d["reads"], d["writes"]), (d["ops"], 0))
        self.assertEqual(d["touched_xor"], 0)
        self.assertTrue(self.file_is_zero())

    def test_mix70_reads_and_writes_fresh_data(self):
        d = self.floor("mix70")
        self.assertEqual(d["reads"] + d["writes"], d["ops"])
        self.assertGreater(d["writes"], 0)
        if d["ops"] >= 1000:  # the share of a fixed pseudo-random sequence
            self.assertGreater(d["writes"] / d["ops"], 0.2)
            self.assertLess(d["writes"] / d["ops"], 0.4)
        self.assertFalse(self.file_is_zero())

    def test_unknown_mode_is_refused(self):
        for mode in ("touchy", "mix", "mix101"):
            p = subprocess.run([OPTS.floor, self.path, "8", "0.1", "4096", mode],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, mode)
            self.assertIn("usage", p.stderr)


class BenchRows(unittest.TestCase):
    def group(self, case):
        (gid, rows, runs), = bench.all_groups()[case]
        return gid, rows, runs

    def test_nop_row_against_the_nop_floor_and_t_io_uring(self):
        gid, rows, _ = self.group("nop")
        self.assertEqual(gid, "nop-qd32")
        self.assertEqual(rows, [("nop-qd32", "NOP QD32, engine only, vs t/io_uring -N1 (IOPS)",
                                 "IOPS", "ds-nop", "tio", True, "floor-nop")])

    def test_both_mix_rows_carry_the_mix_floor(self):
        _, rows, _ = self.group("mix")
        self.assertEqual([r[6] for r in rows], ["floor-mix", "floor-mix"])

    def test_nop_runs_drivestress_the_floor_and_tio_when_given(self):
        class FakeBench:
            direct = True
            args = bench.parse_args(["--cases", "nop", "--tio", "/opt/fio/t/io_uring"])
        FakeBench.args.floor_exe = "/x/floor_randread"
        _, _, runs = self.group("nop")
        self.assertEqual([t for t, _ in runs(FakeBench)], ["drivestress", "floor", "t/io_uring"])
        FakeBench.args.tio = None
        FakeBench.args.floor_exe = None
        self.assertEqual([t for t, _ in runs(FakeBench)], ["drivestress"])

    def test_drivestress_nop_arguments(self):
        args = bench.parse_args(["--time", "2"])
        self.assertIn("nop", args.cases)
        a = bench.random_ds_args(args, 32, backend="nop", verify=False)
        self.assertEqual(a[a.index("--backend") + 1], "nop")
        self.assertIn("--no-verify", a)

    def test_t_io_uring_lines_in_its_own_units(self):
        text = ("Added file x (submitter 0)\n"
                "IOPS=95000, IOS/call=8/8\n"
                "IOPS=123.45K, IOS/call=8/8\n"
                "IOPS=1.50M, IOS/call=8/8\n"
                "Exiting on timeout\nMaximum IOPS=1.50M\n")
        self.assertEqual(bench.parse_tio_output(text), [95000.0, 123450.0, 1500000.0])
        self.assertEqual(bench.parse_tio_output("nothing\n"), [])

    def test_nop_goal_is_cpu_per_operation_against_the_floor(self):
        table = [{"id": "nop-qd32", "ratio": None, "ds_cpu_s_per_mop": 2.2,
                  "fio_cpu_s_per_mop": None, "floor_cpu_s_per_mop": 2.0}]
        goals = bench.evaluate_goals(table, None)
        self.assertEqual(len(goals), 1)
        self.assertIn("NOP QD32 CPU/op within 10% of the NOP floor", goals[0]["goal"])
        self.assertAlmostEqual(goals[0]["measured"], 1.1)
        table[0]["ds_cpu_s_per_mop"] = 2.3
        self.assertFalse(bench.evaluate_goals(table, None)[0]["met"])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + REST)
