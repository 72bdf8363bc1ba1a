#!/usr/bin/env python3
"""--find-rate pNN<=DURATION: the highest rate whose response-time
percentile meets a bound, by bisection below the closed-loop maximum.

Structure (any machine, both backends): the answer and every probe are in
the text, the JSON (validated against the schema: find_rate, and each probe
a rate-sweep point) and --prom; bad spellings and conflicting options are
refused in one line naming them.

Loop device capped at CAP_IOPS reads a second by a cgroup v1 blkio
throttle (root; skipped with the reason otherwise), both backends.  The
throttle gives each 100 ms slice a budget of CAP_IOPS / 10 reads: below the
cap a read passes at once (response ~ the loop device's own service time,
under a millisecond), at the cap the budget runs out and reads wait for the
next slice (tens of ms, ~100 ms p99).  So a loose bound (p99 <= 500 ms at
--qd 128, fixed arrivals) is met at every rate up to the cap, and the rate
found is within 10 % of it.

The throttle's response time is flat below its cap, so a tight bound lands
wherever host jitter puts it (434 and 933 IOPS of 1000 were measured).  A
tight bound needs a drive whose response time rises with the load, which
the throttle is not: a single-server disk (slow_disk.py, a FUSE file under
a loop device, one read at a time taking SERVICE_S: capped at ~1/SERVICE_S
reads a second, and queueing below the cap as M/D/1 under Poisson
arrivals).  M/D/1's p99 response is ~4.4 service times at half the cap and
~11 at 80 %; a read here takes ~2.3 ms with FUSE's own time, so a bound of
TIGHT_SERVICES nominal service times (12 ms, ~5 real ones) is met only
well below the cap (measured: 219 of 438 and 229 of 431 IOPS), and the
test asserts at most two thirds of the closed-loop maximum."""

import os
import shutil
import subprocess
import sys
import time

import harness
from test_endurance import ThrottledDevice, raw
from test_rate import CAP_IOPS, validate

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "find-rate-{cls}-{case}"}


class FindRateCases:
    def test_answer_and_probes_are_reported(self):
        prom = os.path.join(self.tmp, "drivestress.prom")
        r = self.drivestress("-j", 2, "-s", "8M", "--qd", 8, "--rand-time", 1,
                             "--find-rate", "p99.9<=10s", "--prom", prom)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        fr = doc["find_rate"]
        self.assertEqual(fr["percentile"], 99.9)
        self.assertEqual(fr["bound_ns"], 10_000_000_000)
        self.assertGreater(fr["closed_loop_iops"], 0)
        probes = fr["probes"]
        points = doc["sweep"]["points"]
        self.assertEqual(doc["sweep"]["parameter"], "rate")
        self.assertEqual(len(points), len(probes))
        self.assertGreaterEqual(len(probes), 1)
        self.assertLessEqual(len(probes), 8)
        # The first probe is the closed-loop maximum itself.
        self.assertEqual(probes[0]["requested_iops"], fr["closed_loop_iops"])
        for probe, point in zip(probes, points):
            self.assertEqual(point["rate"]["requested_iops"], probe["requested_iops"])
            self.assertEqual(point["rate"]["met"], probe["rate_met"])
            self.assertEqual(probe["passed"],
                             probe["rate_met"] and probe["response_ns"]["median"] <= fr["bound_ns"])
            # One repeat: the percentile's own order-statistic interval,
            # over the probe's operations, says whether the bound is in the noise.
            self.assertEqual(probe["repeats"], 1)
            e = probe["response_ns"]
            self.assertLessEqual(e["low"], e["median"])
            self.assertLessEqual(e["median"], e["high"])
            straddles = e["n"] >= 2 and e["confidence"] > 0 and e["low"] <= fr["bound_ns"] < e["high"]
            self.assertEqual(probe["within_noise"], straddles, probe)
            # Every read verified at every probe.
            self.assertGreater(point["verified_bytes"], 0)
            self.assertEqual(point["read_ops"] + point["write_ops"],
                             point["rate"]["response_latency"]["count"])
        passed = [p["requested_iops"] for p in probes if p["passed"]]
        failed = [p["requested_iops"] for p in probes if not p["passed"]]
        self.assertEqual(fr["found_iops"], max(passed) if passed else None)
        self.assertEqual(fr["lowest_failing_iops"], min(failed) if failed else None)
        self.assertIn("find-rate: ", r.stdout)
        self.assertIn("sweep rate: random phase open-loop", r.stdout)
        self.assertIn("    closed ", r.stdout)
        # Every column says its unit, and the count that decides "rate met".
        self.assertRegex(r.stdout, r"\n +rate +req IOPS +IOPS +late % +late>tol +svc p99 +rsp p50 "
                                   r"+rsp p99 +rsp p99\.9\n")
        self.assertIn("latency in ms", r.stdout)
        for p in points:  # the late>tol column is each probe's count beyond the tolerance
            late = p["rate"]["late_beyond_tolerance_ops"]
            self.assertRegex(r.stdout, r"\n +[0-9.]+k? +[0-9.]+k? +[0-9.]+k? +[0-9.]+ +%d " % late)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        with open(prom) as f:
            text = f.read()
        self.assertIn('drivestress_find_rate_iops{', text)
        self.assertIn('percentile="99.9"', text)
        self.assertIn("drivestress_find_rate_bound_seconds{", text)
        gauge = [line for line in text.splitlines()
                 if line.startswith("drivestress_find_rate_iops{")]
        self.assertEqual(len(gauge), 1, gauge)
        self.assertAlmostEqual(float(gauge[0].split()[-1]), fr["found_iops"] or 0, places=3)
        if shutil.which("promtool"):
            check = subprocess.run(["promtool", "check", "metrics"], input=text,
                                   capture_output=True, text=True, timeout=60)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_bad_bounds_and_conflicts_are_refused_naming_them(self):
        for args, names in ((("--find-rate", "p99<5ms"), ("--find-rate", "p99<5ms")),
                            (("--find-rate", "99<=5ms"), ("--find-rate", "99<=5ms")),
                            (("--find-rate", "p100<=5ms"), ("--find-rate", "p100<=5ms")),
                            (("--find-rate", "p99<=soon"), ("--find-rate",)),
                            (("--find-rate", "p99<=5ms", "--sweep", "rate=10%"),
                             ("--find-rate", "--sweep")),
                            (("--find-rate", "p99<=5ms", "--rate", "1k"), ("--find-rate", "--rate")),
                            (("--find-rate", "p99<=5ms", "--compare-backends"),
                             ("--find-rate", "--compare-backends")),
                            (("--find-rate", "p99<=5ms", "--preset", "quick"),
                             ("--find-rate", "--preset"))):
            r = self.drivestress("-s", "4M", *args)
            self.assertSetupError(r, *names)


