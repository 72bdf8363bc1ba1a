#!/usr/bin/env python3
"""Drive endurance on loop devices over files in /dev/shm (root, cgroup v1
blkio; skipped with the reason otherwise).

--steady-state: a random phase held to a fixed rate by a blkio throttle is
steady and says at which round; one whose throttle changes mid-run is not
steady within its maximum rounds, and says so.

--sustained-write: a write throttle that drops mid-run is a write cliff,
named at about the bytes written when it dropped, with both levels; a
throttle that holds is no cliff.

Drive health (no NVMe here): a fake sysfs tree puts the target's
filesystem on nvme0 with an hwmon sensor, and fixture health-log pages laid
out per the NVMe spec stand for the readings (DRIVESTRESS_TEST_SYSFS_ROOT,
DRIVESTRESS_TEST_HEALTH_LOGS, test-only hooks); damage between two readings
fails the run with exit 2, a healthy drive passes with its deltas, and the
temperature goes into every second of the time series.  The rates come from a real
throttle on the device (blkio.throttle.*_device of a cgroup the run is
put in), never from the program being told what to measure."""

import json
import os
import struct
import tempfile
import threading
import time

import harness
from harness import MiB

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "endurance-{case}", "timeout": 120}

DEVICE_BYTES = 64 * MiB
BLKIO = "/sys/fs/cgroup/blkio"
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema",
                      "result.schema.json")


def raw(dev):
    return ("--raw-device", dev, "--destroy-data", dev)


def major_minor(dev):
    st = os.stat(dev)
    return f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"


# The steady-state line's trend: "trend within noise (-0.1 %/round, 95 %
# ...)" or, beyond the rounds' scatter, "still falling 1.1 %/round (95 % ...)".
TREND_TEXT = r"(trend within noise \(-?[\d.]+ %/round, |still (rising|falling) -?[\d.]+ %/round \()"


class BlkioCgroup:
    """A cgroup v1 blkio group of its own: the run is put in it through a
    shell wrapper, and its throttle files are set (and changed) by the test."""

    def __init__(self, test):
        if not os.path.isfile(os.path.join(BLKIO, "blkio.throttle.write_bps_device")):
            test.skipTest(f"no cgroup v1 blkio throttle at {BLKIO}")
        self.path = tempfile.mkdtemp(prefix="drivestress-e2e-", dir=BLKIO)
        test.addCleanup(self.remove)

    def remove(self):
        for _ in range(50):  # the run's process leaves the group when it is reaped
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.1)
        os.rmdir(self.path)

    def set(self, knob, dev, value):
        """knob: read_iops, write_iops, read_bps, write_bps; value 0 lifts it."""
        with open(os.path.join(self.path, f"blkio.throttle.{knob}_device"), "w") as f:
            f.write(f"{major_minor(dev)} {value}\n")

    def wrapper(self):
        procs = os.path.join(self.path, "cgroup.procs")
        return ("/bin/sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh")


class ThrottledDevice(harness.DriveStressTest):
    """A loop device of DEVICE_BYTES over a backing file and a blkio group
    of its own to throttle it in (root only); both removed at cleanup."""

    def setUp(self):
        super().setUp()
        harness.require_root(self)
        self.cgroup = BlkioCgroup(self)
        self.backing = harness.backing_file(self, DEVICE_BYTES)
        self.dev = harness.loop_device(self, self.backing)


def later(seconds, action):
    """Runs `action` after `seconds` on a thread (the test joins it)."""
    t = threading.Timer(seconds, action)
    t.start()
    return t


def sectors_written(dev):
    with open(f"/sys/block/{os.path.basename(dev)}/stat") as f:
        return int(f.read().split()[6])


def after_writes_begin(dev, seconds, action):
    """Runs `action` `seconds` after the first write reaches `dev` (polled
    from its /sys/block stat every 10 ms, for at most 60 s) on a thread the
    test joins; returns (thread, [time the writes began]).  Timed from the
    writes, not from the start of the process: a sanitizer build takes most
    of a second to start."""
    began = []

    def wait_then_act():
        before = sectors_written(dev)
        deadline = time.monotonic() + 60
        while sectors_written(dev) == before and time.monotonic() < deadline:
            time.sleep(0.01)
        began.append(time.monotonic())
        time.sleep(seconds)
        action()

    t = threading.Thread(target=wait_then_act)
    t.start()
    return t, began


