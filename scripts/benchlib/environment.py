"""What the machine was doing: the commit, the CPU, its load and steal."""

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


def snapshot(path, workdir, prefix=""):
    """Copies an executable into workdir as prefix + its name (retrying
    while a rebuild replaces it); a drivestress (named so, or any prefixed
    copy) must answer --version."""
    dest = os.path.join(workdir, prefix + os.path.basename(path))
    for attempt in range(30):
        try:
            shutil.copy2(path, dest)
            subprocess.run([dest, "--version"] if path.endswith("drivestress") else ["true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            return dest
        except (OSError, subprocess.CalledProcessError):
            time.sleep(2)
    raise BenchError(f"{path}: cannot copy a working binary (is a rebuild running?)")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def git_info(root):
    def git(*a):
        r = subprocess.run(["git", "-c", f"safe.directory={root}", "-C", root] + list(a),
                           stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else None
    commit = git("rev-parse", "HEAD")
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(dirty)}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg():
    return list(os.getloadavg())


def cpu_jiffies():
    """(steal, total) from /proc/stat's cpu line, or None.  On a virtual
    machine, steal is time the host ran something else while this guest
    wanted a CPU: a run with a few % of it can lose a fifth of its IOPS."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    return (fields[7], sum(fields)) if len(fields) == 8 else None


def steal_fraction(before, after):
    if not before or not after or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def tool_version(argv):
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.stdout.strip().splitlines()[0] if r.stdout.strip() else None
