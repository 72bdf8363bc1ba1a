"""Where a bench runs: a loop-device ext4 made for it, a blkio throttle, the
target's filesystem and O_DIRECT support."""

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


def run_cmd(argv, check=True):
    res = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if check and res.returncode != 0:
        raise BenchError(f"{' '.join(argv)}: exit {res.returncode}: {res.stderr.strip()}")
    return res


class RawLoop:
    """A loop device over a file in /dev/shm, no filesystem: setup() returns
    its path; teardown() undoes what setup reached.  `hint` says what sizes
    it, for the message when /dev/shm has too little room."""

    def __init__(self, device_bytes, name="", hint="--size"):
        self.device_bytes = device_bytes
        self.image = f"/dev/shm/dsbench-{os.getpid()}{name}.img"
        self.hint = hint
        self.loop = None

    def setup(self):
        st = os.statvfs("/dev/shm")
        free = st.f_bavail * st.f_frsize
        if free < self.device_bytes + 256 * MiB:
            raise BenchError(f"/dev/shm: {free // MiB} MiB free, need "
                             f"{self.device_bytes // MiB} MiB for the loop image (see {self.hint})")
        with open(self.image, "wb") as f:
            f.truncate(self.device_bytes)
        self.loop = run_cmd(["losetup", "-f", "--show", self.image]).stdout.strip()
        return self.loop

    def teardown(self):
        if self.loop:
            res = run_cmd(["losetup", "-d", self.loop], check=False)
            if res.returncode != 0:
                log(f"bench: losetup -d {self.loop}: {res.stderr.strip()}")
            self.loop = None
        if os.path.exists(self.image):
            os.unlink(self.image)


class LoopTarget(RawLoop):
    """ext4 on a loop device over a file in /dev/shm, mounted on a temp dir.

    Every step records what it created so teardown() undoes exactly that,
    whatever point setup reached.
    """

    def __init__(self, device_bytes, name=""):
        super().__init__(device_bytes, name, hint="--device-size")
        self.mountpoint = None
        self.mounted = False
        self.description = ""

    def setup(self):
        super().setup()
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
        super().teardown()


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
