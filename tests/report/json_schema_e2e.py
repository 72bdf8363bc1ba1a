#!/usr/bin/env python3
"""End-to-end: real `drivestress --json` documents validate against the schema.

    json_schema_e2e.py --drivestress BUILD/src/drivestress [--schema SCHEMA]
                       [--no-io-uring BUILD/tests/helpers/no_io_uring]
                       [--save DIR] [CASE ...]

Runs the binary with small sizes on a fresh temporary directory in a few
configurations (plain, --no-verify, --backend sync, rand-ops with buffered
I/O, JSON on stdout, --duration, an injected corruption, SIGINT,
--latency-thresholds, --sweep, --compare-backends, --preset, damage found by
a later preset test or by the sync half of --compare-backends, and the
io_uring fallback when the no_io_uring helper is given, a --keep run and
--verify-only of its files, clean and after damage), validates every
document with validate_schema.py and checks what the schema cannot say: the
exit status equals summary.exit_code, histogram buckets add up to the count,
bandwidth is bytes / seconds, totals add up, no test file is left behind.

Exit status: 0 all cases passed, 1 a case failed, 77 jsonschema is missing.
"""

import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_schema  # noqa: E402  (after the path insert)

UNIT = 4096  # default --rand-block, the verification unit
MiB = 1024 * 1024
SMALL = ["-s", "8M", "-j", "2", "--progress", "never"]
STOP_TIMEOUT_S = 30
EXIT_TIMEOUT_S = 60


class CaseFailed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise CaseFailed(what)


