#!/usr/bin/env python3
"""SIGINT/SIGTERM in every phase: the phase in progress stops and is reported
as interrupted, no later phase runs, the files are removed, exit 130/143.
A second signal leaves at once, files removed.  A mismatch found earlier
still wins: exit 2."""

import json
import os
import signal
import time
import subprocess

import harness
from harness import PHASES, phases_of

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "signal-{case}-{backend}", "threads": True}

FILES = 2
# 128 sequential blocks per worker, so 20 operations are well inside a phase.
ARGS = ("-s", "8M", "-j", FILES, "--seq-block", "64K")
# Long enough that a signal ignored by the random phase shows as a timeout.
LONG_RANDOM = ("--rand-time", 30)
# Short, when the run has to get through the random phase to reverify.
SHORT_RANDOM = ("--rand-ops", 2000)
STOP_AFTER_OPS = 20
# A signalled run drains what is in flight and exits; far below LONG_RANDOM.
PROMPT_S = 10
# At --qd 256: 2048 blocks of 4K per worker, so the sequential phases keep
# 256 operations in flight too (kSeqInflightBytes allows 2048), and 20
# operations in, 1772 are still to be issued: a signal handled late by
# whichever thread the kernel hands it to (on a loaded machine, a few ms)
# still finds the phase with work left.  With 16K blocks only 236 were left,
# and CI saw a reverify finish before the signal was seen.  A hang
# detector, not a benchmark.
QD256_ARGS = ("-s", "8M", "-j", FILES, "--seq-block", "4K", "--qd", 256)
QD256_PROMPT_S = 20


