"""Trust: no false verdict, no lost evidence, no file drivestress does not
own touched.  Each case is one way a careless or hostile user broke an
earlier version (issue 11): closed standard streams, a 4Kn device, a
second run into the same directory, a --keep run's files, files planted
while a run starts, kill -9 at any instant, every terminating signal, a
crafted state file, a file system that fills up, memory limits."""

import hashlib
import json
import os
import random
import signal
import subprocess
import time

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "trust-{cls}-{case}", "timeout": 120}

FILES = 2
SIZE = 8 * MiB
ARGS = ("-s", "8M", "-j", FILES, "--rand-ops", 2000)


def checksum(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class StandardStreams(harness.DriveStressTest):
    """A report must never land in a data file, and a report or document
    that could not be written is an error, said once."""

    progress = "never"

    def run_with(self, redirect, *args):
        """drivestress under `sh -c 'exec ... REDIRECT'`; its JSON from a file."""
        argv = self.command(*ARGS, *args)
        argv[argv.index("--progress") + 1] = self.progress
        p = subprocess.run(["sh", "-c", 'exec "$0" "$@" ' + redirect] + argv,
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        doc = None
        if os.path.exists(self.json_path):
            with open(self.json_path) as f:
                doc = json.load(f)
        return harness.Result(p.returncode, p.stdout or "", p.stderr or "", doc, 0)

    def assertClean(self, r):
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        self.assertGreater(doc["summary"]["verified_bytes"], 0)
        self.assertNoFilesLeft(r)

    def test_closed_stdout_buffered(self):
        """`>&-` with --buffered used to put the report into drivestress-0.dat
        (fd 1) and fail a healthy drive with 'corrupt'."""
        self.assertClean(self.run_with(">&-", "--buffered"))

    def test_closed_stdout_direct(self):
        self.assertClean(self.run_with(">&-"))

    def test_closed_stderr_with_progress(self):
        self.progress = "always"
        self.assertClean(self.run_with("2>&-", "--buffered"))

    def test_closed_stdin_stdout_stderr(self):
        self.assertClean(self.run_with("<&- >&- 2>&-", "--buffered"))

    def test_closed_stdout_keep_then_verify(self):
        r = self.run_with(">&-", "--keep", "--buffered")
        self.assertExit(r, 0)
        state = os.path.join(self.target, "drivestress.state")
        v = subprocess.run([harness.DRIVESTRESS, "--verify-only", state, "--cleanup"],
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("lost 0", v.stdout.replace("  ", " "))
        self.assertNoFilesLeft()

    def test_stdout_on_a_full_disk(self):
        r = self.run_with(">/dev/full")
        self.assertExit(r, 1)
        self.assertEqual(r.stderr.splitlines()[-1],
                         "drivestress: error: writing to standard output failed: "
                         "No space left on device")
        self.assertNoFilesLeft()

    def test_json_that_cannot_be_written(self):
        """The verdict line says why the exit status is 1."""
        argv = [a for a in self.command(*ARGS, json_out=False)]
        p = subprocess.run(argv[:-1] + ["--json", "/dev/full", argv[-1]], capture_output=True,
                           text=True, timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertNotIn("PASS", p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], "result   ERROR: --json /dev/full: write: "
                         "No space left on device (exit 1)")
        self.assertEqual(p.stderr, "drivestress: error: --json /dev/full: write: "
                         "No space left on device\n")

    def test_timeseries_that_cannot_be_written(self):
        r = self.drivestress("-s", "8M", "-j", 2, "--timeseries", "/dev/full", "--rand-time",
                             "1.5s")
        self.assertExit(r, 1)
        self.assertIn("drivestress: error: --timeseries /dev/full: write: No space left on device",
                      r.stderr)
        self.assertIn("result   ERROR: --timeseries /dev/full", r.stdout)


class SectorAlignment(harness.DriveStressTest):
    """A 4Kn device (loop, --sector-size 4096): units smaller than a sector
    are refused before any I/O, naming the option and the alignment."""

    def setUp(self):
        super().setUp()
        harness.require_root(self)
        backing = harness.backing_file(self, 96 * MiB)
        p = harness.sh("losetup", "--find", "--show", "--sector-size", "4096", backing,
                       check=False)
        if p.returncode != 0:
            self.skipTest("losetup --sector-size 4096: " + p.stderr.strip())
        self.dev = p.stdout.strip()
        self.addCleanup(harness.detach_loop, self.dev)

    def test_filesystem_on_a_4kn_device(self):
        point = harness.mkfs_and_mount(self, self.dev)
        target = os.path.join(point, "t")
        os.mkdir(target)
        for args, option in ((("--rand-block", "512"), "--rand-block 512"),
                             (("--rand-block", "1K", "--seq-block", "2K"), "--rand-block 1K"),
                             (("--sweep", "rand-block=512,4K"), "--sweep rand-block 512")):
            with self.subTest(args=args):
                r = self.drivestress("-s", "4M", "-j", 2, "--rand-ops", 100, *args,
                                     target=target, json_out=False)
                self.assertSetupError(r, option, "needs 4096-byte alignment", "--buffered")
                self.assertNoFilesLeft(r, directory=target)
        r = self.drivestress("-s", "4M", "-j", 2, "--rand-ops", 500, "--rand-block", "4K",
                             target=target)
        self.assertExit(r, 0)
        r = self.drivestress("-s", "4M", "-j", 2, "--rand-ops", 500, "--rand-block", "512",
                             "--buffered", target=target)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r, directory=target)

    def test_raw_4kn_device(self):
        r = self.drivestress("-s", "4M", "-j", 2, "--rand-ops", 100, "--rand-block", "512",
                             "--raw-device", self.dev, "--destroy-data", self.dev, target=False,
                             json_out=False)
        self.assertSetupError(r, "--rand-block 512", "4096-byte logical sectors")
        r = self.drivestress("-s", "4M", "-j", 2, "--rand-ops", 500, "--raw-device", self.dev,
                             "--destroy-data", self.dev, target=False)
        self.assertExit(r, 0)


class Ownership(harness.DriveStressTest):
    """A run owns its directory while it runs, and never the files of a
    --keep run; what is at its names is replaced only when it is its own."""

    def test_second_run_is_refused_naming_the_first(self):
        first = self.start(*ARGS, stop="seq-read")
        first.wait_stopped()
        before = {i: checksum(self.data_file(i)) for i in range(FILES)}
        second = subprocess.run(self.command(*ARGS, json_out=False), capture_output=True,
                                text=True, timeout=harness.EXIT_TIMEOUT_S)
        r = harness.Result(second.returncode, second.stdout, second.stderr, None, 0)
        self.assertSetupError(r, self.target, "in use by another drivestress run",
                              f"pid {first.proc.pid}")
        self.assertEqual({i: checksum(self.data_file(i)) for i in range(FILES)}, before)
        first.resume()
        self.assertExit(first.finish(), 0)
        self.assertNoFilesLeft()

    def test_kept_files_are_evidence(self):
        r = self.drivestress(*ARGS, "--keep")
        self.assertExit(r, 0)
        state = os.path.join(self.target, "drivestress.state")
        kept = {n: checksum(os.path.join(self.target, n)) for n in self.target_files()}
        for args in (ARGS, ARGS + ("--keep",), ("-s", "8M", "-j", 1)):
            with self.subTest(args=args):
                r = self.drivestress(*args, json_out=False)
                self.assertSetupError(r, f"--verify-only {state}", f"--verify-only {state} "
                                      "--cleanup")
                self.assertEqual({n: checksum(os.path.join(self.target, n))
                                  for n in self.target_files()}, kept)
        v = subprocess.run([harness.DRIVESTRESS, "--verify-only", state, "--cleanup"],
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertNoFilesLeft()
        self.assertExit(self.drivestress(*ARGS), 0)

    def test_things_planted_while_it_starts(self):
        """Stopped after its checks and before it creates anything, then
        something appears at a file name: it is refused (never deleted or
        written through), and nothing of the run is left."""
        victim = os.path.join(self.tmp, "victim")
        with open(victim, "wb") as f:
            f.write(b"precious" * 1000)
        good = checksum(victim)

        def symlink(p):
            os.symlink(victim, p)

        def hardlink(p):
            os.link(victim, p)

        def fifo(p):
            os.mkfifo(p)

        def foreign(p):
            with open(p, "wb") as f:
                f.write(b"my notes\n" * 1000)

        for plant, why in ((symlink, "is a symbolic link"), (hardlink, "has 2 links"),
                           (fifo, "is not a regular file"), (foreign, "is not a drivestress file")):
            with self.subTest(plant=plant.__name__):
                run = self.start(*ARGS, stop="create", json_out=False)
                run.wait_stopped()
                planted = self.data_file(1)
                plant(planted)
                run.resume()
                r = run.finish()
                self.assertSetupError(r, planted, why, "refusing to replace it")
                self.assertEqual(self.target_files(), ["drivestress-1.dat"])
                self.assertEqual(checksum(victim), good)
                os.unlink(planted)

    def test_result_file_that_is_a_data_or_state_file_is_refused(self):
        for option, name in (("--json", "drivestress-1.dat"), ("--prom", "drivestress.state"),
                             ("--timeseries", "drivestress-0.dat")):
            with self.subTest(option=option):
                path = os.path.join(self.target, name)
                r = self.drivestress(*ARGS, "--keep", option, path, json_out=False)
                self.assertSetupError(r, f"{option} {path}: is one of the run's own files")
                self.assertNoFilesLeft(r)

    def test_kill9_at_any_instant_leaves_what_the_next_run_replaces(self):
        """kill -9 at random instants in the first tens of milliseconds (an
        earlier version left zero-filled files that locked the target)."""
        rng = random.Random(1234)
        for attempt in range(16):
            run = self.start("-s", "32M", "-j", 4, "--rand-ops", 100000, json_out=False)
            time.sleep(rng.uniform(0, 0.06))
            run.send(signal.SIGKILL)
            run.finish()
            for name in self.target_files():  # ours, or ours under a hidden name
                self.assertRegex(name, r"^(drivestress-\d\.dat|\.drivestress-\d\.dat\."
                                 r"[0-9a-f]{16}\.new)$")
        # Something else under a hidden name of ours is not touched.
        planted = os.path.join(self.target, ".drivestress-0.dat.0123456789abcdef.new")
        with open(planted, "w") as f:
            f.write("not ours\n")
        r = self.drivestress("-s", "32M", "-j", 4, "--rand-ops", 2000)
        self.assertExit(r, 0)
        self.assertEqual(self.target_files(), [os.path.basename(planted)], r.describe())


    def test_hidden_leftover_of_ours_is_swept(self):
        """A kill -9 while a leftover was being replaced leaves the new file
        under its hidden name: the next run removes it when it is ours."""
        run = self.start(*ARGS, stop="seq-read", json_out=False)
        run.wait_stopped()
        hidden = os.path.join(self.target, ".drivestress-1.dat.00000000000000aa.new")
        with open(self.data_file(1), "rb") as src, open(hidden, "wb") as dst:
            dst.write(src.read())
        run.resume()
        self.assertExit(run.finish(), 0)
        self.assertEqual(self.target_files(), [os.path.basename(hidden)])
        r = self.drivestress(*ARGS)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)


class EverySignal(harness.DriveStressTest):
    """Every signal whose default action ends the process is a stop: the
    partial report, the files removed, exit 128+n."""

    SIGNALS = [signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2, signal.SIGALRM,
               signal.SIGVTALRM, signal.SIGPROF, signal.SIGIO, signal.SIGPWR, signal.SIGXCPU,
               signal.SIGSTKFLT, signal.SIGRTMIN, signal.SIGRTMIN + 5, signal.SIGRTMAX,
               signal.SIGSEGV, signal.SIGBUS, signal.SIGTRAP,
               # Sent by another process; the kernel's own for a failed
               # write is not a stop (test_signals.py BrokenPipe).
               signal.SIGPIPE, signal.SIGXFSZ]

    def check_backend(self, backend):
        self.backend = backend
        for sig in self.SIGNALS:
            with self.subTest(signal=int(sig)):
                run = self.start("-s", "8M", "-j", 2, "--rand-time", 60, stop="random:20")
                run.wait_stopped()
                run.send(sig)
                run.resume()
                r = run.finish()
                self.assertExit(r, 128 + sig)
                self.assertIn(f"INTERRUPTED: nothing wrong found so far (exit {128 + sig})",
                              r.stdout)
                self.assertEqual(self.assertJson(r)["summary"]["signal"], sig)
                self.assertNoFilesLeft(r)

    def test_io_uring(self):
        reason = harness.io_uring_unavailable_reason()
        if reason:
            self.skipTest(f"io_uring is not available here ({reason})")
        self.check_backend("io_uring")

    def test_hangup_ignored_by_the_parent_stays_ignored(self):
        """Started under nohup (SIGHUP ignored), a hang-up does not end the
        run: it finishes and passes, files removed."""
        run = self.start("-s", "8M", "-j", 2, "--rand-ops", 2000, stop="random:20",
                         hangup_ignored=True)
        run.wait_stopped()
        run.send(signal.SIGHUP)
        run.resume()
        r = run.finish()
        self.assertExit(r, 0)
        self.assertNotIn("INTERRUPTED", r.stdout)
        self.assertIsNone(self.assertJson(r)["summary"].get("signal"))
        self.assertNoFilesLeft(r)

    def test_sync(self):
        self.check_backend("sync")


class Resources(harness.DriveStressTest):
    """What a run holds is released before the next step; space and memory
    are counted before anything is written."""

    def small_fs(self, mib, fstype="ext4"):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, mib * MiB))
        return dev, harness.mkfs_and_mount(self, dev, fstype)

    def test_recreate_and_compare_with_files_over_half_the_space(self):
        """The previous ring used to pin the unlinked files for ~0.5 s."""
        _, point = self.small_fs(96)
        target = os.path.join(point, "t")
        os.mkdir(target)
        st = os.statvfs(point)
        each = (st.f_bavail * st.f_frsize * 6 // 10) // 2 // MiB * MiB  # 60% in two files
        for args in (("--iterations", 3, "--recreate"), ("--compare-backends",)):
            with self.subTest(args=args):
                r = self.drivestress("-s", each, "-j", 2, "--rand-ops", 500, *args,
                                     target=target, json_out=False)
                self.assertExit(r, 0)
                self.assertNoFilesLeft(r, directory=target)

    def test_mkfs_right_after_a_raw_device_run(self):
        dev = harness.loop_device(self, harness.backing_file(self, 64 * MiB))
        r = self.drivestress("-s", "8M", "-j", 2, "--rand-ops", 500, "--raw-device", dev,
                             "--destroy-data", dev, target=False, json_out=False)
        self.assertExit(r, 0)
        mkfs = harness.sh("mkfs.ext4", "-q", "-F", dev, check=False)
        self.assertEqual(mkfs.returncode, 0, mkfs.stderr)

    def test_state_file_counted_in_free_space(self):
        """--keep on a filesystem with room for the files but not the state
        file: refused before the run (it used to fail every acknowledgement
        after it)."""
        _, point = self.small_fs(64)
        st = os.statvfs(point)
        free = st.f_bavail * st.f_frsize
        files = 2 * 16 * MiB
        filler = os.path.join(point, "filler")
        with open(filler, "wb") as f:
            os.posix_fallocate(f.fileno(), 0, free - files - 64 * 1024)
        target = os.path.join(point, "t")
        os.mkdir(target)
        r = self.drivestress("-s", "16M", "-j", 2, "--rand-block", "512", "--keep",
                             target=target, json_out=False)
        self.assertSetupError(r, "not enough free space", "state file")
        self.assertNoFilesLeft(r, directory=target)
        r = self.drivestress("-s", "16M", "-j", 2, "--rand-block", "512", "--rand-ops", 100,
                             target=target, json_out=False)
        self.assertExit(r, 0)  # without --keep it fits

    def test_memory_filesystems(self):
        harness.require_root(self, "mount")
        point = os.path.join(self.tmp, "mnt")
        os.mkdir(point)
        for fstype, opts in (("tmpfs", "size=400G"), ("ramfs", None)):
            with self.subTest(fstype=fstype):
                harness.sh("mount", "-t", fstype, *(["-o", opts] if opts else []), fstype,
                           point)
                try:
                    r = self.drivestress("-s", "300G", "-j", 1, target=point, json_out=False)
                    self.assertSetupError(r, "not enough memory for files on", "MemAvailable")
                    r = self.drivestress("-s", "8M", "-j", 2, "--rand-ops", 500, target=point,
                                         json_out=False)
                    self.assertExit(r, 0)
                    self.assertNoFilesLeft(r, directory=point)
                finally:
                    harness.unmount(point)


class Messages(harness.DriveStressTest):

    def limited(self, vm_kib, *args):
        if harness.sanitizer():
            self.skipTest("ulimit -v cannot apply to a sanitizer build (its shadow memory "
                          "reserves terabytes of address space)")
        argv = self.command(*args, json_out=False)
        p = subprocess.run(["sh", "-c", f'ulimit -v {vm_kib}; exec "$0" "$@"'] + argv,
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        if "not enough free space" in p.stderr:
            self.skipTest("no room for the (unwritten, fallocated) test files here")
        return harness.Result(p.returncode, p.stdout, p.stderr, None, 0)

    def test_out_of_memory_is_one_line(self):
        """Under ulimit -v: the unit maps cannot be allocated (once a bare
        std::bad_alloc), or a worker thread cannot start (once a hang)."""
        r = self.limited(60000, "-s", "4G", "-j", 2, "--rand-block", "512", "--rand-ops", 100)
        self.assertSetupError(r, "out of memory allocating 2 x 104 MiB of unit maps",
                              "--rand-block")
        self.assertNoFilesLeft(r)
        # Enough address space for the maps and the huge-page-aligned buffer
        # arenas (each reserves up to 2 MiB more to align), not for the
        # threads' stacks: 62000-74000 KiB all fail at the first thread.
        r = self.limited(66000, "-s", "512M", "-j", 2, "--rand-block", "512", "--rand-ops", 100)
        self.assertSetupError(r, "cannot start worker thread 0 of 2")
        self.assertNoFilesLeft(r)

    def test_sync_thread_pool_that_cannot_start_is_one_line(self):
        """--backend sync --qd 4096: 4096 threads of 8 MiB stacks do not fit
        in 3 GB of address space; the run names --qd and leaves nothing."""
        r = self.limited(3000000, "--backend", "sync", "--qd", 4096, "-s", "64M", "-j", 1,
                         "--rand-ops", 100)
        self.assertSetupError(r, "--qd 4096 with --backend sync: cannot start 4096 I/O threads",
                              "ulimit -u or -v")
        self.assertNoFilesLeft(r)

    def test_qd_limited_by_a_small_file_is_said(self):
        r = self.drivestress("-s", "64K", "-j", 1, "--qd", 32, "--seq-block", "64K",
                             "--rand-ops", 100, json_out=False)
        self.assertExit(r, 0)
        self.assertIn("note     --qd 32 limited to 8 per worker: at most half of a file's 16 "
                      "units are in flight", r.stdout)

    def test_btrfs_target_is_named(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 160 * MiB))
        point = harness.mkfs_and_mount(self, dev, "btrfs")
        sub = os.path.join(point, "sub")
        sp = harness.sh("btrfs", "subvolume", "create", sub, check=False)
        target = sub if sp.returncode == 0 else point
        r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100, target=target)
        self.assertExit(r, 0)
        self.assertIn(f"target   {target} (btrfs on {dev})", r.stdout)
        self.assertEqual(self.assertJson(r)["target"]["filesystem"], "btrfs")