class FindRateIoUring(FindRateCases, harness.DriveStressTest):
    backend = "io_uring"


class FindRateSync(FindRateCases, harness.DriveStressTest):
    backend = "sync"

    def setUp(self):
        # The search is the same code on either backend; its time is probes.
        harness.plain_suite_only(self)
        super().setUp()


class ThrottledFindRate(ThrottledDevice):
    """Reads capped at CAP_IOPS by the device's blkio throttle."""

    def setUp(self):
        super().setUp()
        self.cgroup.set("read_iops", self.dev, CAP_IOPS)

    def find(self, bound, *args, qd):
        r = self.drivestress("-j", 1, "-s", "16M", "--read-pct", 100, "--qd", qd,
                             "--phases", "seq-write,random", "--seed", 11, "--rand-time", 3,
                             "--find-rate", bound, *args, *raw(self.dev),
                             target=False, wrapper=self.cgroup.wrapper())
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        points = doc["sweep"]["points"]
        for point in points:
            self.assertGreater(point["verified_bytes"], 0)
            self.assertEqual(point["read_ops"], point["rate"]["response_latency"]["count"])
        return r, doc["find_rate"], points

    def test_a_loose_bound_finds_the_cap(self):
        harness.plain_suite_only(self)
        r, fr, _ = self.find("p99<=500ms", qd=128)
        self.assertIsNotNone(fr["found_iops"], r.stdout)
        self.assertAlmostEqual(fr["found_iops"], CAP_IOPS, delta=CAP_IOPS * 0.1, msg=r.stdout)
        self.assertLessEqual(fr["response_ns_at_found"], 500_000_000)
        self.assertRegex(r.stdout, r"find-rate: \S+ IOPS meets p99 <= 500\.00 ms")


class ThrottledFindRateIoUring(ThrottledFindRate):
    backend = "io_uring"


class ThrottledFindRateSync(ThrottledFindRate):
    backend = "sync"


SERVICE_S = 0.002   # the single-server disk's time per read
TIGHT_SERVICES = 6  # the tight bound, in service times: p99 <= 12 ms
SLOW_DISK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "slow_disk.py")


