"""One measurement, and the Bench that runs drivestress, fio and t/io_uring
and reads their figures from their JSON."""

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
from benchlib.environment import *  # noqa: F401,F403


class Measurement:
    """One figure of one run: value (IOPS or bytes/s, or in `unit` when
    given, e.g. "us"), CPU seconds and ops."""

    def __init__(self, value, cpu_s, ops, extra=None, unit=None):
        self.value = value
        self.cpu_s = cpu_s
        self.ops = ops
        self.extra = extra or {}
        self.unit = unit

    @property
    def cpu_s_per_mop(self):
        return self.cpu_s / self.ops * 1e6 if self.ops else None

    def as_dict(self):
        d = {"value": self.value, "cpu_s": self.cpu_s, "ops": self.ops,
             "cpu_s_per_mop": self.cpu_s_per_mop}
        d.update(self.extra)
        return d


class Bench:
    def __init__(self, args, target_dir, children, workdir):
        self.args = args
        self.dir = target_dir
        self.children = children
        self.workdir = workdir
        self.direct = probe_direct_io(target_dir)
        self.ds = args.ds_exe
        self.fio_no_fixedbufs = False
        self.notes = []  # deviations from the intended settings, for the results
        self.log_runs = []  # every run: tool, label, argv, rusage, wall
        self.throttle = None  # the target's BlkioThrottle (the rate case), made once
        self.throttle_reason = None  # why there is none, once asked
        self.loops = []  # the targets case's loop devices
        self.loop_dirs = None  # their mount points, once asked
        self.replay = None  # the replay case's ReplaySetup once made (False: cannot be)
        self.cleanups = []  # undone by close(), last first

    def read_throttle(self):
        """A BlkioThrottle on the target's device, or None (noted once, with
        the reason) where none can be set."""
        if self.throttle or self.throttle_reason:
            return self.throttle
        t = BlkioThrottle(self.dir)
        self.throttle_reason = t.available()
        if not self.throttle_reason:
            try:
                t.limit_reads(0)  # the kernel refuses a partition here
                self.throttle = t
            except BenchError as e:
                t.remove()
                self.throttle_reason = str(e)
        if self.throttle_reason:
            self.note(f"no blkio throttle ({self.throttle_reason}): the closed loop held at the "
                      "rate case's IOPS is not run, its CPU row is empty")
        return self.throttle

    def target_dirs(self, n):
        """Mount points of n fresh ext4 loop devices over files in /dev/shm
        (made once, removed by close()), or [] (noted) where none can be."""
        if self.loop_dirs is not None:
            return self.loop_dirs[:n]
        self.loop_dirs = []
        device = 2 * self.args.size + 512 * MiB  # drivestress's file and fio's, and ext4's
        st = os.statvfs("/dev/shm")
        free = st.f_bavail * st.f_frsize
        if os.geteuid() != 0:
            self.note("the targets case needs root (loop devices): not run")
        elif free < n * device + 256 * MiB:
            self.note(f"the targets case needs {n} x {device // MiB} MiB in /dev/shm, "
                      f"{free // MiB} MiB free: not run")
        else:
            for i in range(n):
                self.loops.append(LoopTarget(device, f"-t{i}"))
                self.loop_dirs.append(self.loops[-1].setup())
            if self.args.pin:
                self.note("the targets case runs unpinned: drivestress --cpus puts worker k of "
                          "every target on the list's CPU k, so one worker per target would "
                          "share one CPU where fio's jobs are split")
        return self.loop_dirs[:n]

    def note(self, text):
        log(f"bench: note: {text}")
        self.notes.append(text)

    def close(self):
        """Removes the throttle's cgroup, the targets case's devices and
        what a case registered in cleanups."""
        if self.throttle:
            self.throttle.remove()
        for t in self.loops:
            t.teardown()
        while self.cleanups:
            self.cleanups.pop()()

    # -- drivestress

    def drivestress(self, label, extra, files=1, size=None, dirs=None, cgroup=None, pin=True):
        """Runs drivestress with --json on `dirs` (default the target); returns
        the parsed document and the child's rusage."""
        (doc, ru, _), = self.drivestress_many(label, [(extra, dirs or [self.dir])], files, size,
                                              cgroup, pin)
        return doc, ru

    def drivestress_many(self, label, jobs, files=1, size=None, cgroup=None, pin=True,
                         timeout=None):
        """Runs one drivestress --json per (extra, dirs) of `jobs`, all at
        once (in the cgroup whose cgroup.procs is `cgroup`, and with --cpus
        --pin unless pin is False); returns per job (document, rusage,
        time.monotonic() when it ended)."""
        size = size or self.args.size
        argvs = []
        for j, (extra, dirs) in enumerate(jobs):
            for d in dirs:
                self.wait_for_free(files * size, d)
            out_json = os.path.join(self.workdir, f"ds-{j}.json")
            if os.path.exists(out_json):
                os.unlink(out_json)
            # One pass a sequential phase, as fio's one write of the file
            # (the default would repeat passes until a second has passed).
            once = [] if "--seq-time" in extra else ["--seq-time", "0"]
            argv = [self.ds, "--size", str(size), "--files", str(files), "--progress", "never",
                    "--seed", "1", "--json", out_json] + once + extra + dirs
            if self.args.pin and pin:
                argv[1:1] = ["--cpus", self.args.pin]
            argvs.append((argv, os.path.join(self.workdir, f"ds-{j}.out"),
                          os.path.join(self.workdir, f"ds-{j}.err")))
        dirs_total = sum(len(dirs) for _, dirs in jobs)
        timeout = timeout or self.timeout_for(dirs_total * files * size)
        results = self.children.run_many(argvs, timeout=timeout,
                                         cgroup=cgroup)
        out = []
        for j, ((argv, _, err), (code, ru, wall, end)) in enumerate(zip(argvs, results)):
            name = label if len(jobs) == 1 else f"{label} [{j + 1}/{len(jobs)}]"
            self.log_runs.append({"tool": "drivestress", "label": name, "argv": argv,
                                  "exit_code": code, "rusage": rusage_dict(ru), "wall_s": wall,
                                  "load1_after": loadavg()[0]})
            if code != 0:
                raise BenchError(f"drivestress ({name}) exited {code}: {self.tail(err)}")
            with open(argv[argv.index("--json") + 1]) as f:
                doc = json.load(f)
            self.log_runs[-1]["backend"] = doc.get("backend")
            self.log_runs[-1]["direct_io"] = doc.get("target", {}).get("direct_io")
            if doc["summary"]["mismatch_total"]:
                raise BenchError(f"drivestress ({name}) reported mismatches on the bench target")
            out.append((doc, ru, end))
        return out

    @staticmethod
    def ds_phase(doc, name):
        # One iteration: its phase, histograms included (schema_version 2).
        for p in doc["merged_phases"]:
            if p["phase"] == name:
                return p
        raise BenchError(f"drivestress JSON has no {name} phase")

    @staticmethod
    def ds_measure(phase, value_key):
        ops = phase["read_ops"] + phase["write_ops"]
        cpu = phase["cpu"]["user_s"] + phase["cpu"]["system_s"]
        lat = phase["latency"]["percentiles_ns"]
        return Measurement(phase[value_key], cpu, ops,
                           {"elapsed_s": phase["elapsed_s"], "p50_ns": lat["p50"],
                            "p99_ns": lat["p99"]})

    # -- fio

    def fio(self, label, global_opts, files, dirs=None, pin=True, timeout=None):
        """Runs fio, one job per file (job j on files[j], in dirs[j] if given,
        else in the target; files None: one job, on what global_opts name,
        e.g. filename=/dev/loop1 or read_iolog=FILE); returns the parsed
        document.  global_opts: list
        of "key=value" options for every job; pin: whether --pin applies.
        Registered buffers need RLIMIT_MEMLOCK headroom (a non-root limit is
        often too small): on ENOMEM fio runs again without them, and every
        later run too, and the results say so."""
        if self.fio_no_fixedbufs:
            global_opts = [o for o in global_opts if o != "fixedbufs=1"]
        try:
            return self.fio_once(label, global_opts, files, dirs, pin, timeout)
        except FioJobError as e:
            if e.errno_codes != [errno.ENOMEM] or "fixedbufs=1" not in global_opts:
                raise BenchError(str(e))
            log("bench: note: fio cannot register buffers (ENOMEM: RLIMIT_MEMLOCK too low?); "
                "fio runs without fixedbufs from now on")
            self.fio_no_fixedbufs = True
            self.notes.append("fio ran without fixedbufs=1 (ENOMEM registering buffers)")
            return self.fio(label, global_opts, files, dirs, pin, timeout)

    def fio_once(self, label, global_opts, files, dirs=None, pin=True, timeout=None):
        out_json = os.path.join(self.workdir, "fio.json")
        if os.path.exists(out_json):
            os.unlink(out_json)
        if self.args.pin and pin:  # job i on the list's CPU i, as drivestress --cpus
            global_opts = global_opts + [f"cpus_allowed={self.args.pin}",
                                         "cpus_allowed_policy=split"]
        argv = ["fio", "--output-format=json", f"--output={out_json}"]
        if files is None:  # one job whose options name what it does I/O to
            argv += ["--name=job0"] + [f"--{o}" for o in global_opts]
            files = [None]
        else:
            argv += ([] if dirs else [f"--directory={self.dir}"]) + \
                [f"--{o}" for o in global_opts]
            for j, name in enumerate(files):
                argv += [f"--name=job{j}"] + ([f"--directory={dirs[j]}"] if dirs else []) + \
                    [f"--filename={name}"]
        code, ru, wall = self.children.run(argv, os.path.join(self.workdir, "fio.out"),
                                           os.path.join(self.workdir, "fio.err"),
                                           timeout=timeout or
                                           self.timeout_for(len(files) * self.args.size))
        self.log_runs.append({"tool": "fio", "label": label, "argv": argv, "exit_code": code,
                              "rusage": rusage_dict(ru), "wall_s": wall,
                              "load1_after": loadavg()[0]})
        doc = None
        try:
            with open(out_json) as f:
                text = f.read()
            doc = json.loads(text[text.index("{"):])  # fio may print notes before the JSON
        except (OSError, ValueError):
            pass
        errors = [j["error"] for j in doc["jobs"]] if doc else []
        if code != 0 or doc is None or any(errors):
            detail = self.tail(os.path.join(self.workdir, "fio.err")) or \
                self.tail(os.path.join(self.workdir, "fio.out"))
            named = ", ".join(f"{e} ({os.strerror(e)})" for e in errors if e)
            raise FioJobError(f"fio ({label}) exited {code}"
                              f"{', job errors ' + named if named else ''}"
                              f"{': ' + detail if detail else ''}", [e for e in errors if e])
        return doc, ru

    @staticmethod
    def fio_measure(doc, ddirs, value="iops"):
        """Sums over jobs: value ("iops" or "bw_bytes") and ops over `ddirs`,
        CPU = (usr_cpu + sys_cpu)% x job_runtime."""
        total = ops = cpu = 0.0
        p50 = []
        for j in doc["jobs"]:
            cpu += (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
            for d in ddirs:
                total += j[d][value]
                ops += j[d]["total_ios"]
                pct = j[d]["clat_ns"].get("percentile", {})
                if "50.000000" in pct:
                    p50.append(pct["50.000000"])
        return Measurement(total, cpu, int(ops),
                           {"job_runtime_s": max(j["job_runtime"] for j in doc["jobs"]) / 1000.0,
                            "clat_p50_ns": max(p50) if p50 else None})

    # -- the floor (bench/floor_randread)

    def floor_wait(self, qd):
        """The floor's --wait for one worker at depth `qd`: what drivestress's
        --wait auto chooses there (model/plan.h decide_wait), so that each
        row's floor waits the way drivestress does: a 50 us spin at depth 4
        or less when a CPU is left over (pinned: drivestress --cpus gives
        the worker its own), else a sleep in io_uring_enter."""
        spare = bool(self.args.pin) or len(os.sched_getaffinity(0)) >= 2
        return "spin:50" if qd <= 4 and spare else "enter"

    def floor(self, label, name, qd, touch=False, mode=None):
        """Runs the bare liburing loop on fio's laid-out file; its own JSON.
        touch: the loop also loads every byte it read (the verify rows);
        mode: "nop" (NOPs on the same ring) or "mix70" (70 % reads touched,
        30 % writes of fresh data), see bench/floor_randread.cpp.  It waits
        as floor_wait(qd) says."""
        argv = [self.args.floor_exe, f"--wait={self.floor_wait(qd)}",
                os.path.join(self.dir, name), str(qd), f"{self.args.time:g}"]
        mode = mode or ("touch" if touch else None)
        if mode:
            argv += ["4096", mode]
        cpus = {cpus_of(self.args.pin)[0]} if self.args.pin else None
        d, _ = self.run_json_program("floor", label, argv, self.timeout_for(0), cpus)
        return Measurement(d["iops"], d["cpu_user_s"] + d["cpu_system_s"], d["ops"],
                           {"reads": d.get("reads"), "writes": d.get("writes"),
                            "wait": d.get("wait")})

    def run_json_program(self, tool, label, argv, timeout, cpus=None):
        """Runs one of bench/'s programs that print a JSON document (on
        `cpus` if given), logged as `tool`; returns (document, rusage).
        BenchError, with its stderr's tail, when it exits other than 0."""
        out, err = (os.path.join(self.workdir, f"{tool}.{x}") for x in ("out", "err"))
        code, ru, wall = self.children.run(argv, out, err, timeout=timeout, cpus=cpus)
        self.log_runs.append({"tool": tool, "label": label, "argv": argv, "exit_code": code,
                              "rusage": rusage_dict(ru), "wall_s": wall,
                              "load1_after": loadavg()[0]})
        if code != 0:
            raise BenchError(f"{os.path.basename(argv[0])} ({label}) exited {code}: "
                             f"{self.tail(err)}")
        with open(out) as f:
            return json.load(f), ru

    # -- fio's t/io_uring (--tio)

    def tio(self, label, qd):
        """Runs t/io_uring -N1 (NOPs, one thread) for --time seconds: IOPS
        the median of its per-second lines, CPU its rusage over
        tio_operations."""
        out = os.path.join(self.workdir, "tio.out")
        # Current t/io_uring wants a file even with -N1 (it opens it and
        # issues NOPs); older builds take one too.  A small one of ours.
        nop_file = os.path.join(self.workdir, "tio-nop.dat")
        with open(nop_file, "wb") as f:
            f.truncate(MiB)
        argv = tio_argv(self.args.tio, qd, max(1, round(self.args.time)), nop_file, self.direct)
        cpus = {cpus_of(self.args.pin)[0]} if self.args.pin else None
        code, ru, wall = self.children.run(argv, out, os.path.join(self.workdir, "tio.err"),
                                           timeout=self.timeout_for(0), cpus=cpus)
        self.log_runs.append({"tool": "t/io_uring", "label": label, "argv": argv,
                              "exit_code": code, "rusage": rusage_dict(ru), "wall_s": wall,
                              "load1_after": loadavg()[0]})
        with open(out, errors="replace") as f:
            per_second = parse_tio_output(f.read())
        if code != 0 or not per_second:
            raise BenchError(f"t/io_uring ({label}) exited {code} with "
                             f"{len(per_second)} IOPS lines: "
                             f"{self.tail(os.path.join(self.workdir, 'tio.err')) or self.tail(out)}")
        return Measurement(median(per_second), ru.ru_utime + ru.ru_stime,
                           tio_operations(per_second, wall), {"per_second": per_second})

    def fio_common(self, size=None):
        return ([f"direct={1 if self.direct else 0}", f"size={size or self.args.size}"] +
                self.args.fio_opt)

    def fio_uring(self, qd):
        batch = self.args.fio_batch or max(1, qd // 4)
        batch = min(batch, qd)
        return ["ioengine=io_uring", "fixedbufs=1", "registerfiles=1", f"iodepth={qd}",
                f"iodepth_batch_submit={batch}", f"iodepth_batch_complete_min={batch}",
                f"iodepth_batch_complete_max={qd}"]

    def fio_random(self, rw):
        """A timed 4 KiB random job: rw=randread or randrw, no random map
        (as drivestress, which may pick a block again)."""
        return [f"rw={rw}", "bs=4k", "norandommap=1", f"runtime={self.args.time:g}",
                "time_based=1"]

    def fio_random_files(self, n):
        return [f"fio-rand-{i}.dat" for i in range(n)]

    def fio_layout(self, n, dirs=None):
        """Writes fio's random-case files once (sequential 1 MiB writes): n
        in the target, or one in each of `dirs`."""
        names = self.fio_random_files(n) if not dirs else self.fio_random_files(1) * len(dirs)
        paths = [os.path.join(d, x) for d, x in zip(dirs or [self.dir] * n, names)]
        if all(os.path.exists(x) and os.path.getsize(x) == self.args.size for x in paths):
            return
        self.fio("layout", self.fio_common() + self.fio_uring(8) + ["rw=write", "bs=1M"], names,
                 dirs)

    FIO_VERIFY_FILE = "fio-rand-verify.dat"

    def fio_verify_layout(self):
        """Writes the file fio's verified random reads check once: 4 KiB
        blocks, each with fio's crc32c header."""
        p = os.path.join(self.dir, self.FIO_VERIFY_FILE)
        if os.path.exists(p) and os.path.getsize(p) == self.args.size:
            return
        self.fio("verify layout", self.fio_common() + self.fio_uring(32) + [
            "rw=write", "bs=4k", "verify=crc32c", "do_verify=0", "verify_state_save=0"],
            [self.FIO_VERIFY_FILE])

    def remove(self, names):
        for x in names:
            try:
                os.unlink(os.path.join(self.dir, x))
            except FileNotFoundError:
                pass
            except OSError as e:
                log(f"bench: cannot remove {os.path.join(self.dir, x)}: {e.strerror}")

    def wait_for_free(self, bytes_, directory=None, limit_s=30.0):
        """Waits until the target has room for `bytes_` (plus 64 MiB) free:
        fio with registerfiles=1 leaves its ring to the kernel's deferred
        teardown, which drops the last reference to a file fio already
        deleted up to seconds after fio exited, so its blocks free late."""
        deadline = time.monotonic() + limit_s
        while True:
            os.sync()
            st = os.statvfs(directory or self.dir)
            if st.f_bavail * st.f_frsize >= bytes_ + 64 * MiB or time.monotonic() > deadline:
                return
            time.sleep(0.1)

    def timeout_for(self, bytes_):
        # Generous: the random phase plus 10 s per GiB at a crawl, plus start-up.
        return self.args.time * 4 + 60 + 10 * bytes_ / GiB

    @staticmethod
    def tail(path, n=3):
        try:
            with open(path, errors="replace") as f:
                lines = [x.strip() for x in f.read().splitlines() if x.strip()]
            return " | ".join(lines[-n:])
        except OSError:
            return ""


def tio_argv(tio, qd, seconds, nop_file, direct):
    """t/io_uring's command line for NOPs at `qd` on one thread: batches of a
    quarter of the depth, the file last (current builds refuse -N1 without
    one), O_DIRECT off where the file's filesystem refuses it."""
    batch = max(1, qd // 4)
    argv = [tio, "-N1", f"-d{qd}", f"-s{batch}", f"-c{batch}", "-n1", f"-r{seconds}"]
    if not direct:
        argv.append("-O0")
    return argv + [nop_file]


def tio_operations(per_second, wall_s):
    """The operations of a t/io_uring run, for its CPU per operation: its
    rusage covers the whole run, but with -r N it prints N - 1 lines as
    often as N (it stops before printing the last second), so the lines'
    sum would be one second short (CPU per operation 1.25x too high at
    -r5).  The mean of the lines over the run's wall time instead."""
    return int(sum(per_second) / len(per_second) * wall_s) if per_second else 0


def parse_tio_output(text):
    """The per-second IOPS of t/io_uring's lines "IOPS=123, ...",
    "IOPS=456.78K, ..." or "IOPS=1.23M, ..." (its own units: 1000s)."""
    scale = {"": 1, "K": 1e3, "M": 1e6}
    return [float(m.group(1)) * scale[m.group(2)]
            for m in re.finditer(r"^IOPS=([0-9.]+)([KM]?),", text, re.MULTILINE)]