class Endurance(ThrottledDevice):
    def validate(self, doc):
        try:
            import jsonschema
        except ImportError:
            self.skipTest("python3-jsonschema missing: the document (all else checked) is "
                          "not validated")
        with open(SCHEMA) as f:
            jsonschema.validate(doc, json.load(f))

    def steady_run(self, *args):
        # --qd 4: few reads in flight, so the drain between rounds is short
        # against the throttle's rate.
        return self.drivestress("-j", 2, "-s", "16M", "--seq-block", "256K", "--read-pct", 100,
                                "--qd", 4,
                                "--phases", "seq-write,random", *args, *raw(self.dev),
                                target=False, wrapper=self.cgroup.wrapper())

    def test_steady_state_attained(self):
        # Random reads held at 2000 IOPS by the device's throttle: every
        # round is alike, so the first full window (round 5) is steady.
        self.cgroup.set("read_iops", self.dev, 2000)
        r = self.steady_run("--steady-state", "1s", "--steady-max-rounds", 10)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.validate(doc)
        [ss] = doc["steady_state"]
        self.assertEqual(ss["status"], "attained", r.describe())
        n = ss["attained_at_round"]
        self.assertGreaterEqual(n, 5)
        self.assertEqual(len(ss["rounds_iops"]), n)
        w = ss["window"]
        self.assertEqual((w["first_round"], w["last_round"]), (n - 5, n - 1))
        window = ss["rounds_iops"][n - 5:]
        mean = sum(window) / 5
        self.assertAlmostEqual(w["mean_iops"], mean, delta=mean * 1e-9)
        self.assertLessEqual(w["range_pct"], 20)
        self.assertLessEqual(w["excursion_pct"], 10)
        # The trend beyond the rounds' scatter: the slope's interval says it.
        lo, hi = w["slope_interval"]
        self.assertLessEqual(lo, w["slope_iops_per_round"])
        self.assertLessEqual(w["slope_iops_per_round"], hi)
        self.assertEqual(w["trend"], "within_noise" if lo <= 0 <= hi else
                         "rising" if lo > 0 else "falling")
        self.assertRegex(r.stdout, TREND_TEXT)
        # The throttle, not the program, set the rate: within 25% of 2000.
        self.assertLess(abs(mean - 2000), 500, ss["rounds_iops"])
        self.assertEqual(ss["rule"], {"window_rounds": 5, "max_range_pct": 20,
                                      "max_excursion_pct": 10, "max_rounds": 10})
        # The phase is every round merged: its time is the rounds' time.
        random = harness.merged_phases_of(doc)["random"]
        self.assertGreaterEqual(random["elapsed_s"], n * 0.95)
        self.assertIn(f"steady state: attained at round {n} of 1 s (rounds {n - 4}-{n})",
                      r.stdout)

    def test_steady_state_not_attained_when_throttle_changes(self):
        # 4000 IOPS, then 1000 from 2.5 s on: with 1 s rounds and at most 6,
        # both windows (rounds 1-5 and 2-6) hold the change whenever the
        # random phase starts in the first 1.5 s.
        self.cgroup.set("read_iops", self.dev, 4000)
        t = later(2.5, lambda: self.cgroup.set("read_iops", self.dev, 1000))
        try:
            r = self.steady_run("--steady-state", "1s", "--steady-max-rounds", 6)
        finally:
            t.join()
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.validate(doc)
        [ss] = doc["steady_state"]
        self.assertEqual(ss["status"], "max-rounds", r.describe())
        self.assertIsNone(ss["attained_at_round"])
        self.assertEqual(len(ss["rounds_iops"]), 6)
        w = ss["window"]
        self.assertEqual((w["first_round"], w["last_round"]), (1, 5))
        self.assertFalse(w["attained"])
        self.assertGreater(w["range_pct"], 20)
        # The rate really fell: the last round runs at about a quarter of the first.
        self.assertLess(ss["rounds_iops"][-1], 0.5 * ss["rounds_iops"][0], ss["rounds_iops"])
        self.assertIn("steady state: not attained in 6 rounds of 1 s (rounds 2-6)", r.stdout)

    def sustained_run(self, passes):
        return self.drivestress("-j", 2, "-s", "16M", "--seq-block", "256K",
                                "--sustained-write", passes, "--cliff-interval", "0.25s",
                                "--phases", "seq-write,seq-read", *raw(self.dev),
                                target=False, wrapper=self.cgroup.wrapper())

    def cliff_of(self, r, passes):
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.validate(doc)
        [sw] = doc["sustained_write"]
        self.assertEqual((sw["passes"], sw["passes_done"]), (passes, passes))
        self.assertEqual(sw["capacity_bytes"], 32 * MiB)
        # Every byte of every pass is in the series, and verified after.
        self.assertEqual(sum(iv["bytes"] for iv in sw["intervals"]), passes * 32 * MiB)
        self.assertEqual(sw["cliff"]["total_bytes"], passes * 32 * MiB)
        self.assertEqual(doc["summary"]["written_bytes"], passes * 32 * MiB)
        self.assertEqual(doc["summary"]["verified_bytes"], 32 * MiB)
        return sw

    def test_write_cliff_when_throttle_drops(self):
        # 100 MiB/s, then 25 MiB/s from 2 s after the first write on (8
        # intervals of 0.25 s before the drop, 5 needed); 10 passes of 32 MiB
        # are 320 MiB, of which at most 200 MiB fit before the drop.  Bounds
        # are loose where a loaded 2-core machine may write slower than the
        # throttle.
        self.cgroup.set("write_bps", self.dev, 100 * MiB)
        changed = []

        def drop():
            self.cgroup.set("write_bps", self.dev, 25 * MiB)
            changed.append(time.monotonic())

        t, began = after_writes_begin(self.dev, 2.0, drop)
        try:
            r = self.sustained_run(10)
        finally:
            t.join()
        started = began[0]
        sw = self.cliff_of(r, 10)
        cliff = sw["cliff"]
        self.assertTrue(cliff["found"], r.describe() + json.dumps(sw["intervals"]))
        step = cliff["steps"][0]
        # The cliff is where the throttle dropped: no more bytes before it
        # than the throttle lets through by the time the drop really came
        # (the timer thread may oversleep on a loaded machine), with half a
        # second for the run's clock starting before the first write showed
        # in the device's stat, and 10 % for the throttle's own slack.  CI
        # once saw 218.5 MiB before a step at 2.12 s.
        dropped_at = changed[0] - started
        self.assertLess(step["bytes_before"], 1.1 * 100 * MiB * (dropped_at + 0.5),
                        (step, dropped_at))
        self.assertGreater(step["bytes_before"], 60 * MiB, step)
        self.assertLess(abs(step["seconds_before"] - dropped_at), 1.5, step)
        self.assertLess(abs(step["before_bytes_per_sec"] / MiB - 100), 35, step)
        self.assertLess(abs(step["after_bytes_per_sec"] / MiB - 25), 8, step)
        self.assertGreater(step["drop_pct"], 55)
        self.assertIsNone(sw["recovery"])
        line = [ln for ln in r.stdout.splitlines() if ln.startswith("write cliff after ")]
        self.assertEqual(len(line), 1, r.stdout)
        self.assertRegex(line[0], r"^write cliff after \d+(\.\d)? MiB: \d+ -> \d+ MiB/s "
                                  r"\(-\d+%\)$")

    def test_no_write_cliff_when_throttle_holds(self):
        self.cgroup.set("write_bps", self.dev, 100 * MiB)
        r = self.sustained_run(12)
        sw = self.cliff_of(r, 12)
        self.assertTrue(sw["cliff"]["long_enough"], sw)
        self.assertFalse(sw["cliff"]["found"], sw)
        self.assertEqual(sw["cliff"]["steps"], [])
        self.assertIn("no write cliff within 384 MiB (", r.stdout)


