#!/usr/bin/env python3
"""--prom against the real Prometheus components (Debian packages prometheus
and prometheus-node-exporter; scripts/test installs them as root, and a case
is skipped, with the reason, where they are missing).

- promtool check metrics accepts every textfile drivestress writes: plain
  (with flushes and odd --prom-label values), sweep, preset, sync-compare,
  interrupted, mismatch runs, and the live rewrites of a running one;
- a real node_exporter with --collector.textfile.directory serves them with
  node_textfile_scrape_error 0;
- a real Prometheus scraping three node_exporters (three "hosts", each fed
  by its own run) answers histogram_quantile(0.99, sum by (le) (...)) within
  the bucket set's stated error of scripts/compare --merge's p99.

Servers listen on 127.0.0.1 on free ports, are started by the test and
stopped after; every wait for them is bounded.
"""

import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import harness
from test_endurance import fake_nvme_env, fake_nvme_sysfs, health_page

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "prom-{cls}-{case}"}

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
COMPARE = os.path.join(ROOT, "scripts", "compare")
DASHBOARD = os.path.join(ROOT, "deploy", "grafana", "drivestress.json")

PROMTOOL = "promtool"
NODE_EXPORTER = "prometheus-node-exporter"
PROMETHEUS = "prometheus"
# Bound on every wait for a server (up, scraped, answering).
SERVER_TIMEOUT_S = 60
# The worst relative error of histogram_quantile over drivestress's buckets,
# as src/metrics/prometheus.h states it (kPromQuantileRelativeError); the
# test also derives it from the `le` values the servers return.
STATED_ERROR = 181.0 / 152.0 - 1.0

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
UNESCAPE = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}


def parse_text(text):
    """{(name, frozenset of (label, value)): float} of an exposition text.
    Label order does not matter and `le` is a number: node_exporter sorts
    the labels and prints `le` back in Go's float format ("1.024e-06" for
    drivestress's "0.000001024")."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise AssertionError(f"not a sample line: {line!r}")
        labels = frozenset(
            (k, float(v) if k == "le" else
             re.sub(r"\\[\\\"n]", lambda e: UNESCAPE[e.group(0)], v))
            for k, v in LABEL.findall(m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def samples(text, name, **labels):
    """Values of the samples of `name` whose labels include `labels`."""
    want = set(labels.items())
    return [v for (n, have), v in parse_text(text).items() if n == name and want <= have]


def one(text, name, **labels):
    values = samples(text, name, **labels)
    if len(values) != 1:
        raise AssertionError(f"{name}{labels}: {len(values)} samples")
    return values[0]


def is_counter(key):
    return key[0].endswith(("_total", "_bucket", "_sum", "_count"))


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def read(path):
    with open(path) as f:
        return f.read()


class Server:
    """A process the test started; its output kept for the failure message."""

    def __init__(self, test, argv, name):
        self.name = name
        self.log = open(os.path.join(test.tmp, f"{name}.log"), "w+")
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        test.addCleanup(self.stop)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-3000:]

    def wait_for(self, what, probe, timeout=SERVER_TIMEOUT_S):
        """Calls probe() until it returns something true (bounded)."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited ({self.proc.returncode}) waiting for "
                                     f"{what}:\n{self.output()}")
            try:
                got = probe()
                if got:
                    return got
            except OSError as e:  # not listening yet
                last = e
            time.sleep(0.2)
        raise AssertionError(f"{self.name}: no {what} within {timeout} s ({last}):\n"
                             f"{self.output()}")


class PromTest(harness.DriveStressTest):
    backend = None

    def need(self, program, package):
        if not shutil.which(program):
            self.skipTest(f"{program} not installed (Debian package {package}; "
                          "scripts/test installs it as root)")

    def prom_run(self, *args, prom=None, target=None, expect=0,
                 base=("-s", "8M", "-j", "2", "--seq-block", "256K"), env_extra=None):
        prom = prom or os.path.join(self.tmp, "drivestress.prom")
        r = self.drivestress(*base, "--prom", prom, *args, target=target, env_extra=env_extra)
        self.assertExit(r, expect)
        return r, read(prom)

    def assertPromtoolAccepts(self, text, what):
        p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, f"promtool check metrics rejects the {what} textfile:\n"
                         f"{p.stdout}{p.stderr}")

    def assertEnded(self, text, verdict, exit_code):
        self.assertEqual(one(text, "drivestress_running"), 0)
        self.assertEqual(one(text, "drivestress_verdict", verdict=verdict), 1)
        self.assertEqual(sum(samples(text, "drivestress_verdict")), 1)
        self.assertEqual(one(text, "drivestress_exit_status"), exit_code)


