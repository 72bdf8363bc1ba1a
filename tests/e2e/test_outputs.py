"""The result files (--json, --timeseries, --prom) against the run's own
files and against each other: a descriptor name the run itself opened, other
names for the data and state files (hard links, bind mounts,
/proc/self/root paths, descriptors), two outputs at one file, a reader that
stops reading, and paths that are not UTF-8."""

import array
import fcntl
import json
import os
import platform
import signal
import subprocess
import termios
import time

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "outputs-{cls}-{case}", "timeout": 120}

RUN = ("-s", "1M", "-j", 2, "--rand-ops", 200)
F_SETPIPE_SZ = 1031


def checksum(path):
    with open(path, "rb") as f:
        return f.read()


class OwnFiles(harness.DriveStressTest):
    """No output is ever one of the run's own files, whatever name reaches it."""

    def test_descriptor_names_the_run_opened_itself(self):
        """/dev/fd/N and /proc/self/fd/N for an N that is not open when the
        run starts: once the run has opened its files, N would be one of
        them.  Refused at the start, before anything is created."""
        for spelling in ("/dev/fd/{}", "/proc/self/fd/{}"):
            for n in range(3, 13):
                option = ("--timeseries", "--json", "--prom")[n % 3]
                with self.subTest(option=option, name=spelling.format(n)):
                    name = spelling.format(n)
                    r = self.drivestress(*RUN, "--keep", option, name, json_out=False)
                    self.assertSetupError(r, f"{option} {name}", f"descriptor {n} is not open")
                    self.assertNoFilesLeft(r)

    def test_descriptor_open_before_the_start_is_written(self):
        """The caller's own descriptor (a pipe, as `--timeseries >(cat)` gives)."""
        rfd, wfd = os.pipe()
        self.addCleanup(os.close, rfd)
        p = subprocess.Popen(self.command(*RUN, "--timeseries", f"/dev/fd/{wfd}", json_out=False),
                             pass_fds=(wfd,), stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        os.close(wfd)
        with os.fdopen(os.dup(rfd)) as f:
            lines = f.read().splitlines()
        _, err = p.communicate(timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 0, err)
        self.assertTrue(lines and all(json.loads(x)["phase"] for x in lines), lines[:3])

    def kept_run(self):
        r = self.drivestress(*RUN, "--keep", json_out=False)
        self.assertExit(r, 0)
        state = os.path.join(self.target, "drivestress.state")
        return state, {n: checksum(os.path.join(self.target, n)) for n in self.target_files()}

    def assertKeptIntact(self, kept, r):
        after = {n: checksum(os.path.join(self.target, n)) for n in self.target_files()}
        self.assertEqual(after.keys(), kept.keys(), r.describe())
        self.assertTrue(after == kept, "a kept file changed\n" + r.describe())

    def test_verify_only_outputs_that_are_its_files(self):
        """--verify-only S --json S (and other names for S and for the data
        files): refused before anything is written, the evidence intact."""
        state, kept = self.kept_run()
        link = os.path.join(self.tmp, "alias.dat")
        os.link(self.data_file(0), link)
        names = [state, "/proc/self/root" + state, os.path.join(self.target, ".", "drivestress.state"),
                 link]
        for name in names:
            with self.subTest(name=name):
                r = self.drivestress("--verify-only", state, "--json", name, target=False,
                                     json_out=False)
                self.assertSetupError(r, f"--json {name}", "one of the run's own files")
                self.assertKeptIntact(kept, r)
        os.unlink(link)
        # The caller's descriptor on the state file.
        fd = os.open(state, os.O_WRONLY | os.O_APPEND)
        self.addCleanup(os.close, fd)
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", "--verify-only", state,
                            "--json", f"/dev/fd/{fd}"], pass_fds=(fd,), capture_output=True,
                           text=True, timeout=harness.EXIT_TIMEOUT_S)
        r = harness.Result(p.returncode, p.stdout, p.stderr, None, 0)
        self.assertSetupError(r, f"--json /dev/fd/{fd}", "drivestress.state")
        self.assertKeptIntact(kept, r)
        v = self.drivestress("--verify-only", state, "--cleanup", target=False, json_out=False)
        self.assertExit(v, 0)

    def test_output_through_a_bind_mount_of_the_target(self):
        """A bind mount gives the state and data files names no path
        comparison can see: the device and inode do."""
        harness.require_root(self, "a bind mount")
        bind = os.path.join(self.tmp, "bind")
        os.mkdir(bind)
        harness.sh("mount", "--bind", self.target, bind)
        self.addCleanup(harness.unmount, bind)
        for option, name in (("--json", "drivestress.state"), ("--timeseries", "drivestress-1.dat"),
                             ("--prom", "drivestress-0.dat")):
            with self.subTest(option=option):
                path = os.path.join(bind, name)
                r = self.drivestress(*RUN, "--keep", option, path, json_out=False)
                self.assertExit(r, 1)
                self.assertIn(f"drivestress: error: {option} {path}: is another name for "
                              f"{os.path.join(self.target, name)}, one of the run's own files",
                              r.stderr)
                if option != "--json":  # refused as the run starts: nothing kept
                    self.assertNoFilesLeft(r)
                    continue
                # Refused at the end: the kept evidence is intact.
                state = os.path.join(self.target, "drivestress.state")
                v = self.drivestress("--verify-only", state, "--cleanup", target=False,
                                     json_out=False)
                self.assertExit(v, 0)
                self.assertNoFilesLeft(v)


