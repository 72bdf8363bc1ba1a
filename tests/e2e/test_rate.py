#!/usr/bin/env python3
"""--rate: the random phase open-loop, response time from when each
operation was due.

Structure (any machine, both backends): a --rate run reports the schedule
(requested and achieved rate, late operations, response-time percentiles
beside service time, the issue error) in text, JSON (validated against the
schema), --timeseries and --prom; bad spellings are refused naming the
option.

Loop devices (root, cgroup v1 blkio; skipped with the reason otherwise),
where the device's throttle, not our speed, decides each outcome:
- requested half the cap: the rate is met, nothing late, response p99
  close to service p99;
- requested twice the cap: achieved is the cap, operations late, "RATE NOT
  MET" said, and response p99 grows with the phase's length while service
  time stays bounded by the queue;
- the throttle near zero for 1 s mid-phase: the open loop's response
  p99.9 holds most of the stall; the closed loop's p99.9 does not (it
  issued nothing while the device stalled: coordinated omission)."""

import json
import os
import shutil
import subprocess
import threading

import harness
from test_endurance import ThrottledDevice, raw

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "rate-{cls}-{case}"}

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema")
CAP_IOPS = 1000


def validate(test, doc, schema="result.schema.json"):
    try:
        import jsonschema
    except ImportError:
        test.skipTest("python3-jsonschema missing: the document is not validated")
    with open(os.path.join(SCHEMA_DIR, schema)) as f:
        jsonschema.validate(doc, json.load(f))


def random_phase(doc):
    return harness.merged_phases_of(doc)["random"]


