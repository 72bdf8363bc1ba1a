#!/usr/bin/env python3
"""A single-server disk: one file, DISK, in a FUSE filesystem whose daemon
answers one request at a time and takes SERVICE seconds for every read.

    slow_disk.py MOUNTPOINT SIZE_BYTES SERVICE_SECONDS

A loop device over MOUNTPOINT/disk then behaves like a drive with one
deterministic server (the loop device also does one request at a time on a
buffered backing file): its throughput is capped at 1/SERVICE reads a
second, and below the cap its response time rises with the load the way
queueing theory says (M/D/1 under Poisson arrivals), which a blkio throttle
(flat response time up to its cap) does not.  Writes are stored without a
delay.  Runs in the foreground until the filesystem is unmounted; the data
lives in this process's memory.  Needs python3-fusepy and /dev/fuse."""

import errno
import os
import stat
import sys
import time

import fusepy

DISK = "disk"


class SlowDisk(fusepy.Operations):
    def __init__(self, size, service):
        self.data = bytearray(size)
        self.service = service
        self.now = time.time()

    def getattr(self, path, fh=None):
        t = {"st_atime": self.now, "st_mtime": self.now, "st_ctime": self.now}
        if path == "/":
            return dict(t, st_mode=stat.S_IFDIR | 0o755, st_nlink=2)
        if path == "/" + DISK:
            return dict(t, st_mode=stat.S_IFREG | 0o600, st_nlink=1, st_size=len(self.data))
        raise fusepy.FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", DISK]

    def open(self, path, flags):
        if path != "/" + DISK:
            raise fusepy.FuseOSError(errno.ENOENT)
        return 0

    def read(self, path, size, offset, fh):
        # Busy until the service time has passed: a sleep would wake late
        # by the host's timer slack, and the server must be deterministic.
        until = time.perf_counter() + self.service
        time.sleep(max(0.0, self.service - 0.0002))
        while time.perf_counter() < until:
            pass
        return bytes(self.data[offset:offset + size])

    def write(self, path, buf, offset, fh):
        end = min(len(self.data), offset + len(buf))
        if offset >= end:
            raise fusepy.FuseOSError(errno.ENOSPC)
        self.data[offset:end] = buf[:end - offset]
        return end - offset

    def truncate(self, path, length, fh=None):
        if length != len(self.data):
            raise fusepy.FuseOSError(errno.EPERM)

    def fsync(self, path, datasync, fh):
        return 0

    def flush(self, path, fh):
        return 0


def main():
    mountpoint, size, service = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    # Ahead of ordinary threads (the run's own), so the server's time is its
    # own and not the scheduler's; it sleeps most of every read, so it never
    # holds a CPU for long.  Without the privilege it just runs as it is.
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
    except (OSError, AttributeError):
        pass
    # nothreads: one request at a time; direct_io: no page cache, so every
    # read of the loop device reaches this daemon.
    fusepy.FUSE(SlowDisk(size, service), mountpoint, foreground=True, nothreads=True,
                direct_io=True)


if __name__ == "__main__":
    main()
