#!/usr/bin/env python3
"""scripts/bench's NOP and mix rows, and the floor modes under them
(structure only: no figure is judged, nothing is timed).

- bench/floor_randread nop: every operation a NOP on the same ring; the
  file it registered is left as it was; mix70: reads and writes in about
  that share, each write's block fresh data (the file is no longer zero),
  reads + writes = ops; a mode it does not know exits 2; each --wait
  strategy reads at QD 1 and 8 and says which strategy and ring flags it
  ran (a spin's ring takes TASKRUN_FLAG), --awake names its CPUs, and a
  strategy, ring or CPU list it does not know exits 2;
- scripts/bench: the NOP group runs drivestress --backend nop, the NOP floor
  and, with --tio, t/io_uring -N1, in one row against each other; both mix
  rows carry the mix floor; t/io_uring's per-second lines are parsed in its
  own units; the NOP goal compares CPU per operation with the floor's;
- the rate case: --rate 100k's issue error row, and the CPU row whose
  --rate run asks for what the closed loop under a blkio cap did in the
  same repetition (the cap set for that run only, then lifted); without a
  throttle, only the --rate run;
- the targets case: for 1, 2 and 4 devices one drivestress with N TARGETs,
  N drivestress at once and fio with one job per device, the rows' ratios
  paired per repetition; N processes' IOPS counted over the span when all
  were in their random phase;
- the replay case: a tracefs trace becomes fio's iolog v3 (reads, writes,
  trims, an empty flush bio as sync); the share on time counts only
  operations with a due time; the io-log case runs the same drivestress
  with and without --io-log, its log in the work directory, removed;
- as root with fio: a real `--cases rate,targets` run of tiny size makes
  every row and removes every loop device, image and cgroup it made; a
  real `--cases replay,io-log` records a 2 s trace, both tools and the
  timer floor replay all of it, and tracefs is left as it was found.

  python3 tests/scripts/bench_test.py --scripts DIR --floor BUILD/bench/floor_randread
"""

import argparse
import errno
import json
import os
import re
import shutil
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


