#!/usr/bin/python3
"""drivestress vs fio, side by side on one target (the body of scripts/bench).

Every case runs both tools on the same filesystem, alternating A B A B
(`--repeat` times), and compares medians.  Figures are parsed from each
tool's JSON (drivestress --json, fio --output-format=json), never scraped.

What is compared, exactly:
  randread QD n      4 KiB random reads, one worker, io_uring.  drivestress:
                     --phases seq-write,random --read-pct 100, only the random
                     phase is measured (its seq-write lays the data out);
                     with verification (every read checked) and --no-verify.
                     fio: rw=randread on a file it laid out beforehand,
                     time_based, ioengine=io_uring fixedbufs registerfiles,
                     batched submit/complete, norandommap, direct=1.
    vs fio crc32c    the verified drivestress figure against fio reading
                     with verify=crc32c (a file fio wrote in 4 KiB blocks
                     with verify=crc32c headers, each read checked): the
                     tools' costs when both check what they read.
  floor (randread)   bench/floor_randread on fio's file: a bare liburing loop
                     with drivestress's ring flags and batching and nothing
                     else (no unit map, no verification, no statistics); the
                     minimum such a loop costs, shown beside both tools.
                     It waits as drivestress --wait auto does (a 50 us spin
                     at QD 4 or less with a CPU to spare, else asleep), so
                     no row is compared with a floor that waits worse.
                     On the verify rows the floor also loads every byte of
                     each block it read (floor_randread ... touch): the
                     least any verifying tool must add, whatever it checks.
  lowqd              (only when asked) the randread rows at QD 1, 2 and 4.
  sync randread n    the same with drivestress --backend sync (verifying)
                     vs fio ioengine=psync, n workers each on its own file.
  mix 70/30 QD32     drivestress --read-pct 70 (every read verified, every
                     write a fresh generation) vs fio rw=randrw rwmixread=70.
    vs fio refill    the same vs fio refill_buffers=1: fio fills every write
                     with new random data, as drivestress must (by design
                     every unit's payload differs by file, offset and
                     generation, so no drive can compress or deduplicate
                     it); fio's default writes one buffer filled once.
    floor (mix)      bench/floor_randread ... mix70 on fio's file: the bare
                     loop reading (each block touched) and writing (each
                     write's block filled with fresh data first), 70/30, the
                     least a tool that writes fresh data and checks its reads
                     costs: how much of the mix gap is drivestress's.
  NOP QD32           the engine without the device: drivestress --backend nop
                     (every operation an IORING_OP_NOP through the same
                     engine, nothing verified, nothing moved) vs fio's
                     t/io_uring -N1 -d32 (only with --tio PATH: a built
                     t/io_uring; its IOPS is the median of its per-second
                     lines, its CPU the process's rusage over their sum), and
                     the floor issuing the same NOPs (floor_randread ... nop).
                     The engine's CPU per operation and IOPS per core, free of
                     the device's noise.
  seq write          1 MiB blocks, fresh file: drivestress seq-write phase
                     (generates the pattern) vs fio rw=write (fio reuses one
                     buffer, generates nothing); "vs fio refill" against
                     fio refill_buffers=1.
  seq read+verify    drivestress seq-read phase (regenerates and compares
    vs fio crc32c    every 4 KiB unit) vs the verify pass of fio rw=write
                     verify=crc32c do_verify=1 (fio's read stats of that job:
                     read back + crc32c check of each 1 MiB block).  fio's
                     CPU for this row is the whole write+verify job per op,
                     since fio cannot split it by pass.
    vs fio read      the same drivestress figure vs fio rw=read (no verify).
  seq read no-verify drivestress seq-read with --no-verify vs fio rw=read.
  seq write+verify   the whole job: drivestress seq-write + seq-read (bytes
    total            written + read over both phases' time) vs fio's
                     rw=write verify=crc32c do_verify=1 job (io bytes over
                     job_runtime).  CPU per op over both passes on both sides.
  rate (A/B rows)    the open-loop schedule: drivestress -j 1 --qd 32
                     --rate 100k (4 KiB random reads, every one verified):
                     its issue error p99 (rate.issue_error of the random
                     phase: how late it issued operations that had a free
                     slot) and the achieved rate.  CPU/op: the closed loop
                     (no --rate) held by the device, a cgroup v1 blkio cap
                     of 100k reads a second on the target's block device
                     (blkio.throttle.read_iops_device), against --rate
                     asking for exactly the IOPS that capped run did in the
                     same repetition: both at the same IOPS.  The cap
                     releases held reads from a kernel worker, so part of
                     the capped run's block-layer work is not charged to it.
                     Without a throttle (not root, no cgroup v1 blkio, a
                     partition) only the --rate run is made.
  targets (A/B rows) scaling over drives: 4 fresh ext4 loop devices over
                     files in /dev/shm; for N = 1, 2, 4, random reads 4 KiB
                     QD 32 per target, verified, by one drivestress with N
                     TARGETs, by N drivestress at once (one target each;
                     their IOPS summed over the span when all N were in
                     their random phase, from --timeseries at 100 ms, since
                     they finish their sequential writes at different
                     times) and by fio with one job per device (N jobs,
                     group_reporting off, summed).  CPU/op: one process with
                     N targets against one target.  Runs unpinned.
  replay (A/B rows)  a real trace replayed at its pace: fio randrw 70/30 4K at
                     2,000 IOPS (Poisson arrivals) on a raw loop device
                     for --trace-time s, captured by tracefs
                     block:block_bio_queue (recorded once), replayed at
                     QD 32 onto a second raw loop device by drivestress
                     --replay (reads of replayed writes verified) and by
                     fio read_iolog (the trace as iolog v3).  Duration:
                     each tool's run over the trace's span, %.  On time:
                     drivestress's operations submitted within 1 ms of
                     their due time, from its --io-log (fio logs none),
                     against the timer floor (bench/floor_timer): a
                     thread that only sleeps until each due time of the
                     trace, what this machine's timers and scheduler
                     allow any tool.
  io-log (A/B rows)  what --io-log costs: randread 4K QD 32 verified with
                     --io-log (NDJSON into the work directory) vs without.
A/B rows give both sides' medians and the ratio A/B of each repetition's two
figures (paired: a load that drifts between repetitions moves both), its
median and range.
--baseline EXE: every drivestress run of every case runs again with EXE (another
build of drivestress) in the same repetition, the two in alternating order, and
the "vs baseline" rows give this build over EXE (A/B of a change: no verified row
may be slower outside the ratio range).
CPU seconds per million operations come from each tool's own accounting:
drivestress phase cpu.user_s + cpu.system_s (whole process, that phase);
fio usr_cpu + sys_cpu (percent) x job_runtime, summed over jobs.  For the
1 MiB cases an operation is one 1 MiB block (s/Mop = CPU s per TiB).
Each child's getrusage (wait4) is recorded in the JSON as a cross-check.
"""