# The one-server disk is a FUSE daemon and a loop worker thread: another
# test's CPU load stretches its service time by tens of ms, so it runs alone.
@harness.meson_case(timeout=120, is_parallel=False)
class SingleServerFindRate(harness.DriveStressTest):
    """A loop device over slow_disk.py's file: one read at a time, each
    taking SERVICE_S (root, /dev/fuse and python3-fusepy; skipped with the
    reason otherwise).  The daemon, the mount and the loop device are
    removed at cleanup."""

    def setUp(self):
        super().setUp()
        harness.require_root(self)
        if not os.path.exists("/dev/fuse"):
            self.skipTest("no /dev/fuse: the single-server disk is a FUSE file")
        try:
            import fusepy  # noqa: F401
        except ImportError:
            self.skipTest("python3-fusepy missing: the single-server disk is a FUSE file")
        mnt = os.path.join(self.tmp, "slow-disk")
        os.mkdir(mnt)
        daemon = subprocess.Popen([sys.executable, SLOW_DISK, mnt, str(16 << 20), str(SERVICE_S)],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.addCleanup(self.unmount, mnt, daemon)
        disk = os.path.join(mnt, "disk")
        for _ in range(100):
            if os.path.ismount(mnt) or daemon.poll() is not None:
                break
            time.sleep(0.05)
        if not os.path.ismount(mnt):
            daemon.kill()
            self.skipTest("the FUSE single-server disk did not mount: " +
                          (daemon.communicate()[0] or "").strip()[-300:])
        self.dev = harness.loop_device(self, disk)

    @staticmethod
    def unmount(mnt, daemon):
        if os.path.ismount(mnt):
            harness.sh("umount", mnt, check=False)
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()

    def test_a_tight_bound_finds_a_rate_well_below_the_cap(self):
        harness.plain_suite_only(self)
        bound_ms = SERVICE_S * TIGHT_SERVICES * 1000
        r = self.drivestress("-j", 1, "-s", "16M", "--read-pct", 100, "--qd", 8,
                             "--phases", "seq-write,random", "--seed", 11, "--rand-time", 5,
                             "--arrivals", "poisson", "--find-rate", f"p99<={bound_ms:g}ms",
                             *raw(self.dev), target=False)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        validate(self, doc)
        fr = doc["find_rate"]
        points = doc["sweep"]["points"]
        for point in points:  # every read verified at every probe
            self.assertGreater(point["verified_bytes"], 0)
            self.assertEqual(point["read_ops"], point["rate"]["response_latency"]["count"])
        # The closed-loop maximum is the server's: one read per SERVICE_S,
        # less the loop device's and FUSE's own time.
        self.assertLessEqual(fr["closed_loop_iops"], 1.05 / SERVICE_S, r.stdout)
        self.assertGreater(fr["closed_loop_iops"], 0.5 / SERVICE_S, r.stdout)
        probes = fr["probes"]
        self.assertFalse(probes[0]["passed"], r.stdout)  # the maximum queues without bound
        # At a fifth of the cap the server is idle when most reads arrive;
        # only the host (other processes taking the CPUs for ms at a time)
        # can make that miss five service times.
        # The service time (no queue in it) says so: a read's own p99 past
        # the bound at the lowest rate probed is the host's doing.
        lowest = min(points, key=lambda p: p["rate"]["requested_iops"])
        host_slow = lowest["latency"]["percentiles_ns"]["p99"] > bound_ms * 1e6
        if fr["found_iops"] is None and (host_slow or any(p["host_load"]["busy"] for p in points)):
            self.skipTest(f"no rate met p99 <= {bound_ms:g} ms with the host busy (other "
                          "processes or steal during the probes stretched the disk's own "
                          "service time): " + r.stdout[r.stdout.find("find-rate:"):])
        self.assertIsNotNone(fr["found_iops"], r.stdout)
        self.assertLessEqual(fr["found_iops"], fr["closed_loop_iops"] * 2 / 3, r.stdout)
        self.assertLess(fr["found_iops"], fr["lowest_failing_iops"])
        self.assertLessEqual(fr["response_ns_at_found"], bound_ms * 1e6)
        self.assertIn("bracket ", r.stdout)


class SingleServerFindRateIoUring(SingleServerFindRate):
    backend = "io_uring"


class SingleServerFindRateSync(SingleServerFindRate):
    backend = "sync"


@harness.meson_case(timeout=120)
class FindRatePercentile(harness.DriveStressTest):
    """A percentile is reported as it was given: p99.99999999 is not "p100"."""

    def test_many_nines_are_not_p100(self):
        r = self.drivestress("-j", 1, "-s", "4M", "--qd", 4, "--rand-time", "300ms",
                             "--find-rate", "p99.99999999<=1h")
        self.assertExit(r, 0)
        self.assertIn("p99.99999999 <= ", r.stdout)
        self.assertNotIn("p100", r.stdout)
        self.assertEqual(self.assertJson(r)["find_rate"]["percentile"], 99.99999999)
        self.assertNoFilesLeft(r)


if __name__ == "__main__":
    harness.main()
