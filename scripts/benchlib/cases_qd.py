"""The closed-loop cases: random reads by queue depth, sync, the 70/30 mix,
the engine alone (nop) and sequential throughput."""

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


def random_ds_args(args, qd, read_pct=100, backend=None, verify=True):
    a = ["--read-pct", str(read_pct), "--phases", "seq-write,random", "--qd", str(qd),
         "--rand-time", f"{args.time:g}s"]
    if backend:
        a += ["--backend", backend]
    if not verify:
        a.append("--no-verify")
    return a


def group_randread(qd):
    def runs(b):
        a = b.args

        def ds(verify):
            def run():
                doc, _ = b.drivestress(f"randread qd{qd}{'' if verify else ' no-verify'}",
                                       random_ds_args(a, qd, verify=verify))
                if doc["backend"]["used"] != "io_uring":
                    raise BenchError("drivestress did not use io_uring: "
                                     f"{doc['backend']['fallback_reason']}")
                return {("ds" if verify else "ds-nv"): b.ds_measure(b.ds_phase(doc, "random"), "iops")}
            return run

        def fio():
            b.fio_layout(1)
            doc, _ = b.fio(f"randread qd{qd}", b.fio_common() + b.fio_uring(qd) +
                           b.fio_random("randread"), b.fio_random_files(1))
            return {"fio": b.fio_measure(doc, ["read"])}

        def fio_verify():
            b.fio_verify_layout()
            doc, _ = b.fio(f"randread qd{qd} verify=crc32c", b.fio_common() + b.fio_uring(qd) +
                           b.fio_random("randread") +
                           ["verify=crc32c", "verify_fatal=1", "verify_state_save=0"],
                           [b.FIO_VERIFY_FILE])
            return {"fio-v": b.fio_measure(doc, ["read"])}

        def floor(touch):
            def run():
                b.fio_layout(1)
                return {("floor-touch" if touch else "floor"):
                        b.floor(f"randread qd{qd}{' touch' if touch else ''}",
                                b.fio_random_files(1)[0], qd, touch)}
            return run
        runs = [("drivestress", ds(True)), ("fio", fio), ("drivestress", ds(False)),
                ("fio", fio_verify)]
        floors = [("floor", floor(False)), ("floor", floor(True))]
        return runs + (floors if b.args.floor_exe and b.direct else [])

    rows = [(f"randread-qd{qd}", f"randread 4K QD{qd} verify (IOPS)", "IOPS", "ds", "fio", True,
             "floor-touch"),
            (f"randread-qd{qd}-noverify", f"randread 4K QD{qd} no-verify (IOPS)", "IOPS", "ds-nv",
             "fio", True, "floor"),
            (f"randread-qd{qd}-vs-crc32c", f"randread 4K QD{qd} verify vs fio crc32c (IOPS)",
             "IOPS", "ds", "fio-v", True, "floor-touch")]
    return f"randread-qd{qd}", rows, runs


def group_sync(n):
    def runs(b):
        a = b.args

        def ds():
            doc, _ = b.drivestress(f"sync randread {n}w",
                                   random_ds_args(a, 1, backend="sync"), files=n)
            if doc["backend"]["used"] != "sync":
                raise BenchError("drivestress did not use the sync backend")
            return {"ds": b.ds_measure(b.ds_phase(doc, "random"), "iops")}

        def fio():
            b.fio_layout(n)
            doc, _ = b.fio(f"psync randread {n}j", b.fio_common() + ["ioengine=psync"] +
                           b.fio_random("randread"), b.fio_random_files(n))
            return {"fio": b.fio_measure(doc, ["read"])}
        return [("drivestress", ds), ("fio", fio)]

    rows = [(f"sync-randread-{n}w", f"randread 4K sync vs psync, {n} worker{'s' if n > 1 else ''} "
             "(IOPS)", "IOPS", "ds", "fio", False)]
    return f"sync-{n}w", rows, runs


def group_mix():
    qd = 32

    def runs(b):
        a = b.args

        def ds():
            doc, _ = b.drivestress("mix 70/30", random_ds_args(a, qd, read_pct=70))
            return {"ds": b.ds_measure(b.ds_phase(doc, "random"), "iops")}

        def fio(refill):
            def run():
                b.fio_layout(1)
                doc, _ = b.fio(f"mix 70/30{' refill' if refill else ''}",
                               b.fio_common() + b.fio_uring(qd) + b.fio_random("randrw") +
                               ["rwmixread=70"] + (["refill_buffers=1"] if refill else []),
                               b.fio_random_files(1))
                return {("fio-refill" if refill else "fio"): b.fio_measure(doc, ["read", "write"])}
            return run
        def floor():
            b.fio_layout(1)
            return {"floor-mix": b.floor("mix 70/30", b.fio_random_files(1)[0], qd,
                                         mode="mix70")}
        runs = [("drivestress", ds), ("fio", fio(False)), ("fio", fio(True))]
        return runs + ([("floor", floor)] if b.args.floor_exe and b.direct else [])

    rows = [("mix70-qd32", "randrw 70/30 4K QD32, ds verifies (IOPS)", "IOPS", "ds", "fio", True,
             "floor-mix"),
            ("mix70-qd32-vs-refill", "randrw 70/30 4K QD32 vs fio refill (IOPS)", "IOPS", "ds",
             "fio-refill", True, "floor-mix")]
    return "mix70-qd32", rows, runs


