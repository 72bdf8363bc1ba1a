"""The child processes a bench runs: started, timed, stopped on a signal."""

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


class Children:
    """Runs children (one, or several at once); records their rusage; stops
    them on interrupt."""

    def __init__(self):
        self.running = []

    def run(self, argv, stdout_path, stderr_path, timeout, cpus=None, cgroup=None):
        """Runs argv to completion in the directory of stdout_path (fio drops
        state files in its working directory), on `cpus` (a set) if given,
        in the cgroup whose cgroup.procs is `cgroup` if given; returns
        (exit code, rusage, wall seconds)."""
        code, ru, wall, _ = self.run_many([(argv, stdout_path, stderr_path)], timeout, cpus,
                                          cgroup)[0]
        return code, ru, wall

    def run_many(self, jobs, timeout, cpus=None, cgroup=None):
        """Starts every (argv, stdout_path, stderr_path) of `jobs` at once and
        waits for all; returns per job (exit code, rusage, wall seconds,
        time.monotonic() when it ended)."""
        def pre():
            if cgroup:
                with open(cgroup, "w") as f:
                    f.write(f"{os.getpid()}\n")
            if cpus:
                os.sched_setaffinity(0, cpus)
        files, starts, results = [], [], [None] * len(jobs)
        try:
            for argv, stdout_path, stderr_path in jobs:
                out, err = open(stdout_path, "wb"), open(stderr_path, "wb")
                files += [out, err]
                starts.append(time.monotonic())
                self.running.append(subprocess.Popen(
                    argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                    cwd=os.path.dirname(os.path.abspath(stdout_path)),
                    preexec_fn=pre if (cpus or cgroup) else None))
            deadline = starts[0] + timeout
            while any(r is None for r in results):
                for i, p in enumerate(self.running):
                    if results[i] is not None:
                        continue
                    pid, status, ru = os.wait4(p.pid, os.WNOHANG)
                    if pid:
                        p.returncode = os.waitstatus_to_exitcode(status)
                        end = time.monotonic()
                        results[i] = (p.returncode, ru, end - starts[i], end)
                if any(r is None for r in results):
                    if time.monotonic() > deadline:
                        self.stop()
                        argv = jobs[results.index(None)][0]
                        raise BenchError(f"{os.path.basename(argv[0])} did not finish within "
                                         f"{timeout:.0f} s: {' '.join(argv)}")
                    time.sleep(0.02)
        finally:
            for f in files:
                f.close()
        self.running = []
        return results

    def stop(self):
        """SIGINT (drivestress then cleans its files), then SIGTERM, then SIGKILL."""
        for sig, grace in ((signal.SIGINT, 15), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            alive = [p for p in self.running if p.poll() is None]
            if not alive:
                break
            for p in alive:
                try:
                    p.send_signal(sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + grace
            for p in alive:
                try:
                    p.wait(max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
        self.running = []


def rusage_dict(ru):
    return {"user_s": ru.ru_utime, "system_s": ru.ru_stime, "max_rss_kib": ru.ru_maxrss}