class DistinctOutputs(harness.DriveStressTest):
    """Two outputs at one file would silently lose one of them."""

    def test_two_outputs_at_one_file(self):
        x = os.path.join(self.tmp, "x")
        link = os.path.join(self.tmp, "link")
        with open(x, "w") as f:
            f.write("old\n")
        os.link(x, link)
        cases = [("--json", x, "--timeseries", x), ("--json", x, "--prom", x),
                 ("--timeseries", x, "--prom", x),
                 ("--json", x, "--prom", os.path.join(self.tmp, ".", "x")),
                 ("--json", x, "--timeseries",
                  os.path.join(self.target, "..", "..", os.path.basename(self.tmp), "x")),
                 ("--json", "-", "--prom", "/dev/stdout"),
                 ("--timeseries", os.path.join(self.tmp, "new"), "--prom",
                  os.path.join(self.target, "..", "new"))]
        for a, pa, b, pb in cases:
            with self.subTest(args=(a, pa, b, pb)):
                r = self.drivestress(*RUN, a, pa, b, pb, json_out=False)
                self.assertSetupError(r, f"{a} {pa} and {b} {pb}", "name the same file")
                self.assertNoFilesLeft(r)
                self.assertFalse(os.path.exists(os.path.join(self.tmp, "new")))
        with open(x) as f:
            self.assertEqual(f.read(), "old\n")
        # Two hard links are two names: each gets its own output, none is lost.
        r = self.drivestress(*RUN, "--timeseries", link, json_out=False)
        self.assertExit(r, 0)
        with open(link) as f:
            self.assertIn('"phase"', f.readline())
        with open(x) as f:
            self.assertEqual(f.read(), "old\n")


def wait_for_data(rfd, at_least, run):
    """Polls the pipe's byte count until it holds `at_least` bytes."""
    deadline = time.monotonic() + harness.EXIT_TIMEOUT_S
    while time.monotonic() < deadline:
        buf = array.array("i", [0])
        fcntl.ioctl(rfd, termios.FIONREAD, buf)
        if buf[0] >= at_least:
            return
        if run.proc.poll() is not None:
            raise AssertionError("drivestress exited before filling the pipe: "
                                 + run.finish().describe())
        time.sleep(0.01)
    raise AssertionError("the pipe did not fill")


def wait_for_blocked_writer(run):
    """Waits until a thread of drivestress waits for room in the stalled
    pipe: in poll() on one descriptor with write_stream's 100 ms slice
    (x86-64 poll: "7 fds 0x1 0x64"; elsewhere ppoll, its timeout a pointer).
    The first interval line alone does not show that another is pending: a
    slow build can be stopped between phases with nothing left to write."""
    poll_nr = "7" if platform.machine() == "x86_64" else "73"
    deadline = time.monotonic() + harness.EXIT_TIMEOUT_S
    task_dir = f"/proc/{run.proc.pid}/task"
    while time.monotonic() < deadline:
        for tid in os.listdir(task_dir) if os.path.isdir(task_dir) else []:
            try:
                with open(f"{task_dir}/{tid}/syscall") as f:
                    call = f.read().split()
            except OSError:
                continue
            if (len(call) > 3 and call[0] == poll_nr and call[2] == "0x1"
                    and (poll_nr != "7" or call[3] == "0x64")):
                return
        if run.proc.poll() is not None:
            raise AssertionError("drivestress exited before blocking: "
                                 + run.finish().describe())
        time.sleep(0.01)
    raise AssertionError("no write waited for the stalled reader")