def health_page(media_errors=0, warning=0, data_units_written=1000, transitions=0):
    """A 512-byte SMART / Health log page (NVMe Base Spec 2.0, LID 02h)."""
    p = bytearray(b"\xee" * 512)  # reserved bytes: a field read at a wrong offset shows
    p[0] = warning
    struct.pack_into("<HBBBB", p, 1, 315, 100, 10, 3, 0)  # 42 C, spare 100/10 %, 3 % used
    for offset, value in ((32, 500), (48, data_units_written), (64, 7000), (80, 9000),
                          (96, 60), (112, 12), (128, 800), (144, 2), (160, media_errors),
                          (176, 5)):
        p[offset:offset + 16] = value.to_bytes(16, "little")
    struct.pack_into("<II", p, 192, 0, 0)  # warning / critical temperature minutes
    struct.pack_into("<8H", p, 200, 315, 0, 0, 0, 0, 0, 0, 0)
    struct.pack_into("<IIII", p, 216, transitions, 0, transitions * 30, 0)
    return bytes(p)


def fake_nvme_sysfs(sysfs, target, number=0, millidegrees=41850):
    """A sysfs tree under `sysfs` that puts `target`'s filesystem on nvme0
    (namespace nvme0n1, its hwmon at 41.85 C), or on nvme<number>."""
    ctrl = os.path.join(sysfs, f"devices/pci0000:00/0000:00:0{4 + number}.0/nvme/nvme{number}")
    os.makedirs(os.path.join(ctrl, "hwmon1"))
    os.makedirs(os.path.join(ctrl, f"nvme{number}n1"))
    for name, text in (("name", "nvme"), ("temp1_input", str(millidegrees))):
        with open(os.path.join(ctrl, "hwmon1", name), "w") as f:
            f.write(text + "\n")
    st = os.stat(target)
    os.makedirs(os.path.join(sysfs, "dev/block"), exist_ok=True)
    link = os.path.join(sysfs, "dev/block", f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}")
    if not os.path.lexists(link):
        os.symlink(os.path.join(ctrl, f"nvme{number}n1"), link)