class SignalCases:
    """Mixin of the cases; instantiated per backend (and queue depth) below."""

    args = ARGS
    prompt_s = PROMPT_S

    def start_stopped(self, phase, *extra, json_out=True, stop_on_signal=False):
        """Starts a run and waits until worker 0 is 20 operations into phase."""
        random = SHORT_RANDOM if phase == "reverify" else LONG_RANDOM
        run = self.start(*self.args, *random, *extra, stop=f"{phase}:{STOP_AFTER_OPS}",
                         json_out=json_out, stop_on_signal=stop_on_signal)
        run.wait_stopped()
        self.assertFilesPresent(FILES, 8 * harness.MiB)
        return run

    def signal_and_finish(self, run, *signals):
        for sig in signals:
            run.send(sig)
        run.resume()
        r = run.finish()
        self.assertLess(r.seconds, self.prompt_s, "did not exit promptly\n" + r.describe())
        return r

    def check_interrupted(self, phase, sig):
        run = self.start_stopped(phase)
        r = self.signal_and_finish(run, sig)
        self.assertExit(r, 128 + sig)
        self.assertNoFilesLeft(r)
        self.assertIn("INTERRUPTED", r.stdout)
        doc = self.assertJson(r)
        ran = [(i, p["phase"], p["interrupted"]) for i, p in phases_of(doc)]
        before = PHASES[:PHASES.index(phase)]
        # The phase in progress is the last one and is marked interrupted.
        self.assertEqual(ran, [(1, p, False) for p in before] + [(1, phase, True)])
        s = doc["summary"]
        self.assertEqual((s["stop_reason"], s["signal"], s["status"], s["exit_code"]),
                         ("signal", sig, "interrupted", 128 + sig))
        self.assertEqual(s["mismatch_total"], 0)

    def test_sigint_in_seq_write(self):
        self.check_interrupted("seq-write", signal.SIGINT)

    def test_sigint_in_seq_read(self):
        self.check_interrupted("seq-read", signal.SIGINT)

    def test_sigint_in_random(self):
        self.check_interrupted("random", signal.SIGINT)

    def test_sigint_in_reverify(self):
        self.check_interrupted("reverify", signal.SIGINT)

    def test_sigterm(self):
        self.check_interrupted("random", signal.SIGTERM)

    def test_sigterm_in_seq_write(self):
        self.check_interrupted("seq-write", signal.SIGTERM)

    def test_sigterm_in_seq_read(self):
        self.check_interrupted("seq-read", signal.SIGTERM)

    def test_sigterm_in_reverify(self):
        self.check_interrupted("reverify", signal.SIGTERM)

    def test_sigint_twice(self):
        """Two SIGINTs while stopped (they merge into one pending signal)."""
        run = self.start_stopped("random", json_out=False)
        r = self.signal_and_finish(run, signal.SIGINT, signal.SIGINT)
        self.assertExit(r, 130)
        self.assertNoFilesLeft(r)

    def test_second_signal(self):
        """A second signal well after the first (the user insists): the
        leave-at-once path, files removed, the exit code of the first."""
        run = self.start_stopped("random", json_out=False, stop_on_signal=True)
        run.send(signal.SIGINT)
        run.resume()
        run.wait_stopped()  # it noticed the SIGINT and stopped (test hook)
        time.sleep(0.4)     # longer than one keypress arriving twice (250 ms)
        r = self.signal_and_finish(run, signal.SIGTERM)
        self.assertExit(r, 130)
        self.assertIn("second signal, files removed, exiting now", r.stderr)
        self.assertNotIn("result", r.stdout)  # no report: it left at once
        self.assertNoFilesLeft(r)

    def test_signals_together_are_one_request(self):
        """SIGINT and SIGTERM arriving together (a terminal and a wrapper
        both forwarding one Ctrl+C) are one request: the whole report,
        files removed, the exit code of the first handled."""
        for _ in range(2):
            run = self.start_stopped("random", json_out=False)
            r = self.signal_and_finish(run, signal.SIGINT, signal.SIGTERM)
            self.assertIn(r.returncode, (130, 143), r.describe())
            self.assertNoFilesLeft(r)
            # One request is two signals handled within kSameRequestNs
            # (250 ms) of each other.  With --qd 256 on the sync backend
            # (a thousand I/O threads on two cores) a loaded CI once ran the
            # second handler later than that: the left-at-once path then is
            # right by design.  Once more; twice is a failure.
            if "second signal" not in r.stderr or harness.sanitizer() == "TSan":
                break
            self.assertNotIn("result", r.stdout)
        if "second signal" in r.stderr and harness.sanitizer() == "TSan":
            # TSan takes a signal off the kernel's pending set in a handler
            # of its own and runs ours at the thread's next intercepted
            # call: the first handler's sigpending() cannot see the other
            # signal, and under a loaded CI the two handlers ran more than
            # kSameRequestNs apart.  The left-at-once path was whole.
            self.assertNotIn("result", r.stdout)
            self.skipTest("TSan defers signal handlers: the two signals were handled "
                          "more than 250 ms apart")
        self.assertNotIn("second signal", r.stderr)
        self.assertIn(f"INTERRUPTED: nothing wrong found so far (exit {r.returncode})", r.stdout)

    def test_mismatch_wins_over_signal(self):
        """A mismatch found before the signal: exit 2, not 130."""
        run = self.start(*self.args, "--rand-time", 0, "--iterations", 2, stop="seq-read")
        run.wait_stopped()
        path, unit = self.data_file(0), 5 * harness.UNIT_BYTES
        harness.write_block(path, unit, bytes(harness.UNIT_BYTES))
        run.resume()
        run.wait_stopped()  # before iteration 2's seq-read: iteration 1 found it
        r = self.signal_and_finish(run, signal.SIGINT)
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        self.assertEqual([(m["iteration"], m["class"], m["offset_bytes"])
                          for m in doc["mismatches"]],
                         [(1, "zeroed", unit), (1, "zeroed", unit)])
        s = doc["summary"]
        self.assertEqual((s["stop_reason"], s["signal"], s["status"], s["exit_code"]),
                         ("signal", signal.SIGINT, "failed", 2))


class SignalsIoUring(SignalCases, harness.DriveStressTest):
    backend = "io_uring"


