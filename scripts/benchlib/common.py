"""Units, errors, logging and argument types every part of the bench shares."""

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


KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
# drivestress --backend nop's files: created (and fallocated), never written.
NOP_FILE_BYTES = 64 * MiB


class BenchError(Exception):
    """A failure that ends the bench with one line on stderr and exit 1."""


class FioJobError(Exception):
    """fio failed; errno_codes are its jobs' error numbers."""

    def __init__(self, message, errno_codes):
        super().__init__(message)
        self.errno_codes = errno_codes


class Interrupted(Exception):
    """SIGINT/SIGTERM/SIGHUP arrived; tear down and leave."""

    def __init__(self, signum):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_size(text):
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(i?B)?\s*", text, re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (use e.g. 512M, 1G)")
    mult = {"": 1, "K": KiB, "M": MiB, "G": GiB, "T": 1024 * GiB}[m.group(2).upper()]
    value = int(m.group(1)) * mult
    if value <= 0:
        raise argparse.ArgumentTypeError(f"size must be positive: {text!r}")
    return value


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text!r}")
    return value


def cpus_of(text):
    """'1', '0-1' or '0,2' -> [1], [0, 1], [0, 2]; ValueError otherwise."""
    cpus = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus += range(int(lo), int(hi or lo) + 1)
    if not cpus:
        raise ValueError(text)
    return cpus


def cpu_list(text):
    """A --pin value: a CPU list whose CPUs this process may run on."""
    try:
        cpus = cpus_of(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a CPU list: {text!r}")
    allowed = os.sched_getaffinity(0)
    if any(c not in allowed for c in cpus):
        raise argparse.ArgumentTypeError(
            f"{text!r}: CPUs must be among {','.join(map(str, sorted(allowed)))}")
    return text


def positive_float(text):
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0: {text!r}")
    return value


def fmt_size(n):
    for unit, mult in (("G", GiB), ("M", MiB), ("K", KiB)):
        if n % mult == 0:
            return f"{n // mult}{unit}"
    return str(n)


def median(values):
    return stats.median(values)


def spread(values):
    """(max - min) / median: how far apart the repetitions were."""
    return stats.spread(stats.estimate(values))


def fmt_value(v, unit):
    if v is None:
        return "-"
    if unit == "us":
        return f"{v:.1f} us"
    if unit == "%":
        return f"{v:.2f}%"
    if unit == "IOPS":
        return f"{v / 1000:.1f}k" if v >= 1000 else f"{v:.0f}"
    return f"{v / MiB:.1f}"
