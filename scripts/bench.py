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
                     On the verify rows the floor also loads every byte of
                     each block it read (floor_randread ... touch): the
                     least any verifying tool must add, whatever it checks.
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
A/B rows give both sides' medians and the ratio A/B of each repetition's two
figures (paired: a load that drifts between repetitions moves both), its
median and range.
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
import stats  # noqa: E402

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


# ---------------------------------------------------------------- children

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


# ---------------------------------------------------------------- target

def run_cmd(argv, check=True):
    res = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if check and res.returncode != 0:
        raise BenchError(f"{' '.join(argv)}: exit {res.returncode}: {res.stderr.strip()}")
    return res


class LoopTarget:
    """ext4 on a loop device over a file in /dev/shm, mounted on a temp dir.

    Every step records what it created so teardown() undoes exactly that,
    whatever point setup reached.
    """

    def __init__(self, device_bytes, name=""):
        self.device_bytes = device_bytes
        self.image = f"/dev/shm/dsbench-{os.getpid()}{name}.img"
        self.loop = None
        self.mountpoint = None
        self.mounted = False
        self.description = ""

    def setup(self):
        st = os.statvfs("/dev/shm")
        free = st.f_bavail * st.f_frsize
        if free < self.device_bytes + 256 * MiB:
            raise BenchError(f"/dev/shm: {free // MiB} MiB free, need "
                             f"{self.device_bytes // MiB} MiB for the loop image (see --device-size)")
        with open(self.image, "wb") as f:
            f.truncate(self.device_bytes)
        self.loop = run_cmd(["losetup", "-f", "--show", self.image]).stdout.strip()
        # Initialise inode tables and journal now: lazy init would run a
        # kernel thread writing to the device during the first measurements.
        run_cmd(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0",
                 self.loop])
        self.mountpoint = tempfile.mkdtemp(prefix="dsbench-mnt-")
        run_cmd(["mount", "-o", "noatime", self.loop, self.mountpoint])
        self.mounted = True
        self.description = (f"ext4 on {self.loop} over {self.image} "
                            f"({fmt_size(self.device_bytes)}, tmpfs)")
        return self.mountpoint

    def teardown(self):
        if self.mounted:
            for attempt in range(20):
                if run_cmd(["umount", self.mountpoint], check=False).returncode == 0:
                    self.mounted = False
                    break
                time.sleep(0.25)
            if self.mounted:
                log(f"bench: umount {self.mountpoint} busy; detaching lazily")
                run_cmd(["umount", "-l", self.mountpoint], check=False)
                self.mounted = False
        if self.mountpoint:
            try:
                os.rmdir(self.mountpoint)
            except OSError as e:
                log(f"bench: rmdir {self.mountpoint}: {e.strerror}")
            self.mountpoint = None
        if self.loop:
            res = run_cmd(["losetup", "-d", self.loop], check=False)
            if res.returncode != 0:
                log(f"bench: losetup -d {self.loop}: {res.stderr.strip()}")
            self.loop = None
        if os.path.exists(self.image):
            os.unlink(self.image)


class BlkioThrottle:
    """A cgroup v1 blkio group of its own holding the block device under a
    directory to a read IOPS cap (blkio.throttle.read_iops_device): a child
    put in it (Children.run's cgroup = self.procs) gets at most that many
    reads a second from the device.  available() says whether one can be
    made here, and why not; remove() deletes the group."""

    ROOT = "/sys/fs/cgroup/blkio"

    def __init__(self, directory):
        st = os.stat(directory)
        self.device = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
        self.path = None
        self.procs = None

    def available(self):
        """None when a throttle can be set, else the reason it cannot."""
        if os.geteuid() != 0:
            return "needs root"
        if not os.path.isfile(os.path.join(self.ROOT, "blkio.throttle.read_iops_device")):
            return f"no cgroup v1 blkio throttle at {self.ROOT}"
        return None

    def limit_reads(self, iops):
        """Creates the group (once) and caps reads at `iops` (0 lifts the cap);
        BenchError when the kernel refuses (a partition, a device without a
        request queue)."""
        if self.path is None:
            self.path = tempfile.mkdtemp(prefix=f"dsbench-{os.getpid()}-", dir=self.ROOT)
            self.procs = os.path.join(self.path, "cgroup.procs")
        try:
            with open(os.path.join(self.path, "blkio.throttle.read_iops_device"), "w") as f:
                f.write(f"{self.device} {int(iops)}\n")
        except OSError as e:
            raise BenchError(f"blkio throttle on device {self.device}: {e.strerror}")

    def remove(self):
        if self.path is None:
            return
        for _ in range(50):  # a child leaves the group when it is reaped
            try:
                os.rmdir(self.path)
                self.path = None
                return
            except OSError:
                time.sleep(0.1)
        log(f"bench: cannot remove cgroup {self.path}")