def fake_nvme_env(tmp, sysfs, *pages, controller=None):
    """The test hooks' environment: the fake sysfs, and health-log readings
    from `pages` in turn (the last one repeats), for every controller or
    for `controller` alone."""
    paths = []
    for i, page in enumerate(pages):
        paths.append(os.path.join(tmp, f"health-{controller or 'all'}-{i}.bin"))
        with open(paths[-1], "wb") as f:
            f.write(page)
    logs = "DRIVESTRESS_TEST_HEALTH_LOGS" + (f"_{controller}" if controller else "")
    return {"DRIVESTRESS_TEST_SYSFS_ROOT": sysfs, logs: ",".join(paths)}


@harness.meson_case(name="health-{case}")
class Health(harness.DriveStressTest):
    """A file target whose filesystem a fake sysfs tree puts on nvme0."""

    def setUp(self):
        super().setUp()
        self.sysfs = os.path.join(self.tmp, "sysfs")
        fake_nvme_sysfs(self.sysfs, self.target)

    def pages(self, *pages):
        return fake_nvme_env(self.tmp, self.sysfs, *pages)

    def run_with(self, *pages):
        ts = os.path.join(self.tmp, "ts.ndjson")
        r = self.drivestress("-s", "8M", "-j", 2, "--phases", "seq-write,seq-read",
                             "--timeseries", ts, env_extra=self.pages(*pages))
        with open(ts) as f:
            return r, [json.loads(line) for line in f]

    def test_healthy_drive_passes_with_its_deltas_and_temperature(self):
        # 32 MiB written is about 66 data units (1000 x 512 bytes each).
        r, seconds = self.run_with(health_page(), health_page(data_units_written=1066))
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        Endurance.validate(self, doc)
        h = doc["drive_health"]
        self.assertEqual((h["available"], h["controller"], h["device"], h["test_fixture"],
                          h["damaged"]), (True, "nvme0", "test fixture", True, False))
        self.assertEqual([(p["phase"], p["damaged"]) for p in h["phases"]],
                         [("seq-write", False), ("seq-read", False)])
        self.assertEqual((h["phases_read"], h["phases_damaged"], h["first_damage"]), (2, 0, None))
        write = h["phases"][0]
        self.assertEqual(write["delta"]["data_units_written"], 66)
        self.assertEqual(write["delta"]["media_errors"], 0)
        self.assertEqual(write["before"]["composite_temperature_k"], 315)
        self.assertEqual(write["findings"], [])
        self.assertEqual(h["phases"][1]["delta"]["data_units_written"], 0)
        self.assertIn("health   nvme0 (test fixture): health log before and after each phase",
                      r.stdout)
        self.assertIn("  health: no change  (33.8 MB written per the drive)", r.stdout)
        self.assertTrue(seconds)
        self.assertEqual({s.get("temperature_c") for s in seconds}, {41.85})

    def test_media_errors_fail_the_run_with_their_own_class(self):
        r, _ = self.run_with(health_page(), health_page(media_errors=3, warning=0x04))
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        Endurance.validate(self, doc)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)  # the data was fine
        self.assertEqual(doc["summary"]["status"], "failed")
        h = doc["drive_health"]
        self.assertTrue(h["damaged"])
        self.assertEqual((h["phases_read"], h["phases_damaged"]), (2, 1))
        self.assertEqual(h["first_damage"], h["phases"][0])
        write = h["phases"][0]
        self.assertTrue(write["damaged"])
        self.assertEqual([(f["kind"], f["damage"], f["before"], f["after"])
                          for f in write["findings"]],
                         [("media-errors", True, 0, 3), ("critical-warning", True, 0, 4)])
        self.assertIn("  health: media-errors 0 -> 3 (DAMAGE); critical-warning 0 -> 4 (DAMAGE)",
                      r.stdout)
        self.assertIn("result   FAIL: drive health: damage reported by the drive (exit 2)",
                      r.stdout)
        self.assertNoFilesLeft(r)

    def test_not_nvme_is_one_line_and_the_run_goes_on(self):
        r = self.drivestress("-s", "8M", "-j", 2, "--phases", "seq-write,seq-read")
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        h = doc["drive_health"]
        self.assertFalse(h["available"])
        self.assertEqual(h["phases"], [])
        self.assertTrue(h["reason"].startswith(self.target + ": "), h["reason"])
        lines = [ln for ln in r.stdout.splitlines() if ln.startswith("health")]
        self.assertEqual(lines, ["health   not available: " + h["reason"]])