class RateCases:
    def test_rate_is_over_every_target(self):
        # Two drives, two workers each: 400 a second in all, not per drive
        # (each worker's share was once the rate over one drive's workers).
        dirs = [os.path.join(self.tmp, name) for name in ("a", "b")]
        for d in dirs:
            os.mkdir(d)
        r = self.drivestress("-j", 2, "-s", "4M", "--qd", 4, "--rate", 400,
                             "--phases", "seq-write,random", "--rand-time", 2, *dirs,
                             target=False)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        rate = random_phase(doc)["rate"]
        self.assertEqual(rate["requested_iops"], 400)
        self.assertAlmostEqual(rate["achieved_iops"], 400, delta=40, msg=r.stdout)
        ops = [sum(p["read_ops"] + p["write_ops"] for p in t["merged_phases"]
                   if p["phase"] == "random") for t in doc["targets"]]
        self.assertEqual(len(ops), 2)
        for n in ops:  # split evenly: 200 a second each, for 2 s
            self.assertAlmostEqual(n, 400, delta=40, msg=ops)

    def test_rate_is_reported_everywhere(self):
        series = os.path.join(self.tmp, "series.ndjson")
        prom = os.path.join(self.tmp, "drivestress.prom")
        r = self.drivestress("-j", 2, "-s", "8M", "--qd", 8, "--rate", 1000, "--arrivals",
                             "poisson", "--rand-time", 2, "--timeseries", series, "--prom", prom)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual(doc["config"]["rate_iops"], 1000)
        self.assertEqual(doc["config"]["arrivals"], "poisson")
        p = random_phase(doc)
        rate = p["rate"]
        self.assertEqual(rate["requested_iops"], 1000)
        self.assertEqual(rate["arrivals"], "poisson")
        ops = p["read_ops"] + p["write_ops"]
        self.assertEqual(rate["response_latency"]["count"], ops)
        self.assertEqual(rate["issue_error"]["count"] + rate["late_ops"], ops)
        self.assertGreater(p["verified_bytes"], 0)
        # Response time includes service time: never below it, operation by
        # operation, so neither are its extremes.
        self.assertGreaterEqual(rate["response_latency"]["max_ns"], p["latency"]["max_ns"])
        self.assertGreaterEqual(rate["response_latency"]["min_ns"], p["latency"]["min_ns"])
        for name in ("seq-write", "seq-read", "reverify"):
            self.assertIsNone(harness.merged_phases_of(doc)[name]["rate"], name)
        self.assertIn("rate:      requested 1.0k IOPS, achieved ", r.stdout)
        # The figures line quotes what an open loop is about: response time.
        figures = next(l for l in r.stdout.splitlines() if l.startswith("figures  "))
        self.assertRegex(figures, r" IOPS(?: \u00b1[\d.]+ %)?, response p99 \d+\.\d{3} ms")
        self.assertIn("response ms p50 ", r.stdout)
        self.assertIn("issue error us p50 ", r.stdout)
        with open(series) as f:
            lines = [json.loads(line) for line in f]
        rand = [x for x in lines if x["phase"] == "random"]
        self.assertTrue(rand)
        for x in lines:
            validate(self, x, "timeseries.schema.json")
        self.assertEqual(sum(x.get("late_ops", 0) for x in rand), rate["late_ops"])
        self.assertTrue(all("response_p99_ns" in x for x in rand if x["read_ops"] + x["write_ops"]))
        self.assertFalse(any("response_p99_ns" in x for x in lines if x["phase"] != "random"))
        with open(prom) as f:
            text = f.read()
        self.assertIn('drivestress_response_latency_seconds_count{', text)
        count = [line for line in text.splitlines()
                 if line.startswith("drivestress_response_latency_seconds_count{")]
        self.assertEqual(len(count), 1, count)
        self.assertEqual(int(count[0].split()[-1]), ops)
        self.assertIn("drivestress_late_ops_total{", text)
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=text,
                                   capture_output=True, text=True, timeout=60)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_sweep_of_absolute_rates(self):
        r = self.drivestress("-j", 2, "-s", "8M", "--qd", 8, "--sweep", "rate=400,1k",
                             "--rand-time", 1)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        sweep = doc["sweep"]
        self.assertEqual(sweep["parameter"], "rate")
        self.assertFalse(sweep["rate_percent"])
        self.assertIsNone(sweep["closed_loop_iops"])
        self.assertEqual([p["value"] for p in sweep["points"]], [400, 1000])
        self.assertEqual([p["rate"]["requested_iops"] for p in sweep["points"]], [400, 1000])
        for p in sweep["points"]:
            self.assertGreater(p["verified_bytes"], 0)
        self.assertIn("sweep rate: random phase open-loop", r.stdout)
        self.assertIn("turn-up: ", r.stdout)
        # The figures line quotes the turn-up, not a depth sweep's saturation.
        figures = next(line for line in r.stdout.splitlines() if line.startswith("figures "))
        self.assertRegex(figures, r"\| response p99 (turns up at \S+ IOPS: [0-9.]+ ms|flat up to \S+ IOPS) \|")
        self.assertNotIn("saturation", figures)

    def test_closed_loop_has_no_rate(self):
        r = self.drivestress("-j", 1, "-s", "4M", "--rand-ops", 500)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertIsNone(random_phase(doc)["rate"])
        self.assertNotIn("response p99", r.stdout)
        self.assertIsNone(doc["config"]["rate_iops"])
        self.assertNotIn("rate:", r.stdout)

    def test_bad_rates_are_refused_naming_the_option(self):
        for args, name in ((("--rate", 0), "--rate"), (("--rate", "fast"), "--rate"),
                           (("--rate", "-5"), "--rate"),
                           (("--rate", 100, "--arrivals", "bursty"), "--arrivals"),
                           (("--arrivals", "poisson"), "--arrivals"),
                           (("--rate", 100, "--batch", 2), "--batch"),
                           (("--rate", 100, "--rand-time", 0), "--rate"),
                           (("--sweep", "rate=10%,5k"), "--sweep"),
                           (("--sweep", "rate=0"), "--sweep"),
                           (("--sweep", "rate=100", "--rate", 50), "--rate"),
                           (("--sweep", "rate=100", "--batch", 2), "--batch")):
            r = self.drivestress("-s", "4M", *args)
            self.assertSetupError(r, name)


