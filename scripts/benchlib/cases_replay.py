"""The replay case (--replay of a real tracefs trace, against fio's
read_iolog of the same trace) and the cost of --io-log."""

import json
import os
import re

import stats  # noqa: F401  scripts/stats.py (scripts/ is on sys.path)

from benchlib.common import *  # noqa: F401,F403
from benchlib.children import *  # noqa: F401,F403
from benchlib.target import *  # noqa: F401,F403
from benchlib.measure import *  # noqa: F401,F403
from benchlib.cases_qd import *  # noqa: F401,F403


TRACING = "/sys/kernel/tracing"
TRACE_IOPS = (1400, 600)  # the traced workload's reads and writes a second: 2,000, 70/30
TRACE_QD = 32  # both tools' queue depth when replaying
ON_TIME_NS = 1_000_000  # "issued on time": within 1 ms of when it was due
TRACE_EVENT = re.compile(r"\s(\d+\.\d+): block_bio_queue: (\d+),(\d+) (\w+) (\d+) \+ (\d+) \[")


def tracing(name, text=None):
    """Reads (text None) or writes a tracefs control file."""
    path = os.path.join(TRACING, name)
    if text is None:
        with open(path) as f:
            return f.read()
    with open(path, "w") as f:
        f.write(text)


def buffer_kb(text):
    """buffer_size_kb as it reads: "1410", or "7 (expanded: 1408)" before
    the buffer was first used (the size it takes then)."""
    m = re.search(r"expanded: (\d+)", text)
    return m.group(1) if m else text.split()[0]


def trace_lost_events():
    """Events the trace buffer overwrote or dropped, over every CPU."""
    lost = 0
    for cpu in os.listdir(os.path.join(TRACING, "per_cpu")):
        for line in tracing(f"per_cpu/{cpu}/stats").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("overrun", "dropped events"):
                lost += int(value.split()[0])
    return lost


class TraceRecorder:
    """Records what a replay case replays, once per bench: a real workload
    (fio randrw at TRACE_IOPS, 4 KiB, Poisson arrivals) on a raw loop device,
    captured by tracefs block:block_bio_queue filtered on that device.
    Every tracefs setting it changes is put back, and a mount it made
    undone, by restore()."""

    def __init__(self, bench):
        self.b = bench
        self.undo = []

    def restore(self):
        while self.undo:
            try:
                self.undo.pop()()
            except (OSError, BenchError) as e:
                log(f"bench: undoing a tracefs setting: {e}")

    def mount(self):
        if os.path.exists(os.path.join(TRACING, "trace")):
            return
        res = run_cmd(["mount", "-t", "tracefs", "nodev", TRACING], check=False)
        if res.returncode:
            raise BenchError(f"tracefs cannot be mounted at {TRACING}: {res.stderr.strip()}")
        self.undo.append(lambda: run_cmd(["umount", TRACING], check=False))

    def set(self, name, text, back):
        tracing(name, text)
        self.undo.append(lambda: tracing(name, back))

    def record(self, dev, seconds, path):
        """Runs the workload on `dev` for `seconds` while tracing it; writes
        the trace to `path`; returns the number of events."""
        self.mount()
        with open(f"/sys/block/{os.path.basename(dev)}/dev") as f:
            major, minor = (int(x) for x in f.read().split(":"))
        event = "events/block/block_bio_queue/"
        tracing("tracing_on", "0")
        tracing("trace", "")
        # 2,000 events a second for a minute are about 10 MB of records: the
        # default buffer (1.4 MB a CPU) would overwrite the first ones.
        self.set("buffer_size_kb", "65536", buffer_kb(tracing("buffer_size_kb")))
        self.set(event + "filter", f"dev == {major << 20 | minor}", "0")
        self.set(event + "enable", "1", "0")
        tracing("tracing_on", "1")
        try:
            self.b.fio("traced workload", [
                f"filename={dev}", "rw=randrw", "rwmixread=70", "bs=4k", "direct=1",
                "ioengine=io_uring", "iodepth=8", "norandommap=1",
                f"rate_iops={TRACE_IOPS[0]},{TRACE_IOPS[1]}", "rate_process=poisson",
                f"runtime={seconds:g}", "time_based=1"], None, pin=False,
                timeout=2 * seconds + 60)
        finally:
            tracing("tracing_on", "0")
        lost = trace_lost_events()
        with open(os.path.join(TRACING, "trace")) as src, open(path, "w") as out:
            text = src.read()
            out.write(text)
        tracing("trace", "")
        events = len(TRACE_EVENT.findall(text))
        if lost:
            raise BenchError(f"tracefs lost {lost} events of the traced workload "
                             f"({events} kept): its buffer is too small")
        if not events:
            raise BenchError(f"tracefs recorded no block_bio_queue event of {dev}")
        return events