@harness.meson_case(name="health-{case}")
class HealthOfEveryTarget(harness.DriveStressTest):
    """Two targets on two drives (a loop-mounted filesystem and the test's
    own, which a fake sysfs tree puts on nvme0 and nvme1): each drive's log
    is read around each phase, and damage on the second fails the run and
    that target alone (it once read the first target's drive only)."""
    backend = None

    def test_damage_on_the_second_drive_fails_it(self):
        harness.require_root(self, "a loop device for a second filesystem")
        dev = harness.loop_device(self, harness.backing_file(self, 64 * harness.MiB))
        second = os.path.join(harness.mkfs_and_mount(self, dev, fstype="ext4"), "b")
        os.mkdir(second)
        sysfs = os.path.join(self.tmp, "sysfs")
        fake_nvme_sysfs(sysfs, self.target, 0)
        fake_nvme_sysfs(sysfs, second, 1, millidegrees=55000)
        env = fake_nvme_env(self.tmp, sysfs, health_page())
        env.update(fake_nvme_env(self.tmp, sysfs, health_page(),
                                 health_page(media_errors=2), controller="nvme1"))
        ts, prom = os.path.join(self.tmp, "ts.ndjson"), os.path.join(self.tmp, "ds.prom")
        r = self.drivestress("-s", "8M", "-j", 1, "--phases", "seq-write,seq-read",
                             "--timeseries", ts, "--prom", prom, self.target, second,
                             target=False, env_extra=env)
        self.assertExit(r, 2)
        doc = self.assertJson(r)
        Endurance.validate(self, doc)
        first, damaged = (t["drive_health"] for t in doc["targets"])
        self.assertEqual((first["controller"], first["damaged"], len(first["phases"])),
                         ("nvme0", False, 2))
        self.assertEqual((damaged["controller"], damaged["damaged"]), ("nvme1", True))
        self.assertEqual([(p["phase"], p["damaged"]) for p in damaged["phases"]],
                         [("seq-write", True), ("seq-read", False)])
        self.assertEqual(doc["drive_health"], first)  # target 1's, as before
        self.assertEqual([t["status"] for t in doc["targets"]], ["passed", "failed"])
        self.assertEqual(doc["summary"]["mismatch_total"], 0)  # the data was fine
        self.assertIn("health   target 1: nvme0 (test fixture): health log before and after "
                      "each phase, temperature every second\n", r.stdout)
        self.assertIn("health   target 2: nvme1 (test fixture): health log before and after "
                      "each phase, temperature every second\n", r.stdout)
        self.assertIn("  health target 2: media-errors 0 -> 2 (DAMAGE)", r.stdout)
        self.assertIn("  health target 1: no change", r.stdout)
        # The table's verdicts: the damaged drive's row and the total say why.
        rows = {ln.split()[0]: ln.split()[-2:] for ln in r.stdout.splitlines()
                if ln.startswith("  /") or ln.startswith("  total")}
        self.assertEqual((rows[self.target], rows[second], rows["total"]),
                         (["0", "PASS"], ["FAIL", "(health)"], ["FAIL", "(health)"]), r.stdout)
        self.assertIn("result   FAIL: drive health: damage reported by the drive (exit 2)",
                      r.stdout)
        with open(ts) as f:
            seconds = [json.loads(line) for line in f]
        self.assertTrue(seconds)
        self.assertEqual({(s["temperature_c"], tuple(t.get("temperature_c") for t in
                                                     s["targets"])) for s in seconds},
                         {(41.85, (41.85, 55.0))})
        # A gauge per drive, by controller.
        with open(prom) as f:
            damaged = sorted(ln.split("controller=")[1].split('"')[1] + " " + ln.split()[-1]
                             for ln in f if ln.startswith("drivestress_drive_damaged{"))
        self.assertEqual(damaged, ["nvme0 0", "nvme1 1"])
        self.assertNoFilesLeft(r)
        self.assertEqual(os.listdir(second), [])