class RecordingBench:
    """A stand-in for bench's measuring object: records the drivestress
    arguments and fio options each run would use, measures nothing."""

    def __init__(self, cases, calls):
        self.args = bench.parse_args(["--cases", cases, "--time", "2"])
        self.calls = calls

    def drivestress(self, label, args):
        self.calls.append(("ds", args))
        return {}, None

    def fio(self, label, opts, files):
        self.calls.append(("fio", opts))
        return {}, None

    def fio_layout(self, n):
        pass

    def fio_common(self):
        return []

    def fio_uring(self, qd):
        return [f"iodepth={qd}"]

    def fio_random(self, rw):
        return [f"rw={rw}"]

    def fio_random_files(self, n):
        return ["f"]

    def ds_phase(self, doc, phase):
        return {}

    def ds_measure(self, phase, key):
        return 1

    def fio_measure(self, doc, dirs):
        return 1


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

    def floor(self, mode, seconds="0.2", options=(), qd="8"):
        p = subprocess.run([OPTS.floor, *options, self.path, qd, seconds, "4096", mode],
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

    def test_each_wait_strategy_reads_and_says_how_it_waited(self):
        rings = {"enter": "SINGLE_ISSUER|DEFER_TASKRUN",
                 "submit_then_wait": "SINGLE_ISSUER|DEFER_TASKRUN",
                 "spin:20": "SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG",
                 "sqpoll": "SQPOLL|SINGLE_ISSUER",
                 "sqpoll_spin:20@0": "SQPOLL|SQ_AFF|SINGLE_ISSUER"}
        for wait, ring in rings.items():
            for qd in ("1", "8"):
                with self.subTest(wait=wait, qd=qd):
                    d = self.floor("touch", "0.05", [f"--wait={wait}"], qd)
                    self.assertGreater(d["ops"], 0)
                    self.assertEqual((d["reads"], d["writes"]), (d["ops"], 0))
                    self.assertEqual((d["wait"], d["ring"]), (wait, ring))
                    self.assertEqual(d["touched_xor"], 0)  # the file reads as zeros

    def test_ring_modes_and_awake_cpus_are_taken(self):
        d = self.floor("touch", "0.05", ["--wait=spin:5", "--ring=coop", "--awake=0"], "1")
        self.assertEqual((d["ring"], d["awake"]), ("SINGLE_ISSUER|COOP_TASKRUN|TASKRUN_FLAG", "0"))
        self.assertEqual(d["reads"], d["ops"])
        d = self.floor("touch", "0.05", ["--ring=plain"], "1")
        self.assertEqual((d["ring"], d["wait"], d["awake"]), ("none", "enter", ""))

    def test_unknown_wait_ring_or_cpu_list_is_refused(self):
        for option in ("--wait=spin", "--wait=spin:x", "--wait=nap", "--wait=enter2",
                       "--wait=sqpoll@", "--ring=fast", "--awake=", "--awake=1,,2", "--pin=0"):
            p = subprocess.run([OPTS.floor, option, self.path, "1", "0.1"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, option)
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

    def test_skew_row_runs_both_tools_on_the_same_distribution(self):
        """Issue 32: zipf:1.2 random reads, drivestress verifying, against
        fio's random_distribution=zipf:1.2."""
        gid, rows, runs = self.group("skew")
        self.assertEqual(gid, "skew-qd32")
        self.assertEqual(rows[0][3:5], ("ds-skew", "fio-skew"))
        calls = []
        for _, run in runs(RecordingBench("skew", calls)):
            run()
        ds = dict(calls)["ds"]
        self.assertEqual(ds[ds.index("--distribution") + 1], "zipf:1.2")
        self.assertEqual(ds[ds.index("--read-pct") + 1], "100")
        self.assertNotIn("--no-verify", ds)
        self.assertIn("random_distribution=zipf:1.2", dict(calls)["fio"])
        self.assertIn("rw=randread", dict(calls)["fio"])

    def test_bsmix_row_runs_the_same_mix_in_both_tools(self):
        """Issue 32: the 3-size mix 70/30, drivestress's --rand-block against
        fio's bssplit with fresh buffers."""
        gid, rows, runs = self.group("bsmix")
        self.assertEqual(gid, "bsmix-qd32")
        self.assertEqual(rows[0][3:5], ("ds-bsmix", "fio-bsmix"))
        calls = []
        for _, run in runs(RecordingBench("bsmix", calls)):
            run()
        ds, fio = dict(calls)["ds"], dict(calls)["fio"]
        self.assertEqual(ds[ds.index("--rand-block") + 1], "4K:60,16K:20,128K:20")
        self.assertEqual(ds[ds.index("--read-pct") + 1], "70")
        self.assertNotIn("--no-verify", ds)
        for opt in ("bssplit=4k/60:16k/20:128k/20", "rwmixread=70", "refill_buffers=1",
                    "rw=randrw", "iodepth=32"):
            self.assertIn(opt, fio)

    def test_drivestress_nop_arguments(self):
        args = bench.parse_args(["--time", "2"])
        self.assertIn("nop", args.cases)
        a = bench.random_ds_args(args, 32, backend="nop", verify=False)
        self.assertEqual(a[a.index("--backend") + 1], "nop")
        self.assertIn("--no-verify", a)

    def test_t_io_uring_gets_a_file_even_with_nops(self):
        """Issue 34: current t/io_uring prints its usage and exits 1 when -N1
        has no file; a stand-in that does the same runs with what bench passes."""
        argv = bench.tio_argv("/opt/fio/t/io_uring", 32, 2, "/w/tio-nop.dat", True)
        self.assertEqual(argv, ["/opt/fio/t/io_uring", "-N1", "-d32", "-s8", "-c8", "-n1", "-r2",
                                "/w/tio-nop.dat"])
        self.assertIn("-O0", bench.tio_argv("t", 32, 2, "f", False))
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "io_uring")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\n"
                        "for a in \"$@\"; do case $a in -*) ;; *) file=$a ;; esac; done\n"
                        "[ -n \"$file\" ] || { echo 'usage: io_uring <options> -- <filenames>'; "
                        "exit 1; }\n"
                        "echo 'IOPS=1000, IOS/call=8/8'\n")
            os.chmod(fake, 0o755)
            bare = subprocess.run([fake, "-N1", "-d32"], capture_output=True, text=True)
            self.assertEqual(bare.returncode, 1)
            p = subprocess.run(bench.tio_argv(fake, 32, 1, os.path.join(d, "f"), True),
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout)
            self.assertEqual(bench.parse_tio_output(p.stdout), [1000.0])

    def test_t_io_uring_lines_in_its_own_units(self):
        text = ("Added file x (submitter 0)\n"
                "IOPS=95000, IOS/call=8/8\n"
                "IOPS=123.45K, IOS/call=8/8\n"
                "IOPS=1.50M, IOS/call=8/8\n"
                "Exiting on timeout\nMaximum IOPS=1.50M\n")
        self.assertEqual(bench.parse_tio_output(text), [95000.0, 123450.0, 1500000.0])
        self.assertEqual(bench.parse_tio_output("nothing\n"), [])

    def test_t_io_uring_operations_span_the_whole_run(self):
        """-r5 printed 4 lines over 5 s of rusage (measured, fio f5344384):
        the lines' sum made its CPU per operation 5/4 too high."""
        lines = [5.51e6, 5.53e6, 5.56e6, 5.55e6]
        self.assertEqual(bench.tio_operations(lines, 5.0), int(5.5375e6 * 5.0))
        self.assertEqual(bench.tio_operations([], 5.0), 0)

    def test_nop_goal_is_cpu_per_operation_against_the_floor(self):
        table = [{"id": "nop-qd32", "ratio": None, "ds_cpu_s_per_mop": 2.2,
                  "fio_cpu_s_per_mop": None, "floor_cpu_s_per_mop": 2.0}]
        goals = bench.evaluate_goals(table, None)
        self.assertEqual(len(goals), 1)
        self.assertIn("NOP QD32 CPU/op within 10% of the NOP floor", goals[0]["goal"])
        self.assertAlmostEqual(goals[0]["measured"], 1.1)
        table[0]["ds_cpu_s_per_mop"] = 2.3
        self.assertFalse(bench.evaluate_goals(table, None)[0]["met"])

    def test_the_floor_waits_as_drivestress_auto_does(self):
        """--wait auto spins at QD 4 or less with a CPU to spare: so does the
        floor, and those rows' CPU goals compare with the floor, not fio."""
        fake = argparse.Namespace(args=argparse.Namespace(pin="1"))
        self.assertEqual([bench.Bench.floor_wait(fake, qd) for qd in (1, 4, 5, 32)],
                         ["spin:50", "spin:50", "enter", "enter"])

        def row(row_id, wait):
            return {"id": row_id, "ratio": 1.3, "ds_cpu_s_per_mop": 21.0, "fio_cpu_s_per_mop": 15.0,
                    "floor_cpu_s_per_mop": 20.0, "floor_samples": [{"value": 1.0, "wait": wait}]}
        goals = [g["goal"] for g in bench.evaluate_goals(
            [row("randread-qd1", "spin:50"), row("randread-qd1-noverify", "spin:50")], None)]
        self.assertEqual(goals, ["randread verify QD1 >= 1.0x fio io_uring",
                                 "randread no-verify QD1 >= 1.0x fio io_uring",
                                 "CPU/op verify QD1 within 10% of the touching floor (both spin)",
                                 "CPU/op no-verify QD1 within 10% of the floor"])
        goals = {g["goal"] for g in bench.evaluate_goals(
            [row("randread-qd32", "enter"), row("randread-qd32-noverify", "enter")], None)}
        self.assertLessEqual({"CPU/op verify QD32 <= 1.0x fio", "CPU/op no-verify QD32 <= 0.9x "
                              "fio"}, goals)


