#!/usr/bin/env python3
"""--io-log: one line per operation of every phase, written by a thread of
its own while the workers go on.

Every operation the JSON counts is a line (reads, writes, flushes; none
dropped at this pace), each read line says how its verification went (a
unit damaged mid-run makes the lines that read it "mismatch"), offsets are
in the target's space (files in order), each names its phase, and the log
replays: --replay of an NDJSON log issues exactly its random phase's reads
and writes again (the other phases' left out and counted), and fio 3.33 replays
the fio form onto the raw device it names, moving the same bytes.  Bad
combinations are refused in one line; a log that cannot be written (its
filesystem full) fails the run with exit 1 and the run's own figures, and
keeps its whole lines only, each counted as written; a
run killed with -9 leaves the lines written so far, each whole but perhaps
the last, and the next run replaces them."""

import collections
import json
import os
import shutil
import signal
import subprocess
import time

import harness
from harness import UNIT_BYTES, read_block, write_block
from test_rate import validate

MESON_CASE = {"name": "io-log-{case}-{backend}", "threads": True}

MiB = 1 << 20


def read_ndjson(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def phase_ops(doc, *kinds):
    return sum(p[k + "_ops"] for p in doc["merged_phases"] for k in kinds)


class IoLogCases:
    def log_path(self, name="run.ndjson"):
        return os.path.join(self.tmp, name)  # beside the target directory, not in it

    def test_every_operation_is_a_line(self):
        log = self.log_path()
        r = self.drivestress("-j", 2, "-s", "1M", "--rand-ops", 600, "--sync", "fsync",
                             "--sync-every", 16, "--io-log", log)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        lines = read_ndjson(log)
        self.assertEqual(doc["io_log"], {"path": log, "format": "ndjson",
                                         "operations": len(lines), "dropped": 0,
                                         "error": None})
        by_op = {op: [x for x in lines if x["op"] == op] for op in ("read", "write", "flush")}
        self.assertEqual(len(by_op["read"]), phase_ops(doc, "read"))
        self.assertEqual(len(by_op["write"]), phase_ops(doc, "write"))
        self.assertEqual(len(by_op["flush"]), phase_ops(doc, "flush"))
        self.assertGreater(len(by_op["flush"]), 0)
        self.assertEqual(len(lines), sum(len(v) for v in by_op.values()))
        for x in lines:
            self.assertEqual(x["target"], 0)
            self.assertLessEqual(x["submit_ns"], x["complete_ns"], x)
            self.assertIsNone(x["due_ns"], x)  # a closed loop
            if x["op"] == "flush":
                self.assertEqual((x["offset"], x["length"], x["verify"]), (0, 0, None))
                continue
            self.assertEqual(x["result"], x["length"], x)
            self.assertEqual(x["offset"] % UNIT_BYTES, 0, x)
            # Two files of 1 MiB: the target's space is 2 MiB.
            self.assertLessEqual(x["offset"] + x["length"], 2 * MiB, x)
            self.assertEqual(x["verify"], "ok" if x["op"] == "read" else None, x)
        # The sequential write covers both files whole: every unit of the space.
        written = set()
        for x in by_op["write"]:
            written.update(range(x["offset"], x["offset"] + x["length"], UNIT_BYTES))
        self.assertEqual(written, set(range(0, 2 * MiB, UNIT_BYTES)))
        self.assertIn(f"io-log   {log}: {len(lines)} operations (ndjson)", r.stdout)
        self.assertNoFilesLeft(r)

    def test_a_damaged_unit_is_logged_as_a_mismatch(self):
        log = self.log_path()
        run = self.start("-j", 1, "-s", "1M", "--phases", "seq-write,seq-read", "--io-log", log,
                         stop="seq-read")
        run.wait_stopped()
        data = self.data_file(0)
        unit = bytearray(read_block(data, 5 * UNIT_BYTES, UNIT_BYTES))
        unit[100] ^= 0x10
        write_block(data, 5 * UNIT_BYTES, bytes(unit))
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        bad = [x for x in read_ndjson(log) if x["verify"] == "mismatch"]
        self.assertEqual(len(bad), 1, r.describe())
        self.assertEqual(bad[0]["op"], "read")
        self.assertLessEqual(bad[0]["offset"], 5 * UNIT_BYTES)
        self.assertGreater(bad[0]["offset"] + bad[0]["length"], 5 * UNIT_BYTES)

    def test_the_log_replays_what_the_run_issued(self):
        log, again = self.log_path(), self.log_path("again.ndjson")
        r = self.drivestress("-j", 2, "-s", "1M", "--phases", "seq-write,random",
                             "--rand-ops", 400, "--read-pct", 50, "--rand-block", "4K:50,16K:50",
                             "--io-log", log)
        self.assertExit(r, 0)
        every = read_ndjson(log)
        # Each line names its phase; the replay takes the random phase's.
        lines = [x for x in every if x["phase"] == "random"]
        self.assertEqual(sorted({x["phase"] for x in every}), ["random", "seq-write"])
        reads = [x for x in lines if x["op"] == "read"]
        writes = [x for x in lines if x["op"] == "write"]
        r = self.drivestress("-j", 2, "-s", "1M", "--phases", "seq-write,random",
                             "--replay", log, "--replay-speed", 0, "--io-log", again)
        self.assertExit(r, 0)
        # The replay's own log: its sequential write (1 MiB blocks, as the
        # first run's), then every operation of the first log's random
        # phase again, each at its offset and size.
        def ops(entries):
            return collections.Counter((x["op"], x["offset"], x["length"]) for x in entries)
        sequential = [x for x in every if x["phase"] == "seq-write"]
        self.assertEqual(len(sequential), 2)
        self.assertEqual(ops(read_ndjson(again)), ops(lines) + ops(sequential))
        self.assertIn(": drivestress io-log, %d events" % len(lines), r.stdout)
        self.assertIn("; 2 records of other phases left out", r.stdout)
        doc = self.assertJson(r)
        rp = doc["replay"]
        self.assertEqual((rp["format"], rp["reads"], rp["writes"], rp["widened"],
                          rp["other_phase_records"]),
                         ("drivestress io-log", len(reads), len(writes), 0, 2))
        self.assertEqual(rp["read_bytes"], sum(x["length"] for x in reads))
        self.assertEqual(rp["write_bytes"], sum(x["length"] for x in writes))
        random = harness.merged_phases_of(doc)["random"]
        self.assertEqual((random["read_ops"], random["write_ops"]), (len(reads), len(writes)))
        self.assertEqual(random["verified_bytes"], random["read_bytes"])
        self.assertNoFilesLeft(r)

    def test_bad_combinations_are_refused(self):
        log = self.log_path()
        trace = self.log_path("trace.ndjson")
        with open(trace, "w") as f:
            f.write(json.dumps({"target": 0, "op": "write", "offset": 0, "length": 4096,
                                "due_ns": 0, "submit_ns": 0, "complete_ns": 1,
                                "result": 4096, "verify": None}) + "\n")
        cases = [
            (("--io-log-format", "fio"), "--io-log-format needs --io-log"),
            (("--io-log", "-"), "--io-log: give a file path"),
            (("--io-log", log, "--io-log-format", "xml"), "'xml' is not one of ndjson, fio"),
            (("--io-log", log, "--compare-backends"), "--io-log and --compare-backends"),
            (("--io-log", log, "--repeat", 2), "--io-log and --repeat"),
            (("--io-log", self.json_path), "--io-log", "--json", "name the same file"),
            (("--io-log", trace, "--replay", trace), "is one of the run's own files"),
            (("--io-log", log, "--preset", "desktop"), "--io-log works with a single run"),
        ]
        for args, *words in cases:
            with self.subTest(args=args):
                # Without --backend: --compare-backends runs both.
                saved, self.backend = self.backend, None
                try:
                    r = self.drivestress("-j", 1, "-s", "1M", *args)
                finally:
                    self.backend = saved
                self.assertSetupError(r, *words)
                self.assertNoFilesLeft(r)
                self.assertFalse(os.path.exists(log), args)
        with open(trace) as f:
            self.assertIn('"op": "write"', f.read())  # the trace is untouched

    def test_a_full_filesystem_fails_the_log_not_the_figures(self):
        harness.require_root(self, "a tmpfs mount")
        small = os.path.join(self.tmp, "small")
        os.mkdir(small)
        if harness.sh("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", small,
                      check=False).returncode:
            self.skipTest("tmpfs cannot be mounted here")
        self.addCleanup(harness.sh, "umount", small, check=False)
        log = os.path.join(small, "run.ndjson")
        r = self.drivestress("-j", 1, "-s", "4M", "--rand-ops", 4000, "--io-log", log)
        self.assertExit(r, 1)
        doc = self.assertJson(r)
        self.assertIn("No space left on device", doc["io_log"]["error"])
        self.assertIn(f"io-log {log}: write: No space left on device", r.stderr)
        self.assertIn("writing it failed after them (exit 1)", r.stdout)
        # The log keeps whole lines only, each counted: it still replays.
        with open(log, "rb") as f:
            text = f.read()
        self.assertTrue(text.endswith(b"\n"), text[-200:])
        lines = read_ndjson(log)
        self.assertEqual(doc["io_log"]["operations"], len(lines))
        self.assertIn(f"io-log {log}: {len(lines)} operations (ndjson); writing it failed",
                      " ".join(r.stdout.split()))
        # The run itself went on to its end: every phase has its figures.
        self.assertEqual([p["phase"] for p in doc["merged_phases"]],
                         ["seq-write", "seq-read", "random", "reverify"])
        self.assertIn("result   ", r.stdout)
        self.assertNoFilesLeft(r)

    def test_kill9_leaves_the_lines_written_and_the_next_run_replaces_them(self):
        """The log is evidence: a run killed mid-way keeps every line the
        writer wrote (at least every 100 ms), whole but perhaps the last."""
        log = self.log_path()
        run = self.start("-j", 2, "-s", "1M", "--rand-time", 60, "--io-log", log,
                         json_out=False)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and run.proc.poll() is None:
            if os.path.exists(log) and os.path.getsize(log) > 256 * 1024:
                break
            time.sleep(0.02)
        run.send(signal.SIGKILL)
        run.finish()
        with open(log) as f:
            text = f.read()
        self.assertGreater(len(text), 256 * 1024)
        lines = text.split("\n")
        whole = [json.loads(x) for x in lines[:-1]]  # a kill mid-write may tear the last
        self.assertGreater(len(whole), 1000)
        ops = collections.Counter(x["op"] for x in whole)
        self.assertGreater(ops["read"], 0, ops)
        self.assertGreater(ops["write"], 0, ops)
        self.assertTrue(all(x["verify"] in ("ok", None) for x in whole))
        # The next run into the same places: the killed run's files swept,
        # the log replaced by this run's.
        r = self.drivestress("-j", 2, "-s", "1M", "--rand-ops", 300, "--io-log", log)
        self.assertExit(r, 0)
        self.assertEqual(len(read_ndjson(log)), self.assertJson(r)["io_log"]["operations"])
        self.assertNoFilesLeft(r)


class RawIoLog(harness.DriveStressTest):
    """The fio form on a raw loop device, replayed by fio itself."""
    backend = "io_uring"

    def test_fio_replays_the_fio_form(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 8 * MiB))
        log = os.path.join(self.tmp, "run.iolog")
        r = self.drivestress("-j", 2, "-s", "2M", "--phases", "seq-write,random",
                             "--rand-ops", 200, "--read-pct", 50, "--io-log", log,
                             "--io-log-format", "fio", "--raw-device", dev, "--destroy-data", dev,
                             target=False)
        self.assertExit(r, 0)
        with open(log) as f:
            text = f.read().splitlines()
        self.assertEqual(text[:3], ["fio version 3 iolog", f"0 {dev} add", f"0 {dev} open"])
        self.assertRegex(text[-1], rf"^\d+ {dev} close$")
        ops = [line.split() for line in text[3:-1]]
        times = [int(o[0]) for o in ops]
        self.assertEqual(times, sorted(times), "fio waits the difference: never backwards")
        moved = {"read": 0, "write": 0}
        for t, name, op, offset, length in ops:
            self.assertEqual(name, dev)
            moved[op] += int(length)
            # Two regions of 2 MiB: offsets are the device's own.
            self.assertLessEqual(int(offset) + int(length), 4 * MiB)
        doc = self.assertJson(r)
        self.assertEqual(moved["read"], sum(p["read_bytes"] for p in doc["merged_phases"]))
        self.assertEqual(moved["write"], sum(p["write_bytes"] for p in doc["merged_phases"]))
        if not shutil.which("fio"):
            self.skipTest("fio not installed (Debian package fio): the log is not replayed")
        out = subprocess.run(["fio", "--name=replay", f"--read_iolog={log}", "--direct=1",
                              "--ioengine=psync", "--output-format=json"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        job = json.loads(out.stdout[out.stdout.index("{"):])["jobs"][0]
        self.assertEqual((job["read"]["io_bytes"], job["write"]["io_bytes"]),
                         (moved["read"], moved["write"]), out.stdout[-2000:])


class IoLogIoUring(IoLogCases, harness.DriveStressTest):
    backend = "io_uring"


class IoLogSync(IoLogCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