import argparse
import datetime
import errno
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The body, by part (scripts/benchlib/); every name is re-exported here, as
# the tests and earlier callers use bench.NAME.
from benchlib.common import *  # noqa: E402,F401,F403
from benchlib.children import *  # noqa: E402,F401,F403
from benchlib.target import *  # noqa: E402,F401,F403
from benchlib.measure import *  # noqa: E402,F401,F403
from benchlib.cases_qd import *  # noqa: E402,F401,F403
from benchlib.cases_open import *  # noqa: E402,F401,F403
from benchlib.cases_replay import *  # noqa: E402,F401,F403
from benchlib.extras import *  # noqa: E402,F401,F403
from benchlib.environment import *  # noqa: E402,F401,F403
from benchlib.report import *  # noqa: E402,F401,F403
from benchlib.baseline import *  # noqa: E402,F401,F403


GROUP_CASES = ("randread", "lowqd", "sync", "mix", "skew", "bsmix", "nop", "seq", "rate",
               "targets", "replay", "io-log")
CASES = GROUP_CASES + ("rss", "pattern")
# lowqd (randread at QD 1, 2 and 4) only when asked: randread has QD 1.
DEFAULT_CASES = tuple(c for c in CASES if c != "lowqd")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="scripts/bench",
        description="drivestress vs fio side by side on one target: medians, ratios, CPU per "
                    "operation, peak RSS and pattern generator figures.  As root without DIR: "
                    "ext4 on a loop device over /dev/shm, created and removed here.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir", nargs="?", metavar="DIR",
                   help="existing directory to run in (default as root: a loop device in /dev/shm)")
    p.add_argument("--repeat", type=positive_int, default=3,
                   help="A/B alternations per case (default 3)")
    p.add_argument("--time", type=positive_float, default=5.0,
                   help="seconds per random-I/O run, each tool (default 5)")
    p.add_argument("--size", type=parse_size, default=512 * MiB,
                   help="size of each file (default 512M)")
    p.add_argument("--seq-size", type=parse_size, default=2 * GiB,
                   help="file size of the sequential cases (default 2G: at a few GiB/s a "
                        "phase of 512M lasts a few scheduler ticks, too few for CPU per MiB)")
    p.add_argument("--device-size", type=parse_size, default=None,
                   help="loop device size (default the larger of 4 x size and "
                        "2 x size + seq-size, plus 512M; at least 1.5G)")
    p.add_argument("--trace-time", type=positive_float, default=60.0,
                   help="seconds of the workload the replay case traces and replays (default 60)")
    p.add_argument("--cases", default=",".join(DEFAULT_CASES),
                   help=f"comma list of {','.join(CASES)} (default all but lowqd)")
    p.add_argument("--tio", default=None, metavar="PATH",
                   help="a built fio t/io_uring: the NOP row's third tool (t/io_uring -N1)")
    p.add_argument("--fio-batch", type=positive_int, default=None,
                   help="fio iodepth_batch_submit and _complete_min (default QD/4, at least 1)")
    p.add_argument("--fio-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="extra fio option for every fio job (repeatable), e.g. gtod_reduce=1")
    p.add_argument("--baseline", default=None, metavar="EXE",
                   help="another drivestress binary run beside this build's in every case, "
                        "alternated; adds rows this build / EXE")
    p.add_argument("--pin", type=cpu_list, default=None, metavar="LIST",
                   help="run both tools' workers on these CPUs, e.g. 1 or 0-1: drivestress "
                        "--cpus LIST, fio cpus_allowed=LIST split, the floor on the first "
                        "(default: unpinned, as their users run them)")
    p.add_argument("--out", default="bench-results.json",
                   help="JSON results file (default ./bench-results.json)")
    p.add_argument("--build-dir", default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    a.root = root
    a.build_dir = os.path.abspath(a.build_dir or os.path.join(root, "build"))
    a.cases = [c.strip() for c in a.cases.split(",") if c.strip()]
    bad = [c for c in a.cases if c not in CASES]
    if bad:
        p.error(f"--cases: unknown {', '.join(bad)}")
    if a.size % MiB:
        p.error("--size must be a multiple of 1M (the sequential block)")
    if a.seq_size % MiB:
        p.error("--seq-size must be a multiple of 1M (the sequential block)")
    if a.device_size is None:
        # fio's random-case files (up to two of --size) stay while the
        # sequential case writes one file of --seq-size at a time.
        a.device_size = max(4 * a.size, 2 * a.size + a.seq_size) + 512 * MiB
        a.device_size = max(a.device_size, 1536 * MiB)
    return a


def main(argv):
    args = parse_args(argv)
    ds_built = os.path.join(args.build_dir, "src", "drivestress")
    if not os.access(ds_built, os.X_OK):
        raise BenchError(f"{ds_built}: not built (run scripts/bench, which builds first)")
    if not shutil.which("fio"):
        raise BenchError("fio not found; as root: apt-get update && apt-get install -y fio")

    def on_signal(signum, _frame):
        raise Interrupted(signum)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    children = Children()
    loop = bench = None
    workdir = tempfile.mkdtemp(prefix="dsbench-work-")
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    try:
        # One snapshot of the binaries for the whole bench: the build
        # directory may be rebuilt under us while it runs.
        args.ds_exe = snapshot(ds_built, workdir)
        built = os.path.join(args.build_dir, "bench", "pattern_bench")
        args.pattern_exe = snapshot(built, workdir) if os.access(built, os.X_OK) else None
        built = os.path.join(args.build_dir, "bench", "floor_randread")
        args.floor_exe = snapshot(built, workdir) if os.access(built, os.X_OK) else None
        built = os.path.join(args.build_dir, "bench", "floor_timer")
        args.timer_exe = snapshot(built, workdir) if os.access(built, os.X_OK) else None
        ds_exe = args.ds_exe
        args.baseline_exe = None
        if args.baseline:
            if not os.access(args.baseline, os.X_OK):
                raise BenchError(f"--baseline {args.baseline}: not an executable file")
            args.baseline_exe = snapshot(args.baseline, workdir, "baseline-")
        if args.dir:
            if not os.path.isdir(args.dir):
                raise BenchError(f"{args.dir}: not a directory")
            target_dir = os.path.abspath(args.dir)
            target_desc = f"{fs_type(target_dir)} directory {target_dir}"
        else:
            if os.geteuid() != 0:
                raise BenchError("the loop-device target needs root; run as root or give a "
                                 "directory: scripts/bench DIR")
            loop = LoopTarget(args.device_size)
            target_dir = loop.setup()
            target_desc = loop.description
        bench = Bench(args, target_dir, children, workdir)
        if not bench.direct:
            log(f"bench: {target_dir} refuses O_DIRECT: fio runs buffered (direct=0); "
                "drivestress falls back by itself")

        meta = {
            "date": started.isoformat(timespec="seconds"),
            "git": git_info(args.root),
            "drivestress_version": tool_version([ds_exe, "--version"]),
            "drivestress_binary": {"path": ds_built, "sha256": sha256_file(ds_exe)},
            "fio_version": tool_version(["fio", "--version"]),
            "kernel": platform.release(),
            "cpu_model": cpu_model(),
            "cpus": os.cpu_count(),
            "loadavg_start": loadavg(),
            "target": target_desc,
            "pinned_cpus": args.pin,
            "direct_io": bench.direct,
            "settings": {"repeat": args.repeat, "time_s": args.time, "size_bytes": args.size,
                         "seq_size_bytes": args.seq_size,
                         "device_size_bytes": args.device_size if loop else None,
                         "fio_batch": args.fio_batch or "QD/4", "fio_opt": args.fio_opt},
        }
        log(f"bench: {meta['git']['commit'] or 'no git'}{' (dirty)' if meta['git']['dirty'] else ''}"
            f"  kernel {meta['kernel']}  {meta['cpu_model']} x{meta['cpus']}"
            f"  load {' '.join(f'{x:.2f}' for x in meta['loadavg_start'])}")
        log(f"bench: target {target_desc}; {args.repeat} reps, {args.time:g} s random runs, "
            f"files {fmt_size(args.size)}, sequential {fmt_size(args.seq_size)}")

        groups = all_groups()
        table, group_log = [], []
        for case in GROUP_CASES:
            if case not in args.cases:
                continue
            if case not in ("randread", "lowqd"):
                bench.remove([bench.FIO_VERIFY_FILE])  # room for two workers' files
            if case == "seq":
                bench.remove(bench.fio_random_files(2))  # room for the 1M cases
            for gid, rows, make_runs in groups[case]:
                samples = {}
                loads = []
                for rep in range(args.repeat):
                    loads.append(loadavg()[0])
                    for tool, fn in with_baseline(bench, make_runs(bench), rep):
                        before = cpu_jiffies()
                        res = fn()
                        steal = steal_fraction(before, cpu_jiffies())
                        for key, m in res.items():
                            m.extra["steal"] = steal
                            samples.setdefault(key, []).append(m)
                        unit = "MiB/s" if case == "seq" else "IOPS"
                        shown = ", ".join(f"{k} {fmt_value(m.value, m.unit or unit)}"
                                          for k, m in res.items())
                        if not any(m.unit for m in res.values()):
                            shown += f" {unit}"
                        log(f"  [{time.monotonic() - t0:4.0f}s] {gid} rep {rep + 1}/{args.repeat} "
                            f"{tool}: {shown}  steal {fmt_steal(steal)}")
                table += summarise(rows, samples) + baseline_rows(gid, case, samples)
                group_log.append({"group": gid, "load1_per_rep": loads})
        bench.remove(bench.fio_random_files(2) + [bench.FIO_VERIFY_FILE])

        rss = None
        if "rss" in args.cases:
            log("  measuring peak RSS of a default run (-s 256M -j 4)")
            rss = run_rss(bench)
        pattern = None
        if "pattern" in args.cases:
            log("  running pattern_bench")
            pattern = run_pattern_bench(args, children, workdir)
        meta["loadavg_end"] = loadavg()
        meta["elapsed_s"] = time.monotonic() - t0
    finally:
        # Runs on success, error and signal alike: stop the child, then undo
        # the target.  Further signals must not interrupt the teardown.
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)
        children.stop()
        if bench:
            bench.remove(bench.fio_random_files(2) + ["fio-seq.dat"])
            bench.close()
        if loop:
            loop.teardown()
        shutil.rmtree(workdir, ignore_errors=True)

    meta["targets_case_devices"] = [t.description for t in bench.loops]
    goals = evaluate_goals(table, rss)
    print(f"\ndrivestress vs fio  {meta['date']}  commit {meta['git']['commit'] or '?'}"
          f"{' (dirty)' if meta['git']['dirty'] else ''}")
    print(f"kernel {meta['kernel']}  {meta['cpu_model']} x{meta['cpus']}  "
          f"load {' '.join(f'{x:.2f}' for x in meta['loadavg_start'])} -> "
          f"{' '.join(f'{x:.2f}' for x in meta['loadavg_end'])}")
    print(f"target {meta['target']}  {args.repeat} reps  {args.time:g} s random runs  "
          f"{'pinned to CPU ' + args.pin if args.pin else 'unpinned'}  "
          f"files {fmt_size(args.size)}, sequential {fmt_size(args.seq_size)}  ({meta['elapsed_s']:.0f} s)\n")
    pairs = [r for r in table if r.get("kind") == "pair"]
    if len(pairs) < len(table):
        print_table([r for r in table if r.get("kind") != "pair"])
    if pairs:
        print_pairs(pairs)
    if table:
        print("(IOPS, or MiB/s for the 1M rows where an op is one 1 MiB block; spread = "
              "(max - min) / median over the repetitions; steal = the most CPU time the host\n"
              "took from this virtual machine during any of the row's runs, /proc/stat: where it "
              "is more than a few %, the row's spread is the host's)")
    if rss:
        print(f"\npeak RSS, default run -s 256M -j 4: {rss['max_rss_kib'] / 1024:.1f} MiB "
              f"(limit 64 MiB + {rss['generation_map_bytes'] / MiB:.2f} MiB generation map)")
    if pattern:
        print(f"\npattern_bench (one core, GiB/s: generate, verify), active path "
              f"{pattern.get('active_path')}")
        for x in pattern.get("key_lines", []):
            print(f"  {x}")
    if goals:
        print_goals(goals)

    meta["notes"] = (bench.notes if bench else []) + pair_notes(table)
    for n in meta["notes"]:
        print(f"note: {n}")
    doc = {"schema": "drivestress-bench/1", "meta": meta, "table": table, "goals": goals,
           "peak_rss": rss, "pattern_bench": pattern, "groups": group_log,
           "runs": bench.log_runs}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"\nresults: {os.path.abspath(args.out)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as e:
        log(f"bench: {e}")
        sys.exit(1)
    except OSError as e:
        log(f"bench: {e.filename or ''}: {e.strerror}" if e.filename else f"bench: {e}")
        sys.exit(1)
    except Interrupted as e:
        log(f"bench: interrupted ({e}); target removed")
        sys.exit(128 + e.signum)