class Runner:
    def __init__(self, exe, validator, no_io_uring, save_dir, hooked=""):
        self.exe = exe
        self.hooked = hooked or os.path.join(os.path.dirname(os.path.dirname(exe)), "tests",
                                             "helpers", "drivestress-hooked")
        self.validator = validator
        self.no_io_uring = no_io_uring
        self.save_dir = save_dir

    def run(self, name, args, expect_code, while_stopped=None, stop_at=None, wrapper=None,
            to_stdout=False):
        """Runs drivestress on a fresh directory and returns its checked document.

        With stop_at (a DRIVESTRESS_TEST_STOP value) the process stops itself there
        (once per test of a preset, once per backend of --compare-backends);
        while_stopped(pid, target_directory, stops_so_far) runs at each stop before
        the process is continued.
        """
        directory = tempfile.mkdtemp(prefix="ds-schema-%s-" % name)
        try:
            json_path = "-" if to_stdout else os.path.join(directory, "result.json")
            target = os.path.join(directory, "t")
            os.mkdir(target)
            # The product reads no DRIVESTRESS_TEST_* variable: a stop point
            # needs the hooked build of the same program.
            exe = self.hooked if stop_at else self.exe
            # One pass a sequential phase, as the e2e harness runs them (the
            # default, until a figure is measured, is validated there).
            own = ("--seq-time", "--sustained-write", "--sync-compare", "--preset",
                   "--verify-only", "--keep")
            once = [] if any(str(a).split("=")[0] in own for a in args) else ["--seq-time", "0"]
            cmd = list(wrapper or []) + [exe] + once + args + ["--json", json_path, target]
            env = dict(os.environ)
            env.pop("DRIVESTRESS_TEST_STOP", None)
            if stop_at:
                env["DRIVESTRESS_TEST_STOP"] = stop_at
            # Output goes to files, not pipes, so a stopped reader never blocks it.
            out_path = os.path.join(directory, "stdout")
            err_path = os.path.join(directory, "stderr")
            with open(out_path, "wb") as out_f, open(err_path, "wb") as err_f:
                proc = subprocess.Popen(cmd, env=env, stdout=out_f, stderr=err_f)
            try:
                if stop_at:
                    stops = 0
                    while wait_stopped(proc):  # every test of a preset stops again
                        while_stopped(proc.pid, target, stops)
                        stops += 1
                        os.kill(proc.pid, signal.SIGCONT)
                    expect(stops > 0, "%s exited (%d) before reaching its stop point %s"
                           % (name, proc.returncode, stop_at))
                proc.wait(timeout=EXIT_TIMEOUT_S)
                out = read_bytes(out_path)
                err = read_bytes(err_path)
            except subprocess.TimeoutExpired:
                raise CaseFailed("%s: still running after %d s: %s"
                                 % (name, EXIT_TIMEOUT_S, " ".join(cmd)))
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            where = "%s (exit %d)\n  command: %s\n  stderr: %s" % (
                name, proc.returncode, " ".join(cmd), err.decode(errors="replace").strip())
            expect(proc.returncode == expect_code,
                   "expected exit %d: %s" % (expect_code, where))
            text = (out if to_stdout else read_bytes(json_path)).decode()
            try:
                doc = json.loads(text)
            except ValueError as e:
                raise CaseFailed("document is not JSON (%s): %s" % (e, where))
            if self.save_dir:
                with open(os.path.join(self.save_dir, name + ".json"), "w") as f:
                    f.write(text)
            errors = validate_schema.errors_of(self.validator, doc)
            expect(not errors, "schema violations in %s:\n  %s" % (name, "\n  ".join(errors)))
            leftovers = glob.glob(os.path.join(target, "*.dat"))
            expect(not leftovers, "files left behind: %s" % leftovers)
            check_invariants(doc, proc.returncode)
            return doc
        finally:
            shutil.rmtree(directory, ignore_errors=True)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def wait_stopped(proc):
    """Waits until proc stops itself (state T, its DRIVESTRESS_TEST_STOP hook): True,
    or exits: False."""
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with open("/proc/%d/stat" % proc.pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:  # exited between poll() and open()
            continue
        if state == "T":  # "t" is a tracer (e.g. the leak checker at exit), not our stop
            return True
        time.sleep(0.01)
    raise CaseFailed("neither stopped nor exited within %d s" % STOP_TIMEOUT_S)


def damage(path, offset, data):
    """Overwrites bytes of a file behind drivestress's back, through to the disk."""
    fd = os.open(path, os.O_RDWR)
    try:
        os.pwrite(fd, data, offset)
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def flip(path, offset, length):
    fd = os.open(path, os.O_RDONLY)
    try:
        original = os.pread(fd, length, offset)
    finally:
        os.close(fd)
    damage(path, offset, bytes(b ^ 0xFF for b in original))


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


def check_latency(lat, where):
    buckets = lat["histogram"]["buckets"]
    expect(sum(c for _, c in buckets) == lat["count"],
           "%s: bucket counts add up to %d, count is %d"
           % (where, sum(c for _, c in buckets), lat["count"]))
    lowers = [b for b, _ in buckets]
    expect(lowers == sorted(set(lowers)), "%s: bucket bounds not ascending" % where)
    if lat["count"]:
        p = lat["percentiles_ns"]
        expect(lat["min_ns"] <= p["p50"] <= p["p99"] <= p["p99.99"] <= lat["max_ns"],
               "%s: percentiles out of order or outside [min, max]: %s" % (where, p))
        expect(lat["min_ns"] <= lat["mean_ns"] <= lat["max_ns"], "%s: mean outside" % where)


def check_phase(p, where, workers=None):
    if p["elapsed_s"] > 0:
        expect(close(p["bandwidth_bytes_per_sec"],
                     (p["read_bytes"] + p["write_bytes"]) / p["elapsed_s"]),
               where + ": bandwidth != bytes / seconds")
        expect(close(p["iops"], (p["read_ops"] + p["write_ops"]) / p["elapsed_s"]),
               where + ": iops != ops / seconds")
    for key in ("latency", "read_latency", "write_latency"):
        check_latency(p[key], "%s %s" % (where, key))
    expect(p["read_latency"]["count"] + p["write_latency"]["count"] == p["latency"]["count"],
           where + ": read + write latency counts != all")
    for t in p["latency_thresholds"]:
        expect(t["slower_count"] <= p["latency"]["count"], where + ": slower_count > count")
    if workers is not None:
        expect(p["workers"] == workers, "%s: workers %d, expected %d"
               % (where, p["workers"], workers))


SUMMED = ("read_bytes", "write_bytes", "read_ops", "write_ops", "verified_bytes")


def check_run(files, iterations, merged, sweep, s, where_run):
    """Totals of a run's summary against its iterations' figures, its merged
    phases (and sweep points); each merged phase against the iterations."""
    expect(s["mismatch_total"] == sum(s["mismatches"].values()), "mismatch_total != sum")
    expect((s["signal"] is not None) == (s["stop_reason"] == "signal"), "signal vs stop_reason")
    figures = [p for it in iterations for p in it["phases"]]
    for m in merged:
        where = "%smerged %s" % (where_run, m["phase"])
        check_phase(m, where, files)
        mine = [p for p in figures if p["phase"] == m["phase"]]
        expect(m["iterations"] == len(mine), where + ": iterations != runs of the phase")
        for key in SUMMED:
            expect(m[key] == sum(p[key] for p in mine), "%s: %s != sum over iterations"
                   % (where, key))
        expect(sum(m["mismatches"].values()) == sum(p["mismatch_total"] for p in mine),
               where + ": mismatches != sum over iterations")
        # Iterations carry elapsed_s to the microsecond.
        expect(abs(m["elapsed_s"] - sum(p["elapsed_s"] for p in mine)) <= 1e-6 * len(mine),
               where + ": elapsed_s != sum over iterations")
        complete = [p for p in mine if not p.get("interrupted")]
        expect((m["drift"] is None) == (not complete), where + ": drift vs complete runs")
    expect(len({m["phase"] for m in merged}) == len(merged), where_run + "a phase merged twice")
    expect({p["phase"] for p in figures} == {m["phase"] for m in merged},
           where_run + "merged_phases vs the phases run")
    phases = list(merged)
    if sweep:
        for n, p in enumerate(sweep["points"]):
            where = "%ssweep point %d (%s=%d)" % (where_run, n, sweep["parameter"], p["value"])
            check_phase(p, where, p["value"] if sweep["parameter"] == "files" else files)
            phases.append(p)
    per_class = dict.fromkeys(s["mismatches"], 0)
    for p in phases:
        for k, v in p["mismatches"].items():
            per_class[k] += v
    for total, key in (("written_bytes", "write_bytes"), ("read_bytes", "read_bytes"),
                       ("verified_bytes", "verified_bytes")):
        got = sum(p[key] for p in phases)
        expect(got == s[total], "%ssummary.%s is %d, its phases%s add up to %d"
               % (where_run, total, s[total], " and sweep points" if sweep else "", got))
    expect(per_class == s["mismatches"], where_run + "summary.mismatches != sum of phases")
    expect(len(iterations) == s["iterations_run"], where_run + "iterations_run")


def check_invariants(doc, returncode):
    expect(doc["in_progress"] is False, "a final document marked in progress")
    s = doc["summary"]
    expect(s["exit_code"] == returncode,
           "summary.exit_code %d but the process exited %d" % (s["exit_code"], returncode))
    expect({"passed": 0, "failed": 2, "error": 1}.get(s["status"], returncode) == returncode,
           "status %s with exit %d" % (s["status"], returncode))
    expect((s["status"] == "interrupted") == (returncode >= 128),
           "status %s with exit %d" % (s["status"], returncode))
    if "verify_only" in doc:
        check_verify_only(doc)
        return
    files = doc["config"]["files"]
    check_run(files, doc["iterations"], doc["merged_phases"], doc.get("sweep"), s, "")
    for it in doc.get("iteration_detail", []):
        for p in it["phases"]:
            check_phase(p, "iteration_detail %d %s" % (it["index"], p["phase"]), files)
    if "compare_backends" in doc:
        sync = doc["compare_backends"]["sync"]
        check_run(files, sync["iterations"], sync["merged_phases"], sync.get("sweep"),
                  sync["summary"],
                  "compare_backends.sync: ")


def check_verify_only(doc):
    """A --verify-only document: its counts against each other and the records."""
    v, s = doc["verify_only"], doc["summary"]
    expect(v["written_after_ack_units"] == v["newer_units"] + v["never_acknowledged_units"]
           + v["torn_units"], "written_after_ack_units != newer + never acknowledged + torn")
    for key in ("intact_units", "newer_units", "never_acknowledged_units", "torn_units",
                "lost_units"):
        expect(sum(f[key] for f in v["files"]) == v[key], "files' %s do not add up" % key)
    expect(s["mismatch_total"] == v["lost_units"] == sum(s["mismatches"].values()),
           "lost_units vs summary.mismatches")
    expect(doc["mismatches_truncated"] == (v["lost_units"] > len(doc["mismatches"])),
           "mismatches_truncated")
    expect(all(m["phase"] == "verify-only" and m["iteration"] == 0 for m in doc["mismatches"]),
           "verify-only records")
    expect((s["exit_code"] == 2) == (v["lost_units"] > 0), "exit code vs lost units")


def phase_names(doc, index=0):
    return [p["phase"] for p in doc["iterations"][index]["phases"]]


# ---------------------------------------------------------------- the cases

def case_plain(r):
    doc = r.run("plain", SMALL + ["--rand-time", "1"], 0)
    expect(phase_names(doc) == ["seq-write", "seq-read", "random", "reverify"], "phases")
    expect(doc["summary"]["status"] == "passed", "status")
    expect(doc["config"]["file_size_bytes"] == 8 * MiB, "file_size_bytes")
    expect(doc["summary"]["written_bytes"] >= 16 * MiB, "written_bytes")
    expect(doc["iterations"][0]["phases"][2]["read_ops"] > 0, "random phase did reads")


def case_no_verify(r):
    doc = r.run("no-verify", SMALL + ["--rand-time", "1", "--no-verify"], 0)
    expect(doc["config"]["verify"] is False, "config.verify")
    expect(doc["config"]["phases"] == ["seq-write", "seq-read", "random"], "config.phases")
    expect(phase_names(doc) == ["seq-write", "seq-read", "random"], "phases run")
    expect(doc["summary"]["verified_bytes"] == 0, "nothing verified")


def case_sync(r):
    doc = r.run("sync", SMALL + ["--rand-time", "1", "--backend", "sync"], 0)
    b = doc["backend"]
    expect(b["requested"] == "sync" and b["used"] == "sync", "backend names")
    expect(b["io_uring"] is None and b["fallback_reason"] is None, "sync has no ring")


def case_rand_ops_buffered(r):
    doc = r.run("rand-ops", SMALL + ["--rand-ops", "2000", "--iterations", "2", "--buffered",
                                     "--phases", "seq-write,random", "--seed", "7"], 0)
    c = doc["config"]
    expect(c["rand_ops"] == 2000 and c["rand_time_s"] is None, "rand_ops / rand_time_s")
    expect(c["buffered"] is True and c["seed"] == 7, "buffered, seed")
    expect(len(doc["iterations"]) == 2, "two iterations")
    rnd = doc["iterations"][1]["phases"][1]
    expect(rnd["read_ops"] + rnd["write_ops"] == 2000, "2000 random ops")


def case_stdout(r):
    doc = r.run("stdout", SMALL + ["--rand-time", "0"], 0, to_stdout=True)
    expect(phase_names(doc) == ["seq-write", "seq-read", "reverify"], "random disabled")


def case_duration(r):
    doc = r.run("duration", SMALL + ["--iterations", "0", "--duration", "1", "--rand-time",
                                     "0.3"], 0)
    expect(doc["summary"]["stop_reason"] == "duration", "stop_reason")
    expect(doc["summary"]["elapsed_s"] < 6, "--duration 1 ran %.1f s" % doc["summary"]["elapsed_s"])
    expect(doc["config"]["duration_s"] == 1 and doc["config"]["iterations"] == 0, "config")


def case_corruption(r):
    def corrupt(pid, target, stops):
        flip(os.path.join(target, "drivestress-0.dat"), 3 * UNIT + 1000, 8)
        damage(os.path.join(target, "drivestress-1.dat"), 5 * UNIT, bytes(UNIT))

    doc = r.run("corruption", SMALL + ["--rand-time", "0"], 2, stop_at="seq-read",
                while_stopped=corrupt)
    expect(doc["summary"]["status"] == "failed", "status failed")
    records = {(m["file_index"], m["phase"]): m for m in doc["mismatches"]}
    m = records.get((0, "seq-read"))
    expect(m is not None, "no seq-read record for file 0: %s" % doc["mismatches"])
    expect(m["class"] == "corrupt" and m["offset_bytes"] == 3 * UNIT + 1000
           and m["unit_offset_bytes"] == 3 * UNIT and m["bad_bytes"] == 8,
           "corrupt record: %s" % m)
    z = records.get((1, "seq-read"))
    expect(z is not None and z["class"] == "zeroed" and z["offset_bytes"] == 5 * UNIT,
           "zeroed record: %s" % z)
    expect(doc["summary"]["mismatches"]["corrupt"] >= 1, "corrupt counted")
    expect(doc["summary"]["mismatches"]["zeroed"] >= 1, "zeroed counted")


def case_sigint(r):
    doc = r.run("sigint", SMALL + ["--rand-time", "30"], 130, stop_at="random:200",
                while_stopped=lambda pid, target, stops: os.kill(pid, signal.SIGINT))
    s = doc["summary"]
    expect(s["status"] == "interrupted" and s["stop_reason"] == "signal"
           and s["signal"] == signal.SIGINT, "summary %s" % s)
    last = doc["iterations"][-1]["phases"][-1]
    expect(last["phase"] == "random" and last["interrupted"] is True, "random interrupted")
    expect(last["elapsed_s"] < 20, "stopped early")


def case_iterations(r):
    """Several iterations: figures for each, merged phases with their drift,
    the last two in full with --iteration-detail 2."""
    doc = r.run("iterations", SMALL + ["--rand-time", "0.2", "--iterations", "3",
                                       "--iteration-detail", "2"], 0)
    expect([it["index"] for it in doc["iterations"]] == [1, 2, 3], "three iterations")
    expect([it["index"] for it in doc["iteration_detail"]] == [2, 3], "the last two in full")
    for m in doc["merged_phases"]:
        expect(m["iterations"] == 3, "%s merged over 3 iterations" % m["phase"])
        d = m["drift"]
        expect(d is not None and d["iterations"] == 3, "%s drift: %s" % (m["phase"], d))
        bw = d["bandwidth_bytes_per_sec"]
        expect(bw["worst"] <= bw["first"] <= bw["best"] and bw["worst"] <= bw["last"] <= bw["best"],
               "%s drift in order: %s" % (m["phase"], bw))
        expect(d["p99_ns"]["best"] <= d["p99_ns"]["worst"], "p99 best <= worst")
        figures = [p for it in doc["iterations"] for p in it["phases"] if p["phase"] == m["phase"]]
        expect(d["p99_ns"]["last"] == figures[-1]["p99_ns"], "last p99 is iteration 3's")


def case_io_uring_fallback(r):
    if not r.no_io_uring:
        return "skipped (no --no-io-uring helper given)"
    doc = r.run("fallback", SMALL + ["--rand-time", "0.5"], 0, wrapper=[r.no_io_uring])
    b = doc["backend"]
    expect(b["requested"] == "auto" and b["used"] == "sync", "fell back: %s" % b)
    expect(isinstance(b["fallback_reason"], str) and b["fallback_reason"], "reason given")
    expect(b["io_uring"] is None, "no ring")
    return None


def case_thresholds(r):
    doc = r.run("thresholds", SMALL + ["--rand-time", "0.5", "--latency-thresholds",
                                       "100us,1s"], 0)
    for p in doc["merged_phases"]:
        t = p["latency_thresholds"]
        expect([x["threshold_ns"] for x in t] == [100000, 1000000000],
               "%s thresholds: %s" % (p["phase"], t))


def case_sweep(r):
    doc = r.run("sweep", ["-s", "8M", "--progress", "never", "--sweep", "files=1,2",
                          "--rand-time", "0.3"], 0)
    sw = doc.get("sweep")
    expect(sw is not None, "no sweep section")
    expect(sw["parameter"] == "files", "parameter")
    expect([p["value"] for p in sw["points"]] == [1, 2], "points")
    expect(all(p["phase"] == "random" for p in sw["points"]), "points are random phases")
    expect(phase_names(doc) == ["seq-write", "seq-read", "reverify"], "iteration phases")


def case_compare(r):
    # 1 s: the verdict quotes no phase too short to measure.
    doc = r.run("compare", SMALL + ["--rand-time", "1", "--compare-backends"], 0)
    cmp = doc.get("compare_backends")
    expect(cmp is not None, "no compare_backends section")
    expect(doc["backend"]["used"] == "io_uring", "main document is the io_uring run")
    expect(cmp["sync"]["backend"]["used"] == "sync", "sync section")
    expect([row["phase"] for row in cmp["rows"]]
           == ["seq-write", "seq-read", "random", "reverify"], "rows")
    # Matched concurrency: sync keeps --qd 32 per worker in flight too.
    expect([(run["label"], run["sync_threads_per_worker"]) for run in cmp["runs"]]
           == [("io_uring", 0), ("sync", 32)], "runs")
    rnd = [row for row in cmp["rows"] if row["phase"] == "random"][0]
    expect(rnd["in_flight"] == rnd["sync_in_flight"] == 64, "2 workers x 32 on both")
    expect(cmp["sweep"] is None, "no sweep")
    expect(cmp["verdict"].startswith("random at 64 operations in flight on both"), "verdict")


def case_compare_extra(r):
    doc = r.run("compare-extra", SMALL + ["--rand-time", "0.3", "--compare-backends",
                                          "--compare-extra", "sync-qd1"], 0)
    runs = doc["compare_backends"]["runs"]
    expect([(x["label"], x["backend"], x["qd_per_worker"], x["sync_threads_per_worker"])
            for x in runs] == [("io_uring", "io_uring", 32, 0), ("sync", "sync", 32, 32),
                               ("sync qd 1", "sync", 1, 0)], "runs")
    for x in runs:
        rnd = [p for p in x["phases"] if p["phase"] == "random"][0]
        expect(rnd["ops"] > 0 and rnd["system_calls_per_op"] > 0, "counted system calls")
        if x["backend"] == "sync":  # one pread/pwrite per operation, exactly
            expect(rnd["system_calls_per_op"] == 1.0, "sync: one call per operation")


def case_compare_sweep(r):
    doc = r.run("compare-sweep", SMALL + ["--rand-ops", "2000", "--compare-backends",
                                          "--sweep", "qd=1..4"], 0)
    sw = doc["compare_backends"]["sweep"]
    expect([p["qd"] for p in sw["points"]] == [1, 2, 4], "points")
    expect(all(p["io_uring"]["ops"] == p["sync"]["ops"] == 2000 for p in sw["points"]), "ops")
    # The crossover as find_crossover defines it, recomputed from the points.
    m = sw["margin_pct"] / 100
    want = None
    for p in reversed(sw["points"]):
        a, b = p["io_uring"]["iops"], p["sync"]["iops"]
        if a < b * (1 - m):
            break
        if a >= b * (1 + m):
            want = p["qd"]
    expect(sw["crossover_qd"] == want, "crossover_qd %s, recomputed %s" % (sw["crossover_qd"], want))
    expect(all(p["sync"]["in_flight"] == p["io_uring"]["in_flight"] == 2 * p["qd"]
               for p in sw["points"]), "in flight: 2 workers x qd")
    expect(("pays from QD %d on" % sw["crossover_qd"]) in sw["crossover"]
           if sw["crossover_qd"] else "never pays" in sw["crossover"], "crossover in words")


def zero_units(path, first, count):
    """Zeroes `count` units from unit `first` on."""
    damage(path, first * UNIT, bytes(count * UNIT))


def case_preset(r):
    doc = r.run("preset", ["-s", "8M", "--progress", "never", "--preset", "desktop",
                           "--rand-time", "0.3"], 0)
    p = doc.get("preset")
    expect(p is not None and p["name"] == "desktop", "preset section")
    expect([t["label"] for t in p["tests"]] ==
           ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1 read", "RND4K Q32T1 write",
            "RND4K Q1T1 read", "RND4K Q1T1 write"], "preset tests")
    expect(all(t["exit_code"] == 0 for t in p["tests"]), "every test passed")