def trace_to_fio(trace, dev, out):
    """The tracefs trace as fio iolog version 3 on `dev` (times in
    microseconds from the first event): what fio's read_iolog replays.
    Returns ({op: count}, span in seconds)."""
    lines, first, last, counts = [], None, None, {}
    with open(trace) as f:
        for m in TRACE_EVENT.finditer(f.read()):
            t, rwbs, length = float(m.group(1)), m.group(4), int(m.group(6)) * 512
            # rwbs: D discard, W write, R read; an empty bio with F is a
            # flush (fio's sync); a flag F beside data is a preflush or FUA.
            op = ("trim" if "D" in rwbs else "write" if "W" in rwbs and length
                  else "read" if "R" in rwbs else "sync" if "F" in rwbs and not length
                  else None)
            if op is None:
                continue
            first = t if first is None else first
            last = t
            counts[op] = counts.get(op, 0) + 1
            offset = int(m.group(5)) * 512 if length else 0
            lines.append(f"{round((t - first) * 1e6)} {dev} {op} {offset} {length}")
    with open(out, "w") as f:
        f.write(f"fio version 3 iolog\n0 {dev} add\n0 {dev} open\n")
        f.write("\n".join(lines) + "\n")
        f.write(f"{round((last - first) * 1e6)} {dev} close\n")
    return counts, last - first


def on_time_share(io_log):
    """From a --io-log NDJSON: the share of operations with a due time that
    were submitted within ON_TIME_NS of it, and how many had one."""
    due = on_time = 0
    with open(io_log) as f:
        for line in f:
            x = json.loads(line)
            if x["due_ns"] is None:
                continue
            due += 1
            on_time += x["submit_ns"] - x["due_ns"] <= ON_TIME_NS
    return (on_time / due if due else 0.0), due


class ReplaySetup:
    """What every repetition of the replay case replays, made once (by
    replay_setup): the trace, its fio form, and the raw loop device both
    tools replay it onto."""

    def __init__(self, trace, fio_log, dst, size, events, span_s):
        self.trace, self.fio_log, self.dst, self.size = trace, fio_log, dst, size
        self.events, self.span_s = events, span_s


def replay_setup(b):
    """Records the trace (a raw loop device traced for args.trace_time s)
    and makes the device it is replayed onto; None (noted) where this
    machine cannot.  Made once per bench: b.replay holds it."""
    if b.replay is not None:
        return b.replay or None
    b.replay = False
    if os.geteuid() != 0:
        b.note("the replay case needs root (loop devices, tracefs): not run")
        return None
    size = b.args.size
    devices = [RawLoop(size, "-trace-src"), RawLoop(size, "-trace-dst")]
    b.cleanups += [d.teardown for d in devices]
    recorder = TraceRecorder(b)
    b.cleanups.append(recorder.restore)
    trace = os.path.join(b.workdir, "replay-trace.txt")
    seconds = b.args.trace_time
    try:
        src, dst = (d.setup() for d in devices)
        log(f"  recording a {seconds:g} s tracefs trace of fio randrw at "
            f"{sum(TRACE_IOPS)} IOPS on {src}")
        recorded = recorder.record(src, seconds, trace)
    except BenchError as e:
        b.note(f"the replay case is not run: {e}")
        return None
    finally:
        recorder.restore()
    fio_log = os.path.join(b.workdir, "replay-trace.fio")
    counts, span = trace_to_fio(trace, dst, fio_log)
    mix = ", ".join(f"{n} {op}s" for op, n in sorted(counts.items()))
    b.note(f"replay case: {recorded} tracefs events over {span:.2f} s ({mix}) of fio randrw "
           f"70/30 4K at {sum(TRACE_IOPS)} IOPS, Poisson arrivals, on {src}; replayed at QD "
           f"{TRACE_QD} onto {dst}")
    b.replay = ReplaySetup(trace, fio_log, dst, size, sum(counts.values()), span)
    return b.replay