class RateIoUring(RateCases, harness.DriveStressTest):
    backend = "io_uring"


class RateSync(RateCases, harness.DriveStressTest):
    backend = "sync"


@harness.meson_case(timeout=120)
class TinyRates(harness.DriveStressTest):
    """Rates no run can schedule are refused before anything is written: below
    one operation a second, or fewer than two in the random phase (such a
    rate once ran "requested 0 IOPS" and, with --rand-ops, never ended)."""

    def test_rates_below_one_a_second_are_refused(self):
        for args in (("--rate", "1e-300"), ("--rate", "1e-300", "--rand-ops", 10),
                     ("--rate", "0.0001"), ("--rate", "0.5k", "--rand-time", "1ms"),
                     ("--rate", "1", "--rand-time", "1s"),
                     ("--sweep", "rate=0.5"), ("--sweep", "rate=100,0.001")):
            with self.subTest(args=args):
                r = self.drivestress("-s", "4M", "-j", 1, *args, json_out=False)
                self.assertExit(r, 1)
                lines = r.stderr.splitlines()
                self.assertEqual(len(lines), 1, r.describe())
                self.assertIn("--rate" if args[0] == "--rate" else "--sweep", lines[0])
                self.assertRegex(lines[0], r"below 1 operation a second|fewer than 2 operations")
                self.assertEqual(r.stdout, "")
                self.assertNoFilesLeft(r)

    def test_the_lowest_rate_runs_and_ends(self):
        r = self.drivestress("-s", "4M", "-j", 1, "--rate", 1, "--rand-ops", 3)
        self.assertExit(r, 0)
        rate = self.assertJson(r)["merged_phases"]
        random = next(p for p in rate if p["phase"] == "random")
        self.assertEqual(random["read_ops"] + random["write_ops"], 3)
        self.assertEqual(random["rate"]["requested_iops"], 1)
        self.assertNoFilesLeft(r)