class PromTool(PromTest):
    def setUp(self):
        super().setUp()
        self.need(PROMTOOL, "prometheus")

    def test_plain_run_with_flushes_and_labels(self):
        r, text = self.prom_run("--rand-ops", "2000", "--sync", "fdatasync", "--sync-every", "16",
                                "--prom-label", "rack=r12",
                                "--prom-label", 'bay=3 "left" \\ top\nrow',
                                "--prom-label", "owner=Zoë")
        self.assertPromtoolAccepts(text, "plain")
        self.assertEnded(text, "passed", 0)
        doc = self.assertJson(r)
        for p in harness.merged_phases_of(doc).values():  # one iteration
            for op in ("read", "write", "flush"):
                counted = samples(text, "drivestress_ops_total", phase=p["phase"], op=op)
                self.assertEqual(sum(counted), p[f"{op}_ops"], (p["phase"], op))
                self.assertLessEqual(len(counted), 1)
        self.assertGreater(sum(samples(text, "drivestress_ops_total", op="flush")), 0)
        self.assertIn('bay="3 \\"left\\" \\\\ top\\nrow"', text)
        self.assertEqual(one(text, "drivestress_running", bay='3 "left" \\ top\nrow',
                             owner="Zoë"), 0)
        self.assertIn(f'target="{self.target}"', text)  # absolute, as given here
        self.assertNotIn("iteration=", text)  # no per-iteration series
        self.assertNotIn("file=", text)

    def test_relative_target_is_made_absolute(self):
        prom = os.path.join(self.tmp, "rel.prom")
        argv = [harness.DRIVESTRESS, "--progress", "never", "-s", "8M", "-j", "1",
                "--rand-ops", "100", "--prom", prom, "target"]
        p = subprocess.run(argv, cwd=self.tmp, capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        text = read(prom)
        self.assertIn(f'target="{self.target}"', text)
        self.assertNotIn('target="target"', text)

    def test_sweep(self):
        r, text = self.prom_run("--sweep", "qd=1,4", "--rand-ops", "1000")
        self.assertPromtoolAccepts(text, "sweep")
        points = r.doc["sweep"]["points"]
        self.assertEqual(
            sum(samples(text, "drivestress_op_latency_seconds_count", phase="random")),
            sum(p["read_ops"] + p["write_ops"] for p in points))

    def test_size_mix_has_a_histogram_per_size(self):
        # --rand-block mix: one bs-labelled histogram per size and operation,
        # whose counts are the JSON's per-size operations.
        r, text = self.prom_run("--rand-ops", "2000", "--rand-block", "4K:50,16K:30,64K:20")
        self.assertPromtoolAccepts(text, "--rand-block mix")
        sizes = harness.merged_phases_of(self.assertJson(r))["random"]["sizes"]
        self.assertEqual(len(sizes), 3)
        for s in sizes:
            for op in ("read", "write"):
                self.assertEqual(one(text, "drivestress_size_latency_seconds_count",
                                     phase="random", op=op, bs=str(s["bytes"])),
                                 s[f"{op}_ops"], (s["bytes"], op))

    def test_skew_gauges_are_the_jsons_skew(self):
        r, text = self.prom_run("--rand-ops", "3000", "--distribution", "zipf:1.2")
        self.assertPromtoolAccepts(text, "--distribution")
        skew = harness.merged_phases_of(self.assertJson(r))["random"]["skew"]
        for hot in skew["hot"]:
            f = f"{hot['fraction']:g}"
            self.assertAlmostEqual(one(text, "drivestress_skew_hot_share", phase="random",
                                       fraction=f), hot["share"], places=9)
            self.assertAlmostEqual(one(text, "drivestress_skew_predicted_share", phase="random",
                                       fraction=f), hot["predicted"], places=9)
        self.assertEqual(one(text, "drivestress_skew_blocks", phase="random"), skew["blocks"])
        self.assertAlmostEqual(one(text, "drivestress_skew_blocks_touched", phase="random"),
                               skew["blocks_touched"], places=6)
        # Uniform: no skew gauges at all.
        _, text = self.prom_run("--rand-ops", "500")
        self.assertNotIn("drivestress_skew_", text)

    def test_repeat_estimates_are_gauges_of_their_own(self):
        # --repeat 5: each figure's median, interval and spread are separate
        # families (never a label per value), equal to the JSON's estimates.
        r, text = self.prom_run("--rand-ops", "1000", "--read-pct", "100", "--repeat", "5")
        self.assertPromtoolAccepts(text, "--repeat")
        rep = harness.merged_phases_of(self.assertJson(r))["random"]["repeats"]
        self.assertEqual(one(text, "drivestress_repeats", phase="random"), 5)
        self.assertEqual(one(text, "drivestress_repeat_confidence", phase="random"),
                         rep["iops"]["confidence"])
        for name, key, scale in (("ops_per_second", "iops", 1),
                                 ("bytes_per_second", "bandwidth_bytes_per_sec", 1),
                                 ("p99_latency_seconds", "p99_ns", 1e-9)):
            e = rep[key]
            for suffix, field in (("", "median"), ("_low", "low"), ("_high", "high"),
                                  ("_min", "min"), ("_max", "max")):
                got = one(text, f"drivestress_repeat_{name}{suffix}", phase="random")
                self.assertAlmostEqual(got, e[field] * scale, delta=abs(e[field] * scale) * 1e-9,
                                       msg=(name, suffix))
        # The phases run once have no estimate, and no label carries a value.
        self.assertEqual(samples(text, "drivestress_repeats", phase="seq-write"), [])
        self.assertNotIn("bound=", text)

    def test_no_repeat_no_estimates(self):
        _, text = self.prom_run("--rand-ops", "500")
        self.assertNotIn("drivestress_repeat", text)

    def test_sweep_with_repeats_has_a_point_label(self):
        r, text = self.prom_run("--sweep", "qd=1,4", "--rand-ops", "500", "--repeat", "2")
        self.assertPromtoolAccepts(text, "sweep --repeat")
        for p in r.doc["sweep"]["points"]:
            point = f"qd={p['value']}"
            self.assertEqual(one(text, "drivestress_repeats", phase="random", point=point), 2)
            self.assertAlmostEqual(
                one(text, "drivestress_repeat_ops_per_second", phase="random", point=point),
                p["repeats"]["iops"]["median"], delta=p["repeats"]["iops"]["median"] * 1e-9)
        self.assertEqual(len(samples(text, "drivestress_repeats")), 2)

    def test_preset(self):
        r, text = self.prom_run("--preset", "desktop", "--rand-ops", "500", "--seq-time", "1")
        self.assertPromtoolAccepts(text, "preset")
        tests = [t["label"] for t in r.doc["preset"]["tests"]]
        self.assertEqual(len(tests), 6)
        for t in tests:
            self.assertEqual(one(text, "drivestress_iterations_total", preset="desktop", test=t),
                             1, t)
        self.assertEnded(text, "passed", 0)

    def test_sync_compare(self):
        r, text = self.prom_run("--sync-compare", "--rand-ops", "16", base=())
        self.assertPromtoolAccepts(text, "sync-compare")
        self.assertEnded(text, "passed", 0)

    def test_interrupted(self):
        prom = os.path.join(self.tmp, "drivestress.prom")
        run = self.start("-s", "8M", "-j", "2", "--rand-time", "60", "--prom", prom,
                         stop="random:200")
        run.wait_stopped()
        run.send(signal.SIGINT)
        run.resume()
        r = run.finish()
        self.assertExit(r, 130)
        text = read(prom)
        self.assertPromtoolAccepts(text, "interrupted")
        self.assertEnded(text, "interrupted", 130)
        self.assertGreater(sum(samples(text, "drivestress_ops_total", phase="random")), 0)

    def test_mismatch(self):
        prom = os.path.join(self.tmp, "drivestress.prom")
        run = self.start("-s", "8M", "-j", "1", "--seq-block", "256K", "--rand-time", "0",
                         "--prom", prom, stop="seq-read")
        run.wait_stopped()
        harness.write_block(self.data_file(0), 4096, bytes(4096))  # one zeroed unit
        run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        text = read(prom)
        self.assertPromtoolAccepts(text, "mismatch")
        self.assertEnded(text, "failed", 2)
        self.assertEqual(one(text, "drivestress_mismatches_total", **{"class": "zeroed"}),
                         r.doc["summary"]["mismatches"]["zeroed"])
        self.assertGreaterEqual(r.doc["summary"]["mismatches"]["zeroed"], 1)

    def test_nvme_drive_health_gauges(self):
        """On an NVMe target (a fake sysfs tree, health-log fixtures) the
        drive's last reading is in the textfile, and a run whose phase
        raised the media errors says the drive was damaged."""
        sysfs = os.path.join(self.tmp, "sysfs")
        fake_nvme_sysfs(sysfs, self.target)
        r, text = self.prom_run("--rand-ops", "500",
                                env_extra=fake_nvme_env(self.tmp, sysfs, health_page()))
        self.assertPromtoolAccepts(text, "NVMe health")
        health = {"controller": "nvme0"}
        self.assertAlmostEqual(one(text, "drivestress_drive_temperature_celsius", **health), 41.85)
        self.assertEqual(one(text, "drivestress_drive_endurance_used_ratio", **health), 0.03)
        self.assertEqual(one(text, "drivestress_drive_available_spare_ratio", **health), 1.0)
        self.assertEqual(one(text, "drivestress_drive_media_errors", **health), 0)
        self.assertEqual(one(text, "drivestress_drive_critical_warning", **health), 0)
        self.assertEqual(one(text, "drivestress_drive_damaged", **health), 0)
        r, text = self.prom_run("--rand-ops", "500", expect=2,
                                env_extra=fake_nvme_env(self.tmp, sysfs, health_page(),
                                                        health_page(media_errors=3, warning=4)))
        self.assertPromtoolAccepts(text, "NVMe damage")
        self.assertEqual(one(text, "drivestress_drive_media_errors", **health), 3)
        self.assertEqual(one(text, "drivestress_drive_critical_warning", **health), 4)
        self.assertEqual(one(text, "drivestress_drive_damaged", **health), 1)

    def test_no_drive_health_gauges_elsewhere(self):
        _, text = self.prom_run("--rand-ops", "500")
        self.assertNotIn("drivestress_drive_temperature_celsius", text)
        self.assertNotIn("drivestress_drive_damaged", text)

    def test_live_rewrites_while_it_runs(self):
        """The file is rewritten while the random phase runs: counters grow
        from one version to the next, never back; the last carries the verdict."""
        prom = os.path.join(self.tmp, "drivestress.prom")
        run = self.start("-s", "8M", "-j", "2", "--rand-time", "120", "--prom-interval", "0.2",
                         "--prom", prom)
        versions = []
        deadline = time.monotonic() + SERVER_TIMEOUT_S
        while time.monotonic() < deadline and run.proc.poll() is None:
            try:
                text = read(prom)
            except FileNotFoundError:
                text = None
            if text and (not versions or text != versions[-1]):
                versions.append(text)
                random_ops = sum(samples(text, "drivestress_ops_total", phase="random"))
                if random_ops > 0 and len(set(
                        sum(samples(v, "drivestress_ops_total", phase="random"))
                        for v in versions)) >= 3:
                    break  # seen the random phase grow twice while running
            time.sleep(0.05)
        self.assertIsNone(run.proc.poll(), "the run ended before it was seen running")
        run.send(signal.SIGINT)
        r = run.finish()
        self.assertExit(r, 130)
        versions.append(read(prom))
        live = versions[:-1]
        self.assertGreaterEqual(len(live), 3, "not seen rewritten while running")
        for text in live:
            self.assertEqual(one(text, "drivestress_running"), 1)
            self.assertEqual(one(text, "drivestress_verdict", verdict="running"), 1)
        self.assertEqual(one(live[-1], "drivestress_phase", phase="random"), 1)
        self.assertPromtoolAccepts(live[-1], "live")
        for before, after in zip(versions, versions[1:]):
            b, a = parse_text(before), parse_text(after)
            for key, value in b.items():
                if is_counter(key):
                    self.assertTrue(key in a, f"series gone: {key}")
                    self.assertGreaterEqual(a[key], value, key)
        self.assertEnded(versions[-1], "interrupted", 130)
        random_phase = [p for _, p in harness.phases_of(r.doc) if p["phase"] == "random"][0]
        self.assertEqual(sum(samples(versions[-1], "drivestress_ops_total", phase="random")),
                         random_phase["read_ops"] + random_phase["write_ops"])


class NodeExporter(PromTest):
    def setUp(self):
        super().setUp()
        self.need(NODE_EXPORTER, "prometheus-node-exporter")

    def start_node_exporter(self, directory):
        port = free_port()
        server = Server(self, [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}",
                               "--collector.disable-defaults", "--collector.textfile",
                               f"--collector.textfile.directory={directory}"],
                        f"node_exporter-{port}")
        url = f"http://127.0.0.1:{port}/metrics"
        server.wait_for("/metrics", lambda: http_get(url))
        return server, url

    def test_serves_the_textfiles_of_two_runs_without_error(self):
        textfiles = os.path.join(self.tmp, "textfiles")
        os.mkdir(textfiles)
        second_target = os.path.join(self.tmp, "second")
        os.mkdir(second_target)
        self.prom_run("--rand-ops", "1000", "--prom-label", "rack=r12",
                      prom=os.path.join(textfiles, "first.prom"))
        self.prom_run("--rand-ops", "1000", "--prom-label", "rack=r12",
                      prom=os.path.join(textfiles, "second.prom"), target=second_target)
        _, url = self.start_node_exporter(textfiles)
        served = http_get(url)
        self.assertEqual(one(served, "node_textfile_scrape_error"), 0, served[-3000:])
        self.assertEqual(len(samples(served, "node_textfile_mtime_seconds")), 2)
        served_samples = parse_text(served)
        for name, target in (("first.prom", self.target), ("second.prom", second_target)):
            own = parse_text(read(os.path.join(textfiles, name)))
            self.assertGreater(len(own), 500)
            for key, value in own.items():
                self.assertTrue(("target", target) in key[1], key)
                self.assertTrue(key in served_samples, f"not served: {key}")
                self.assertEqual(served_samples[key], value, key)