class EndurancePreset(harness.DriveStressTest):
    def test_preset_runs_every_part_in_one_document(self):
        # The preset's values, shortened from the command line.
        r = self.drivestress("--preset", "nvme-endurance", "-s", "8M", "-j", 2,
                             "--sustained-write", 3, "--cliff-interval", "0.2s",
                             "--steady-state", "0.2s", "--steady-max-rounds", 6)
        self.assertIn(r.returncode, (0,), r.describe())
        doc = self.assertJson(r)
        Endurance.validate(self, doc)
        self.assertEqual(doc["preset"]["name"], "nvme-endurance")
        self.assertEqual([t["label"] for t in doc["preset"]["tests"]], ["endurance"])
        self.assertEqual(doc["config"]["seq_block_bytes"], 128 * 1024)
        self.assertEqual([p["phase"] for _, p in harness.phases_of(doc)], list(harness.PHASES))
        [sw] = doc["sustained_write"]
        self.assertEqual((sw["passes"], sw["passes_done"]), (3, 3))
        self.assertEqual(sum(iv["bytes"] for iv in sw["intervals"]), 3 * 16 * MiB)
        [ss] = doc["steady_state"]
        self.assertEqual(ss["round_s"], 0.2)
        self.assertIn(ss["status"], ("attained", "max-rounds"))
        self.assertIn("drive_health", doc)
        summary = r.stdout[r.stdout.rindex("preset nvme-endurance"):]
        self.assertIn("  endurance:\n", summary)
        self.assertIn("steady state: ", summary)
        self.assertRegex(summary, r"(write cliff|no write cliff|write cliff: no verdict)")
        self.assertIn("drive health: not available: ", summary)


if __name__ == "__main__":
    harness.main()