def group_skew(dist="zipf:1.2", qd=32):
    """Random reads under a skewed distribution (issue 32): drivestress
    verifying every read against fio's random_distribution, which does not.
    fio issues overlapping reads to a hot block; drivestress redraws a block
    in flight (docs/workloads.md), so the rows compare the same requested
    skew, not the same achieved one."""
    def runs(b):
        a = b.args

        def ds():
            doc, _ = b.drivestress(f"randread {dist} qd{qd}",
                                   random_ds_args(a, qd) + ["--distribution", dist])
            return {"ds-skew": b.ds_measure(b.ds_phase(doc, "random"), "iops")}

        def fio():
            b.fio_layout(1)
            doc, _ = b.fio(f"randread {dist} qd{qd}", b.fio_common() + b.fio_uring(qd) +
                           b.fio_random("randread") + [f"random_distribution={dist}"],
                           b.fio_random_files(1))
            return {"fio-skew": b.fio_measure(doc, ["read"])}
        return [("drivestress", ds), ("fio", fio)]

    rows = [(f"randread-{dist}-qd{qd}", f"randread 4K {dist} QD{qd}, ds verifies (IOPS)", "IOPS",
             "ds-skew", "fio-skew", True)]
    return f"skew-qd{qd}", rows, runs


def group_bsmix(mix=((4, 60), (16, 20), (128, 20)), qd=32):
    """Issue 32's size mix: 70/30 random I/O of 4K, 16K and 128K by weight,
    drivestress verifying every read, against fio's bssplit with fresh
    buffers for every write (refill_buffers), as drivestress writes fresh
    data.  fio aligns every size to the smallest (its blockalign default);
    drivestress aligns each operation to its own size."""
    ds_mix = ",".join(f"{k}K:{w}" for k, w in mix)
    fio_mix = ":".join(f"{k}k/{w}" for k, w in mix)

    def runs(b):
        a = b.args

        def ds():
            doc, _ = b.drivestress(f"mix {ds_mix} qd{qd}",
                                   random_ds_args(a, qd, read_pct=70) + ["--rand-block", ds_mix])
            return {"ds-bsmix": b.ds_measure(b.ds_phase(doc, "random"), "iops")}

        def fio():
            b.fio_layout(1)
            doc, _ = b.fio(f"mix bssplit={fio_mix} qd{qd}",
                           b.fio_common() + b.fio_uring(qd) + b.fio_random("randrw") +
                           ["rwmixread=70", f"bssplit={fio_mix}", "refill_buffers=1"],
                           b.fio_random_files(1))
            return {"fio-bsmix": b.fio_measure(doc, ["read", "write"])}
        return [("drivestress", ds), ("fio", fio)]

    rows = [(f"bsmix-qd{qd}", f"randrw 70/30 {ds_mix} QD{qd} vs fio bssplit+refill (IOPS)",
             "IOPS", "ds-bsmix", "fio-bsmix", True)]
    return f"bsmix-qd{qd}", rows, runs


def group_nop():
    qd = 32

    def runs(b):
        a = b.args

        def ds():
            doc, _ = b.drivestress("nop qd32", random_ds_args(a, qd, backend="nop", verify=False),
                                   size=NOP_FILE_BYTES)
            if not any(n.startswith("nop:") for n in (doc["backend"]["io_uring"] or {}).get(
                    "notes", [])):
                raise BenchError("drivestress --backend nop did not say it issued NOPs")
            return {"ds-nop": b.ds_measure(b.ds_phase(doc, "random"), "iops")}

        def floor():
            b.fio_layout(1)
            return {"floor-nop": b.floor("nop qd32", b.fio_random_files(1)[0], qd, mode="nop")}

        def tio():
            return {"tio": b.tio("nop qd32", qd)}
        out = [("drivestress", ds)]
        if a.floor_exe and b.direct:
            out.append(("floor", floor))
        if a.tio:
            out.append(("t/io_uring", tio))
        return out

    rows = [("nop-qd32", "NOP QD32, engine only, vs t/io_uring -N1 (IOPS)", "IOPS", "ds-nop",
             "tio", True, "floor-nop")]
    return "nop-qd32", rows, runs


