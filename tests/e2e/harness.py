"""Shared machinery of the drivestress end-to-end tests.

Each test file is run by meson as `python3 test_x.py --drivestress PATH
--no-io-uring PATH Class.test_method`.  It runs the real binary on a fresh
temporary directory under /tmp, optionally stops it at a known point
(DRIVESTRESS_TEST_STOP) to damage its files or signal it, and checks exit
codes, offsets, classes and file counts.

Exit status of a test program (see main()): 0 passed, 1 failed, 77 skipped
(meson SKIP: the case cannot run here, e.g. no io_uring, not root).
"""

import argparse
import ctypes
import errno
import json
import mmap
import os
import platform
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

EXIT_SKIP = 77

# Paths of the programs under test; set by main() from the command line.
DRIVESTRESS = os.environ.get("DRIVESTRESS", "")
# The same program with the test hooks (tests/helpers/drivestress_hooked.cpp):
# the product binary reads no DRIVESTRESS_TEST_* variable, so a run that sets
# one runs this build instead (argv_for).
HOOKED = os.environ.get("DRIVESTRESS_HOOKED", "")
NO_IO_URING = os.environ.get("NO_IO_URING", "")
PEAK_RSS = os.environ.get("PEAK_RSS", "")  # tests/helpers/peak_rss

BACKENDS = ("io_uring", "sync")
PHASES = ("seq-write", "seq-read", "random", "reverify")
MISMATCH_CLASSES = ("stale", "misdirected", "foreign", "zeroed", "uniform-fill",
                    "torn", "corrupt", "io-error", "short-read")
UNIT_BYTES = 4096  # the default --rand-block: the verification unit
MiB = 1024 * 1024

# Seconds to wait for a stop, or for the process to exit.
STOP_TIMEOUT_S = 30
EXIT_TIMEOUT_S = 60


# ---------------------------------------------------------------- environment

_io_uring_reason = None


def io_uring_unavailable_reason():
    """Why io_uring cannot be set up here, or None when it can.

    Probed with the raw io_uring_setup system call, independently of the
    binary under test, so a broken probe in drivestress fails a test instead
    of skipping it.
    """
    global _io_uring_reason
    if _io_uring_reason is None:
        numbers = {"x86_64": 425, "aarch64": 425}  # asm-generic and x86_64 agree
        nr = numbers.get(platform.machine())
        if nr is None:
            _io_uring_reason = "io_uring probe: unknown architecture " + platform.machine()
        else:
            libc = ctypes.CDLL(None, use_errno=True)
            params = ctypes.create_string_buffer(120)  # struct io_uring_params
            fd = libc.syscall(ctypes.c_long(nr), ctypes.c_uint(4), params)
            if fd < 0:
                err = ctypes.get_errno()
                _io_uring_reason = "io_uring_setup: " + os.strerror(err)
            else:
                os.close(fd)
                _io_uring_reason = ""
    return _io_uring_reason or None


_sanitizer = None


def sanitizer():
    """"ASan" or "TSan" when the binary under test is built with one, else
    None.  Read from the binary itself, not from ASAN_OPTIONS/TSAN_OPTIONS
    (a plain build run with them set is still plain)."""
    global _sanitizer
    if _sanitizer is None:
        with open(DRIVESTRESS, "rb") as f:
            image = f.read()
        _sanitizer = next((name for symbol, name in ((b"__asan_init", "ASan"),
                                                     (b"__tsan_init", "TSan"))
                           if symbol in image), "")
    return _sanitizer or None


SLOW_ONCE = "slow end-to-end case: run once, in the plain suite"


def plain_suite_only(test, why=SLOW_ONCE):
    """Skips `test` in a sanitizer build.  For the cases whose time goes to
    waiting (a throttle, a search over rates, ansible-playbook's start): the
    code they drive is driven under the sanitizers by quicker cases."""
    if sanitizer():
        test.skipTest(why)