def probe_direct_io(directory):
    """True when files in `directory` open with O_DIRECT (tmpfs refuses)."""
    path = os.path.join(directory, f".dsbench-probe-{os.getpid()}")
    try:
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_DIRECT, 0o644)
        os.close(fd)
        return True
    except OSError:
        return False
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


def fs_type(directory):
    res = run_cmd(["findmnt", "-n", "-o", "FSTYPE", "-T", directory], check=False)
    if res.returncode != 0 or not res.stdout.strip():
        res = run_cmd(["stat", "-f", "-c", "%T", directory], check=False)
    return res.stdout.strip() or "unknown"


# ---------------------------------------------------------------- measurements

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
        """Removes the throttle's cgroup and the targets case's devices."""
        if self.throttle:
            self.throttle.remove()
        for t in self.loops:
            t.teardown()

    # -- drivestress

    def drivestress(self, label, extra, files=1, size=None, dirs=None, cgroup=None, pin=True):
        """Runs drivestress with --json on `dirs` (default the target); returns
        the parsed document and the child's rusage."""
        (doc, ru, _), = self.drivestress_many(label, [(extra, dirs or [self.dir])], files, size,
                                              cgroup, pin)
        return doc, ru

    def drivestress_many(self, label, jobs, files=1, size=None, cgroup=None, pin=True):
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
            argv = [self.ds, "--size", str(size), "--files", str(files), "--progress", "never",
                    "--seed", "1", "--json", out_json] + extra + dirs
            if self.args.pin and pin:
                argv[1:1] = ["--cpus", self.args.pin]
            argvs.append((argv, os.path.join(self.workdir, f"ds-{j}.out"),
                          os.path.join(self.workdir, f"ds-{j}.err")))
        dirs_total = sum(len(dirs) for _, dirs in jobs)
        results = self.children.run_many(argvs, timeout=self.timeout_for(dirs_total * files * size),
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

    def fio(self, label, global_opts, files, dirs=None, pin=True):
        """Runs fio, one job per file (job j on files[j], in dirs[j] if given,
        else in the target); returns the parsed document.  global_opts: list
        of "key=value" options for every job; pin: whether --pin applies.
        Registered buffers need RLIMIT_MEMLOCK headroom (a non-root limit is
        often too small): on ENOMEM fio runs again without them, and every
        later run too, and the results say so."""
        if self.fio_no_fixedbufs:
            global_opts = [o for o in global_opts if o != "fixedbufs=1"]
        try:
            return self.fio_once(label, global_opts, files, dirs, pin)
        except FioJobError as e:
            if e.errno_codes != [errno.ENOMEM] or "fixedbufs=1" not in global_opts:
                raise BenchError(str(e))
            log("bench: note: fio cannot register buffers (ENOMEM: RLIMIT_MEMLOCK too low?); "
                "fio runs without fixedbufs from now on")
            self.fio_no_fixedbufs = True
            self.notes.append("fio ran without fixedbufs=1 (ENOMEM registering buffers)")
            return self.fio(label, global_opts, files, dirs, pin)

    def fio_once(self, label, global_opts, files, dirs=None, pin=True):
        out_json = os.path.join(self.workdir, "fio.json")
        if os.path.exists(out_json):
            os.unlink(out_json)
        if self.args.pin and pin:  # job i on the list's CPU i, as drivestress --cpus
            global_opts = global_opts + [f"cpus_allowed={self.args.pin}",
                                         "cpus_allowed_policy=split"]
        argv = ["fio", "--output-format=json", f"--output={out_json}"] + \
            ([] if dirs else [f"--directory={self.dir}"]) + [f"--{o}" for o in global_opts]
        for j, name in enumerate(files):
            argv += [f"--name=job{j}"] + ([f"--directory={dirs[j]}"] if dirs else []) + \
                [f"--filename={name}"]
        code, ru, wall = self.children.run(argv, os.path.join(self.workdir, "fio.out"),
                                           os.path.join(self.workdir, "fio.err"),
                                           timeout=self.timeout_for(len(files) * self.args.size))
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

    def floor(self, label, name, qd, touch=False, mode=None):
        """Runs the bare liburing loop on fio's laid-out file; its own JSON.
        touch: the loop also loads every byte it read (the verify rows);
        mode: "nop" (NOPs on the same ring) or "mix70" (70 % reads touched,
        30 % writes of fresh data), see bench/floor_randread.cpp."""
        out = os.path.join(self.workdir, "floor.out")
        argv = [self.args.floor_exe, os.path.join(self.dir, name), str(qd), f"{self.args.time:g}"]
        mode = mode or ("touch" if touch else None)
        if mode:
            argv += ["4096", mode]
        cpus = {cpus_of(self.args.pin)[0]} if self.args.pin else None
        code, ru, wall = self.children.run(argv, out, os.path.join(self.workdir, "floor.err"),
                                           timeout=self.timeout_for(0), cpus=cpus)
        self.log_runs.append({"tool": "floor", "label": label, "argv": argv, "exit_code": code,
                              "rusage": rusage_dict(ru), "wall_s": wall,
                              "load1_after": loadavg()[0]})
        if code != 0:
            raise BenchError(f"floor_randread ({label}) exited {code}: "
                             f"{self.tail(os.path.join(self.workdir, 'floor.err'))}")
        with open(out) as f:
            d = json.load(f)
        return Measurement(d["iops"], d["cpu_user_s"] + d["cpu_system_s"], d["ops"],
                           {"reads": d.get("reads"), "writes": d.get("writes")})

    # -- fio's t/io_uring (--tio)

    def tio(self, label, qd):
        """Runs t/io_uring -N1 (NOPs, one thread) for --time seconds: IOPS
        the median of its per-second lines, CPU its rusage over their sum."""
        out = os.path.join(self.workdir, "tio.out")
        batch = max(1, qd // 4)
        secs = max(1, round(self.args.time))
        argv = [self.args.tio, "-N1", f"-d{qd}", f"-s{batch}", f"-c{batch}", "-n1", f"-r{secs}"]
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
        return Measurement(median(per_second), ru.ru_utime + ru.ru_stime, int(sum(per_second)),
                           {"per_second": per_second})

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


def parse_tio_output(text):
    """The per-second IOPS of t/io_uring's lines "IOPS=123, ...",
    "IOPS=456.78K, ..." or "IOPS=1.23M, ..." (its own units: 1000s)."""
    scale = {"": 1, "K": 1e3, "M": 1e6}
    return [float(m.group(1)) * scale[m.group(2)]
            for m in re.finditer(r"^IOPS=([0-9.]+)([KM]?),", text, re.MULTILINE)]


# ---------------------------------------------------------------- cases

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
        "sync": [group_sync(1), group_sync(2)],
        "mix": [group_mix()],
        "nop": [group_nop()],
        "seq": [group_seq()],
        "rate": [group_rate()],
        "targets": [group_targets()],
    }


# ---------------------------------------------------------------- extra figures

def run_pattern_bench(args, children, workdir):
    exe = args.pattern_exe
    if not exe:
        return {"error": "bench/pattern_bench not built"}
    out = os.path.join(workdir, "pattern.out")
    code, ru, wall = children.run([exe], out, os.path.join(workdir, "pattern.err"), timeout=600)
    with open(out) as f:
        text = f.read()
    lines = text.splitlines()
    active = next((x.split(":", 1)[1].strip() for x in lines if x.startswith("active path:")), None)
    key = []
    # The active SIMD path's block, the real fill_unit / first_mismatch lines
    # and the handed-over fill (columns: cached, streaming stores).
    block = None
    for x in lines:
        if not x.startswith(" "):
            block = x.split()[0] if x.strip() else None
        # (rows hold figures; a block's own column header has no digit)
        if x.startswith(" ") and block in (active, "units", "handed") and \
                re.search(r"\d", x):
            key.append(f"{block}: {x.strip()}")
    figures = {}
    for x in key:
        m = re.match(r"(\S+): (.*?)\s+([\d.]+)\s+([\d.]+)$", x)
        if m:
            names = (("cached_gib_s", "streaming_gib_s") if m.group(1) == "handed"
                     else ("generate_gib_s", "verify_gib_s"))
            figures[f"{m.group(1)}: {m.group(2)}"] = {names[0]: float(m.group(3)),
                                                      names[1]: float(m.group(4))}
    return {"exit_code": code, "active_path": active, "key_lines": key, "figures": figures,
            "output": text}


def run_rss(bench):
    """Peak RSS of a default run (-s 256M -j 4, every other option default)."""
    size, files = 256 * MiB, 4
    doc, ru = bench.drivestress("default run (rss)", [], files=files, size=size)
    unit = doc["config"]["unit_bytes"]
    map_bytes = size * files // unit  # about one byte per unit
    limit_kib = (64 * MiB + map_bytes) / KiB
    return {"argv": bench.log_runs[-1]["argv"], "max_rss_kib": ru.ru_maxrss,
            "generation_map_bytes": map_bytes, "limit_kib": limit_kib,
            "met": ru.ru_maxrss <= limit_kib}


# ---------------------------------------------------------------- environment

def snapshot(path, workdir):
    """Copies an executable into workdir (retrying while a rebuild replaces it)."""
    dest = os.path.join(workdir, os.path.basename(path))
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


# ---------------------------------------------------------------- report

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
    if unit == "IOPS":
        return f"{v / 1000:.1f}k" if v >= 1000 else f"{v:.0f}"
    return f"{v / MiB:.1f}"


def fmt_pct(v):
    return "-" if v is None else f"{v * 100:.0f}%"


def fmt_steal(v):
    return "-" if v is None else f"{v * 100:.1f}%"


def fmt_num(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def summarise_pair(row, samples):
    """A pair_row's entry: both sides' medians and spreads, and the ratio
    A/B of each repetition's two figures (the value, or CPU per operation),
    its median and range: paired, so a load that drifts between
    repetitions moves both sides of a ratio alike."""
    a, b = samples.get(row["a"], []), samples.get(row["b"], []) if row["b"] else []

    def fig(m):
        return m.value if row["compare"] == "value" else m.cpu_s_per_mop
    ratios = [fig(x) / fig(y) for x, y in zip(a, b) if fig(x) and fig(y)]
    steals = [m.extra.get("steal") for m in a + b]
    steals = [x for x in steals if x is not None]
    extras = {}
    for k in sorted({k for m in a for k, v in m.extra.items()
                     if isinstance(v, (int, float)) and not isinstance(v, bool)}):
        extras[k] = median([m.extra.get(k) for m in a])
    return {"kind": "pair", "id": row["id"], "case": row["case"], "unit": row["unit"],
            "compare": row["compare"], "a_name": row["a_name"], "b_name": row["b_name"],
            "a_median": median([m.value for m in a]), "b_median": median([m.value for m in b]),
            "a_spread": spread([m.value for m in a]), "b_spread": spread([m.value for m in b]),
            "a_cpu_s_per_mop": median([m.cpu_s_per_mop for m in a]),
            "b_cpu_s_per_mop": median([m.cpu_s_per_mop for m in b]),
            "ratio": median(ratios), "ratios": ratios,
            "ratio_min": min(ratios) if ratios else None,
            "ratio_max": max(ratios) if ratios else None,
            "ratio_spread": spread(ratios), "a_extra_medians": extras,
            "steal_max": max(steals) if steals else None,
            "a_samples": [m.as_dict() for m in a], "b_samples": [m.as_dict() for m in b]}


def summarise(rows, samples):
    table = []
    for row in rows:
        if isinstance(row, dict):
            table.append(summarise_pair(row, samples))
            continue
        row_id, title, unit, ds_key, fio_key, uring = row[:6]
        ds, fio = samples.get(ds_key, []), samples.get(fio_key, [])
        floor = samples.get(row[6], []) if len(row) > 6 else []
        ds_med, fio_med = median([m.value for m in ds]), median([m.value for m in fio])
        steals = [m.extra.get("steal") for m in ds + fio + floor]
        steals = [x for x in steals if x is not None]
        table.append({
            "steal_max": max(steals) if steals else None,
            "floor_median": median([m.value for m in floor]),
            "floor_cpu_s_per_mop": median([m.cpu_s_per_mop for m in floor]),
            "floor_samples": [m.as_dict() for m in floor],
            "ds_spread": spread([m.value for m in ds]),
            "fio_spread": spread([m.value for m in fio]),
            "id": row_id, "case": title, "unit": unit, "io_uring": uring,
            "drivestress_median": ds_med, "fio_median": fio_med,
            "ratio": ds_med / fio_med if ds_med and fio_med else None,
            "ds_cpu_s_per_mop": median([m.cpu_s_per_mop for m in ds]),
            "fio_cpu_s_per_mop": median([m.cpu_s_per_mop for m in fio]),
            "drivestress_samples": [m.as_dict() for m in ds],
            "fio_samples": [m.as_dict() for m in fio],
        })
    return table


def print_pairs(table):
    """The pair rows (rate, targets): A against B of the same repetitions."""
    head = ("case", "A", "A median", "B", "B median", "ratio A/B", "ratio range", "A CPU s/Mop",
            "B CPU s/Mop", "spread A/B", "steal")
    lines = []
    for r in table:
        rng = (f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}" if r["ratio_min"] is not None
               else "-")
        lines.append((r["case"], r["a_name"], fmt_value(r["a_median"], r["unit"]),
                      r["b_name"] or "-", fmt_value(r["b_median"], r["unit"]),
                      fmt_num(r["ratio"]), rng, fmt_num(r["a_cpu_s_per_mop"]),
                      fmt_num(r["b_cpu_s_per_mop"]),
                      f"{fmt_pct(r['a_spread'])}/{fmt_pct(r['b_spread'])}",
                      fmt_steal(r.get("steal_max"))))
    print_columns(head, lines)
    print("(ratio A/B: the median over the repetitions of A's figure over B's in the same "
          "repetition, of IOPS, or on CPU/op rows of CPU per operation; ratio range: its lowest "
          "and highest)")
    rate = next((r for r in table if r["id"] == "rate-issue-error"), None)
    if rate and rate["a_extra_medians"]:
        x = rate["a_extra_medians"]
        print(f"--rate: requested {fmt_value(x['requested_iops'], 'IOPS')}, achieved "
              f"{fmt_value(x['achieved_iops'], 'IOPS')}, late {x['late_ops']:.0f}; issue error "
              f"p50 {x['issue_error_p50_us']:.1f} us, p99 {x['issue_error_p99_us']:.1f} us, "
              f"p99.9 {x['issue_error_p99.9_us']:.1f} us, max {x['issue_error_max_us']:.1f} us "
              "(medians over the repetitions)")
    for r in table:
        x = r["b_samples"] if r["b_samples"] and "overlap_s" in r["b_samples"][0] else []
        if x:
            print(f"{r['b_name']}: IOPS over the span all were in their random phase "
                  f"({median([m['overlap_s'] for m in x]):.2f} s of "
                  f"{median([m['phase_s'] for m in x]):.2f}, starts "
                  f"{median([m['start_skew_s'] for m in x]) * 1e3:.0f} ms apart; medians); "
                  f"whole phases summed: "
                  f"{fmt_value(median([m['whole_phases_iops'] for m in x]), 'IOPS')}"
                  f"{'' if all(m['aligned'] for m in x) else '; NOT aligned in some runs'}")


def print_columns(head, lines):
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]

    def out(cells):
        print(" | ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))))
    out(head)
    print("-+-".join("-" * w for w in widths))
    for x in lines:
        out(x)


def print_table(table):
    head = ("case", "drivestress median", "fio median", "ratio", "ds CPU s/Mop", "fio CPU s/Mop",
            "floor", "floor CPU s/Mop", "spread ds/fio", "steal")
    lines = []
    for r in table:
        lines.append((r["case"], fmt_value(r["drivestress_median"], r["unit"]),
                      fmt_value(r["fio_median"], r["unit"]), fmt_num(r["ratio"]),
                      fmt_num(r["ds_cpu_s_per_mop"]), fmt_num(r["fio_cpu_s_per_mop"]),
                      fmt_value(r.get("floor_median"), r["unit"]),
                      fmt_num(r.get("floor_cpu_s_per_mop")),
                      f"{fmt_pct(r['ds_spread'])}/{fmt_pct(r['fio_spread'])}",
                      fmt_steal(r.get("steal_max"))))
    print_columns(head, lines)


def evaluate_goals(table, rss):
    """The performance goals of the engine issue, each met or missed."""
    by_id = {r["id"]: r for r in table}
    goals = []

    def add(text, measured, met, unit=None):
        g = {"goal": text, "measured": measured, "met": met}
        if unit:
            g["unit"] = unit
        goals.append(g)

    def ratio_goal(row_id, bound, text):
        r = by_id.get(row_id)
        if r and r["ratio"] is not None:
            add(text, r["ratio"], r["ratio"] >= bound)

    def cpu_goal(row_id, bound, text):
        r = by_id.get(row_id)
        if r and r["ds_cpu_s_per_mop"] and r["fio_cpu_s_per_mop"]:
            x = r["ds_cpu_s_per_mop"] / r["fio_cpu_s_per_mop"]
            add(text, x, x <= bound)

    for qd in (1, 32, 128):
        ratio_goal(f"randread-qd{qd}", 1.0, f"randread verify QD{qd} >= 1.0x fio io_uring")
        cpu_goal(f"randread-qd{qd}-noverify", 0.9, f"CPU/op no-verify QD{qd} <= 0.9x fio")
        cpu_goal(f"randread-qd{qd}", 1.0, f"CPU/op verify QD{qd} <= 1.0x fio")
        r = by_id.get(f"randread-qd{qd}-noverify")
        if r and r["ds_cpu_s_per_mop"] and r.get("floor_cpu_s_per_mop"):
            x = r["ds_cpu_s_per_mop"] / r["floor_cpu_s_per_mop"]
            add(f"CPU/op no-verify QD{qd} within 10% of the floor", x, x <= 1.1)
    ratio_goal("mix70-qd32", 1.0, "randrw 70/30 QD32 >= 1.0x fio randrw")
    r = by_id.get("nop-qd32")
    if r and r["ds_cpu_s_per_mop"] and r.get("floor_cpu_s_per_mop"):
        x = r["ds_cpu_s_per_mop"] / r["floor_cpu_s_per_mop"]
        add("NOP QD32 CPU/op within 10% of the NOP floor's", x, x <= 1.1)
    ratio_goal("seq-write", 1.0, "seq write >= 1.0x fio")
    cpu_goal("seq-write", 1.5, "seq write CPU/MiB <= 1.5x fio")
    ratio_goal("seq-read-noverify", 1.0, "seq read no-verify >= 1.0x fio read")
    cpu_goal("seq-read-noverify", 1.5, "seq read no-verify CPU/MiB <= 1.5x fio")
    ratio_goal("seq-read-verify-vs-read", 0.95, "seq read+verify >= 0.95x fio plain read")
    ratio_goal("sync-randread-1w", 1.0, "sync 1 worker >= 1.0x fio psync")
    ratio_goal("sync-randread-2w", 1.0, "sync 2 workers >= 1.0x fio psync")
    r = by_id.get("rate-issue-error")
    if r and r["a_median"] is not None:
        add(f"issue error p99 at --rate {RATE_IOPS // 1000}k, 1 worker <= 10 us", r["a_median"],
            r["a_median"] <= 10, "us")
    r = by_id.get("rate-cpu")
    if r and r["ratio"] is not None:
        add("CPU/op with --rate within 10% of the closed loop's at the same IOPS",
            r["ratio"], r["ratio"] <= 1.1)
    for n in TARGET_COUNTS[1:]:
        for row_id, bound, text in (
                (f"targets-{n}-vs-processes", 0.95, f">= 0.95x {n} separate processes"),
                (f"targets-{n}-vs-fio", 1.0, f">= 1.0x fio {n} jobs")):
            r = by_id.get(row_id)
            if r and r["ratio"] is not None:
                add(f"{n} targets in one process {text}", r["ratio"], r["ratio"] >= bound)
        r = by_id.get(f"targets-{n}-cpu")
        if r and r["ratio"] is not None:
            add(f"CPU/op with {n} targets <= 1 target's", r["ratio"], r["ratio"] <= 1.0)
    if rss and "max_rss_kib" in rss:
        add("peak RSS of -s 256M -j 4 <= 64 MiB + generation map", rss["max_rss_kib"] / 1024.0,
            rss["met"], "MiB")
    return goals


def pair_notes(table):
    """What makes a pair row's comparison other than it says."""
    notes = []
    r = next((x for x in table if x["id"] == "rate-cpu"), None)
    far = [(x["value"], y["value"]) for x, y in zip(r["a_samples"], r["b_samples"])
           if y["value"] and abs(x["value"] / y["value"] - 1) > 0.1] if r else []
    if far:
        notes.append("CPU/op --rate vs closed loop: --rate did not achieve the closed loop's "
                     "IOPS within 10 % in " + ", ".join(
                         f"{fmt_value(x, 'IOPS')} vs {fmt_value(y, 'IOPS')}" for x, y in far))
    return notes


def print_goals(goals):
    print("\ngoals (ratio = drivestress/fio, or A/B on the A-B rows; CPU rows: CPU per op "
          "over fio's, the floor's or B's)")
    for g in goals:
        unit = g.get("unit")
        m = f"{g['measured']:.1f} {unit}" if unit else f"{g['measured']:.2f}"
        print(f"  {'met ' if g['met'] else 'MISS'}  {g['goal']}: {m}")


# ---------------------------------------------------------------- main

GROUP_CASES = ("randread", "sync", "mix", "nop", "seq", "rate", "targets")
CASES = GROUP_CASES + ("rss", "pattern")


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
    p.add_argument("--cases", default=",".join(CASES),
                   help=f"comma list of {','.join(CASES)} (default all)")
    p.add_argument("--tio", default=None, metavar="PATH",
                   help="a built fio t/io_uring: the NOP row's third tool (t/io_uring -N1)")
    p.add_argument("--fio-batch", type=positive_int, default=None,
                   help="fio iodepth_batch_submit and _complete_min (default QD/4, at least 1)")
    p.add_argument("--fio-opt", action="append", default=[], metavar="KEY=VALUE",
                   help="extra fio option for every fio job (repeatable), e.g. gtod_reduce=1")
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
        ds_exe = args.ds_exe
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
            if case != "randread":
                bench.remove([bench.FIO_VERIFY_FILE])  # room for two workers' files
            if case == "seq":
                bench.remove(bench.fio_random_files(2))  # room for the 1M cases
            for gid, rows, make_runs in groups[case]:
                samples = {}
                loads = []
                for rep in range(args.repeat):
                    loads.append(loadavg()[0])
                    for tool, fn in make_runs(bench):
                        before = cpu_jiffies()
                        res = fn()
                        steal = steal_fraction(before, cpu_jiffies())
                        for key, m in res.items():
                            m.extra["steal"] = steal
                            samples.setdefault(key, []).append(m)
                        unit = "MiB/s" if case == "seq" else "IOPS"
                        shown = ", ".join(f"{k} {fmt_value(m.value, m.unit or unit)}"
                                          for k, m in res.items())
                        log(f"  [{time.monotonic() - t0:4.0f}s] {gid} rep {rep + 1}/{args.repeat} "
                            f"{tool}: {shown} {unit}  steal {fmt_steal(steal)}")
                table += summarise(rows, samples)
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
