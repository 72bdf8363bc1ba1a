"""The open-loop case (--rate) and several targets in one process, and the
table of every case group."""

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

import stats  # noqa: F401  scripts/stats.py (scripts/ is on sys.path)

from benchlib.common import *  # noqa: F401,F403
from benchlib.children import *  # noqa: F401,F403
from benchlib.target import *  # noqa: F401,F403
from benchlib.measure import *  # noqa: F401,F403
from benchlib.cases_qd import *  # noqa: F401,F403
from benchlib.cases_replay import group_replay, group_io_log


RATE_IOPS = 100_000  # the rate case's requested rate (one worker, QD 32)


def group_rate():
    """The open-loop schedule (--rate): its issue error at RATE_IOPS, and its
    CPU per operation against the closed loop's at the same IOPS, where the
    device is what holds the closed loop there: a blkio read-IOPS cap of
    RATE_IOPS on the target's device.  Under the cap the closed loop may do
    less than it (measured: 56-100k under 100k on a busy 2-vCPU VM), so
    the rate-limited run of that row asks for exactly what the capped
    closed loop did in the same repetition."""
    qd = 32

    def runs(b):
        a = b.args

        def ds_rate(key, rate_of):
            def run():
                rate = rate_of()
                doc, _ = b.drivestress(f"rate {fmt_value(rate, 'IOPS')}",
                                       random_ds_args(a, qd) + ["--rate", str(rate)])
                if doc["backend"]["used"] != "io_uring":
                    raise BenchError("drivestress did not use io_uring: "
                                     f"{doc['backend']['fallback_reason']}")
                return rate_measure(b, doc, key)
            return run

        capped = []  # this repetition's closed loop under the cap

        def ds_capped():
            t = b.read_throttle()
            t.limit_reads(RATE_IOPS)  # reads only: the seq-write before runs free
            try:
                doc, _ = b.drivestress(f"closed loop capped at {fmt_value(RATE_IOPS, 'IOPS')}",
                                       random_ds_args(a, qd), cgroup=t.procs)
            finally:
                t.limit_reads(0)
            m = b.ds_measure(b.ds_phase(doc, "random"), "iops")
            capped.append(m.value)
            return {"ds-capped": m}
        out = [("drivestress --rate", ds_rate("ds-rate", lambda: RATE_IOPS))]
        if b.read_throttle():
            out += [("drivestress capped", ds_capped),
                    ("drivestress --rate as capped",
                     ds_rate("ds-rate-as-capped", lambda: max(1, round(capped[-1]))))]
        return out

    k = fmt_value(RATE_IOPS, "IOPS")
    rows = [pair_row("rate-issue-error",
                     f"--rate {k} 1 worker QD{qd} verified: issue error p99 (us)", "us",
                     "ds-rate-err", "--rate"),
            pair_row("rate-cpu", f"CPU/op --rate vs closed loop held by a {k} blkio cap, "
                     "same IOPS (IOPS)", "IOPS", "ds-rate-as-capped", "--rate", "ds-capped",
                     "closed loop", compare="cpu")]
    return "rate", rows, runs


def rate_measure(b, doc, key):
    """A --rate run's random phase: {key: achieved IOPS, CPU and ops, with
    the schedule's figures; key-err: its issue error p99 in us}."""
    p = b.ds_phase(doc, "random")
    r = p["rate"]
    if not r:
        raise BenchError("drivestress --rate: the random phase has no rate figures")
    m = b.ds_measure(p, "iops")
    err = r["issue_error"]
    pct = err["percentiles_ns"]
    figures = {"requested_iops": r["requested_iops"], "achieved_iops": r["achieved_iops"],
               "late_ops": r["late_ops"], "met": r["met"], "issue_error_count": err["count"],
               "issue_error_p50_us": pct["p50"] / 1e3, "issue_error_p99_us": pct["p99"] / 1e3,
               "issue_error_p99.9_us": pct["p99.9"] / 1e3,
               "issue_error_max_us": err["max_ns"] / 1e3}
    return {key: Measurement(r["achieved_iops"], m.cpu_s, m.ops, dict(m.extra, **figures)),
            f"{key}-err": Measurement(pct["p99"] / 1e3, m.cpu_s, m.ops, figures, unit="us")}


TARGET_COUNTS = (1, 2, 4)