def group_seq():
    seq_qd = 8  # drivestress's sequential depth (its JSON: backend.seq_qd_per_worker)
    name = "fio-seq.dat"

    def runs(b):
        def ds(verify):
            def run():
                extra = ["--phases", "seq-write,seq-read"] + ([] if verify else ["--no-verify"])
                doc, _ = b.drivestress(f"seq{'' if verify else ' no-verify'}", extra,
                                       size=b.args.seq_size)
                if doc["backend"]["seq_qd_per_worker"] != seq_qd:
                    log(f"bench: note: drivestress seq QD is {doc['backend']['seq_qd_per_worker']},"
                        f" fio uses {seq_qd}")
                w = b.ds_measure(b.ds_phase(doc, "seq-write"), "bandwidth_bytes_per_sec")
                r = b.ds_measure(b.ds_phase(doc, "seq-read"), "bandwidth_bytes_per_sec")
                if not verify:
                    return {"ds-sr-nv": r}
                pw, pr = b.ds_phase(doc, "seq-write"), b.ds_phase(doc, "seq-read")
                total = Measurement((pw["write_bytes"] + pr["read_bytes"]) /
                                    (pw["elapsed_s"] + pr["elapsed_s"]),
                                    w.cpu_s + r.cpu_s, w.ops + r.ops)
                return {"ds-sw": w, "ds-sr": r, "ds-swr": total}
            return run

        def fio_write_read():
            common = b.fio_common(b.args.seq_size) + b.fio_uring(seq_qd) + ["bs=1M"]
            b.remove([name])
            doc, _ = b.fio("seq write", common + ["rw=write"], [name])
            w = b.fio_measure(doc, ["write"], "bw_bytes")
            doc, _ = b.fio("seq read", common + ["rw=read"], [name])
            r = b.fio_measure(doc, ["read"], "bw_bytes")
            b.remove([name])
            doc, _ = b.fio("seq write refill", common + ["rw=write", "refill_buffers=1"], [name])
            wr = b.fio_measure(doc, ["write"], "bw_bytes")
            b.remove([name])
            return {"fio-sw": w, "fio-sr": r, "fio-sw-refill": wr}

        def fio_verify():
            b.remove([name])
            doc, _ = b.fio("seq write+verify crc32c", b.fio_common(b.args.seq_size) +
                           b.fio_uring(seq_qd) + [
                "bs=1M", "rw=write", "verify=crc32c", "do_verify=1", "verify_state_save=0"], [name])
            b.remove([name])
            job = b.fio_measure(doc, ["write", "read"], "bw_bytes")
            j = doc["jobs"][0]
            io_bytes = j["write"]["io_bytes"] + j["read"]["io_bytes"]
            total = Measurement(io_bytes / (j["job_runtime"] / 1000.0), job.cpu_s, job.ops)
            # The verify pass is fio's read direction of this job; its CPU
            # cannot be split from the write pass: whole job per op.
            vr = Measurement(j["read"]["bw_bytes"], job.cpu_s, job.ops,
                             {"verify_pass_runtime_s": j["read"]["runtime"] / 1000.0})
            return {"fio-vr": vr, "fio-vt": total}
        return [("drivestress", ds(True)), ("fio", fio_write_read), ("drivestress", ds(False)),
                ("fio", fio_verify)]

    rows = [
        ("seq-write", "seq write 1M (MiB/s)", "MiB/s", "ds-sw", "fio-sw", True),
        ("seq-write-vs-refill", "seq write 1M vs fio refill (MiB/s)", "MiB/s", "ds-sw",
         "fio-sw-refill", True),
        ("seq-read-verify-vs-crc32c", "seq read+verify vs fio verify=crc32c (MiB/s)", "MiB/s",
         "ds-sr", "fio-vr", True),
        ("seq-read-verify-vs-read", "seq read+verify vs fio read (MiB/s)", "MiB/s", "ds-sr",
         "fio-sr", True),
        ("seq-read-noverify", "seq read no-verify vs fio read (MiB/s)", "MiB/s", "ds-sr-nv",
         "fio-sr", True),
        ("seq-write-verify-total", "seq write+read+verify total (MiB/s)", "MiB/s", "ds-swr",
         "fio-vt", True),
    ]
    return "seq", rows, runs


def pair_row(row_id, title, unit, a, a_name, b=None, b_name=None, compare="value"):
    """A row of two figures of the same repetitions that need not be
    drivestress against fio: A (samples key a) against B (key b, or none:
    A's figure alone), on their value or (compare="cpu") their CPU per
    operation; a_name and b_name say what each is."""
    return {"id": row_id, "case": title, "unit": unit, "a": a, "a_name": a_name, "b": b,
            "b_name": b_name, "compare": compare}