def fake_doc(iops, ntargets=1, rate=None):
    """The parts of a drivestress document the bench reads."""
    phase = {"phase": "random", "iops": iops, "read_ops": int(iops * 2), "write_ops": 0,
             "elapsed_s": 2.0, "cpu": {"user_s": 0.1, "system_s": 0.3},
             "latency": {"percentiles_ns": {"p50": 1000, "p99": 2000}}, "rate": None}
    if rate:
        phase["rate"] = {"requested_iops": rate, "achieved_iops": iops, "late_ops": 0,
                         "met": True, "max_lateness_ns": 0,
                         "issue_error": {"count": 10, "max_ns": 40000, "percentiles_ns": {
                             "p50": 3000, "p99": 8000, "p99.9": 20000}}}
    return {"backend": {"used": "io_uring"}, "merged_phases": [phase],
            "targets": [{}] * ntargets}


class FakeThrottle:
    procs = "/sys/fs/cgroup/blkio/x/cgroup.procs"

    def __init__(self):
        self.limits = []

    def limit_reads(self, iops):
        self.limits.append(iops)


class FakeBench:
    """Records what the groups ask of a Bench; answers with fake documents."""
    ds_phase = staticmethod(bench.Bench.ds_phase)
    ds_measure = staticmethod(bench.Bench.ds_measure)
    fio_measure = staticmethod(bench.Bench.fio_measure)
    fio_common = bench.Bench.fio_common
    fio_uring = bench.Bench.fio_uring
    fio_random = bench.Bench.fio_random
    fio_random_files = bench.Bench.fio_random_files

    def __init__(self, throttle=True, dirs=("/m0", "/m1", "/m2", "/m3")):
        self.args = bench.parse_args(["--cases", "rate,targets", "--time", "2"])
        self.direct = True
        self.throttle = FakeThrottle() if throttle else None
        self.dirs = list(dirs)
        self.calls = []
        self.workdir = tempfile.mkdtemp(prefix="noise-bench-test-")

    def read_throttle(self):
        return self.throttle

    def target_dirs(self, n):
        return self.dirs[:n]

    def drivestress(self, label, extra, dirs=None, cgroup=None, pin=True):
        limits = list(self.throttle.limits) if self.throttle else []
        self.calls.append(("ds", extra, dirs, cgroup, pin, limits))
        rate = int(extra[extra.index("--rate") + 1]) if "--rate" in extra else None
        iops = rate or (72000.0 if cgroup else 200000.0 * len(dirs or [1]))
        return fake_doc(iops, len(dirs or [1]), rate), None

    def drivestress_many(self, label, jobs, pin=True):
        self.calls.append(("ds-many", jobs, pin))
        out = []
        for k, (extra, _) in enumerate(jobs):
            path = extra[extra.index("--timeseries") + 1]
            with open(path, "w") as f:  # ten 0.1 s intervals of 5000 reads
                for i in range(10):
                    f.write(json.dumps({"phase": "random", "iteration": 1, "interval_s": 0.1,
                                        "read_ops": 5000, "write_ops": 0}) + "\n")
            out.append((fake_doc(40000.0), None, 100.0 + k * 0.05))
        return out

    def fio_layout(self, n, dirs=None):
        self.calls.append(("fio-layout", n, dirs))

    def fio(self, label, opts, files, dirs=None, pin=True):
        self.calls.append(("fio", opts, files, dirs, pin))
        return {"jobs": [{"usr_cpu": 10.0, "sys_cpu": 30.0, "job_runtime": 2000,
                          "read": {"iops": 50000.0, "total_ios": 100000,
                                   "clat_ns": {"percentile": {"50.000000": 1000}}}}
                         for _ in files]}, None