def overlap_measure(parts):
    """Several processes' random phases run at once, each a (phase, timeseries
    lines of that phase in order, time.monotonic() when the process ended):
    each process's IOPS over the intervals that lie (by their midpoint) in
    the span when every one of them was in its random phase, summed.  The
    phase ends when its process does (drivestress only removes its files
    after it), so phase k spans [end - its length, end].  CPU per operation
    is over the whole phases.  Without such a span (or a process with no
    interval in it) the whole phases' IOPS are summed, and aligned says so."""
    spans = []
    for phase, lines, end in parts:
        length = sum(x["interval_s"] for x in lines)
        spans.append((end - length, end))
    lo, hi = max(x[0] for x in spans), min(x[1] for x in spans)
    total = 0.0
    aligned = hi > lo
    for (phase, lines, _), (start, _) in zip(parts, spans):
        ops = secs = 0.0
        t = start
        for x in lines:
            if lo <= t + x["interval_s"] / 2 <= hi:
                ops += x["read_ops"] + x["write_ops"]
                secs += x["interval_s"]
            t += x["interval_s"]
        if not secs:
            aligned = False
        total += ops / secs if secs else 0.0
    whole = sum(p["iops"] for p, _, _ in parts)
    cpu = sum(p["cpu"]["user_s"] + p["cpu"]["system_s"] for p, _, _ in parts)
    ops = sum(p["read_ops"] + p["write_ops"] for p, _, _ in parts)
    lengths = sorted(b - a for a, b in spans)
    return Measurement(total if aligned else whole, cpu, ops,
                       {"aligned": aligned, "whole_phases_iops": whole,
                        "start_skew_s": max(x[0] for x in spans) - min(x[0] for x in spans),
                        "overlap_s": max(0.0, hi - lo), "phase_s": lengths[len(lengths) // 2]})


def read_timeseries(path, phase):
    """The lines of `phase` (first iteration) of a --timeseries file, in order."""
    with open(path) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    return [x for x in lines if x["phase"] == phase and x["iteration"] == 1]


def group_targets():
    """Scaling over drives: random reads on 1, 2 and 4 loop devices by one
    drivestress with N TARGETs, by N drivestress processes at once (one
    target each) and by fio with one job per device."""
    qd = 32

    def runs(b):
        a = b.args
        dirs = b.target_dirs(max(TARGET_COUNTS))
        if not dirs:
            return []
        extra = random_ds_args(a, qd)
        out = []
        for n in TARGET_COUNTS:
            d = dirs[:n]

            def one(n=n, d=d):
                doc, _ = b.drivestress(f"{n} targets", extra, dirs=d, pin=False)
                if len(doc["targets"]) != n:
                    raise BenchError(f"drivestress with {n} targets reported "
                                     f"{len(doc['targets'])}")
                return {f"ds-t{n}": b.ds_measure(b.ds_phase(doc, "random"), "iops")}

            def separate(n=n, d=d):
                series = [os.path.join(b.workdir, f"ts-{j}.ndjson") for j in range(n)]
                for x in series:
                    if os.path.exists(x):
                        os.unlink(x)
                jobs = [(extra + ["--timeseries", x, "--interval", "100ms"], [y])
                        for x, y in zip(series, d)]
                done = b.drivestress_many(f"{n} processes", jobs, pin=False)
                return {f"ds-p{n}": overlap_measure([
                    (b.ds_phase(doc, "random"), read_timeseries(x, "random"), end)
                    for (doc, _, end), x in zip(done, series)])}

            def fio(n=n, d=d):
                b.fio_layout(1, d)
                doc, _ = b.fio(f"randread {n} devices", b.fio_common() + b.fio_uring(qd) +
                               b.fio_random("randread"), b.fio_random_files(1) * n, d, pin=False)
                return {f"fio-t{n}": b.fio_measure(doc, ["read"])}
            out += [(f"drivestress, {n} target(s)", one), (f"drivestress x{n}", separate),
                    (f"fio, {n} job(s)", fio)]
        return out

    rows = []
    for n in TARGET_COUNTS:
        what = f"randread 4K QD{qd} verify, {n} target{'s' if n > 1 else ''}"
        procs, jobs = f"{n} process{'es' if n > 1 else ''}", f"fio {n} job{'s' if n > 1 else ''}"
        rows += [pair_row(f"targets-{n}-vs-processes", f"{what}: 1 process vs {procs} (IOPS)",
                          "IOPS", f"ds-t{n}", "1 process", f"ds-p{n}", procs),
                 pair_row(f"targets-{n}-vs-fio", f"{what}: 1 process vs {jobs} (IOPS)",
                          "IOPS", f"ds-t{n}", "1 process", f"fio-t{n}", jobs)]
        if n > 1:
            rows.append(pair_row(f"targets-{n}-cpu", f"CPU/op 1 process, {n} targets vs 1 (IOPS)",
                                 "IOPS", f"ds-t{n}", f"{n} targets", "ds-t1", "1 target",
                                 compare="cpu"))
    return "targets", rows, runs


def all_groups():
    return {
        "randread": [group_randread(1), group_randread(32), group_randread(128)],
        # Issue 51: where latency-bound users run (QD 1 is also in randread).
        "lowqd": [group_randread(1), group_randread(2), group_randread(4)],
        "sync": [group_sync(1), group_sync(2)],
        "mix": [group_mix()],
        "skew": [group_skew()],
        "bsmix": [group_bsmix()],
        "nop": [group_nop()],
        "seq": [group_seq()],
        "rate": [group_rate()],
        "targets": [group_targets()],
        "replay": [group_replay()],
        "io-log": [group_io_log()],
    }