# The document's verdict is the run's: summary.exit_code equals the process
# exit status (check_invariants) even when a later preset test, or the second
# backend of --compare-backends, finds corruption.
def case_preset_mismatch_in_later_test(r):
    def corrupt(pid, target, stops):
        if stops == 0:  # the first random phase: test 3, "RND4K Q32T1 read"
            zero_units(os.path.join(target, "drivestress-0.dat"), 512, 1024)

    doc = r.run("preset-mismatch", ["-s", "8M", "--progress", "never", "--preset", "desktop",
                                    "--rand-time", "0.3"], 2, stop_at="random:100",
                while_stopped=corrupt)
    tests = doc["preset"]["tests"]
    expect(tests[2]["exit_code"] == 2 and tests[2]["mismatch_total"] > 0,
           "test 3 found the damage: %s" % tests[2])


def case_compare_mismatch_in_sync(r):
    def corrupt(pid, target, stops):
        if stops == 1:  # the second run, on sync, before its seq-read
            flip(os.path.join(target, "drivestress-1.dat"), 2 * UNIT + 64, 4)

    doc = r.run("compare-mismatch", SMALL + ["--rand-time", "0", "--compare-backends"], 2,
                stop_at="seq-read", while_stopped=corrupt)
    sync = doc["compare_backends"]["sync"]["summary"]
    expect(sync["status"] == "failed" and sync["mismatches"]["corrupt"] >= 1,
           "the sync run found the damage: %s" % sync)