class Throttled(ThrottledDevice):
    """Reads capped at CAP_IOPS by the device's blkio throttle."""

    def setUp(self):
        super().setUp()
        self.cgroup.set("read_iops", self.dev, CAP_IOPS)

    def run_on_device(self, *args, rand_time=3, qd=8, **kwargs):
        return self.start("-j", 1, "-s", "16M", "--read-pct", 100, "--qd", qd,
                          "--phases", "seq-write,random", "--seed", 11, "--rand-time", rand_time,
                          *args, *raw(self.dev), target=False, wrapper=self.cgroup.wrapper(),
                          **kwargs)

    def finished(self, run):
        r = run.finish()
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        return r, harness.merged_phases_of(doc).get("random")  # a sweep's are its points

    def test_below_the_cap_the_rate_is_met(self):
        # 128 in flight: the throttle holds reads back in slices (up to
        # 100 ms at once, measured 40-80 ms p99 service time below the cap
        # on this VM), so 32 slots could all be busy at a due time; 128
        # would take 128 ms of a device serving one read a millisecond.
        r, p = self.finished(self.run_on_device("--rate", CAP_IOPS // 2, qd=128))
        rate = p["rate"]
        self.assertTrue(rate["met"], r.stdout)
        self.assertAlmostEqual(rate["achieved_iops"], CAP_IOPS / 2, delta=CAP_IOPS / 2 * 0.05)
        self.assertEqual(rate["late_ops"], 0, r.stdout)
        self.assertIn("rate met", r.stdout)
        # Below the cap an operation waits for nothing but the device and
        # the engine: response time is service time plus the issue error
        # (which the report states: on a loaded host it is what differs).
        service = p["latency"]["percentiles_ns"]["p99"]
        response = rate["response_latency"]["percentiles_ns"]["p99"]
        issue = rate["issue_error"]["percentiles_ns"]["p99.9"]
        self.assertGreaterEqual(response, service * 0.9)
        self.assertLess(response, service * 1.1 + issue + 1_000_000, r.stdout)

    def test_above_the_cap_the_rate_is_not_met_and_response_time_grows(self):
        response, service = [], []
        for seconds in (2, 4):
            r, p = self.finished(self.run_on_device("--rate", CAP_IOPS * 2, rand_time=seconds))
            rate = p["rate"]
            self.assertFalse(rate["met"], r.stdout)
            self.assertIn("RATE NOT MET", r.stdout)
            # The throttle's rate, not ours (its token bucket lets a little
            # more through at the start).
            self.assertAlmostEqual(rate["achieved_iops"], CAP_IOPS, delta=CAP_IOPS * 0.15)
            self.assertGreater(rate["late_ops"], p["read_ops"] // 2)
            self.assertGreater(rate["max_lateness_ns"], 500_000_000 * seconds / 2)
            response.append(rate["response_latency"]["percentiles_ns"]["p99"])
            service.append(p["latency"]["percentiles_ns"]["p99"])
        # The backlog grows by half the requested rate a second, and so
        # does the wait of the last operations issued ...
        self.assertGreater(response[0], 500_000_000, response)
        self.assertGreater(response[1], response[0] * 1.5, response)
        # ... while service time is bounded by the queue (8 in flight at
        # the throttle's pace), whatever the phase's length.
        self.assertLess(service[1], service[0] * 1.5 + 20_000_000, service)
        self.assertLess(service[1] * 5, response[1], (service, response))

    def test_sweep_in_percent_of_the_closed_loop_names_the_turn_up(self):
        r, _ = self.finished(self.run_on_device("--sweep", "rate=20%,50%,150%", qd=32))
        doc = self.assertJson(r)
        sweep = doc["sweep"]
        self.assertTrue(sweep["rate_percent"])
        # The closed loop measured first runs at the throttle's rate.
        closed = sweep["closed_loop_iops"]
        self.assertAlmostEqual(closed, CAP_IOPS, delta=CAP_IOPS * 0.15)
        for p, pct in zip(sweep["points"], (20, 50, 150)):
            self.assertEqual(p["value"], pct)
            self.assertAlmostEqual(p["rate"]["requested_iops"], closed * pct / 100, places=3)
        # 150 % of the cap cannot be met: the turn-up is there at the latest.
        self.assertIsNotNone(sweep["turn_up"])
        self.assertLessEqual(sweep["turn_up"]["index"], 2)
        self.assertFalse(sweep["points"][2]["rate"]["met"])
        self.assertIn("turn-up: at ", r.stdout)
        self.assertIn("    closed ", r.stdout)

    def stalled(self, *args, qd):
        """A random phase of 4 s with reads throttled to 1 IOPS from 1.5 s to 2.5 s."""
        run = self.run_on_device(*args, rand_time=4, qd=qd, stop="random")
        run.wait_stopped()
        run.resume()
        timers = [threading.Timer(1.5, lambda: self.cgroup.set("read_iops", self.dev, 1)),
                  threading.Timer(2.5, lambda: self.cgroup.set("read_iops", self.dev, CAP_IOPS))]
        for t in timers:
            t.start()
        try:
            return self.finished(run)
        finally:
            for t in timers:
                t.cancel()
                t.join()

    def test_a_stall_is_in_the_open_loops_response_time_not_the_closed_loops(self):
        r_open, p_open = self.stalled("--rate", 300, qd=1)
        r_closed, p_closed = self.stalled(qd=1)
        open_p999 = p_open["rate"]["response_latency"]["percentiles_ns"]["p99.9"]
        closed_p999 = p_closed["latency"]["percentiles_ns"]["p99.9"]
        # 300 operations were due during the stall; each waited for the
        # rest of it.
        self.assertGreater(open_p999, 600_000_000, r_open.stdout)
        self.assertGreater(p_open["rate"]["late_ops"], 100, r_open.stdout)
        # The closed loop had one operation waiting through it.
        self.assertLess(closed_p999, 200_000_000, r_closed.stdout)
        self.assertGreater(p_closed["latency"]["max_ns"], 500_000_000, r_closed.stdout)


if __name__ == "__main__":
    harness.main()