def first_difference(a, b):
    """Index of the first byte where a and b differ (len when equal)."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def count_differences(a, b):
    return sum(1 for x, y in zip(a, b) if x != y)


def _open_direct(path, flags):
    """An O_DIRECT descriptor, or a buffered one where O_DIRECT is refused."""
    try:
        return os.open(path, flags | os.O_DIRECT), True
    except OSError as e:
        if e.errno != errno.EINVAL:
            raise
        return os.open(path, flags), False


def read_block(path, offset, length):
    """Reads what the device holds (O_DIRECT: no page cache in between)."""
    fd, direct = _open_direct(path, os.O_RDONLY)
    try:
        if not direct:
            os.posix_fadvise(fd, offset, length, os.POSIX_FADV_DONTNEED)
        buf = mmap.mmap(-1, length)  # page aligned, as O_DIRECT needs
        n = os.preadv(fd, [buf], offset)
        if n != length:
            raise AssertionError(f"{path}: read {n} of {length} bytes at {offset}")
        return bytes(buf)
    finally:
        os.close(fd)


def write_block(path, offset, data):
    """Overwrites bytes of a file so that drivestress's next read sees them."""
    fd, direct = _open_direct(path, os.O_WRONLY)
    try:
        buf = mmap.mmap(-1, len(data))
        buf[:] = bytes(data)
        n = os.pwritev(fd, [buf], offset)
        if n != len(data):
            raise AssertionError(f"{path}: wrote {n} of {len(data)} bytes at {offset}")
        os.fsync(fd)
        if not direct:
            os.posix_fadvise(fd, offset, len(data), os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def flip_bit(path, offset, mask=0x40):
    """Flips bit(s) `mask` of the byte at `offset`, through whole units
    (the unit holding it read and written back), as damage would land."""
    start = offset - offset % UNIT_BYTES
    unit = bytearray(read_block(path, start, UNIT_BYTES))
    unit[offset - start] ^= mask
    write_block(path, start, bytes(unit))


# ---------------------------------------------------------------- block devices
# Loop devices, filesystems and swap for the raw-device and failing-device
# tests (root only).  Every helper registers its undo with test.addCleanup,
# so a failing test still detaches, unmounts and swaps off (in reverse order).

def require_root(test, what="loop devices"):
    if os.geteuid() != 0:
        test.skipTest(f"needs root ({what})")
    for tool in ("losetup", "mount", "umount"):
        if not shutil.which(tool):
            test.skipTest(f"{tool} not installed")


def sh(*argv, check=True):
    """Runs a system tool; its output on failure."""
    p = subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, argv))}: exit {p.returncode}\n"
                             f"{p.stdout}{p.stderr}")
    return p