def case_verify_only(r):
    """--keep run, then --verify-only clean and after one acknowledged unit is
    zeroed; all three documents validate."""
    directory = tempfile.mkdtemp(prefix="ds-schema-verify-only-")
    try:
        target = os.path.join(directory, "t")
        os.mkdir(target)
        state = os.path.join(target, "drivestress.state")

        def run(args, code, name):
            json_path = os.path.join(directory, name + ".json")
            p = subprocess.run([r.exe] + args + ["--json", json_path], capture_output=True,
                               timeout=EXIT_TIMEOUT_S)
            expect(p.returncode == code, "%s: exit %d, expected %d: %s"
                   % (name, p.returncode, code, p.stderr.decode(errors="replace")))
            with open(json_path) as f:
                doc = json.load(f)
            if r.save_dir:
                shutil.copy(json_path, os.path.join(r.save_dir, name + ".json"))
            errors = validate_schema.errors_of(r.validator, doc)
            expect(not errors, "schema violations in %s:\n  %s" % (name, "\n  ".join(errors)))
            check_invariants(doc, p.returncode)
            return doc

        doc = run(SMALL + ["--rand-time", "0.3", "--keep", target], 0, "keep")
        expect(doc["target"]["state_file"] == state, "target.state_file")
        doc = run(["--verify-only", state], 0, "verify-only-clean")
        expect(doc["verify_only"]["intact_units"] == 2 * 8 * MiB // UNIT, "all intact")
        zero_units(os.path.join(target, "drivestress-1.dat"), 3, 1)
        doc = run(["--verify-only", state], 2, "verify-only-lost")
        expect([(m["file_index"], m["offset_bytes"], m["class"]) for m in doc["mismatches"]]
               == [(1, 3 * UNIT, "zeroed")], "lost record: %s" % doc["mismatches"])
    finally:
        shutil.rmtree(directory, ignore_errors=True)


CASES = {
    "plain": case_plain,
    "no-verify": case_no_verify,
    "sync": case_sync,
    "rand-ops": case_rand_ops_buffered,
    "stdout": case_stdout,
    "duration": case_duration,
    "corruption": case_corruption,
    "sigint": case_sigint,
    "thresholds": case_thresholds,
    "sweep": case_sweep,
    "compare": case_compare,
    "compare-extra": case_compare_extra,
    "compare-sweep": case_compare_sweep,
    "preset": case_preset,
    "preset-mismatch": case_preset_mismatch_in_later_test,
    "compare-mismatch": case_compare_mismatch_in_sync,
    "iterations": case_iterations,
    "fallback": case_io_uring_fallback,
    "verify-only": case_verify_only,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drivestress", required=True, help="the binary under test")
    parser.add_argument("--drivestress-hooked", default="",
                        help="the same program with the test hooks (tests/helpers), for the "
                             "cases that stop at a point")
    parser.add_argument("--schema", default=validate_schema.DEFAULT_SCHEMA)
    parser.add_argument("--no-io-uring", default="", help="helper that blocks io_uring")
    parser.add_argument("--save", default="", metavar="DIR",
                        help="keep a copy of every document as DIR/CASE.json")
    parser.add_argument("cases", nargs="*", metavar="CASE",
                        help="cases to run (default: all): " + ", ".join(CASES))
    args = parser.parse_args()
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        parser.error("unknown case %s (choose from %s)" % (", ".join(unknown), ", ".join(CASES)))

    validator = validate_schema.make_validator(args.schema)  # exits 77 without jsonschema
    r = Runner(os.path.abspath(args.drivestress), validator, args.no_io_uring, args.save,
               os.path.abspath(args.drivestress_hooked) if args.drivestress_hooked else "")
    failed = 0
    for name in args.cases or CASES:
        try:
            note = CASES[name](r)
            print("ok   %s%s" % (name, " (%s)" % note if note else ""))
        except CaseFailed as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