class CraftedState(harness.DriveStressTest):
    """--verify-only --cleanup removes only files that carry the run's
    identity; a state file of another user, or behind a symlink, is
    refused."""

    def kept_without_acknowledgements(self):
        """A --keep run killed before its first write: a state file with
        nothing acknowledged (every unit 'never acknowledged')."""
        run = self.start("-s", "1M", "-j", 2, "--keep", stop="seq-write", json_out=False)
        run.wait_stopped()
        run.send(signal.SIGKILL)
        run.resume()
        run.finish()
        return os.path.join(self.target, "drivestress.state")

    def verify(self, *args):
        p = subprocess.run([harness.DRIVESTRESS, "--verify-only", *args], capture_output=True,
                           text=True, timeout=harness.EXIT_TIMEOUT_S)
        return harness.Result(p.returncode, p.stdout, p.stderr, None, 0)

    def test_cleanup_spares_a_file_that_is_not_the_runs(self):
        """A file that does not carry the run's data is a loss, and --cleanup
        runs only after a verified PASS: nothing is removed, not even the
        run's own other file."""
        r = self.drivestress("-s", "1M", "-j", 2, "--keep", "--rand-time", "0.1", json_out=False)
        self.assertExit(r, 0)
        state = os.path.join(self.target, "drivestress.state")
        victim = self.data_file(0)
        os.unlink(victim)
        with open(victim, "wb") as f:
            f.write(b"root's own data\n" * 65536)  # 1 MiB, no unit header
        os.chmod(victim, 0o600)
        good = checksum(victim)
        r = self.verify(state, "--cleanup")
        self.assertExit(r, 2)
        self.assertEqual(checksum(victim), good)
        self.assertEqual(self.target_files(),
                         ["drivestress-0.dat", "drivestress-1.dat", "drivestress.state"])

    def test_state_of_another_user_or_through_a_link(self):
        state = self.kept_without_acknowledgements()
        link = os.path.join(self.tmp, "link.state")
        os.symlink(state, link)
        self.assertSetupError(self.verify(link, "--cleanup"), link, "symbolic link")
        if os.geteuid() == 0:
            os.chown(state, 65534, 65534)
            self.assertSetupError(self.verify(state, "--cleanup"), state, "owned by uid 65534")
        self.assertEqual(len(self.target_files()), 3)  # nothing removed


if __name__ == "__main__":
    harness.main()