def backing_file(test, size_bytes, directory="/dev/shm", fill=None):
    """A file to put a loop device on (removed at cleanup); `fill` is one
    byte value written over all of it (default: sparse zeros)."""
    fd, path = tempfile.mkstemp(prefix="drivestress-e2e-", suffix=".img", dir=directory)
    test.addCleanup(lambda: os.path.exists(path) and os.unlink(path))
    with os.fdopen(fd, "wb") as f:
        if fill is None:
            f.truncate(size_bytes)
        else:
            chunk = bytes([fill]) * MiB
            for _ in range(size_bytes // MiB):
                f.write(chunk)
    return path


def loop_device(test, backing, partscan=False, direct_io=False, sector_size=None):
    """Attaches a free loop device to `backing` (with logical sectors of
    `sector_size` bytes: 4096 makes a 4Kn device); detached at cleanup."""
    argv = ["losetup", "--find", "--show"]
    if partscan:
        argv.append("--partscan")
    if direct_io:
        argv.append("--direct-io=on")
    if sector_size:
        argv += ["--sector-size", str(sector_size)]
    p = sh(*argv, backing, check=False)
    if p.returncode != 0:
        test.skipTest(f"losetup {' '.join(argv[1:])} failed: {p.stderr.strip()}")
    dev = p.stdout.strip()
    test.addCleanup(detach_loop, dev)
    return dev


def detach_loop(dev):
    for _ in range(50):  # udev may still hold it for a moment after umount
        if sh("losetup", "-d", dev, check=False).returncode == 0:
            return
        time.sleep(0.1)
    sh("losetup", "-d", dev)


def mkfs_and_mount(test, dev, fstype="ext4", options=None):
    """Makes a filesystem on `dev` and mounts it on a fresh directory
    (unmounted at cleanup); returns the mount point."""
    mkfs = shutil.which(f"mkfs.{fstype}")
    if not mkfs:
        test.skipTest(f"mkfs.{fstype} not installed")
    sh(mkfs, "-q", "-F", dev) if fstype.startswith("ext") else sh(mkfs, dev)
    point = tempfile.mkdtemp(prefix="drivestress-e2e-mnt-", dir="/tmp")
    test.addCleanup(os.rmdir, point)
    sh("mount", *(["-o", options] if options else []), dev, point)
    test.addCleanup(unmount, point)
    return point


def unmount(point):
    """umount, retried: a finished io_uring process's files are released by
    a kernel worker shortly after it exits."""
    for _ in range(100):
        if sh("umount", point, check=False).returncode == 0:
            return
        time.sleep(0.1)
    sh("umount", point)


# zram0, a memory block device that compresses and discards (root only).
ZRAM = "/sys/block/zram0"


def zram_mm_stat():
    """zram0's mm_stat: orig_data_size, compr_data_size, ... (bytes)."""
    with open(os.path.join(ZRAM, "mm_stat")) as f:
        return [int(v) for v in f.read().split()]


def zram_reset():
    with open(os.path.join(ZRAM, "reset"), "w") as f:
        f.write("1")


def zram_sized(size_bytes):
    """zram0 emptied and set to `size_bytes`."""
    zram_reset()
    with open(os.path.join(ZRAM, "disksize"), "w") as f:
        f.write(str(size_bytes))


def require_free_zram(test):
    """Skips unless root and zram0 exists unused; resets it at cleanup."""
    if os.geteuid() != 0:
        test.skipTest("needs root (zram)")
    if not os.path.isdir(ZRAM):
        test.skipTest("no /sys/block/zram0 (modprobe zram)")
    with open(os.path.join(ZRAM, "disksize")) as f:
        if int(f.read()) != 0:
            test.skipTest("zram0 is in use (disksize is not 0)")
    test.addCleanup(zram_reset)  # even when an assertion fails


def partition_node(test, dev, number, timeout=10):
    """Path of partition `number` of `dev`: /dev/loopNpM when udev made it,
    else a node made here from sysfs (removed at cleanup)."""
    name = os.path.basename(dev) + f"p{number}"
    sysfs = f"/sys/class/block/{name}/dev"
    deadline = time.monotonic() + timeout
    while not os.path.exists(sysfs):
        if time.monotonic() > deadline:
            raise AssertionError(f"{sysfs} did not appear within {timeout} s")
        time.sleep(0.05)
    if os.path.exists("/dev/" + name):
        return "/dev/" + name
    with open(sysfs) as f:
        major, minor = (int(x) for x in f.read().split(":"))
    node = os.path.join(test.tmp, name)
    os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(major, minor))
    test.addCleanup(os.unlink, node)
    return node


def device_bytes(dev):
    fd = os.open(dev, os.O_RDONLY)
    try:
        return os.lseek(fd, 0, os.SEEK_END)
    finally:
        os.close(fd)


# ---------------------------------------------------------------- a process

class Result:
    """What a finished drivestress run left: exit code, output, JSON."""

    def __init__(self, returncode, stdout, stderr, doc, seconds):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.doc = doc  # parsed --json document, or None
        self.seconds = seconds  # from start (or from the last SIGCONT) to exit

    def describe(self):
        return (f"exit {self.returncode}\n--- stdout\n{self.stdout}"
                f"--- stderr\n{self.stderr}---")


def _thread_states(pid):
    states = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return states
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                states.append(f.read().rsplit(")", 1)[1].split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return states


def default_signals(hangup_ignored=False):
    """In the child before exec: every signal at its default action, as an
    interactive shell starts a command, whatever the suite was started
    under.  drivestress keeps a signal its parent ignored ignored (nohup's
    SIGHUP; a shell's background job ignores SIGINT and SIGQUIT), so a suite
    run under nohup or with `&` would otherwise see it ignore them.
    `hangup_ignored` starts it as nohup does."""
    for sig in range(1, signal.NSIG):
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    if hangup_ignored:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)


