"""What a run owns: the lock of its directory, the leftovers of runs killed
with -9, and the evidence of --keep runs seen through other names.

- The lock is not the directory's own flock (any reader could take that and
  keep root out) and is keyed by the directory's identity, so an overlay's
  merged directory and its upper directory are one target; one user's runs
  meet whatever their environment says the runtime directory is.
- Leftovers the next run can prove are its own (unit header, name, nobody
  holding the lock) are removed, and said so in one line; look-alike names
  are not its own.
- A run never opens a file that a kept state in its directory names,
  whatever name (prefix, hard link) reaches it."""

import hashlib
import os
import shutil
import signal
import subprocess
import sys

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "ownership-{cls}-{case}", "timeout": 120}

NOBODY = 65534
FILES = 2
ARGS = ("-s", "8M", "-j", FILES, "--rand-ops", 2000)


def checksum(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def setpriv(uid):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


class TargetLock(harness.DriveStressTest):
    """The lock of a target directory."""

    def refused_while(self, first, target):
        second = subprocess.run(self.command(*ARGS, target=target, json_out=False),
                                capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        r = harness.Result(second.returncode, second.stdout, second.stderr, None, 0)
        self.assertSetupError(r, "in use by another drivestress run", f"pid {first.proc.pid}")

    def test_a_reader_cannot_block_the_run(self):
        """Another user who can read the directory flocks it: root's run
        goes on (it used to be refused as "in use")."""
        harness.require_root(self, "a second user")
        os.chmod(self.tmp, 0o755)
        os.chmod(self.target, 0o755)
        holder = subprocess.Popen(
            setpriv(NOBODY) + [sys.executable, "-c",
                               "import fcntl, os, sys\n"
                               f"fd = os.open({self.target!r}, os.O_RDONLY | os.O_DIRECTORY)\n"
                               "fcntl.flock(fd, fcntl.LOCK_EX)\n"
                               "print('locked', flush=True)\n"
                               "sys.stdin.read()\n"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.stdin.close)
        self.addCleanup(holder.stdout.close)
        self.assertEqual(holder.stdout.readline().strip(), "locked")
        r = self.drivestress(*ARGS)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)

    def test_overlay_merged_and_upper_are_one_target(self):
        """A run into an overlay's merged directory and one into its upper
        directory would replace each other's files: the second is refused,
        naming the first, whichever comes first."""
        harness.require_root(self, "an overlay mount")
        base = os.path.join(self.tmp, "ovl")
        lower, upper, work, merged = (os.path.join(base, n) for n in ("l", "u", "w", "m"))
        for d in (lower, upper, work, merged):
            os.makedirs(d)
        os.mkdir(os.path.join(upper, "t"))
        mount = harness.sh("mount", "-t", "overlay", "overlay", "-o",
                           f"lowerdir={lower},upperdir={upper},workdir={work}", merged,
                           check=False)
        if mount.returncode != 0:
            self.skipTest(f"cannot mount an overlay here: {mount.stderr.strip()}")
        self.addCleanup(harness.unmount, merged)
        through_merged, through_upper = os.path.join(merged, "t"), os.path.join(upper, "t")
        for first_at, second_at in ((through_merged, through_upper),
                                    (through_upper, through_merged)):
            with self.subTest(first=first_at):
                first = self.start(*ARGS, stop="seq-read", target=first_at, json_out=False)
                first.wait_stopped()
                self.refused_while(first, second_at)
                first.resume()
                self.assertExit(first.finish(), 0)
                self.assertEqual(os.listdir(first_at), [])

    def test_other_names_of_the_directory_find_the_lock(self):
        """A bind mount and /proc/self/root name the same directory."""
        harness.require_root(self, "a bind mount")
        bound = os.path.join(self.tmp, "bound")
        os.mkdir(bound)
        harness.sh("mount", "--bind", self.target, bound)
        self.addCleanup(harness.unmount, bound)
        first = self.start(*ARGS, stop="seq-read", json_out=False)
        first.wait_stopped()
        for other in (bound, "/proc/self/root" + self.target):
            with self.subTest(other=other):
                self.refused_while(first, other)
        first.resume()
        self.assertExit(first.finish(), 0)
        self.assertNoFilesLeft()


class UserLockDirectories(harness.DriveStressTest):
    """Two runs of one user, one with $XDG_RUNTIME_DIR and one without (a
    login shell, sudo, cron), meet: a user's run locks in every usable
    candidate directory, not in $XDG_RUNTIME_DIR's alone."""

    def test_runs_with_different_environments_meet(self):
        harness.require_root(self, "a second user")
        if not shutil.which("setpriv"):
            self.skipTest("setpriv not installed")
        xdg = os.path.join(self.tmp, "xdg")
        os.mkdir(xdg, 0o700)
        for d in (self.tmp, self.target, xdg):
            os.chown(d, NOBODY, NOBODY)
        os.chmod(self.tmp, 0o755)
        fallback = f"/tmp/drivestress-{NOBODY}"
        if not os.path.exists(fallback):  # made by these runs: removed after
            self.addCleanup(lambda: os.path.isdir(fallback) and not os.listdir(fallback)
                            and os.rmdir(fallback))
        without = ["env", "-u", "XDG_RUNTIME_DIR"] + setpriv(NOBODY)
        with_xdg = ["env", f"XDG_RUNTIME_DIR={xdg}"] + setpriv(NOBODY)
        for first_env, second_env in ((without, with_xdg), (with_xdg, without)):
            with self.subTest(first=first_env[1]):
                first = self.start(*ARGS, stop="seq-read", json_out=False, wrapper=first_env)
                first.wait_stopped()
                p = subprocess.run(self.command(*ARGS, json_out=False, wrapper=second_env),
                                   capture_output=True, text=True,
                                   timeout=harness.EXIT_TIMEOUT_S)
                r = harness.Result(p.returncode, p.stdout, p.stderr, None, 0)
                self.assertSetupError(r, "in use by another drivestress run",
                                      f"pid {first.proc.pid}")
                first.resume()
                self.assertExit(first.finish(), 0)
                self.assertNoFilesLeft()

class Leftovers(harness.DriveStressTest):
    """What runs killed with -9 leave at names the next run does not use."""

    def killed(self, *args, target=None):
        run = self.start(*args, stop="seq-read", target=target, json_out=False)
        run.wait_stopped()
        run.send(signal.SIGKILL)
        run.finish()

    def assertRemoved(self, r, names):
        lines = [l for l in r.stderr.splitlines() if "leftover" in l]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn(f"removed {len(names)} leftover file", lines[0])
        for n in names:
            self.assertIn(n, lines[0])

    def test_fewer_files_after_kill9(self):
        self.killed("-s", "8M", "-j", 4, "--rand-ops", 2000)
        r = self.drivestress(*ARGS)
        self.assertExit(r, 0)
        self.assertRemoved(r, ["drivestress-2.dat", "drivestress-3.dat"])
        self.assertNoFilesLeft(r)

    def test_other_prefix_after_kill9(self):
        """A leftover of another --path prefix is not at a name this run
        makes (issue 37: only `<our stem><n>.dat`): a run of that prefix
        removes it."""
        self.killed("-s", "8M", "-j", 4, "--rand-ops", 2000, "--path",
                    os.path.join(self.target, "p"), target=False)
        self.assertEqual(self.target_files(), ["p0.dat", "p1.dat", "p2.dat", "p3.dat"])
        r = self.drivestress(*ARGS)
        self.assertExit(r, 0)
        self.assertNotIn("leftover", r.stderr)
        self.assertEqual(self.target_files(), ["p0.dat", "p1.dat", "p2.dat", "p3.dat"])
        r = self.drivestress(*ARGS, "--path", os.path.join(self.target, "p"), target=False)
        self.assertExit(r, 0)
        self.assertRemoved(r, ["p2.dat", "p3.dat"])
        self.assertNoFilesLeft(r)

    def test_what_is_not_provably_ours_stays(self):
        """Another file at such a name, a drivestress file whose header
        names another file index, and the files a state file keeps stay."""
        self.killed(*ARGS, "--path", os.path.join(self.target, "p"), target=False)
        os.rename(os.path.join(self.target, "p1.dat"), os.path.join(self.target, "q7.dat"))
        with open(os.path.join(self.target, "x0.dat"), "wb") as f:
            f.write(os.urandom(8192))
        r = self.drivestress(*ARGS, "--keep", "--path", os.path.join(self.target, "k"),
                             target=False)
        self.assertExit(r, 0)
        self.assertNotIn("leftover", r.stderr)  # p0.dat: another prefix's
        r = self.drivestress(*ARGS)
        self.assertExit(r, 0)
        self.assertNotIn("leftover", r.stderr)
        self.assertEqual(self.target_files(),
                         ["k.state", "k0.dat", "k1.dat", "p0.dat", "q7.dat", "x0.dat"])

    def test_checkpoint_temporaries_of_killed_runs(self):
        """A kill -9 while a result document is written leaves its hidden
        temporary (".NAME.PID-HEX.tmp"); the next run writing that document
        removes the ones whose process is gone, and says so.  One of a live
        process, one of another user and other names stay."""
        gone = subprocess.Popen(["true"])
        gone.wait()  # a process id that no longer exists
        folder, base = os.path.split(self.json_path)
        def name(pid, tail="0123456789abcdef"):
            return os.path.join(folder, f".{base}.{pid}-{tail}.tmp")
        dead, live, other = name(gone.pid), name(os.getpid()), name(gone.pid, "not-hex-at-all!!")
        for path in (dead, live, other):
            with open(path, "wb") as f:
                f.write(b"{")
        foreign = name(gone.pid, "fedcba9876543210")
        with open(foreign, "wb") as f:
            f.write(b"{")
        if os.geteuid() == 0:
            os.chown(foreign, 65534, 65534)
        r = self.drivestress(*ARGS)
        self.assertExit(r, 0)
        removed = 1 if os.geteuid() == 0 else 2
        self.assertIn(f"--json {self.json_path}: removed {removed} temporary file", r.stderr)
        self.assertFalse(os.path.exists(dead))
        for path in (live, other) + ((foreign,) if os.geteuid() == 0 else ()):
            self.assertTrue(os.path.exists(path), path)
        r = self.drivestress(*ARGS)
        self.assertNotIn("temporary file", r.stderr)


class LeftoverNames(harness.DriveStressTest):
    """Copies of a genuine leftover under look-alike names are not ours: only
    the names a run makes, `<prefix><n>.dat` with n in canonical decimal, are
    swept (drivestress-0x5.dat, drivestress-05.dat, ... are left alone)."""

    COPIES = ["drivestress-0x5.dat", "drivestress- 5.dat", "drivestress-+5.dat",
              "drivestress-005.dat", "drivestress-05.dat", "drivestress-5.dat.bak",
              "other-5.dat"]

    def test_only_exact_names_are_swept(self):
        run = self.start("-s", "1M", "-j", 6, "--rand-ops", 100, stop="seq-read", json_out=False)
        run.wait_stopped()
        run.close()  # SIGKILL: six files left
        genuine = self.data_file(5)
        with open(genuine, "rb") as f:
            content = f.read()
        for name in self.COPIES:
            shutil.copyfile(genuine, os.path.join(self.target, name))
        r = self.drivestress("-s", "1M", "-j", 2, "--rand-ops", 100)
        self.assertExit(r, 0)
        # drivestress-2..5.dat were a killed run's: swept, and said so.
        self.assertIn("removed 4 leftover files of earlier runs", r.stderr)
        self.assertEqual(self.target_files(), sorted(self.COPIES))
        for name in self.COPIES:
            with open(os.path.join(self.target, name), "rb") as f:
                self.assertEqual(f.read(), content, name)

class KeptUnderOtherNames(harness.DriveStressTest):
    """A run never opens a file a kept state in its directory names (issue 22
    item 5: the second run used to replace and delete the first's evidence)."""

    def check_refused(self, kept_args, second_args, state):
        r = self.drivestress(*kept_args, "--keep", target=False, json_out=False)
        self.assertExit(r, 0)
        before = {n: checksum(os.path.join(self.target, n)) for n in self.target_files()}
        r = self.drivestress(*second_args, target=False, json_out=False)
        self.assertSetupError(r, "kept by the --keep run of " + os.path.join(self.target, state))
        self.assertEqual({n: checksum(os.path.join(self.target, n))
                          for n in self.target_files()}, before)

    def test_prefix_that_is_the_default_name(self):
        self.check_refused((*ARGS, self.target),
                           (*ARGS, "--path", os.path.join(self.target, "drivestress-")),
                           "drivestress.state")

    def test_prefix_that_extends_another(self):
        self.check_refused(("-s", "1M", "-j", 11, "--rand-ops", 200, "--path",
                            os.path.join(self.target, "a")),
                           (*ARGS, "--path", os.path.join(self.target, "a1")), "a.state")

    def test_hard_link_to_a_kept_file(self):
        r = self.drivestress(*ARGS, "--keep", json_out=False)
        self.assertExit(r, 0)
        os.link(self.data_file(0), os.path.join(self.target, "h0.dat"))
        r = self.drivestress(*ARGS, "--path", os.path.join(self.target, "h"), target=False,
                             json_out=False)
        self.assertSetupError(r, "h0.dat", "kept by the --keep run of")


if __name__ == "__main__":
    harness.main()
