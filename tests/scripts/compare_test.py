#!/usr/bin/env python3
"""scripts/compare on two real result documents (data/sample-a.json,
data/sample-b.json, schema_version 1): ratios and deltas against values
computed here from the JSON, the merge against an independent nearest-rank
over the summed buckets, sample counts and unsupported percentiles, warnings
for unlike configurations, the --fail-if regression gate, and one-line exit 1
on bad input; and on a real schema_version 2 document of five iterations
(data/sample-c.json, --iteration-detail 2).  The --repeat estimates' noise
verdicts are compare_repeats_test.py's.

  python3 tests/scripts/compare_test.py [--scripts DIR] [--data DIR] [unittest args]
"""

import argparse
import copy
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--data", default=os.path.join(HERE, "data"))
OPTS, REST = ap.parse_known_args()
COMPARE = os.path.join(OPTS.scripts, "compare")
SAMPLE_A = os.path.join(OPTS.data, "sample-a.json")
SAMPLE_B = os.path.join(OPTS.data, "sample-b.json")
SAMPLE_C = os.path.join(OPTS.data, "sample-c.json")
MIB = 1024 * 1024


def run(*args):
    return subprocess.run([COMPARE, *args], capture_output=True, text=True, timeout=60)


def load(path):
    with open(path) as f:
        return json.load(f)


def tables(stdout):
    """The rates table and the latency table of compare's output, each from
    its head line to the blank line (or the end) after it."""
    lines = stdout.splitlines()
    heads = [i for i, l in enumerate(lines) if l.lstrip().startswith("iter ")]
    out = []
    for h in heads[:2]:
        end = next((j for j in range(h, len(lines)) if not lines[j].strip()), len(lines))
        out.append(lines[h:end])
    return out


def phases(doc):
    return {(it["index"], p["phase"]): p for it in doc["iterations"] for p in it["phases"]}


# --- an independent nearest-rank over [lower, count] buckets ----------------

def width(lower):
    return 1 if lower < 128 else 2 ** (math.floor(math.log2(lower)) - 7)