def argv_for(argv, env):
    """`argv` with the hooked build in place of the product binary when
    `env` sets a test hook (a DRIVESTRESS_TEST_* variable)."""
    if not any(k.startswith("DRIVESTRESS_TEST_") and v for k, v in (env or {}).items()):
        return argv
    if not HOOKED or not os.access(HOOKED, os.X_OK):
        raise AssertionError(f"a test hook needs the hooked build, not found: {HOOKED!r} "
                             "(use --drivestress-hooked)")
    return [HOOKED if a == DRIVESTRESS else a for a in argv]


class Run:
    """A drivestress process in progress.  Output goes to temporary files,
    never pipes, so a stopped or chatty process cannot deadlock the test."""

    def __init__(self, argv, env, json_path, hangup_ignored=False):
        argv = argv_for(argv, env)
        self.argv = argv
        self.json_path = json_path
        self._out = tempfile.TemporaryFile(mode="w+")
        self._err = tempfile.TemporaryFile(mode="w+")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self._out, stderr=self._err,
                                     preexec_fn=lambda: default_signals(hangup_ignored))

    def wait_stopped(self, timeout=STOP_TIMEOUT_S):
        """Waits until every thread is stopped (DRIVESTRESS_TEST_STOP)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("drivestress exited instead of stopping: "
                                     + self._collect().describe())
            states = _thread_states(self.proc.pid)
            if states and all(s == "T" for s in states):
                return
            time.sleep(0.005)
        raise AssertionError(f"drivestress did not stop within {timeout} s")

    def send(self, sig):
        os.kill(self.proc.pid, sig)

    def stdout_so_far(self):
        """What the process has written to stdout until now (it may be
        stopped or still running)."""
        self._out.flush()
        with open(f"/proc/self/fd/{self._out.fileno()}", errors="replace") as f:
            return f.read()

    def resume(self):
        """SIGCONT.  The kernel wakes every stopped thread before kill()
        returns, so a following wait_stopped() sees only a new stop."""
        self.started = time.monotonic()  # Result.seconds counts from here
        self.send(signal.SIGCONT)

    def finish(self, timeout=EXIT_TIMEOUT_S):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"drivestress did not exit within {timeout} s: "
                                 + self._collect().describe())
        return self._collect()

    def close(self):
        """Cleanup: a failed test must not leave a (stopped) process behind."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._out.close()
        self._err.close()

    def _collect(self):
        seconds = time.monotonic() - self.started
        outputs = []
        for f in (self._out, self._err):
            f.seek(0)
            outputs.append(f.read())
        doc = None
        if self.json_path and os.path.exists(self.json_path):
            with open(self.json_path) as f:
                text = f.read()
            try:
                doc = json.loads(text)
            except ValueError as e:
                raise AssertionError(f"--json output does not parse ({e}):\n{text[:2000]}")
        return Result(self.proc.returncode, outputs[0], outputs[1], doc, seconds)


# ---------------------------------------------------------------- meson tests

# Every concrete test method is one meson test; tests/e2e/cases.py finds them
# and tests/e2e/meson.build registers what it prints.  A case's meson name,
# timeout (seconds) and is_parallel come from, the first that says it: a
# @meson_case(...) on the method, one on its class or a base class (nearest
# first), the module's MESON_CASE dict, then CASE_DEFAULTS.  The name is a
# template: {case} is the method's name without "test_", {cls} the class's
# name in lower case, {backend} its `backend`, {module} the file's name
# without "test_" and ".py"; underscores in {case} and {module} become dashes.
# threads=True puts a case in the suite "threads" too: the cases that drive
# drivestress's threads (workers, the sync pool, signals, several targets,
# verify-only's readers, replay's feeds), the only e2e cases of the TSan
# build (-Dtests=threads; the plain and ASan builds run every case).
CASE_DEFAULTS = {"name": "{module}-{cls}-{case}", "timeout": 90, "is_parallel": True,
                 "threads": False}


