#!/usr/bin/env python3
"""What --replay takes as its input, and what it says about it (issue 49,
items 3, 4, 7 and 18).

- A FIFO as the trace hung for ever: it was read once to check it, then
  opened again at the random phase, and that open waited for a writer that
  had gone; SIGTERM was announced but never completed.  A trace that is not
  a regular file (other than `-`) is refused in one line, without waiting.
- `--replay -` held endless input in memory without bound.  It holds at
  most --replay-max-bytes and refuses input past it, naming the limit; a
  stop request while it waits for input ends it.
- A tracefs capture's `[LOST N EVENTS]` lines were one skipped line each,
  N recorded nowhere: the replay looked complete.  N is summed into the
  JSON's replay.lost_events, the header says INCOMPLETE, and a warning
  goes to stderr.
- docs/replay.md did not give the unit of a fio v2 `wait` (item 18): it
  does now, and the binary does what it says."""

import json
import os
import signal
import subprocess
import tempfile
import threading

import harness
from test_rate import validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "replay-input-{case}"}

RUN = ("-j", 1, "-s", "1M", "--phases", "seq-write,random")
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def io_log_line(op, offset, due_ns):
    return json.dumps({"target": 0, "op": op, "offset": offset, "length": 4096,
                       "due_ns": due_ns})


class ReplayInput(harness.DriveStressTest):

    def piped(self, stdin_feed, *args, then=None):
        """drivestress --replay - ARGS with `stdin_feed(pipe)` writing its
        standard input on a thread of its own (which owns the pipe), and
        `then(process)` called once it runs; its Result."""
        argv = self.command(*RUN, "--replay", "-", *args, json_out=False)
        out, err = tempfile.TemporaryFile(mode="w+"), tempfile.TemporaryFile(mode="w+")
        self.addCleanup(out.close)
        self.addCleanup(err.close)
        p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True,
                             preexec_fn=harness.default_signals)
        self.addCleanup(lambda: p.poll() is None and (p.kill(), p.wait()))
        threading.Thread(target=stdin_feed, args=(p.stdin,), daemon=True).start()
        if then:
            then(p)
        p.wait(timeout=harness.EXIT_TIMEOUT_S)  # a hang fails here
        out.seek(0)
        err.seek(0)
        return harness.Result(p.returncode, out.read(), err.read(), None, 0)

    def test_a_fifo_is_refused_without_waiting_for_it(self):
        fifo = os.path.join(self.tmp, "trace.fifo")
        os.mkfifo(fifo)
        # No writer ever opens it: a blocking open would wait for ever.
        r = self.start(*RUN, "--replay", fifo, json_out=False).finish(timeout=20)
        self.assertSetupError(r, "--replay " + fifo, "a FIFO or pipe", "--replay -")
        self.assertNoFilesLeft(r)

    def test_standard_input_is_held_up_to_the_limit_and_refused_past_it(self):
        trace = "".join(io_log_line("write" if i % 2 else "read", (i % 64) * 4096, i * 1000) + "\n"
                        for i in range(200))

        def once(pipe):
            pipe.write(trace)
            pipe.close()

        r = self.piped(once, "--replay-max-bytes", len(trace), "--replay-speed", 0)
        self.assertExit(r, 0)
        self.assertIn("replay   standard input: drivestress io-log, 200 events", r.stdout)

        def endless(pipe):
            try:
                while True:
                    pipe.write(trace)
            except OSError:  # the pipe broke: drivestress ended
                pass
            try:
                pipe.close()
            except OSError:  # what was still buffered cannot be flushed
                pass

        r = self.piped(endless, "--replay-max-bytes", "64K")
        self.assertSetupError(r, "--replay -", "more than 65536 bytes (64 KiB, "
                              "--replay-max-bytes)", "as a file")
        self.assertNoFilesLeft(r)

    def test_a_stop_while_waiting_for_standard_input_ends_the_run(self):
        done = threading.Event()
        self.addCleanup(done.set)

        def silent(pipe):
            done.wait(harness.EXIT_TIMEOUT_S)  # holds the pipe open, writes nothing
            pipe.close()

        r = self.piped(silent, then=lambda p: p.send_signal(signal.SIGTERM))
        self.assertIn(r.returncode, (-signal.SIGTERM, 1, 128 + signal.SIGTERM), r.describe())
        self.assertNoFilesLeft(r)

    def test_lost_events_are_counted_said_and_warned(self):
        lines = ["# tracer: nop"]
        for i in range(40):
            rwbs = "W" if i % 2 else "R"
            lines.append(f"  dd-1 [000] ..... {100 + i / 1000:.6f}: block_bio_queue: 7,0 {rwbs} "
                         f"{(i % 32) * 8} + 8 [dd]")
            if i in (10, 30):
                lines.append(f"CPU:1 [LOST {i * 10} EVENTS]")
        trace = os.path.join(self.tmp, "lossy.txt")
        with open(trace, "w") as f:
            f.write("\n".join(lines) + "\n")
        r = self.drivestress(*RUN, "--replay", trace)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual(doc["replay"]["lost_events"], 400)
        self.assertEqual(doc["replay"]["events"], 40)
        self.assertIn("INCOMPLETE: the capture lost 400 events", " ".join(r.stdout.split()))
        warnings = [x for x in r.stderr.splitlines() if x.startswith("drivestress: warning: ")]
        self.assertEqual(len(warnings), 1, r.stderr)
        self.assertIn(f"--replay {trace}: the capture lost 400 events", warnings[0])
        self.assertIn("the replay is incomplete", warnings[0])

    def test_a_fio_v2_wait_is_in_milliseconds_as_the_docs_say(self):
        """docs/replay.md states the unit of a v2 wait and fio's HOWTO's
        disagreement; the binary does what it states (N in the offset
        field, milliseconds since fio started)."""
        with open(os.path.join(REPO, "docs", "replay.md")) as f:
            page = " ".join(f.read().split())
        self.assertIn("its clock is `FILE wait N [LENGTH]`, whose N (the offset field) is "
                      "**milliseconds since fio started**", page)
        self.assertIn("fio's HOWTO says the wait is in microseconds", page)
        trace = os.path.join(self.tmp, "v2.log")
        with open(trace, "w") as f:
            f.write("fio version 2 iolog\nf add\nf open\nf wait 100 0\nf write 0 4096\n"
                    "f wait 350 0\nf read 0 4096\nf close\n")
        r = self.drivestress(*RUN, "--replay", trace, "--replay-speed", 0)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual((doc["replay"]["format"], doc["replay"]["span_s"]), ("fio iolog v2", 0.25))


if __name__ == "__main__":
    harness.main()