def run_group(b, case):
    (gid, rows, make_runs), = bench.all_groups()[case]
    samples = {}
    names = []
    try:
        for rep in range(2):
            for name, fn in make_runs(b):
                names.append(name)
                for k, m in fn().items():
                    samples.setdefault(k, []).append(m)
    finally:
        shutil.rmtree(b.workdir, ignore_errors=True)
    return gid, rows, names, samples


class RateCase(unittest.TestCase):
    def test_rows(self):
        (gid, rows, _), = bench.all_groups()["rate"]
        self.assertEqual(gid, "rate")
        self.assertEqual([(r["id"], r["a"], r["b"], r["compare"]) for r in rows],
                         [("rate-issue-error", "ds-rate-err", None, "value"),
                          ("rate-cpu", "ds-rate-as-capped", "ds-capped", "cpu")])
        self.assertIn("100.0k", rows[0]["case"])
        self.assertEqual(rows[0]["unit"], "us")

    def test_runs_and_what_they_ask(self):
        b = FakeBench()
        _, rows, names, samples = run_group(b, "rate")
        self.assertEqual(names, ["drivestress --rate", "drivestress capped",
                                 "drivestress --rate as capped"] * 2)
        ds = [c for c in b.calls if c[0] == "ds"]
        rate_arg = [c[1][c[1].index("--rate") + 1] if "--rate" in c[1] else None for c in ds]
        # 100k; the closed loop (no --rate) capped; --rate at what it did (72k).
        self.assertEqual(rate_arg, ["100000", None, "72000"] * 2)
        for c in ds:
            extra = c[1]
            self.assertEqual(extra[extra.index("--qd") + 1], "32")
            self.assertEqual(extra[extra.index("--read-pct") + 1], "100")
            self.assertNotIn("--no-verify", extra)
        self.assertEqual([c[3] for c in ds], [None, FakeThrottle.procs, None] * 2)
        # The cap is set for the closed loop's run only, and lifted after.
        self.assertEqual([c[5][-1:] for c in ds], [[], [100000], [0], [0], [100000], [0]])
        self.assertEqual(b.throttle.limits, [100000, 0, 100000, 0])
        table = bench.summarise(rows, samples)
        err, cpu = table
        self.assertEqual((err["a_median"], err["b_median"], err["ratio"]), (8.0, None, None))
        self.assertEqual(err["a_extra_medians"]["issue_error_p99.9_us"], 20.0)
        self.assertEqual(err["a_extra_medians"]["achieved_iops"], 100000.0)
        self.assertEqual(cpu["ratios"], [1.0, 1.0])  # same CPU per op in the fakes
        goals = {g["goal"]: g for g in bench.evaluate_goals(table, None)}
        g = goals["issue error p99 at --rate 100k, 1 worker <= 10 us"]
        self.assertEqual((g["measured"], g["met"], g["unit"]), (8.0, True, "us"))
        self.assertTrue(goals["CPU/op with --rate within 10% of the closed loop's at the same "
                              "IOPS"]["met"])

    def test_without_a_throttle_only_the_rate_run(self):
        b = FakeBench(throttle=False)
        _, rows, names, samples = run_group(b, "rate")
        self.assertEqual(names, ["drivestress --rate"] * 2)
        table = bench.summarise(rows, samples)
        self.assertIsNone(table[1]["ratio"])
        self.assertEqual([g["goal"][:11] for g in bench.evaluate_goals(table, None)],
                         ["issue error"])