def meson_case(**attrs):
    """Decorates a test method or class with some of CASE_DEFAULTS' keys."""
    unknown = sorted(set(attrs) - set(CASE_DEFAULTS))
    if unknown:
        raise TypeError(f"meson_case: unknown attribute {unknown[0]!r} "
                        f"(known: {', '.join(CASE_DEFAULTS)})")

    def mark(obj):
        obj.meson_case = attrs  # a class's own, read by cases.py through the MRO
        return obj
    return mark


# ---------------------------------------------------------------- test cases

class DriveStressTest(unittest.TestCase):
    """Base of every end-to-end test: a fresh target directory under /tmp,
    helpers to run drivestress on it and to check what it left behind.

    Backend-parametrised cases live in a mixin and are instantiated once per
    backend by subclasses that set `backend`."""

    backend = None  # "io_uring", "sync", or None for the default (auto)
    maxDiff = None

    def setUp(self):
        if not DRIVESTRESS or not os.access(DRIVESTRESS, os.X_OK):
            self.fail(f"drivestress binary not found: {DRIVESTRESS!r} (use --drivestress)")
        if self.backend == "io_uring":
            reason = io_uring_unavailable_reason()
            if reason:
                self.skipTest(f"io_uring is not available here ({reason})")
        self.tmp = tempfile.mkdtemp(prefix="drivestress-e2e-", dir="/tmp")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.target = os.path.join(self.tmp, "target")
        os.mkdir(self.target)
        self.json_path = os.path.join(self.tmp, "result.json")

    # -- running

    # Cases run one pass per sequential phase (--seq-time 0) unless they set
    # it or use a mode with passes of its own: by default each phase goes on
    # until its figure can be quoted (a second at least), and a few seconds
    # a run is more than the suite can spend.  And they read the report with
    # one line per phase (--wide), as it was before lines were folded at 100
    # columns.  The defaults themselves are tested by the cases that set
    # `as_shipped`: nothing added.
    as_shipped = False
    _OWN_PASSES = ("--seq-time", "--sustained-write", "--sync-compare", "--preset",
                   "--verify-only", "--keep", "--job-file")

    def command(self, *args, target=None, json_out=True, wrapper=()):
        argv = list(wrapper) + [DRIVESTRESS, "--progress", "never"]
        if self.backend:
            argv += ["--backend", self.backend]
        args = [str(a) for a in args]
        if not self.as_shipped:
            argv.append("--wide")
            if not any(a.split("=")[0] in self._OWN_PASSES for a in args):
                argv += ["--seq-time", "0"]
        argv += args
        if json_out:
            argv += ["--json", self.json_path]
        if target is not False:  # False: no TARGET (--raw-device)
            argv.append(self.target if target is None else target)
        return argv

    def start(self, *args, stop=None, target=None, json_out=True, wrapper=(),
              stop_on_signal=False, env_extra=None, hangup_ignored=False):
        """Starts drivestress; `stop` sets DRIVESTRESS_TEST_STOP,
        `stop_on_signal` DRIVESTRESS_TEST_STOP_ON_SIGNAL (it stops when it
        notices the first signal, so a second can come later), `env_extra`
        other variables; `hangup_ignored` starts it as nohup does."""
        env = dict(os.environ)
        env.pop("DRIVESTRESS_TEST_STOP", None)
        env.pop("DRIVESTRESS_TEST_STOP_ON_SIGNAL", None)
        env.pop("DRIVESTRESS_TEST_SNAPSHOT_S", None)
        env.pop("DRIVESTRESS_TEST_CHECKPOINT_S", None)
        if stop:
            env["DRIVESTRESS_TEST_STOP"] = stop
        if stop_on_signal:
            env["DRIVESTRESS_TEST_STOP_ON_SIGNAL"] = "1"
        env.update(env_extra or {})
        if os.path.exists(self.json_path):
            os.unlink(self.json_path)
        run = Run(self.command(*args, target=target, json_out=json_out, wrapper=wrapper),
                  env, self.json_path if json_out else None, hangup_ignored)
        self.addCleanup(run.close)
        return run

    def second_signal_later(self, run, first=signal.SIGINT, second=signal.SIGTERM):
        """For a run started with stop_on_signal and stopped: sends `first`,
        waits until it noticed it (the test hook stops it again), then
        `second` later than one keypress arriving twice; its Result."""
        run.send(first)
        run.resume()
        run.wait_stopped()
        time.sleep(0.4)  # longer than one keypress arriving twice (250 ms)
        run.send(second)
        run.resume()
        return run.finish()

    def drivestress(self, *args, **kwargs):
        """Runs drivestress to the end and returns its Result."""
        return self.start(*args, **kwargs).finish()

    # -- files

    def data_file(self, index):
        return os.path.join(self.target, f"drivestress-{index}.dat")

    def target_files(self):
        return sorted(os.listdir(self.target))

    def assertFilesPresent(self, count, size_bytes):
        names = [f"drivestress-{i}.dat" for i in range(count)]
        self.assertEqual(self.target_files(), names, "data files while the run is stopped")
        for n in names:
            self.assertEqual(os.path.getsize(os.path.join(self.target, n)), size_bytes, n)

    def assertNoFilesLeft(self, result=None, directory=None):
        left = sorted(os.listdir(directory or self.target))
        self.assertEqual(left, [], "files left behind" +
                         ("\n" + result.describe() if result else ""))

    # -- outcomes

    def assertExit(self, result, code):
        self.assertEqual(result.returncode, code, result.describe())

    def assertSetupError(self, result, *names):
        """Exit 1 and exactly one stderr line `drivestress: error: ...`
        naming each of `names` (an option or a path)."""
        self.assertExit(result, 1)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, "stderr must be one line:\n" + result.stderr)
        self.assertTrue(lines[0].startswith("drivestress: error: "), lines[0])
        for name in names:
            self.assertIn(name, lines[0])
        self.assertNotIn("Traceback", result.stderr)

    def assertJson(self, result):
        self.assertIsNotNone(result.doc, "no --json document written\n" + result.describe())
        return result.doc