def nearest_rank(buckets, p, lo, hi):
    """Rank ceil(p/100*n) in 1..n; the bucket holding it, midpoint clamped to [lo, hi]."""
    total = sum(buckets.values())
    rank = min(max(math.ceil(p / 100.0 * total), 1), total)
    cumulative = 0
    for lower in sorted(buckets):
        cumulative += buckets[lower]
        if cumulative >= rank:
            return min(max(lower + width(lower) // 2, lo), hi)
    raise AssertionError("rank beyond the buckets")


class CompareTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.a, cls.b = load(SAMPLE_A), load(SAMPLE_B)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def write(self, name, content):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))
        return path

    def test_ratios_and_deltas_match_the_documents(self):
        r = run("--json", SAMPLE_A, SAMPLE_B)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        pa, pb = phases(self.a), phases(self.b)
        self.assertEqual([(row["iteration"], row["phase"]) for row in out["rows"]], list(pa))
        for row in out["rows"]:
            key = (row["iteration"], row["phase"])
            a, b = pa[key], pb[key]
            ea, eb = row["documents"]
            with self.subTest(row=key):
                self.assertEqual(ea["document"], "A")
                self.assertNotIn("bandwidth_ratio", ea)  # the baseline has none
                self.assertAlmostEqual(eb["bandwidth_mib_per_sec"],
                                       b["bandwidth_bytes_per_sec"] / MIB)
                self.assertAlmostEqual(eb["bandwidth_ratio"],
                                       b["bandwidth_bytes_per_sec"] / a["bandwidth_bytes_per_sec"])
                self.assertAlmostEqual(eb["iops_ratio"], b["iops"] / a["iops"])
                for name in ("p50", "p99", "p99.9"):
                    va = a["latency"]["percentiles_ns"][name]
                    vb = b["latency"]["percentiles_ns"][name]
                    self.assertEqual(eb[f"{name}_ns"], vb)
                    self.assertAlmostEqual(eb[f"{name}_delta_ms"], (vb - va) / 1e6)
                    self.assertAlmostEqual(eb[f"{name}_delta_pct"], (vb / va - 1) * 100)

    def test_runs_of_several_drives_compare_drive_by_drive(self):
        docs = []
        for iops in ((1000.0, 800.0), (1100.0, 400.0)):
            d = load(SAMPLE_C)
            d["schema_version"] = 4
            d["targets"] = [{"name": f"nvme{i}n1", "status": "passed", "mismatch_total": 0,
                             "merged_phases": [{"phase": "random", "iops": v}]}
                            for i, v in enumerate(iops)]
            docs.append(self.write(f"drives-{len(docs)}.json", d))
        r = run(*docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("per drive (runs of several targets)", r.stdout)
        rows = [l.split() for l in r.stdout.splitlines() if l.startswith(("nvme", " "))
                and len(l.split()) >= 4 and l.split()[-1] == "passed"]
        self.assertIn(["nvme0n1", "A", "1000", "0", "passed"], rows)
        self.assertIn(["B", "1100", "1.10", "0", "passed"], rows)
        self.assertIn(["B", "400", "0.50", "0", "passed"], rows)
        j = json.loads(run("--json", *docs).stdout)
        self.assertEqual([d["drive"] for d in j["drives"]], ["nvme0n1", "nvme1n1"])
        self.assertAlmostEqual(j["drives"][1]["documents"][1]["iops_ratio"], 0.5)

    def test_names_from_documents_never_reach_the_terminal_raw(self):
        """A drive named with a terminal escape and a right-to-left override
        (a document from another host): spelled out (issue 37)."""
        docs = []
        for _ in range(2):
            d = load(SAMPLE_C)
            d["schema_version"] = 4
            d["targets"] = [{"name": name, "status": "passed", "mismatch_total": 0,
                             "merged_phases": [{"phase": "random", "iops": 1000.0}]}
                            for name in ("\x1b[2J\u202eevil", "nvme1n1")]
            docs.append(self.write(f"evil-{len(docs)}.json", d))
        r = run(*docs)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("\x1b", r.stdout)
        self.assertNotIn("\u202e", r.stdout)
        self.assertIn("\\x1b[2J\\u{202e}evil", r.stdout)
        j = json.loads(run("--json", *docs).stdout)  # JSON keeps the name exactly
        self.assertEqual(j["drives"][0]["drive"], "\x1b[2J\u202eevil")
        bad = self.write("evil-name.json", "{\"schema_version\": \"\\u001b[2J\\u202e\"}")
        r = run(bad, bad)
        self.assertNotIn("\x1b", r.stderr)
        self.assertNotIn("\u202e", r.stderr)

    def test_table_shows_the_ratios(self):
        r = run(SAMPLE_A, SAMPLE_B)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("(baseline)", lines[0])
        pa, pb = phases(self.a), phases(self.b)
        checked = 0
        rates, latency = tables(r.stdout)
        for table, is_rates in ((rates, True), (latency, False)):
            for i, line in enumerate(table):
                cols = line.split()
                if len(cols) < 3 or not cols[0].isdigit():
                    continue
                key = (int(cols[0]), cols[1])
                a, b = pa[key], pb[key]
                self.assertEqual(cols[2], "A")
                nxt = table[i + 1].split()
                self.assertEqual(nxt[0], "B")
                if is_rates:
                    # "ITER PHASE A MiB/s IOPS samples", "B MiB/s ratio IOPS ratio samples".
                    self.assertEqual(cols[3], f"{a['bandwidth_bytes_per_sec'] / MIB:.1f}")
                    self.assertEqual(nxt[1], f"{b['bandwidth_bytes_per_sec'] / MIB:.1f}")
                    bw_ratio = b["bandwidth_bytes_per_sec"] / a["bandwidth_bytes_per_sec"]
                    self.assertEqual(nxt[2], f"{bw_ratio:.3f}")
                    self.assertEqual(nxt[3], f"{b['iops']:.0f}")
                    self.assertEqual(nxt[4], f"{b['iops'] / a['iops']:.3f}")
                else:
                    # "ITER PHASE A p50 p99 p99.9", "B p50 d d% p99 d d% p99.9 d d%".
                    p99a = a["latency"]["percentiles_ns"]["p99"]
                    p99b = b["latency"]["percentiles_ns"]["p99"]
                    # A percentile its sample count does not support carries a "*".
                    self.assertEqual(cols[4].rstrip("*"), f"{p99a / 1e6:.3f}")
                    self.assertEqual(nxt[4].rstrip("*"), f"{p99b / 1e6:.3f}")
                    self.assertEqual(nxt[5], f"{(p99b - p99a) / 1e6:+.3f}")
                    self.assertEqual(nxt[6], f"{(p99b / p99a - 1) * 100:+.1f}%")
                checked += 1
        self.assertEqual(checked, 2 * len(pa))

    def test_the_tables_fit_100_columns(self):
        """Rates and latency in two tables, each under 100 columns (the one
        table was 151)."""
        r = run(SAMPLE_A, SAMPLE_B)
        rates, latency = tables(r.stdout)
        for table in (rates, latency):
            self.assertTrue(table[0].lstrip().startswith("iter"), table[0])
            self.assertLessEqual(max(len(l) for l in table), 100, table)
        self.assertIn("samples", rates[0])
        self.assertIn("p99.9 ms", latency[0])

    def test_every_line_fits_100_columns_with_long_paths(self):
        """The document lines wrap under their label instead of running to
        150 columns when the documents sit deep in a results tree."""
        with tempfile.TemporaryDirectory() as d:
            deep = os.path.join(d, "fleet-results", "2026-12-02", "rack-r12", "server-0042")
            os.makedirs(deep)
            paths = []
            for name, src in (("a.json", SAMPLE_A), ("b.json", SAMPLE_B)):
                paths.append(os.path.join(deep, name))
                with open(src) as f, open(paths[-1], "w") as out:
                    out.write(f.read())
            r = run(*paths)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.splitlines()
            self.assertLessEqual(max(len(l) for l in lines), 100, r.stdout)
            self.assertEqual(lines[0], "A  " + paths[0] + "  (baseline)  passed")
            # Where and when it ran on the next line, under the path.
            self.assertRegex(lines[1], r"^   host \S+  backend io_uring  \S+  target \S")
            head = "\n".join(lines[:lines.index(next(l for l in lines if l.startswith("x A:")))])
            self.assertEqual(head.count("backend io_uring"), 2, head)
            self.assertEqual(head.count("passed"), 2, head)

    def test_sample_counts_and_unsupported_percentiles_are_shown(self):
        # Supported: at least 10 samples beyond the percentile (n * (1 - p) >= 10).
        r = run(SAMPLE_A, SAMPLE_B)
        self.assertEqual(r.returncode, 0, r.stderr)
        pa, pb = phases(self.a), phases(self.b)
        rows = 0
        rates, latency = tables(r.stdout)
        for table, is_rates in ((rates, True), (latency, False)):
            current = None
            for line in table:
                cols = line.split()
                if len(cols) > 2 and cols[0].isdigit():
                    current, cols = (int(cols[0]), cols[1]), cols[2:]
                elif not (cols and cols[0] in ("A", "B") and current):
                    continue
                doc = pa[current] if cols[0] == "A" else pb[current]
                count = doc["latency"]["count"]
                with self.subTest(row=current, doc=cols[0], rates=is_rates):
                    if is_rates:
                        self.assertEqual(cols[-1], str(count))
                    else:
                        # no ratio or delta columns for the baseline
                        pct_cols = (1, 2, 3) if cols[0] == "A" else (1, 4, 7)
                        for col, p in zip(pct_cols, (50, 99, 99.9)):
                            unsupported = count * (1 - p / 100) < 10
                            self.assertEqual(cols[col].endswith("*"), unsupported,
                                             (col, p, count))
                rows += 1
        self.assertEqual(rows, 4 * len(pa))
        self.assertIn("*: fewer than 10 samples beyond this percentile", r.stdout)
        out = json.loads(run("--json", SAMPLE_A, SAMPLE_B).stdout)
        random = next(row for row in out["rows"] if row["phase"] == "random")
        self.assertEqual([e["latency_count"] for e in random["documents"]],
                         [pa[(1, "random")]["latency"]["count"],
                          pb[(1, "random")]["latency"]["count"]])
        # 8639 samples: p99 has 86 beyond it, p99.9 has 8.6.
        self.assertTrue(random["documents"][0]["p99_supported"])
        self.assertFalse(random["documents"][0]["p99.9_supported"])

    def test_like_configurations_give_no_warning(self):
        r = run(SAMPLE_A, SAMPLE_B)
        self.assertNotIn("warning", r.stdout + r.stderr)
        self.assertEqual(json.loads(run("--json", SAMPLE_A, SAMPLE_B).stdout)
                         ["config_differences"], [])

    def test_unlike_configurations_are_named(self):
        b = copy.deepcopy(self.b)
        b["config"].update(qd=1, files=4, file_size_bytes=32 * MIB, rand_block_bytes=8192,
                           seq_block_bytes=128 * 1024, phases=["seq-write", "random"],
                           sync="fsync", distribution="zipf:1.2", dedupe=25, trim_pct=5)
        b["backend"].update(used="sync", random_qd_per_worker=1)
        b["preset"] = {"name": "desktop", "tests": []}
        a = copy.deepcopy(self.a)
        a["config"].update(sync="none", distribution="uniform")
        pa, pb = self.write("cfg-a.json", a), self.write("cfg-b.json", b)
        r = run(pa, pb)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("warning: the documents ran different configurations", r.stdout)
        expected = {"backend": ("io_uring", "sync"), "qd": ("32", "1"),
                    "qd in effect": ("32", "1"), "files": ("2", "4"),
                    "size": ("8M", "32M"), "seq-block": ("1M", "128K"),
                    "rand-block": ("4K", "8K"), "phases": ("seq-write,seq-read,random,reverify",
                                                           "seq-write,random"),
                    "sync": ("none", "fsync"), "distribution": ("uniform", "zipf:1.2"),
                    "preset": ("none", "desktop"),
                    # A's document predates --dedupe and --trim-pct: no key is none.
                    "dedupe": ("0", "25"), "trim-pct": ("0", "5")}
        listed = {}
        for line in r.stdout.splitlines():
            m = re.match(r"^  (\S+(?: \S+)*?)\s+A (\S+)\s+B (\S+)$", line)
            if m:
                listed[m.group(1)] = (m.group(2), m.group(3))
        self.assertEqual(listed, expected)
        r = run("--json", pa, pb)
        diffs = {d["item"]: d["values"] for d in json.loads(r.stdout)["config_differences"]}
        self.assertEqual(set(diffs), set(expected))
        self.assertEqual(diffs["qd"], [32, 1])
        self.assertEqual(diffs["dedupe"], [0, 25])
        self.assertEqual(diffs["trim-pct"], [0, 5])
        # On stderr, one line per item, so --json stays clean.
        self.assertEqual(len([l for l in r.stderr.splitlines() if "warning" in l]),
                         len(expected))

    def test_a_mix_of_sizes_is_shown_as_the_mix(self):
        """A --rand-block mix (config.rand_mix, schema_version 5) is named by
        its sizes and weights, never by its smallest size alone; a mix
        against its smallest size alone is a difference."""
        a, b = copy.deepcopy(self.a), copy.deepcopy(self.b)
        for doc in (a, b):
            doc["config"].update(rand_block_bytes=8192, unit_bytes=8192)
        a["config"]["rand_mix"] = "8K:70,16K:15,64K:10,128K:5"
        r = run(self.write("mix-a.json", a), self.write("mix-b.json", b))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("  rand-block   A 8K:70,16K:15,64K:10,128K:5  B 8K", r.stdout)
        b["config"]["rand_mix"] = "8K:70,16K:15,64K:10,128K:5"
        r = run(self.write("mix-a.json", a), self.write("mix-b.json", b))
        self.assertNotIn("rand-block", r.stdout)

    def test_a_phase_missing_from_one_document(self):
        b = copy.deepcopy(self.b)
        b["iterations"][0]["phases"] = [p for p in b["iterations"][0]["phases"]
                                        if p["phase"] != "reverify"]
        r = run("--json", SAMPLE_A, self.write("no-reverify.json", b))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {row["phase"]: row for row in json.loads(r.stdout)["rows"]}
        self.assertIsNone(rows["reverify"]["documents"][1])
        self.assertIsNotNone(rows["random"]["documents"][1])
        r = run(SAMPLE_A, self.write("no-reverify.json", b))
        self.assertIn("(not run)", r.stdout)

    def test_merge_sums_counts_and_recomputes_percentiles(self):
        r = run("--merge", "--json", SAMPLE_A, SAMPLE_B)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = json.loads(r.stdout)
        docs = [self.a, self.b]
        self.assertEqual([p["phase"] for p in out["phases"]],
                         [p["phase"] for p in self.a["iterations"][0]["phases"]])
        for merged in out["phases"]:
            name = merged["phase"]
            sources = [p for d in docs for it in d["iterations"] for p in it["phases"]
                       if p["phase"] == name]
            with self.subTest(phase=name):
                self.assertEqual(merged["documents"], 2)
                lat = merged["latency"]
                self.assertEqual(lat["count"], sum(p["latency"]["count"] for p in sources))
                buckets = {}
                for p in sources:
                    for lower, n in p["latency"]["histogram"]["buckets"]:
                        buckets[lower] = buckets.get(lower, 0) + n
                self.assertEqual(lat["histogram"]["buckets"],
                                 [[lo, buckets[lo]] for lo in sorted(buckets)])
                lo = min(p["latency"]["min_ns"] for p in sources)
                hi = max(p["latency"]["max_ns"] for p in sources)
                self.assertEqual(lat["min_ns"], lo)
                self.assertEqual(lat["max_ns"], hi)
                for pname, p in (("p50", 50), ("p99", 99), ("p99.9", 99.9)):
                    self.assertEqual(lat["percentiles_ns"][pname],
                                     nearest_rank(buckets, p, lo, hi), pname)
                self.assertEqual(merged["read_bytes"], sum(p["read_bytes"] for p in sources))
                self.assertEqual(merged["write_ops"], sum(p["write_ops"] for p in sources))
                self.assertAlmostEqual(merged["iops"], sum(p["iops"] for p in sources),
                                       delta=1e-6 * merged["iops"] + 1e-9)
                self.assertAlmostEqual(
                    merged["bandwidth_bytes_per_sec"],
                    sum(p["bandwidth_bytes_per_sec"] for p in sources),
                    delta=1e-6 * merged["bandwidth_bytes_per_sec"] + 1e-9)
        totals = out["totals"]
        self.assertEqual(totals["written_bytes"],
                         sum(d["summary"]["written_bytes"] for d in docs))
        self.assertEqual(totals["mismatch_total"],
                         sum(d["summary"]["mismatch_total"] for d in docs))

    def test_merge_keeps_who_is_who(self):
        a, b = copy.deepcopy(self.a), copy.deepcopy(self.b)
        a["run_id"], b["run_id"] = "00000000000000aa", "00000000000000bb"
        a["target"]["drive"] = {"name": "nvme0n1", "model": "M", "serial": "S1", "firmware": "F",
                                "logical_block_bytes": 512, "physical_block_bytes": 4096}
        r = run("--merge", "--json", self.write("who-a.json", a), self.write("who-b.json", b),
                SAMPLE_A)
        self.assertEqual(r.returncode, 0, r.stderr)
        docs = json.loads(r.stdout)["documents"]
        self.assertEqual([d["run_id"] for d in docs], ["00000000000000aa", "00000000000000bb", None])
        self.assertEqual(docs[0]["drive"]["serial"], "S1")
        self.assertIsNone(docs[1]["drive"])  # a document from before drive existed
        self.assertEqual([d["host"] for d in docs],
                         [a["host"]["hostname"], b["host"]["hostname"], self.a["host"]["hostname"]])
        self.assertEqual([d["exit_code"] for d in docs],
                         [a["summary"]["exit_code"], b["summary"]["exit_code"],
                          self.a["summary"]["exit_code"]])

    def test_merge_of_one_document_reproduces_its_own_percentiles(self):
        # Same nearest-rank rule as the C++ histogram: identical to the document.
        for path, doc in ((SAMPLE_A, self.a), (SAMPLE_B, self.b)):
            r = run("--merge", "--json", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            merged = {p["phase"]: p for p in json.loads(r.stdout)["phases"]}
            for p in doc["iterations"][0]["phases"]:
                with self.subTest(doc=path, phase=p["phase"]):
                    self.assertEqual(merged[p["phase"]]["latency"]["percentiles_ns"],
                                     p["latency"]["percentiles_ns"])
                    self.assertEqual(merged[p["phase"]]["latency"]["histogram"]["buckets"],
                                     p["latency"]["histogram"]["buckets"])

    def test_merge_spans_iterations(self):
        doc = copy.deepcopy(self.a)
        second = copy.deepcopy(doc["iterations"][0])
        second["index"] = 2
        doc["iterations"].append(second)
        r = run("--merge", "--json", self.write("two-iterations.json", doc))
        self.assertEqual(r.returncode, 0, r.stderr)
        for merged, p in zip(json.loads(r.stdout)["phases"], self.a["iterations"][0]["phases"]):
            self.assertEqual(merged["latency"]["count"], 2 * p["latency"]["count"])
            # Doubling every bucket keeps every percentile.
            self.assertEqual(merged["latency"]["percentiles_ns"], p["latency"]["percentiles_ns"])

    def test_merge_table(self):
        r = run("--merge", SAMPLE_A, SAMPLE_B)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("merged 2 document(s)", r.stdout)
        # A row in the rates table, then one in the latency table.
        random = [l for l in r.stdout.splitlines() if l.startswith("random")]
        self.assertEqual(len(random), 2)
        count = sum(p["latency"]["count"] for d in (self.a, self.b)
                    for p in d["iterations"][0]["phases"] if p["phase"] == "random")
        self.assertEqual(random[0].split()[4], str(count))
        merged = json.loads(run("--merge", "--json", SAMPLE_A, SAMPLE_B).stdout)
        lat = next(p for p in merged["phases"] if p["phase"] == "random")["latency"]
        self.assertEqual(random[1].split()[4], f"{lat['percentiles_ns']['p95'] / 1e6:.3f}")

    def test_every_output_fits_100_columns(self):
        """--merge (one table was 136 columns), phases 1000 times slower
        (a 35 s p99, +99900 %), the gate's verdicts and its last lines: each
        line within 100 columns, a number never split from its unit."""
        slow = self.scaled("slow.json", iops=0.001, latency=1000.0)
        with tempfile.TemporaryDirectory() as d:
            deep = os.path.join(d, "fleet-results", "2026-12-02", "rack-r12", "server-0042")
            os.makedirs(deep)
            docs = [os.path.join(deep, f"drive-{n}.json") for n in range(3)]
            for path, src in zip(docs, (SAMPLE_A, SAMPLE_B, slow)):
                with open(src) as f, open(path, "w") as out:
                    out.write(f.read())
            for args in (["--merge", *docs], [SAMPLE_A, slow],
                         [SAMPLE_A, slow, SAMPLE_B, "--fail-if",
                          "iops<-10%,bw<-10%,random:p50>+5%,random:p99>+5%"]):
                with self.subTest(args=args):
                    r = run(*args)
                    self.assertIn(r.returncode, (0, 2), r.stderr)
                    lines = r.stdout.splitlines()
                    self.assertLessEqual(max(len(l) for l in lines), 100, r.stdout)
                    for a, b in zip(lines, lines[1:]):
                        self.assertNotRegex(a + "|" + b, r"\d\|\s*(%|ms|MiB|checks)\b",
                                            r.stdout)

    # --- the --fail-if gate ----------------------------------------------

    def scaled(self, name, iops=1.0, latency=1.0):
        """sample-a with every phase's IOPS and bandwidth times `iops` and
        every latency percentile times `latency`."""
        doc = copy.deepcopy(self.a)
        for it in doc["iterations"]:
            for p in it["phases"]:
                p["iops"] *= iops
                p["bandwidth_bytes_per_sec"] *= iops
                pct = p["latency"]["percentiles_ns"]
                for k in pct:
                    pct[k] = round(pct[k] * latency)
        return self.write(name, doc)

    def gate_checks(self, *args):
        r = run("--json", *args)
        self.assertIn(r.returncode, (0, 2), r.stderr)
        return r.returncode, json.loads(r.stdout)["gate"]

    def test_gate_fails_on_the_phases_that_crossed_and_names_them(self):
        rule = "iops<-10%"
        r = run(SAMPLE_A, SAMPLE_B, "--fail-if", rule)
        pa, pb = phases(self.a), phases(self.b)
        crossed = [k[1] for k in pa if (pb[k]["iops"] / pa[k]["iops"] - 1) * 100 < -10]
        self.assertTrue(crossed, "the fixtures must have a phase that fell by 10%")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        last = r.stdout.splitlines()[-1]
        self.assertTrue(last.startswith("gate: FAILED"), last)
        for phase in crossed:
            self.assertIn(f"{rule} ({phase}, B)", last)
        failed = [l.split()[1] for l in r.stdout.splitlines() if l.endswith("FAILED")]
        self.assertEqual(failed, crossed)
        code, g = self.gate_checks(SAMPLE_A, SAMPLE_B, "--fail-if", rule)
        self.assertEqual(code, 2)
        self.assertEqual(g["failed"], len(crossed))
        for c in g["checks"]:
            k = (c["iteration"], c["phase"])
            self.assertAlmostEqual(c["change_pct"], (pb[k]["iops"] / pa[k]["iops"] - 1) * 100)

    def test_gate_thresholds_are_strict_and_signed(self):
        minus10 = self.scaled("minus10.json", iops=0.9)
        self.assertEqual(run(SAMPLE_A, minus10, "--fail-if", "iops<-10%").returncode, 0)
        self.assertEqual(run(SAMPLE_A, minus10, "--fail-if", "iops<-9.9%").returncode, 2)
        self.assertEqual(run(SAMPLE_A, minus10, "--fail-if", "bw<-9.9%").returncode, 2)
        slower = self.scaled("slower.json", latency=1.25)
        self.assertEqual(run(SAMPLE_A, slower, "--fail-if", "p99>+20%").returncode, 2)
        self.assertEqual(run(SAMPLE_A, slower, "--fail-if", "p99>+30%").returncode, 0)
        # An improvement does not cross a "fell by" rule; "rose by" catches it.
        faster = self.scaled("faster.json", iops=1.5)
        self.assertEqual(run(SAMPLE_A, faster, "--fail-if", "iops<-10%").returncode, 0)
        self.assertEqual(run(SAMPLE_A, faster, "--fail-if", "iops>+40%").returncode, 2)
        r = run(SAMPLE_A, SAMPLE_A, "--fail-if", "iops<-10%,p99>+20%")
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("gate: passed", r.stdout.splitlines()[-1])

    def test_gate_phase_scope_and_unsupported_percentiles(self):
        slower = self.scaled("slower.json", latency=2.0)
        code, g = self.gate_checks(SAMPLE_A, slower, "--fail-if", "random:p99>+20%")
        self.assertEqual(code, 2)
        self.assertEqual([(c["phase"], c["verdict"]) for c in g["checks"]],
                         [("random", "FAILED")])
        # 16 samples do not support p99: the sequential phases are not judged.
        code, g = self.gate_checks(SAMPLE_A, slower, "--fail-if", "p99>+20%")
        verdicts = {c["phase"]: c["verdict"] for c in g["checks"]}
        self.assertEqual(verdicts, {"seq-write": "not judged", "seq-read": "not judged",
                                    "random": "FAILED", "reverify": "not judged"})
        r = run(SAMPLE_A, slower, "--fail-if", "p99>+20%")
        # (A verdict's words fold within 100 columns.)
        self.assertIn("not judged: 16 samples do not support p99", " ".join(r.stdout.split()))

    def test_gate_over_several_documents_names_the_one_that_crossed(self):
        worse = self.scaled("worse.json", iops=0.5)
        r = run(SAMPLE_A, SAMPLE_A, worse, "--fail-if", "random:iops<-10%")
        self.assertEqual(r.returncode, 2)
        self.assertIn("random:iops<-10% (random, C)", r.stdout.splitlines()[-1])
        self.assertNotIn("(random, B)", r.stdout.splitlines()[-1])

    def test_gate_bad_rules_are_one_line_and_exit_1(self):
        for rule, message in (("iops<10", "is not [PHASE:]METRIC"),
                              ("iops=-10%", "is not [PHASE:]METRIC"),
                              ("p42>+1%", "unknown metric 'p42'"),
                              ("iops<-10%,", "is not [PHASE:]METRIC"),
                              ("trim:iops<-10%", "judged nothing")):
            with self.subTest(rule=rule):
                self.assert_bad_input(SAMPLE_A, SAMPLE_B, "--fail-if", rule, message=message)
        self.assert_bad_input("--merge", SAMPLE_A, "--fail-if", "iops<-10%",
                              message="does not apply to --merge")

    def assert_bad_input(self, *args, message):
        r = run(*args)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn(message, r.stderr)

    def test_bad_input_is_one_line_and_exit_1(self):
        missing = os.path.join(self.tmp.name, "missing.json")
        self.assert_bad_input(SAMPLE_A, missing, message="missing.json: no such file")
        self.assert_bad_input(SAMPLE_A, self.write("garbage.json", "{not json"),
                              message="not JSON")
        self.assert_bad_input(SAMPLE_A, self.write("other.json", {"schema_version": 1}),
                              message="not a drivestress result document")
        self.assert_bad_input(SAMPLE_A, self.write("list.json", [1, 2]),
                              message="not a drivestress result document")
        v7 = copy.deepcopy(self.b)
        v7["schema_version"] = 7
        self.assert_bad_input(SAMPLE_A, self.write("v7.json", v7), message="schema_version 7")
        v7["schema_version"] = "7.1"
        self.assert_bad_input("--merge", self.write("v71.json", v7),
                              message="schema_version 7.1")
        no_merged = load(SAMPLE_C)
        del no_merged["merged_phases"]
        self.assert_bad_input("--merge", self.write("no-merged.json", no_merged),
                              message="no merged_phases list")
        self.assert_bad_input(SAMPLE_A, self.tmp.name, message="is a directory")
        self.assert_bad_input(SAMPLE_A, message="at least two documents")
        broken = copy.deepcopy(self.a)
        broken["iterations"][0]["phases"][0]["latency"]["count"] += 1
        self.assert_bad_input("--merge", self.write("broken.json", broken),
                              message="histogram buckets hold")

    def write_bytes(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_hostile_documents_are_one_line_and_exit_1(self):
        """What crashed with a traceback before: each is one line naming the
        file and what is wrong in it, exit 1, in every mode."""
        text = json.dumps(self.a)
        cases = []
        null_target = copy.deepcopy(self.a)
        null_target["target"] = None
        cases.append(("null-target.json", json.dumps(null_target).encode(),
                      "target is null, not an object"))
        string_iops = copy.deepcopy(self.a)
        string_iops["iterations"][0]["phases"][2]["iops"] = "1234"
        cases.append(("string-iops.json", json.dumps(string_iops).encode(),
                      "iterations[0].phases[2].iops is a string, not a number"))
        string_count = copy.deepcopy(self.a)
        string_count["iterations"][0]["phases"][0]["latency"]["count"] = "7"
        cases.append(("string-count.json", json.dumps(string_count).encode(),
                      "phases[0].latency.count is a string, not a number"))
        huge = text.replace('"iops": ', '"iops": 1' + "0" * 400 + ", \"was\": ", 1)
        cases.append(("huge.json", huge.encode(), "is a number out of range"))
        digits = text.replace('"iops": ', '"iops": ' + "9" * 5000 + ", \"was\": ", 1)
        cases.append(("digits.json", digits.encode(), "a number of more than 4300 digits"))
        cases.append(("nan.json", text.replace('"iops": ', '"iops": NaN, "was": ', 1).encode(),
                      "NaN is not a number JSON allows"))
        cases.append(("deep.json", b"[" * 100000 + b"]" * 100000, "nested too deeply"))
        deep_inside = text.replace('"host": ', '"host": ' + "[" * 100000 + "]" * 100000
                                   + ', "was": ', 1)
        cases.append(("deep-inside.json", deep_inside.encode(), "nested too deeply"))
        cases.append(("latin1.json", text.encode()[:500] + b"\xff\xfe" + text.encode()[500:],
                      "not JSON"))
        no_name = copy.deepcopy(self.a)
        del no_name["iterations"][0]["phases"][1]["phase"]
        cases.append(("no-phase-name.json", json.dumps(no_name).encode(),
                      "iterations[0].phases[1] has no phase"))
        bits = copy.deepcopy(self.a)
        bits["iterations"][0]["phases"][0]["latency"]["histogram"]["sub_bucket_bits"] = -1
        # Side by side takes the document's percentiles: only a merge reads this.
        self.assert_bad_input("--merge", self.write("bits.json", bits),
                              message="sub_bucket_bits -1 (0 to 62)")
        for name, data, message in cases:
            path = self.write_bytes(name, data)
            for args in ((SAMPLE_A, path), (path, SAMPLE_A), ("--merge", path),
                         ("--json", SAMPLE_A, path)):
                with self.subTest(document=name, args=args[:-1]):
                    self.assert_bad_input(*args, message=message)
                    self.assertIn(name, run(*args).stderr)

    def test_a_message_is_one_line_whatever_the_document_holds(self):
        v = copy.deepcopy(self.a)
        v["schema_version"] = "3\nTraceback (most recent call last):\n" + "x" * 5000
        r = run(SAMPLE_A, self.write("newline.json", v))
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("schema_version 3\\nTraceback", r.stderr)
        self.assertLess(len(r.stderr), 400)

    def test_text_that_cannot_be_printed_is_escaped(self):
        """A lone surrogate in a path (valid JSON, not encodable) is printed
        backslash-escaped, in the table and in --json (ASCII escapes)."""
        odd = copy.deepcopy(self.b)
        odd["target"]["path"] = "/mnt/\ud800x"
        path = self.write("surrogate.json", odd)
        r = subprocess.run([COMPARE, SAMPLE_A, path], capture_output=True, timeout=60,
                           env=dict(os.environ, LC_ALL="C.UTF-8", PYTHONIOENCODING="utf-8"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(b"target /mnt/\\ud800x", r.stdout)
        r = run("--json", SAMPLE_A, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["documents"][1]["target"], "/mnt/\ud800x")

    def test_a_zero_baseline_gives_no_infinity_in_json(self):
        tiny, big = copy.deepcopy(self.a), copy.deepcopy(self.b)
        tiny["iterations"][0]["phases"][0]["iops"] = 1e-300
        big["iterations"][0]["phases"][0]["iops"] = 1e19  # / 1e-300: beyond any float
        r = run("--json", self.write("tiny.json", tiny), self.write("big.json", big))
        self.assertEqual(r.returncode, 0, r.stderr)
        def refuse(name):
            raise AssertionError(f"{name} in --json output")
        out = json.loads(r.stdout, parse_constant=refuse)
        self.assertIsNone(out["rows"][0]["documents"][1]["iops_ratio"])

    def test_a_reader_that_goes_away_ends_it_quietly(self):
        """`compare ... | head`: no traceback, no message, exit 1 (the output
        was not all delivered)."""
        read_end, write_end = os.pipe()
        os.close(read_end)  # the reader has gone before the first line
        r = subprocess.run([COMPARE, SAMPLE_A, SAMPLE_B], stdout=write_end,
                           stderr=subprocess.PIPE, timeout=60)
        os.close(write_end)
        self.assertEqual((r.returncode, r.stderr), (1, b""))
        r = subprocess.run(["bash", "-c", f'"{COMPARE}" "$@" | head -1', "compare",
                            SAMPLE_A, SAMPLE_B], capture_output=True, text=True, timeout=60)
        self.assertEqual((r.stdout.count("\n"), r.stderr), (1, ""))

    def test_a_closed_or_full_stdout(self):
        r = subprocess.run(["bash", "-c", f'exec "{COMPARE}" "$@" >&-', "compare",
                            SAMPLE_A, SAMPLE_B], capture_output=True, text=True, timeout=60)
        self.assertEqual((r.returncode, r.stderr), (0, ""))  # printed to nowhere
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        with open("/dev/full", "w") as full:
            r = subprocess.run([COMPARE, SAMPLE_A, SAMPLE_B], stdout=full,
                               stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stderr, "compare: standard output: No space left on device\n")

    def test_schema_2_iterations_side_by_side(self):
        """Version 2 against itself: a row per iteration and phase from the
        iterations' figures; p99.9 only where iteration_detail keeps it."""
        c = load(SAMPLE_C)
        r = run("--json", SAMPLE_C, SAMPLE_C)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = json.loads(r.stdout)["rows"]
        figures = {(it["index"], p["phase"]): p for it in c["iterations"] for p in it["phases"]}
        self.assertEqual([(row["iteration"], row["phase"]) for row in rows], list(figures))
        detail = {it["index"] for it in c["iteration_detail"]}
        self.assertEqual(detail, {4, 5})
        for row in rows:
            key = (row["iteration"], row["phase"])
            p = figures[key]
            e = row["documents"][1]
            with self.subTest(row=key):
                ops = p["read_ops"] + p["write_ops"]
                self.assertAlmostEqual(e["iops"], ops / p["elapsed_s"], delta=1e-3 * e["iops"])
                self.assertEqual(e["p99_ns"], p["p99_ns"])
                self.assertEqual(e["bandwidth_ratio"], 1.0)
                if row["iteration"] in detail:
                    self.assertIsNotNone(e["p99.9_ns"])
                    self.assertEqual(e["p99.9_delta_ms"], 0.0)
                else:
                    self.assertIsNone(e["p99.9_ns"])
                    self.assertIsNone(e["p99.9_delta_ms"])
        r = run(SAMPLE_C, SAMPLE_A)  # a table across versions, "-" where nothing to show
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(not run)", r.stdout)

    def test_schema_2_merge_reproduces_merged_phases(self):
        c = load(SAMPLE_C)
        r = run("--merge", "--json", SAMPLE_C)
        self.assertEqual(r.returncode, 0, r.stderr)
        merged = {p["phase"]: p for p in json.loads(r.stdout)["phases"]}
        for p in c["merged_phases"]:
            with self.subTest(phase=p["phase"]):
                got = merged[p["phase"]]
                self.assertEqual(got["latency"]["percentiles_ns"], p["latency"]["percentiles_ns"])
                self.assertEqual(got["latency"]["histogram"]["buckets"],
                                 p["latency"]["histogram"]["buckets"])
                self.assertEqual(got["write_bytes"], p["write_bytes"])
                self.assertAlmostEqual(got["bandwidth_bytes_per_sec"],
                                       p["bandwidth_bytes_per_sec"],
                                       delta=1e-6 * p["bandwidth_bytes_per_sec"])
        # Across versions: the histograms of both add up.
        r = run("--merge", "--json", SAMPLE_A, SAMPLE_C)
        self.assertEqual(r.returncode, 0, r.stderr)
        random = next(p for p in json.loads(r.stdout)["phases"] if p["phase"] == "random")
        self.assertEqual(random["latency"]["count"],
                         next(p["latency"]["count"] for p in c["merged_phases"]
                              if p["phase"] == "random") +
                         phases(self.a)[(1, "random")]["latency"]["count"])

    def test_minor_version_is_accepted(self):
        doc = copy.deepcopy(self.b)
        doc["schema_version"] = "1.3"
        r = run(SAMPLE_A, self.write("v13.json", doc))
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