class TargetsCase(unittest.TestCase):
    def test_rows(self):
        (gid, rows, _), = bench.all_groups()["targets"]
        self.assertEqual(gid, "targets")
        self.assertEqual([(r["id"], r["a"], r["b"], r["compare"]) for r in rows], [
            ("targets-1-vs-processes", "ds-t1", "ds-p1", "value"),
            ("targets-1-vs-fio", "ds-t1", "fio-t1", "value"),
            ("targets-2-vs-processes", "ds-t2", "ds-p2", "value"),
            ("targets-2-vs-fio", "ds-t2", "fio-t2", "value"),
            ("targets-2-cpu", "ds-t2", "ds-t1", "cpu"),
            ("targets-4-vs-processes", "ds-t4", "ds-p4", "value"),
            ("targets-4-vs-fio", "ds-t4", "fio-t4", "value"),
            ("targets-4-cpu", "ds-t4", "ds-t1", "cpu")])

    def test_runs_and_what_they_ask(self):
        b = FakeBench()
        _, rows, names, samples = run_group(b, "targets")
        self.assertEqual(names[:9], ["drivestress, 1 target(s)", "drivestress x1",
                                     "fio, 1 job(s)", "drivestress, 2 target(s)",
                                     "drivestress x2", "fio, 2 job(s)",
                                     "drivestress, 4 target(s)", "drivestress x4",
                                     "fio, 4 job(s)"])
        one = [c for c in b.calls if c[0] == "ds"]
        self.assertEqual([c[2] for c in one[:3]], [["/m0"], ["/m0", "/m1"], b.dirs])
        self.assertTrue(all(c[4] is False for c in one))  # never --cpus (see target_dirs)
        many = [c for c in b.calls if c[0] == "ds-many"]
        self.assertEqual([[d for _, d in c[1]] for c in many[:3]],
                         [[["/m0"]], [["/m0"], ["/m1"]], [[x] for x in b.dirs]])
        fio = [c for c in b.calls if c[0] == "fio"]
        self.assertEqual([(c[2], c[3]) for c in fio[:3]],
                         [(["fio-rand-0.dat"], ["/m0"]), (["fio-rand-0.dat"] * 2, ["/m0", "/m1"]),
                          (["fio-rand-0.dat"] * 4, b.dirs)])
        for c in fio:
            self.assertIn("rw=randread", c[1])
            self.assertIn("iodepth=32", c[1])
            self.assertFalse(any(o.startswith("group_reporting") for o in c[1]))
        table = {r["id"]: r for r in bench.summarise(rows, samples)}
        # 200k per target in one process; 4 x 50k over the common 0.85 s.
        self.assertEqual(table["targets-4-vs-processes"]["a_median"], 800000.0)
        self.assertAlmostEqual(table["targets-4-vs-processes"]["b_median"], 200000.0)
        self.assertAlmostEqual(table["targets-4-vs-fio"]["ratio"], 4.0)
        self.assertEqual(table["targets-2-cpu"]["ratios"], [0.5, 0.5])  # fakes: fixed CPU
        goals = [g["goal"] for g in bench.evaluate_goals(list(table.values()), None)]
        self.assertEqual(goals, [
            "2 targets in one process >= 0.95x 2 separate processes",
            "2 targets in one process >= 1.0x fio 2 jobs", "CPU/op with 2 targets <= 1 target's",
            "4 targets in one process >= 0.95x 4 separate processes",
            "4 targets in one process >= 1.0x fio 4 jobs", "CPU/op with 4 targets <= 1 target's"])

    def test_without_devices_nothing_runs(self):
        _, _, names, samples = run_group(FakeBench(dirs=()), "targets")
        self.assertEqual((names, samples), ([], {}))

    def test_overlap_counts_only_the_common_span(self):
        def lines(rates):  # 0.5 s intervals at these IOPS
            return [{"interval_s": 0.5, "read_ops": int(r / 2), "write_ops": 0} for r in rates]

        def phase(iops):
            return {"iops": iops, "read_ops": 100, "write_ops": 0,
                    "cpu": {"user_s": 0.5, "system_s": 0.5}}
        # Process 0's phase is [10, 12], process 1's [11, 13]: in [11, 12]
        # both run; each is slow while alone, fast while both run.
        m = bench.overlap_measure([(phase(1), lines([100, 100, 40, 40]), 12.0),
                                   (phase(2), lines([40, 40, 100, 100]), 13.0)])
        self.assertTrue(m.extra["aligned"])
        self.assertEqual(m.value, 80)
        self.assertEqual(m.extra["whole_phases_iops"], 3)
        self.assertAlmostEqual(m.extra["start_skew_s"], 1.0)
        self.assertAlmostEqual(m.extra["overlap_s"], 1.0)
        self.assertEqual((m.cpu_s, m.ops), (2.0, 200))
        # No common span: the whole phases, and it says so.
        m = bench.overlap_measure([(phase(1), lines([100, 100]), 1.0),
                                   (phase(2), lines([100, 100]), 5.0)])
        self.assertFalse(m.extra["aligned"])
        self.assertEqual(m.value, 3)