class PrometheusServer(PromTest):
    def setUp(self):
        super().setUp()
        self.need(NODE_EXPORTER, "prometheus-node-exporter")
        self.need(PROMETHEUS, "prometheus")

    def query(self, port, promql):
        url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": promql})
        reply = json.loads(http_get(url))
        if reply.get("status") != "success":
            raise AssertionError(f"{promql}: {reply}")
        return reply["data"]["result"]

    def test_histogram_quantile_over_three_hosts_matches_compare_merge(self):
        hosts = []
        # Each host's drive is an NVMe one as far as the run can tell (a fake
        # sysfs tree and health-log fixtures), so the dashboard's health
        # panel has data to show.
        sysfs = os.path.join(self.tmp, "sysfs")
        for i, qd in enumerate(("1", "8", "32")):
            target = os.path.join(self.tmp, f"host{i}")
            textfiles = os.path.join(self.tmp, f"textfiles{i}")
            os.mkdir(target)
            os.mkdir(textfiles)
            if i == 0:
                fake_nvme_sysfs(sysfs, target)
            self.json_path = os.path.join(self.tmp, f"host{i}.json")
            r, _ = self.prom_run("--rand-ops", "4000", "--qd", qd,
                                 "--prom-label", f"host=host{i}",
                                 prom=os.path.join(textfiles, "drivestress.prom"), target=target,
                                 env_extra=fake_nvme_env(self.tmp, sysfs, health_page()))
            hosts.append((self.json_path, textfiles, r.doc))
        ports = []
        for _, textfiles, _ in hosts:
            port = free_port()
            server = Server(self, [NODE_EXPORTER, f"--web.listen-address=127.0.0.1:{port}",
                                   "--collector.disable-defaults", "--collector.textfile",
                                   f"--collector.textfile.directory={textfiles}"],
                            f"node_exporter-{port}")
            server.wait_for("/metrics", lambda p=port: http_get(f"http://127.0.0.1:{p}/metrics"))
            ports.append(port)
        config = os.path.join(self.tmp, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: drivestress\n    static_configs:\n"
                    "      - targets: [" + ", ".join(f"'127.0.0.1:{p}'" for p in ports) + "]\n")
        prom_port = free_port()
        prometheus = Server(self, [PROMETHEUS, f"--config.file={config}",
                                   f"--storage.tsdb.path={os.path.join(self.tmp, 'tsdb')}",
                                   f"--web.listen-address=127.0.0.1:{prom_port}"], "prometheus")

        expected = sum(p["read_ops"] + p["write_ops"]
                       for _, _, doc in hosts for _, p in harness.phases_of(doc)
                       if p["phase"] == "random")
        count_query = 'sum(drivestress_op_latency_seconds_count{phase="random"})'

        def scraped_all():
            up = self.query(prom_port, 'count(up{job="drivestress"} == 1)')
            got = self.query(prom_port, count_query)
            return (up and float(up[0]["value"][1]) == 3 and got
                    and float(got[0]["value"][1]) == expected)

        prometheus.wait_for("three hosts scraped", scraped_all)
        quantile_query = ('histogram_quantile(0.99, sum by (le) '
                          '(drivestress_op_latency_seconds_bucket{phase="random"}))')
        answer = float(self.query(prom_port, quantile_query)[0]["value"][1])
        les = sorted(float(s["metric"]["le"]) for s in self.query(
            prom_port, 'drivestress_op_latency_seconds_bucket{phase="random",op="read",'
                       'host="host0"}') if s["metric"]["le"] != "+Inf")

        merged = subprocess.run([COMPARE, "--merge", "--json", *(h[0] for h in hosts)],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(merged.returncode, 0, merged.stderr)
        random_merged = [p for p in json.loads(merged.stdout)["phases"]
                         if p["phase"] == "random"][0]
        self.assertEqual(random_merged["latency"]["count"], expected)
        p99 = random_merged["latency"]["percentiles_ns"]["p99"] / 1e9
        print(f"\nPrometheus: {quantile_query} = {answer:.9f} s\n"
              f"scripts/compare --merge: random p99 = {p99:.9f} s "
              f"({len(hosts)} documents, {expected} operations)\n"
              f"relative difference {abs(answer - p99) / p99:.4%}, stated bound {STATED_ERROR:.4%}")

        # The README's other queries: operations per host, and who passed.
        per_host = {r["metric"]["host"]: float(r["value"][1]) for r in self.query(
            prom_port, 'sum by (host) (drivestress_ops_total{phase="random"})')}
        self.assertEqual(per_host, {
            f"host{i}": float(sum(p["read_ops"] + p["write_ops"]
                                  for _, p in harness.phases_of(doc) if p["phase"] == "random"))
            for i, (_, _, doc) in enumerate(hosts)})
        passed = self.query(prom_port, 'count(drivestress_verdict{verdict="passed"} == 1)')
        self.assertEqual(float(passed[0]["value"][1]), 3)
        self.assertEqual(self.query(prom_port, 'drivestress_verdict{verdict="failed"} == 1'), [])

        # The bound holds because both lie in the same bucket: check that.
        widest = max(b / a - 1 for a, b in zip(les, les[1:]))
        self.assertAlmostEqual(widest, STATED_ERROR, places=9)
        lo = max([le for le in les if le <= p99], default=0.0)
        hi = min(le for le in les if le > p99)
        self.assertLessEqual(lo, answer)
        self.assertLessEqual(answer, hi)
        self.assertLessEqual(abs(answer - p99) / p99, STATED_ERROR)
        self.dashboard_queries_return_data(prometheus, prom_port, hosts)

    def dashboard_queries_return_data(self, prometheus, prom_port, hosts):
        """Every query of deploy/grafana/drivestress.json, with Grafana's
        variables as the dashboard's defaults (all hosts, a 1 m rate window),
        returns a series for each of the three hosts (or, fleet-wide, one)."""
        with open(DASHBOARD) as f:
            dashboard = json.load(f)
        queries = [(p["title"], t["expr"]) for p in dashboard["panels"] for t in p["targets"]]
        self.assertGreaterEqual(len(queries), 10)
        every_host = {"host0", "host1", "host2"}
        for title, expr in queries:
            promql = expr.replace("$__rate_interval", "1m").replace('"$host"', '".*"')
            self.assertNotIn("$", promql, title)
            per_host = "by (" not in expr or "host" in expr.split("by (", 1)[1].split(")")[0]

            def answered(q=promql, per_host=per_host):
                result = self.query(prom_port, q)
                seen = {r["metric"].get("host") for r in result}
                return result if result and (not per_host or seen == every_host) else None

            # rate() needs two scrapes of each host inside its window: wait.
            result = prometheus.wait_for(title, answered)
            with self.subTest(panel=title):
                self.assertTrue(result, promql)
                for r in result:
                    self.assertFalse(math.isnan(float(r["value"][1])), (promql, r))
        mismatches = self.query(prom_port, 'sum by (host) (drivestress_mismatches_total)')
        self.assertEqual({float(r["value"][1]) for r in mismatches}, {0.0})


if __name__ == "__main__":
    harness.main()