def group_replay():
    """A real trace replayed at its own pace: drivestress --replay (every
    read of a replayed write verified) against fio read_iolog of the same
    trace converted to fio's iolog v3, both at QD 32 onto the same raw loop
    device.  Duration is each tool's over the trace's span; on time is the
    share of drivestress's operations submitted within 1 ms of when they
    were due, from its own --io-log (fio logs no due time)."""
    def runs(b):
        r = replay_setup(b)
        if not r:
            return []
        timeout = 3 * b.args.trace_time + 120

        def ds():
            io_log = os.path.join(b.workdir, "replay-io-log.ndjson")
            extra = ["--qd", str(TRACE_QD), "--phases", "seq-write,random", "--replay", r.trace,
                     "--raw-device", r.dst, "--destroy-data", r.dst, "--io-log", io_log]
            (doc, _, _), = b.drivestress_many("replay", [(extra, [])], size=r.size,
                                              timeout=timeout)
            p = b.ds_phase(doc, "random")
            fid = p["replay"]
            share, due = on_time_share(io_log)
            os.unlink(io_log)
            if due != doc["replay"]["events"]:
                raise BenchError(f"drivestress --replay: {due} operations with a due time in "
                                 f"its io-log, {doc['replay']['events']} events in the trace")
            m = b.ds_measure(p, "iops")
            figures = {"elapsed_s": fid["elapsed_s"], "trace_s": fid["trace_seconds"],
                       "late_ops": fid["late_ops"], "operations": due,
                       "issue_error_p99_us": fid["issue_error"]["percentiles_ns"]["p99"] / 1e3}
            return {"ds-replay-duration": Measurement(
                        100 * fid["elapsed_s"] / fid["trace_seconds"], m.cpu_s, m.ops, figures,
                        unit="%"),
                    "ds-replay-on-time": Measurement(100 * share, m.cpu_s, m.ops, figures,
                                                     unit="%")}

        def fio():
            doc, _ = b.fio("read_iolog", [f"read_iolog={r.fio_log}", "ioengine=io_uring",
                                          f"iodepth={TRACE_QD}", "direct=1"], None,
                           pin=False, timeout=timeout)
            [j] = doc["jobs"]
            ios = sum(j[d]["total_ios"] for d in ("read", "write", "trim"))
            runtime = j["job_runtime"] / 1000.0
            cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * runtime
            return {"fio-replay-duration": Measurement(
                100 * runtime / r.span_s, cpu, ios,
                {"elapsed_s": runtime, "trace_s": r.span_s, "operations": ios}, unit="%")}

        def floor():
            x, ru = b.run_json_program("floor_timer", "timer floor",
                                       [b.args.timer_exe, r.fio_log, str(ON_TIME_NS)], timeout)
            if x["events"] != r.events:
                raise BenchError(f"floor_timer read {x['events']} events, the trace has "
                                 f"{r.events}")
            cpu = ru.ru_utime + ru.ru_stime
            return {"floor-on-time": Measurement(
                100 * x["on_time"] / x["events"], cpu, x["events"],
                {"max_late_us": x["max_late_ns"] / 1e3, "elapsed_s": x["elapsed_s"]}, unit="%")}

        runs = [("drivestress --replay", ds), ("fio read_iolog", fio)]
        return runs + ([("timer floor", floor)] if b.args.timer_exe else [])

    rows = [pair_row("replay-duration", f"replay of a tracefs trace ({sum(TRACE_IOPS)} IOPS "
                     "randrw): duration, % of the trace's span", "%", "ds-replay-duration",
                     "drivestress --replay", "fio-replay-duration", "fio read_iolog"),
            pair_row("replay-on-time", "replay: operations issued within 1 ms of their due "
                     "time (%)", "%", "ds-replay-on-time", "drivestress --replay",
                     "floor-on-time", "timer floor")]
    return "replay", rows, runs


def group_io_log():
    """What --io-log costs: random reads 4 KiB QD 32 verified, the same run
    with and without --io-log (NDJSON, in the work directory), alternated."""
    qd = 32

    def runs(b):
        a = b.args

        def ds(logged):
            def run():
                io_log = os.path.join(b.workdir, "io-log.ndjson")
                extra = random_ds_args(a, qd) + (["--io-log", io_log] if logged else [])
                doc, _ = b.drivestress("io-log" if logged else "no io-log", extra)
                m = b.ds_measure(b.ds_phase(doc, "random"), "iops")
                if logged:
                    log_doc = doc["io_log"]
                    os.unlink(io_log)
                    m.extra.update({"io_log_lines": log_doc["operations"],
                                    "io_log_dropped": log_doc["dropped"]})
                    if log_doc["error"]:
                        raise BenchError(f"drivestress --io-log: {log_doc['error']}")
                return {"ds-io-log" if logged else "ds-no-io-log": m}
            return run
        return [("drivestress --io-log", ds(True)), ("drivestress", ds(False))]

    rows = [pair_row("io-log-cost", f"randread 4K QD{qd} verify: with --io-log vs without (IOPS)",
                     "IOPS", "ds-io-log", "--io-log", "ds-no-io-log", "without")]
    return "io-log", rows, runs