class StalledReaderMixin:
    """A FIFO of the caller's own whose reader stops reading: the first stop
    request ends the blocked write (no EINTR retry swallows it)."""

    def stalled_fifo(self):
        fifo = os.path.join(self.tmp, "out.fifo")
        os.mkfifo(fifo)
        rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # holds it open, never reads
        self.addCleanup(os.close, rfd)
        fcntl.fcntl(rfd, F_SETPIPE_SZ, 4096)
        return fifo, rfd

    def test_json_into_a_stalled_reader(self):
        fifo, rfd = self.stalled_fifo()
        run = self.start("-s", "1M", "-j", 1, "--rand-ops", 16, "--json", fifo, json_out=False)
        wait_for_data(rfd, 1, run)  # the document is more than the pipe takes
        run.send(signal.SIGINT)
        r = run.finish()
        self.assertExit(r, 130)
        self.assertIn(f"drivestress: error: --json {fifo}: write: Interrupted system call", r.stderr)
        self.assertNoFilesLeft(r)

    def test_timeseries_into_a_stalled_reader(self):
        fifo, rfd = self.stalled_fifo()
        run = self.start("-s", "1M", "-j", 1, "--rand-time", "600s", "--interval", "0.1s",
                         "--timeseries", fifo, json_out=False)
        wait_for_data(rfd, 1, run)  # a one-page pipe: POLLOUT no more, the writer waits
        wait_for_blocked_writer(run)
        run.send(signal.SIGINT)
        r = run.finish()
        self.assertExit(r, 130)
        self.assertIn(f"drivestress: error: --timeseries {fifo}: write: Interrupted system call",
                      r.stderr)
        self.assertNoFilesLeft(r)


class StalledReaderIoUring(StalledReaderMixin, harness.DriveStressTest):
    backend = "io_uring"


class StalledReaderSync(StalledReaderMixin, harness.DriveStressTest):
    backend = "sync"


class NonUtf8Paths(harness.DriveStressTest):
    """A target whose name is not UTF-8: the document is valid UTF-8 and
    gives the bytes back through os.fsencode (\\udcXX escapes)."""

    NAME = b"bad-\xff\xfe-\xc3"

    def read_document(self, path):
        with open(path, "rb") as f:
            raw = f.read()
        raw.decode("utf-8")  # strict: valid UTF-8
        return json.loads(raw)

    def run_bytes(self, *args):
        """Runs drivestress; its text report names the path as it is (bytes)."""
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", *args],
                           capture_output=True, timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 0, (p.stdout + p.stderr).decode(errors="replace"))
        return p

    def test_run_and_verify_only_documents(self):
        target = os.fsencode(self.tmp) + b"/" + self.NAME
        os.mkdir(target)
        prom = os.path.join(self.tmp, "x.prom")
        self.run_bytes(*map(str, RUN), "--keep", "--prom", prom, "--json", self.json_path,
                       target)
        doc = self.read_document(self.json_path)
        self.assertEqual(os.fsencode(doc["target"]["path"]), target)
        self.assertEqual([os.fsencode(p) for p in doc["target"]["files"]],
                         [target + b"/drivestress-0.dat", target + b"/drivestress-1.dat"])
        self.assertEqual(os.fsencode(doc["target"]["state_file"]), target + b"/drivestress.state")
        with open(prom, "rb") as f:
            f.read().decode("utf-8")  # labels: U+FFFD for what is not UTF-8
        state = target + b"/drivestress.state"
        self.run_bytes("--verify-only", state, "--cleanup", "--json", self.json_path)
        doc = self.read_document(self.json_path)
        self.assertEqual(os.fsencode(doc["verify_only"]["state_file"]), state)
        self.assertEqual([os.fsencode(f["path"]) for f in doc["verify_only"]["files"]],
                         [target + b"/drivestress-0.dat", target + b"/drivestress-1.dat"])
        self.assertEqual(os.listdir(target), [])


class Messages(harness.DriveStressTest):
    """Errors name what the user gave and what to do."""

    def test_compare_backends_without_io_uring(self):
        if not harness.NO_IO_URING:
            self.skipTest("no seccomp helper (--no-io-uring) given")
        r = self.drivestress(*RUN, "--compare-backends", json_out=False,
                             wrapper=[harness.NO_IO_URING])
        self.assertSetupError(r, "--compare-backends needs io_uring")
        self.assertNotIn("--backend", r.stderr)

    def test_memlock_limit_is_named(self):
        harness.require_root(self, "another user (root ignores RLIMIT_MEMLOCK)")
        os.chmod(self.tmp, 0o755)
        os.chown(self.target, 65534, 65534)
        p = subprocess.run(["prlimit", "--memlock=0", "setpriv", "--reuid=65534",
                            "--regid=65534", "--clear-groups", harness.DRIVESTRESS,
                            "--progress", "never", "--backend", "io_uring", *map(str, RUN),
                            self.target], capture_output=True, text=True,
                           timeout=harness.EXIT_TIMEOUT_S)
        if p.returncode == 0:
            self.skipTest("this kernel does not charge io_uring to RLIMIT_MEMLOCK")
        r = harness.Result(p.returncode, p.stdout, p.stderr, None, 0)
        self.assertSetupError(r, "--backend io_uring", "RLIMIT_MEMLOCK is 0 KiB",
                              "ulimit -l")


if __name__ == "__main__":
    harness.main()