class PairRows(unittest.TestCase):
    def test_ratios_are_paired_per_repetition(self):
        row = bench.pair_row("x", "x", "IOPS", "a", "A", "b", "B")
        a = [bench.Measurement(v, 1.0, 1000) for v in (100, 200, 300)]
        b = [bench.Measurement(v, 2.0, 1000) for v in (50, 400, 300)]
        r = bench.summarise_pair(row, {"a": a, "b": b})
        self.assertEqual(r["ratios"], [2.0, 0.5, 1.0])
        self.assertEqual((r["ratio"], r["ratio_min"], r["ratio_max"]), (1.0, 0.5, 2.0))
        self.assertEqual((r["a_median"], r["b_median"]), (200, 300))
        cpu = bench.summarise_pair(dict(row, compare="cpu"), {"a": a, "b": b})
        self.assertEqual(cpu["ratios"], [0.5] * 3)


class Baseline(unittest.TestCase):
    """--baseline EXE: each drivestress run again with EXE, alternated."""

    class Fake:
        def __init__(self, exe):
            self.args = bench.parse_args(["--cases", "sync"])
            self.args.baseline_exe = exe
            self.ds = "/build/drivestress"
            self.seen = []

    def runs(self, b):
        def ds():
            b.seen.append(b.ds)
            return {"ds": bench.Measurement(len(b.seen), 1.0, 10)}

        def fio():
            b.seen.append("fio")
            return {"fio": bench.Measurement(1, 1.0, 10)}
        return [("drivestress", ds), ("fio", fio), ("drivestress --rate", ds)]

    def test_each_run_twice_in_alternating_order_and_the_binary_restored(self):
        b = self.Fake("/base/ds")
        samples = {}
        for rep in range(2):
            for tool, fn in bench.with_baseline(b, self.runs(b), rep):
                for k, m in fn().items():
                    samples.setdefault(k, []).append(m)
        self.assertEqual(b.seen, ["/build/drivestress", "/base/ds", "fio",
                                  "/build/drivestress", "/base/ds",
                                  "/base/ds", "/build/drivestress", "fio",
                                  "/base/ds", "/build/drivestress"])
        self.assertEqual(b.ds, "/build/drivestress")
        self.assertEqual(sorted(samples), ["base:ds", "ds", "fio"])
        rows = bench.baseline_rows("sync-1w", "sync", samples)
        self.assertEqual([r["id"] for r in rows], ["sync-1w-ds-vs-baseline"])
        self.assertEqual(rows[0]["ratios"], [1 / 2, 4 / 5, 7 / 6, 10 / 9])
        self.assertEqual((rows[0]["a_name"], rows[0]["b_name"]), ("this build", "baseline"))

    def test_without_baseline_the_runs_are_unchanged(self):
        b = self.Fake(None)
        runs = self.runs(b)
        self.assertIs(bench.with_baseline(b, runs, 1), runs)
        self.assertEqual(bench.baseline_rows("g", "sync", {"ds": []}), [])


TRACE_TEXT = """\
# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
             fio-4242    [001] ..... 100.250000: block_bio_queue: 7,1 R 2048 + 8 [fio]
             fio-4242    [001] ..... 100.250500: block_bio_queue: 7,1 WS 4096 + 16 [fio]
             fio-4242    [000] ..... 100.251000: block_bio_queue: 7,1 FWS 0 + 0 [fio]
             fio-4242    [000] ..... 100.252000: block_bio_queue: 7,1 DS 8192 + 8 [fstrim]
"""


class ReplayCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="noise-bench-replay-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_rows(self):
        gid, rows, _ = bench.group_replay()
        self.assertEqual(gid, "replay")
        self.assertEqual([r["id"] for r in rows], ["replay-duration", "replay-on-time"])
        self.assertEqual((rows[0]["a"], rows[0]["b"]), ("ds-replay-duration",
                                                        "fio-replay-duration"))
        self.assertEqual((rows[1]["a"], rows[1]["b"]), ("ds-replay-on-time", "floor-on-time"))

    def test_a_tracefs_trace_becomes_fio_iolog_v3(self):
        trace, out = os.path.join(self.tmp, "t.txt"), os.path.join(self.tmp, "t.fio")
        with open(trace, "w") as f:
            f.write(TRACE_TEXT)
        counts, span = bench.trace_to_fio(trace, "/dev/loop9", out)
        # The empty bio with F is a flush: fio's sync, not a write of nothing.
        self.assertEqual(counts, {"read": 1, "write": 1, "trim": 1, "sync": 1})
        self.assertAlmostEqual(span, 0.002, places=6)
        with open(out) as f:
            self.assertEqual(f.read().splitlines(), [
                "fio version 3 iolog", "0 /dev/loop9 add", "0 /dev/loop9 open",
                "0 /dev/loop9 read 1048576 4096", "500 /dev/loop9 write 2097152 8192",
                "1000 /dev/loop9 sync 0 0", "2000 /dev/loop9 trim 4194304 4096",
                "2000 /dev/loop9 close"])

    def test_on_time_share_counts_operations_with_a_due_time(self):
        path = os.path.join(self.tmp, "log.ndjson")
        lines = [{"due_ns": 0, "submit_ns": 999_999}, {"due_ns": 10, "submit_ns": 1_000_011},
                 {"due_ns": None, "submit_ns": 5}, {"due_ns": 7, "submit_ns": 7}]
        with open(path, "w") as f:
            f.write("".join(json.dumps(x) + "\n" for x in lines))
        self.assertEqual(bench.on_time_share(path), (2 / 3, 3))

    def test_buffer_size_reads_as_it_will_be(self):
        self.assertEqual(bench.buffer_kb("1410\n"), "1410")
        self.assertEqual(bench.buffer_kb("7 (expanded: 1408)\n"), "1408")

    def test_io_log_rows_and_runs(self):
        gid, rows, make = bench.group_io_log()
        self.assertEqual((gid, [r["id"] for r in rows]), ("io-log", ["io-log-cost"]))
        self.assertEqual((rows[0]["a"], rows[0]["b"]), ("ds-io-log", "ds-no-io-log"))

        class LoggingBench(FakeBench):
            def drivestress(self, label, extra, **kw):
                doc, ru = super().drivestress(label, extra, **kw)
                if "--io-log" in extra:
                    open(extra[extra.index("--io-log") + 1], "w").close()
                    doc["io_log"] = {"operations": 10, "dropped": 0, "error": None}
                return doc, ru
        fb = LoggingBench()
        self.addCleanup(shutil.rmtree, fb.workdir, True)
        runs = make(fb)
        self.assertEqual([name for name, _ in runs], ["drivestress --io-log", "drivestress"])
        measured = [fn() for _, fn in runs]
        self.assertEqual([list(m) for m in measured], [["ds-io-log"], ["ds-no-io-log"]])
        self.assertEqual(measured[0]["ds-io-log"].extra["io_log_lines"], 10)
        (_, with_log, *_), (_, without, *_) = fb.calls
        at = with_log.index("--io-log")
        # The same run, and the log into the work directory (removed after).
        self.assertEqual(with_log[:at] + with_log[at + 2:], without)
        self.assertEqual(os.path.dirname(with_log[at + 1]), fb.workdir)
        self.assertFalse(os.path.exists(with_log[at + 1]))


