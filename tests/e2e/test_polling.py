#!/usr/bin/env python3
"""--sqpoll and --iopoll: an SQPOLL ring runs and verifies; --iopoll on a
device without poll queues is refused with one line before any phase runs,
leaving nothing behind; both refused at parse time where they cannot apply."""

import ctypes
import os
import platform

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "polling-{case}"}

SMALL = ("-s", "4M", "-j", 2, "--rand-ops", 4000)
IORING_SETUP_SQPOLL = 1 << 1


def sqpoll_refused_reason():
    """Why the kernel refuses an SQPOLL ring, or None (raw io_uring_setup)."""
    if platform.machine() not in ("x86_64", "aarch64"):
        return "unknown architecture " + platform.machine()
    libc = ctypes.CDLL(None, use_errno=True)
    params = (ctypes.c_uint32 * 30)()  # struct io_uring_params: sq_entries, cq_entries, flags, ...
    params[2] = IORING_SETUP_SQPOLL
    fd = libc.syscall(ctypes.c_long(425), ctypes.c_uint(4), params)
    if fd < 0:
        return "io_uring_setup with SQPOLL: " + os.strerror(ctypes.get_errno())
    os.close(fd)
    return None


def device_polls(path):
    """True/False from the block device's queue/io_poll, None if unknown."""
    st = os.stat(path)
    sys_dev = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    for queue in (os.path.join(sys_dev, "queue"), os.path.join(sys_dev, "..", "queue")):
        try:
            with open(os.path.join(queue, "io_poll")) as f:
                return f.read().strip() == "1"
        except OSError:
            continue
    return None


class Polling(harness.DriveStressTest):
    backend = "io_uring"

    def test_sqpoll_runs_and_verifies(self):
        reason = sqpoll_refused_reason()
        if reason:
            self.skipTest(f"the kernel refuses SQPOLL here ({reason})")
        r = self.drivestress(*SMALL, "--sqpoll")
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        flags = doc["backend"]["io_uring"]["setup_flags"]
        self.assertIn("SQPOLL", flags)
        self.assertNotIn("DEFER_TASKRUN", flags)  # the kernel refuses it with SQPOLL
        self.assertNotIn("IOPOLL", flags)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        # Every byte written sequentially was read back and verified twice
        # (seq-read, reverify), plus the random phase's reads.
        self.assertGreater(doc["summary"]["verified_bytes"], 2 * 2 * 4 * harness.MiB)
        header = [x for x in r.stdout.splitlines() if x.startswith("backend")]
        self.assertEqual(len(header), 1, r.stdout)
        self.assertIn("SQPOLL", header[0])

    def test_iopoll_without_poll_queues_is_refused(self):
        polls = device_polls(self.target)
        if polls is None:
            self.skipTest(f"cannot tell whether the device under {self.target} polls")
        if polls:
            self.skipTest(f"the device under {self.target} has poll queues")
        r = self.drivestress(*SMALL, "--iopoll")
        self.assertSetupError(r, "--iopoll", "Operation not supported")
        self.assertNoFilesLeft(r)
        self.assertIsNone(r.doc, "no result document for a refused run")
        self.assertNotIn("seq-write", r.stdout)  # refused before any phase ran
        self.assertEqual(sorted(os.listdir(self.tmp)), ["target"])
        # --keep keeps files of a run that started, not of a refused one:
        # neither the files nor the state file stay.
        r = self.drivestress(*SMALL, "--iopoll", "--keep")
        self.assertSetupError(r, "--iopoll", "Operation not supported")
        self.assertEqual(os.listdir(self.target), [], "files or state left by a refused run")

    def test_refused_at_parse_time(self):
        cases = [
            (("--iopoll", "--backend", "sync"), ("--iopoll", "--backend sync")),
            (("--sqpoll", "--backend", "sync"), ("--sqpoll", "--backend sync")),
            (("--iopoll", "--buffered"), ("--iopoll", "--buffered")),
            (("--iopoll", "--no-direct"), ("--iopoll", "--no-direct")),
            (("--sqpoll", "--compare-backends"), ("--sqpoll", "--compare-backends")),
            (("--iopoll", "--sync", "fdatasync"), ("--iopoll", "--sync fdatasync")),
            (("--iopoll", "--sync", "fsync"), ("--iopoll", "--sync fsync")),
        ]
        self.backend = None  # the options above choose
        for args, names in cases:
            with self.subTest(args=args):
                r = self.drivestress(*SMALL, *args, json_out=False)
                self.assertSetupError(r, *names)
                self.assertNoFilesLeft(r)


if __name__ == "__main__":
    harness.main()
