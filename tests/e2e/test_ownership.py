"""What a run owns, attacked again (issue 22): the lock of its directory,
the leftovers of runs killed with -9, and the evidence of --keep runs seen
through other names.

- The lock is not the directory's own flock (any reader could take that and
  keep root out) and is keyed by the directory's identity, so an overlay's
  merged directory and its upper directory are one target.
- Leftovers the next run can prove are its own (unit header, name, nobody
  holding the lock) are removed, and said so in one line.
- A run never opens a file that a kept state in its directory names,
  whatever name (prefix, hard link) reaches it."""

import os
import subprocess
import sys

import harness

NOBODY = 65534
FILES = 2
ARGS = ("-s", "8M", "-j", FILES, "--rand-ops", 2000)


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


if __name__ == "__main__":
    harness.main()