class RealRun(unittest.TestCase):
    """The cases for real, tiny: every row made, nothing left behind."""

    def build_dir(self, needs):
        """The build directory of a real bench, or a skip naming what is
        missing (`needs`: what root is needed for)."""
        if os.geteuid() != 0:
            self.skipTest(f"needs root ({needs})")
        if not OPTS.floor:
            self.skipTest("no build directory (--floor BUILD/bench/floor_randread)")
        build = os.path.dirname(os.path.dirname(os.path.abspath(OPTS.floor)))
        if not os.access(os.path.join(build, "src", "drivestress"), os.X_OK):
            self.skipTest(f"{build}/src/drivestress not built")
        if not shutil.which("fio"):
            self.skipTest("fio not installed")
        return build

    def run_bench(self, build, *args):
        """scripts/bench with `args`, tiny sizes and one repetition: the
        process and its results document."""
        out = tempfile.mktemp(prefix="noise-bench-", suffix=".json")
        p = subprocess.run(["/usr/bin/python3", os.path.join(OPTS.scripts, "bench.py"),
                            "--build-dir", build, *args, "--repeat", "1", "--time", "0.5",
                            "--size", "16M", "--seq-size", "16M", "--out", out],
                           capture_output=True, text=True, timeout=600)
        try:
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out) as f:
                return p, json.load(f)
        finally:
            if os.path.exists(out):
                os.unlink(out)

    def test_rate_and_targets(self):
        build = self.build_dir("loop devices, blkio")
        p, doc = self.run_bench(build, "--cases", "rate,targets")
        # What this bench made is named by its pid (other runs may share the machine).
        made = re.search(r"dsbench-[0-9]+", doc["meta"]["target"]).group(0)
        self.assertEqual([x for x in doc["meta"]["targets_case_devices"] if made + "-t" in x],
                         doc["meta"]["targets_case_devices"])
        self.assertEqual(len(doc["meta"]["targets_case_devices"]), 4)
        losetup = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
        self.assertNotIn(made + ".img", losetup)
        self.assertNotIn(made + "-t", losetup)
        self.assertEqual([x for x in os.listdir("/dev/shm")
                          if x.startswith((made + ".", made + "-"))], [])
        root = bench.BlkioThrottle.ROOT
        if os.path.isdir(root):
            self.assertEqual([x for x in os.listdir(root) if x.startswith(made + "-")], [])
        ids = [r["id"] for r in doc["table"]]
        self.assertEqual(ids[:2], ["rate-issue-error", "rate-cpu"])
        self.assertEqual(len(ids), 10)
        rows = {r["id"]: r for r in doc["table"]}
        self.assertEqual(len(rows["rate-issue-error"]["a_samples"]), 1)
        throttled = bench.BlkioThrottle("/").available() is None
        for r in doc["table"][1:]:
            if throttled or r["id"] != "rate-cpu":
                self.assertEqual(len(r["ratios"]), 1, r["id"])
        self.assertIn("issue error p99", p.stdout)

    def test_baseline_rows_beside_the_fio_rows(self):
        build = self.build_dir("the loop-device target")
        p, doc = self.run_bench(build, "--cases", "sync", "--baseline",
                                os.path.join(build, "src", "drivestress"))
        rows = {r["id"]: r for r in doc["table"]}
        self.assertIn("sync-randread-1w", rows)
        base = rows["sync-1w-ds-vs-baseline"]
        self.assertEqual((len(base["a_samples"]), len(base["b_samples"])), (1, 1))
        self.assertEqual(len(base["ratios"]), 1)
        self.assertIn("vs baseline", p.stdout)

    def test_replay_and_io_log(self):
        """A 2 s trace recorded, replayed by both tools; tracefs left as found."""
        build = self.build_dir("loop devices, tracefs")
        tracing = bench.TRACING

        def tracefs_state():
            if not os.path.exists(os.path.join(tracing, "trace")):
                return None
            state = []
            for name in ("buffer_size_kb", "events/block/block_bio_queue/enable",
                         "events/block/block_bio_queue/filter"):
                with open(os.path.join(tracing, name)) as f:
                    state.append(f.read())
            return state
        before = tracefs_state()
        p, doc = self.run_bench(build, "--cases", "replay,io-log", "--trace-time", "2")
        self.assertEqual(tracefs_state(), before)
        made = re.search(r"dsbench-[0-9]+", doc["meta"]["target"]).group(0)
        losetup = subprocess.run(["losetup", "-a"], capture_output=True, text=True).stdout
        self.assertNotIn(made, losetup)
        self.assertEqual([x for x in os.listdir("/dev/shm") if x.startswith(made)], [])
        rows = {r["id"]: r for r in doc["table"]}
        self.assertEqual(list(rows), ["replay-duration", "replay-on-time", "io-log-cost"])
        for r in rows.values():
            self.assertEqual(len(r["a_samples"]), 1, r["id"])
        self.assertEqual(len(rows["replay-duration"]["ratios"]), 1)
        self.assertEqual(len(rows["io-log-cost"]["ratios"]), 1)
        [ds] = rows["replay-duration"]["a_samples"]
        [fio] = rows["replay-duration"]["b_samples"]
        # Both replayed every event of the same trace (about 2,000 a second),
        # and the timer floor waited for each of them.
        self.assertEqual(ds["operations"], fio["operations"])
        self.assertGreater(ds["operations"], 2000)
        [floor] = rows["replay-on-time"]["b_samples"]
        self.assertEqual(floor["ops"], ds["operations"])
        self.assertLessEqual(floor["value"], 100)
        self.assertIn("replay case: ", p.stdout)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + REST)
