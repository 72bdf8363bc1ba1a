#!/usr/bin/env python3
"""--replay: the random phase replays a trace, every read verified.

A trace in drivestress's own io-log form (NDJSON, the form --io-log will
write) is replayed onto a file target: every operation is issued (the JSON
counts them), reads of units the trace and the sequential write left are
verified, and a unit damaged while the run is stopped before the replay is
named at its exact offset by the replay's read of it, and one damaged
before the reverify by the reverify (the replay's writes are checked too).
A timed replay takes at least as long as the trace says; one at speed 0 as
long as its operations take.  Bad traces and bad combinations are refused
in one line naming the line or the option, leaving nothing behind."""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

import harness
from harness import UNIT_BYTES, read_block, write_block
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "replay-{case}-{backend}", "threads": True}

MiB = 1 << 20


def io_log_line(op, offset, length, due_ns, target=0):
    return json.dumps({"target": target, "op": op, "offset": offset, "length": length,
                       "due_ns": due_ns, "submit_ns": due_ns, "complete_ns": due_ns + 1000,
                       "result": length, "verify": None})


class ReplayCases:
    def trace(self, lines, name="trace.ndjson"):
        path = os.path.join(self.scratch, name)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def setUp(self):
        super().setUp()
        self.scratch = self.tmp  # beside the target directory, not in it

    def mixed_trace(self, events=400, span_ns=400_000_000):
        """Writes then reads over the first 2 MiB, 16 KiB and 4 KiB, one
        every span/events ns; a trim and a flush among them."""
        lines = []
        for i in range(events):
            op = ["write", "read", "read", "write"][i % 4]
            length = 16384 if i % 3 == 0 else 4096
            offset = (i * 7 % 128) * 16384
            lines.append(io_log_line(op, offset, length, i * span_ns // events))
        lines.append(io_log_line("flush", 0, 0, span_ns))
        return lines

    def test_every_operation_is_issued_and_verified(self):
        path = self.trace(self.mixed_trace())
        prom = os.path.join(self.scratch, "run.prom")
        r = self.drivestress("-j", 1, "-s", "4M", "--replay", path, "--prom", prom)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        rp = doc["replay"]
        self.assertEqual((rp["format"], rp["events"], rp["reads"], rp["writes"], rp["flushes"]),
                         ("drivestress io-log", 401, 200, 200, 1))
        random = harness.merged_phases_of(doc)["random"]
        self.assertEqual((random["read_ops"], random["write_ops"]), (200, 200), r.describe())
        # Every read is of a unit the sequential write or the replay wrote.
        self.assertEqual(random["verified_bytes"], random["read_bytes"])
        self.assertEqual(random["flush_ops"], 1)
        self.assertIn("replay   " + path + ": drivestress io-log, 401 events", r.stdout)
        self.assertIn("  replay:    401 operations in ", r.stdout)
        # Timed: no operation before the trace's time says (span 0.4 s).
        self.assertAlmostEqual(random["replay"]["trace_seconds"], 0.4, places=6)
        self.assertGreaterEqual(random["elapsed_s"], 0.4)
        # Prometheus has the replay's response times and late operations, as --rate's.
        with open(prom) as f:
            text = f.read()
        count = [line for line in text.splitlines()
                 if line.startswith("drivestress_response_latency_seconds_count{")]
        self.assertEqual(len(count), 1, count)
        self.assertIn('phase="random"', count[0])
        self.assertEqual(int(count[0].split()[-1]), 401)
        late = [line for line in text.splitlines() if line.startswith("drivestress_late_ops_total{")]
        self.assertEqual(int(late[0].split()[-1]), random["replay"]["late_ops"])
        self.assertNoFilesLeft(r)

    def test_speed_zero_is_closed_loop(self):
        path = self.trace(self.mixed_trace(span_ns=60_000_000_000))
        r = self.drivestress("-j", 1, "-s", "4M", "--replay", path, "--replay-speed", 0)
        self.assertExit(r, 0)
        random = harness.merged_phases_of(self.assertJson(r))["random"]
        self.assertEqual((random["read_ops"], random["write_ops"]), (200, 200))
        self.assertIsNone(random["replay"])
        self.assertLess(random["elapsed_s"], 60)  # not the trace's minute

    def test_loops_and_files(self):
        # 8 MiB of trace space over two files of 4 MiB: each gets its half.
        lines = [io_log_line("write", i * MiB // 2, 4096, i * 1000) for i in range(16)]
        path = self.trace(lines)
        r = self.drivestress("-j", 2, "-s", "4M", "--replay", path, "--replay-loops", 3)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        random = harness.merged_phases_of(doc)["random"]
        self.assertEqual(random["write_ops"], 48)
        self.assertIn("onto the 2 files of 4 MiB in order", doc["replay"]["placement"])

    def test_damage_is_named_by_the_replay_and_by_the_reverify(self):
        # The trace reads unit 10 and writes unit 20; both damaged.
        lines = [io_log_line("read", 10 * UNIT_BYTES, UNIT_BYTES, 0),
                 io_log_line("write", 20 * UNIT_BYTES, UNIT_BYTES, 1000)]
        path = self.trace(lines)
        run = self.start("-j", 1, "-s", "1M", "--qd", 128, "--replay", path, stop="random")
        run.wait_stopped()
        data = self.data_file(0)
        unit = bytearray(read_block(data, 10 * UNIT_BYTES, UNIT_BYTES))
        unit[777] ^= 0x04
        write_block(data, 10 * UNIT_BYTES, bytes(unit))
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        found = [(m["phase"], m["offset_bytes"], m["class"]) for m in doc["mismatches"]]
        self.assertIn(("random", 10 * UNIT_BYTES + 777, "corrupt"), found, r.describe())
        self.assertNoFilesLeft(r)

    def test_the_replays_writes_are_reverified(self):
        lines = [io_log_line("write", 20 * UNIT_BYTES, 2 * UNIT_BYTES, 0)]
        path = self.trace(lines)
        run = self.start("-j", 1, "-s", "1M", "--replay", path, stop="reverify")
        run.wait_stopped()
        data = self.data_file(0)
        # Unit 21 as the sequential write left it would be stale now: put
        # unit 20's new content there (a misdirected copy).
        write_block(data, 21 * UNIT_BYTES, read_block(data, 20 * UNIT_BYTES, UNIT_BYTES))
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        found = {m["unit_offset_bytes"]: m for m in doc["mismatches"]}
        self.assertEqual(list(found), [21 * UNIT_BYTES], r.describe())
        self.assertEqual(found[21 * UNIT_BYTES]["phase"], "reverify")
        self.assertEqual(found[21 * UNIT_BYTES]["class"], "misdirected")

    def test_unaligned_operations_are_rounded_out_to_units(self):
        lines = [io_log_line("write", 512, 1024, 0), io_log_line("read", 4096 + 512, 512, 1000)]
        path = self.trace(lines)
        r = self.drivestress("-j", 1, "-s", "1M", "--replay", path)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["replay"]["widened"], 2)
        self.assertIn("2 rounded out to whole units", r.stdout)

    def test_bad_traces_and_options_are_refused(self):
        good = self.trace([io_log_line("write", 0, 4096, 0)], "good.ndjson")
        cases = [
            (self.trace(["{\"target\":0,\"op\":\"write\",\"offset\":0,\"length\":4096,"
                         "\"due_ns\":0,\"submit_ns\":0}", "not json"], "bad.ndjson"),
             (), "line 2"),
            (self.trace([""], "empty.ndjson"), (), "empty"),
            (self.trace([io_log_line("write", 8 * MiB, 4096, 0)], "far.ndjson"), (),
             "--replay-wrap"),
            (good, ("--rate", "100"), "--replay and --rate"),
            (good, ("--read-pct", "50"), "--replay and --read-pct"),
            (good, ("--replay-speed", "fast"), "--replay-speed"),
            (os.path.join(self.scratch, "missing.ndjson"), (), "missing.ndjson"),
        ]
        for path, extra, words in cases:
            with self.subTest(words=words):
                r = self.drivestress("-j", 1, "-s", "1M", "--replay", path, *extra,
                                     json_out=False)
                self.assertSetupError(r, words)
                self.assertNoFilesLeft(r)
        r = self.drivestress("-j", 1, "-s", "1M", "--replay-loops", 2, json_out=False)
        self.assertSetupError(r, "--replay-loops needs --replay")

    def test_wrap_folds_offsets_round(self):
        path = self.trace([io_log_line("write", 8 * MiB + 4096, 4096, 0)])
        r = self.drivestress("-j", 1, "-s", "1M", "--replay", path, "--replay-wrap")
        self.assertExit(r, 0)
        self.assertEqual(harness.merged_phases_of(self.assertJson(r))["random"]["write_ops"], 1)


TRACING = "/sys/kernel/tracing"
DEBUGFS = "/sys/kernel/debug"
HERE = os.path.dirname(os.path.abspath(__file__))


def block_stat(dev):
    """/sys/block/NAME/stat: (reads, read sectors, writes, write sectors,
    discards, discard sectors)."""
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        v = [int(x) for x in f.read().split()]
    return v[0], v[2], v[4], v[6], v[11], v[13]


def tracing_write(name, text):
    with open(os.path.join(TRACING, name), "w") as f:
        f.write(text)


# Alone: tracefs is one per machine (its trace buffer, the event's filter,
# the mount a case may make and undo), so two captures at once spoil both.
@harness.meson_case(is_parallel=False)
class RecordedCases:
    """A real trace: tracefs block_bio_queue of ext4 filled by cp and trimmed
    by fstrim on one loop device, replayed onto another."""

    def capture(self, dev, work):
        if not os.path.exists(os.path.join(TRACING, "trace")):
            if harness.sh("mount", "-t", "tracefs", "nodev", TRACING, check=False).returncode:
                self.skipTest("tracefs cannot be mounted at " + TRACING)
            self.addCleanup(harness.sh, "umount", TRACING, check=False)
        with open(f"/sys/block/{os.path.basename(dev)}/dev") as f:
            major, minor = (int(x) for x in f.read().split(":"))
        event = "events/block/block_bio_queue/"
        tracing_write("tracing_on", "0")
        tracing_write("trace", "")
        tracing_write(event + "filter", f"dev == {major << 20 | minor}")
        self.addCleanup(tracing_write, event + "filter", "0")
        tracing_write(event + "enable", "1")
        self.addCleanup(tracing_write, event + "enable", "0")
        tracing_write("tracing_on", "1")
        try:
            work()
        finally:
            tracing_write("tracing_on", "0")
        path = os.path.join(self.tmp, "trace.txt")
        with open(os.path.join(TRACING, "trace")) as src, open(path, "w") as out:
            out.write(src.read())
        tracing_write("trace", "")
        return path

    def fill_and_trim(self, dev, block_bytes=None):
        """The work captured: ext4 made on `dev` (with blocks of
        `block_bytes`), filled with a copy of src/, cut and trimmed."""
        def work():
            point = tempfile.mkdtemp(prefix="drivestress-e2e-mnt-", dir="/tmp")
            self.addCleanup(os.rmdir, point)
            harness.sh("mkfs.ext4", "-q", "-F", *(["-b", str(block_bytes)] if block_bytes else []),
                       dev)
            harness.sh("mount", dev, point)
            self.addCleanup(harness.sh, "umount", point, check=False)
            harness.sh("cp", "-a", os.path.join(HERE, "..", "..", "src"), point)
            harness.sh("sync")
            harness.sh("rm", "-rf", os.path.join(point, "src", "engine"))
            harness.sh("sync")
            harness.sh("fstrim", point)
        return work

    def replay_onto(self, trace, dst, size):
        """Replays `trace` onto the raw device `dst`; checks that the device
        saw exactly the bytes the replay says it moved, and returns the
        report, the document and its random phase."""
        # Counted from the replay's start: before it the run reads the device's
        # first blocks (to name what --raw-device overwrites).
        run = self.start("-j", 1, "-s", f"{size // MiB}M", "--phases", "seq-write,random",
                         "--replay", trace, "--replay-speed", 0, "--raw-device", dst,
                         "--destroy-data", dst, target=False, stop="random")
        run.wait_stopped()
        before = block_stat(dst)
        run.resume()
        r = run.finish()
        after = block_stat(dst)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        random = harness.merged_phases_of(doc)["random"]
        delta = [b - a for a, b in zip(before, after)]
        # Operation counts may differ by the block layer's merges; bytes may
        # not.  Sectors in /sys/block/*/stat are 512 bytes on any device.
        self.assertEqual(delta[3] * 512, random["write_bytes"], (delta, r.describe()))
        self.assertEqual(delta[1] * 512, random["read_bytes"], delta)
        self.assertEqual(delta[5] * 512, random["trim_bytes"], delta)
        self.assertEqual((random["write_ops"] >= doc["replay"]["writes"],
                          random["verified_bytes"]), (True, random["read_bytes"]))
        return r, doc, random

    def test_a_tracefs_capture_replays_onto_another_loop_device(self):
        harness.require_root(self)
        size = 64 * MiB
        src = harness.loop_device(self, harness.backing_file(self, size))
        trace = self.capture(src, self.fill_and_trim(src))
        dst = harness.loop_device(self, harness.backing_file(self, size))
        r, doc, random = self.replay_onto(trace, dst, size)
        rp = doc["replay"]
        self.assertEqual(rp["format"], "tracefs block events")
        self.assertGreater(rp["writes"], 100, r.describe())
        self.assertGreater(rp["trims"], 0, r.describe())
        # The trace's bytes rounded out to 4 KiB units (ext4's superblock
        # writes are 1 KiB).
        self.assertGreaterEqual(random["write_bytes"], rp["write_bytes"])
        self.assertLessEqual(random["write_bytes"], rp["write_bytes"] + rp["widened"] * 8192)
        self.assertGreaterEqual(random["trim_bytes"], rp["trim_bytes"])

    def test_a_blktrace_capture_replays_onto_another_loop_device(self):
        harness.require_root(self)
        for tool in ("blktrace", "blkparse"):
            if not shutil.which(tool):
                self.skipTest(f"{tool} not installed (Debian package blktrace)")
        if not os.path.isdir(os.path.join(DEBUGFS, "block")):
            if harness.sh("mount", "-t", "debugfs", "none", DEBUGFS, check=False).returncode:
                self.skipTest("debugfs cannot be mounted at " + DEBUGFS)
            self.addCleanup(harness.sh, "umount", DEBUGFS, check=False)
        size = 64 * MiB
        src = harness.loop_device(self, harness.backing_file(self, size))
        binary, errors = os.path.join(self.tmp, "trace.bin"), os.path.join(self.tmp, "trace.err")
        with open(binary, "wb") as out, open(errors, "w") as err:
            tracer = subprocess.Popen(["blktrace", "-d", src, "-o", "-"], stdout=out, stderr=err)
        try:
            time.sleep(1)  # its per-CPU threads open the relay files, or fail to
            with open(errors) as f:
                refused = [line for line in f if "failed open" in line]
            if refused or tracer.poll() is not None:
                # This kernel refuses them even to root; blktrace says so and waits.
                self.skipTest("blktrace cannot trace here: " +
                              (refused[0].strip() if refused else "it exited at once"))
            self.fill_and_trim(src)()
        finally:
            if tracer.poll() is None:
                tracer.send_signal(signal.SIGINT)
                try:
                    tracer.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    tracer.kill()
                    tracer.wait()
        text = os.path.join(self.tmp, "trace.txt")
        with open(text, "w") as out:
            out.write(harness.sh("blkparse", "-i", binary).stdout)
        dst = harness.loop_device(self, harness.backing_file(self, size))
        r, doc, random = self.replay_onto(text, dst, size)
        self.assertEqual(doc["replay"]["format"], "blkparse text")
        self.assertGreater(doc["replay"]["writes"], 100, r.describe())

    def test_a_4kn_devices_trace_replays_onto_a_512_byte_device(self):
        # A 4Kn device is written in whole 4 KiB sectors (tracefs still
        # counts in 512-byte sectors): nothing to round out.
        harness.require_root(self)
        size = 64 * MiB
        src = harness.loop_device(self, harness.backing_file(self, size), sector_size=4096)
        trace = self.capture(src, self.fill_and_trim(src))
        dst = harness.loop_device(self, harness.backing_file(self, size))
        r, doc, random = self.replay_onto(trace, dst, size)
        self.assertEqual(doc["replay"]["widened"], 0, doc["replay"])
        self.assertEqual((random["write_bytes"], random["trim_bytes"]),
                         (doc["replay"]["write_bytes"], doc["replay"]["trim_bytes"]))

    def test_a_512_byte_devices_trace_replays_onto_a_4kn_device(self):
        # ext4 with 1 KiB blocks on a 512-byte device: operations of 1 KiB,
        # each rounded out to the 4 KiB unit a 4Kn device can take.
        harness.require_root(self)
        size = 64 * MiB
        src = harness.loop_device(self, harness.backing_file(self, size))
        trace = self.capture(src, self.fill_and_trim(src, block_bytes=1024))
        dst = harness.loop_device(self, harness.backing_file(self, size), sector_size=4096)
        r, doc, random = self.replay_onto(trace, dst, size)
        rp = doc["replay"]
        self.assertGreater(rp["widened"], 0, rp)
        self.assertIn(" rounded out to whole units", r.stdout)


@harness.meson_case(name="replay-{case}", threads=False)
class Streamed(harness.DriveStressTest):
    """A trace is streamed, never held: 1 million and 10 million lines
    replayed as fast as the queue allows through the NOP engine (no device:
    every line still read, checked, placed and issued twice over, by the
    pre-scan and by the worker's feed) in the same peak resident size."""
    backend = None  # --backend nop, given by the case: NOPs through an io_uring ring

    def setUp(self):
        super().setUp()
        reason = harness.io_uring_unavailable_reason()
        if reason:
            self.skipTest(f"io_uring is not available here ({reason}): no NOP engine")

    def write_trace(self, lines):
        """fio iolog v2, the shortest lines of any format, on /dev/shm (the
        caller removes it)."""
        shm = "/dev/shm" if os.path.isdir("/dev/shm") else self.tmp
        fd, path = tempfile.mkstemp(prefix="drivestress-e2e-trace-", dir=shm)
        chunk = "".join(f"/d {'read' if i % 4 else 'write'} {(i * 7919 % 1024) * 4096} 4096\n"
                        for i in range(100_000))
        with os.fdopen(fd, "w") as f:
            f.write("fio version 2 iolog\n/d add\n/d open\n")
            for _ in range(lines // 100_000):
                f.write(chunk)
            f.write("/d close\n")
        return path

    @harness.meson_case(timeout=180)
    def test_ten_million_lines_in_the_memory_of_one_million(self):
        harness.plain_suite_only(self, "a sanitizer's allocator, not drivestress, decides the "
                                       "resident size: run once, in the plain suite")
        peaks = {}
        for lines in (1_000_000, 10_000_000):
            trace = self.write_trace(lines)
            try:
                r = self.drivestress("-j", 1, "-s", "4M", "--backend", "nop", "--phases",
                                     "seq-write,random", "--replay", trace, "--replay-speed", 0,
                                     wrapper=[harness.PEAK_RSS])
            finally:
                os.unlink(trace)
            self.assertExit(r, 0)
            doc = self.assertJson(r)
            self.assertEqual(doc["replay"]["events"], lines)
            random = harness.merged_phases_of(doc)["random"]
            self.assertEqual(random["read_ops"] + random["write_ops"], lines, r.describe())
            match = re.search(r"^peak_rss_kib (\d+)$", r.stderr, re.M)
            self.assertIsNotNone(match, r.describe())
            peaks[lines] = int(match.group(1))
        print(f"peak RSS: 1M lines {peaks[1_000_000]} KiB, 10M lines {peaks[10_000_000]} KiB")
        self.assertLess(peaks[10_000_000] - peaks[1_000_000], 1024, peaks)


class RecordedIoUring(RecordedCases, harness.DriveStressTest):
    backend = "io_uring"


class RecordedSync(RecordedCases, harness.DriveStressTest):
    backend = "sync"


class ReplayIoUring(ReplayCases, harness.DriveStressTest):
    backend = "io_uring"


class ReplaySync(ReplayCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