def phases_of(doc):
    """[(iteration index, phase figures)] in run order (iterations[]: no
    histograms); "interrupted", written only when true, filled in."""
    return [(it["index"], {"interrupted": False, **p})
            for it in doc["iterations"] for p in it["phases"]]


def merged_phases_of(doc):
    """{phase name: phase object over every iteration, histograms included}."""
    return {p["phase"]: p for p in doc["merged_phases"]}


# ---------------------------------------------------------------- entry point

def main():
    """Runs the selected tests of the calling module; exits 0, 1 or 77."""
    global DRIVESTRESS, HOOKED, NO_IO_URING, PEAK_RSS
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--drivestress", default=DRIVESTRESS)
    parser.add_argument("--drivestress-hooked", default=HOOKED)
    parser.add_argument("--no-io-uring", default=NO_IO_URING)
    parser.add_argument("--peak-rss", default=PEAK_RSS)
    opts, rest = parser.parse_known_args()
    DRIVESTRESS = os.path.abspath(opts.drivestress) if opts.drivestress else ""
    if opts.drivestress_hooked:
        HOOKED = os.path.abspath(opts.drivestress_hooked)
    elif DRIVESTRESS:  # BUILD/src/drivestress -> BUILD/tests/helpers/drivestress-hooked
        HOOKED = os.path.join(os.path.dirname(os.path.dirname(DRIVESTRESS)), "tests", "helpers",
                              "drivestress-hooked")
    NO_IO_URING = os.path.abspath(opts.no_io_uring) if opts.no_io_uring else ""
    PEAK_RSS = os.path.abspath(opts.peak_rss) if opts.peak_rss else ""

    prog = unittest.main(module="__main__", argv=[sys.argv[0]] + rest, exit=False,
                         verbosity=2)
    result = prog.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun == 0:
        print("no test selected", file=sys.stderr)
        sys.exit(1)
    if result.skipped:
        # Not a pass: the case did not run.  meson shows SKIP.
        for test, reason in result.skipped:
            print(f"SKIP {test.id()}: {reason}")
        sys.exit(EXIT_SKIP)
    sys.exit(0)