class SignalsSync(SignalCases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(name="signal-qd256-{case}-{backend}")
class Qd256Cases(SignalCases):
    args = QD256_ARGS
    prompt_s = QD256_PROMPT_S

    def test_queue_is_full(self):
        """The premise: 256 in flight per worker in every phase (sync: 256
        threads per worker, each in its own pread/pwrite)."""
        r = self.drivestress(*self.args, "--rand-ops", 2000)
        self.assertExit(r, 0)
        b = self.assertJson(r)["backend"]
        self.assertEqual((b["random_qd_per_worker"], b["seq_qd_per_worker"]), (256, 256))
        self.assertEqual(b["sync_threads_per_worker"], 256 if self.backend == "sync" else 0)


class SignalsQd256IoUring(Qd256Cases, harness.DriveStressTest):
    backend = "io_uring"


class SignalsQd256Sync(Qd256Cases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(name="sigpipe-json-{case}")
class BrokenPipe(harness.DriveStressTest):
    """--json - into a pipe whose reader goes away: the SIGPIPE of our own
    write is not a stop request (kill -PIPE is: test_trust EverySignal), the
    failed write is one line on stderr, the files are removed, the text
    report (on stderr with --json -) is whole."""

    def pipe_run(self, reader_argv):
        argv = self.command("-s", "8M", "-j", FILES, "--rand-ops", 2000, "--json", "-",
                            json_out=False)
        rd, wr = os.pipe()
        reader = None
        if reader_argv:
            reader = subprocess.Popen(reader_argv, stdin=rd, stdout=subprocess.PIPE)
        os.close(rd)  # no reader_argv: nobody will ever read
        with open(os.path.join(self.tmp, "stderr"), "w+") as err:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=wr, stderr=err,
                               timeout=harness.EXIT_TIMEOUT_S, pass_fds=())
            os.close(wr)
            err.seek(0)
            stderr = err.read()
        head = reader.communicate(timeout=harness.EXIT_TIMEOUT_S)[0] if reader else b""
        return p.returncode, stderr, head

    def test_reader_already_gone(self):
        code, stderr, _ = self.pipe_run(None)
        self.assertEqual(code, 1, stderr)  # the run passed; its document was lost
        # The verdict line says so, once, with the reason: no "PASS (exit 0)"
        # above an exit status of 1.
        self.assertNotIn("PASS", stderr)
        self.assertEqual(stderr.splitlines()[-1],
                         "result   ERROR: --json -: writing to stdout failed: Broken pipe (exit 1)")
        self.assertEqual(stderr.count("writing to stdout failed"), 2, stderr)  # line + verdict
        self.assertNoFilesLeft()

    def test_head_c_100(self):
        """`drivestress --json - | head -c 100`: head takes the first 100
        bytes of the document and leaves.  Whether the rest of the write
        still fitted the pipe is a race: exit 0, or 1 with the one line."""
        code, stderr, head = self.pipe_run(["head", "-c", "100"])
        self.assertEqual(len(head), 100)
        self.assertTrue(head.startswith(b"{"), head)
        if code == 1:
            self.assertEqual(stderr.splitlines()[-1], "result   ERROR: --json -: writing to "
                             "stdout failed: Broken pipe (exit 1)")
        else:
            self.assertEqual(code, 0, stderr)
            self.assertIn("result   PASS (exit 0)", stderr)
            self.assertNotIn("writing to stdout failed", stderr)
        self.assertNoFilesLeft()



class SlowDeviceCases:
    """SIGINT while writes are held back by a slow device (a loop device
    under a cgroup v1 blkio throttle, ext4 on it): one stderr line says at
    once that the run is stopping and how many operations are in flight,
    before anything of the report; on io_uring it cancels them (what the
    block layer already holds cannot be cancelled and is waited for: the
    document counts what was), on sync it says it waits.  Then the usual
    end: the interrupted phase, exit 130, files removed."""

    # 64K writes, 8 in flight, at 64 KiB/s: eight writes take 8 s to drain,
    # far more than the coordinator takes to see the signal (100 ms).
    THROTTLE_BPS = 64 * 1024

    def setUp(self):
        super().setUp()
        harness.require_root(self)
        from test_endurance import BlkioCgroup
        self.cgroup = BlkioCgroup(self)
        self.dev = harness.loop_device(self, harness.backing_file(self, 64 * harness.MiB))
        self.point = os.path.join(harness.mkfs_and_mount(self, self.dev), "target")
        os.mkdir(self.point)  # beside lost+found

    def signal_while_writes_are_held(self, run):
        if self.backend == "io_uring":
            # The ring's writes wait at the throttle without a thread.
            self.cgroup.set("write_bps", self.dev, self.THROTTLE_BPS)
            run.wait_stopped()
            run.send(signal.SIGINT)
            run.resume()
            return
        # A sync pool thread blocked in pwrite is not stopped (it cannot
        # be until its write returns): stop with the device fast, slow it,
        # resume, and signal once a pool thread waits on the device.
        run.wait_stopped()
        self.cgroup.set("write_bps", self.dev, self.THROTTLE_BPS)
        run.resume()
        deadline = time.monotonic() + 60  # a hang detector
        while "D" not in harness._thread_states(run.proc.pid):
            self.assertIsNone(run.proc.poll(), "the run ended before a write was held")
            self.assertLess(time.monotonic(), deadline, "no write ever waited on the device")
            time.sleep(0.005)
        run.send(signal.SIGINT)

    @harness.meson_case(name="signal-slow-device-stopping-{backend}")
    def test_stopping_is_said_at_once(self):
        # --json -: the text report goes to stderr too, after the line.
        run = self.start("-s", "8M", "-j", 1, "--seq-block", "64K", "--qd", 8, "--rand-time", 0,
                         "--json", "-", stop="seq-write:2", target=self.point, json_out=False,
                         wrapper=self.cgroup.wrapper())
        self.signal_while_writes_are_held(run)
        r = run.finish()
        self.assertExit(r, 130)
        self.assertNoFilesLeft(r, self.point)
        lines = r.stderr.splitlines()
        stopping = [i for i, l in enumerate(lines) if l.startswith("drivestress: stopping (SIGINT): ")]
        self.assertEqual(len(stopping), 1, r.describe())
        # After the run's header, before the interrupted phase's report.
        self.assertLess(stopping[0], lines.index("iteration 1"), r.describe())
        line = lines[stopping[0]]
        words = line.split()
        in_flight = int(words[3])
        self.assertGreater(in_flight, 0, line)
        self.assertLessEqual(in_flight, 8, line)
        noun = "operation" if in_flight == 1 else "operations"
        self.assertEqual(words[4:7], [noun, "in", "flight,"], line)
        doc = json.loads(r.stdout)
        ran = [(p["phase"], p["interrupted"]) for _, p in phases_of(doc)]
        self.assertEqual(ran, [("seq-write", True)])
        phase = doc["merged_phases"][0]
        self.assertEqual(phase["phase"], "seq-write")
        self.assertEqual((phase["write_errors"], sum(phase["mismatches"].values())), (0, 0))
        cancelled = phase["cancelled_ops"]
        # Every write in flight either completed or was cancelled.
        self.assertLessEqual(cancelled, in_flight)
        self.assertIn("(interrupted", r.stderr)
        if self.backend == "sync":
            self.assertTrue(line.endswith("waiting for them (sync I/O cannot be cancelled)"), line)
            self.assertEqual(cancelled, 0)
        else:
            self.assertTrue(line.endswith(", cancelling"), line)
        s = doc["summary"]
        self.assertEqual((s["stop_reason"], s["signal"], s["exit_code"]),
                         ("signal", signal.SIGINT, 130))


class SlowDeviceIoUring(SlowDeviceCases, harness.DriveStressTest):
    backend = "io_uring"


class SlowDeviceSync(SlowDeviceCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
