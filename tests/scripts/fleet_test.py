#!/usr/bin/env python3
"""scripts/fleet on a directory laid out as deploy/ansible/drivestress.yml
leaves it, made up here from the two real documents in data/: hosts that
passed, one that found a mismatch, one whose run failed, one that left
nothing, one whose document is damaged.

  python3 tests/scripts/fleet_test.py [--scripts DIR] [--data DIR] [unittest args]
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--data", default=os.path.join(HERE, "data"))
OPTS, REST = ap.parse_known_args()
FLEET = os.path.join(OPTS.scripts, "fleet")


def load(path):
    with open(path) as f:
        return json.load(f)


def ops(phases):
    return sum(p["read_ops"] + p["write_ops"] for p in phases)


def doc_ops(doc):
    return ops(p for it in doc["iterations"] for p in it["phases"])


class FleetTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.a = load(os.path.join(OPTS.data, "sample-a.json"))
        self.b = load(os.path.join(OPTS.data, "sample-b.json"))

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, name, content):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))

    def outcome(self, host, rc, stderr=""):
        self.put(f"{host}.outcome.json", {"host": host, "rc": rc, "stderr": stderr,
                                          "cmd": ["drivestress", "/t"]})

    def run_fleet(self, *args):
        return subprocess.run([FLEET, self.dir, *args], capture_output=True, text=True,
                              timeout=60)

    def test_every_host_keeps_its_verdict_and_the_documents_merge(self):
        self.put("good.json", self.a)
        self.outcome("good", 0)
        bad = copy.deepcopy(self.b)
        bad["summary"].update(status="failed", exit_code=2, mismatch_total=3)
        self.put("mismatch.json", bad)
        self.outcome("mismatch", 2)
        self.outcome("refused", 1, "warning: something\ndrivestress: target /x: No such file\n")
        self.put("damaged.json", "{not json")
        self.outcome("damaged", 0)
        r = self.run_fleet("--hosts", "good,mismatch,refused,silent,damaged")
        self.assertEqual(r.returncode, 0, r.stderr)
        f = load(os.path.join(self.dir, "fleet.json"))
        by = {e["host"]: e for e in f["hosts"]}
        self.assertEqual(list(by), ["good", "mismatch", "refused", "silent", "damaged"])
        self.assertEqual((by["good"]["status"], by["good"]["exit_code"]), ("passed", 0))
        self.assertEqual((by["mismatch"]["status"], by["mismatch"]["exit_code"]), ("failed", 2))
        self.assertEqual(by["mismatch"]["mismatch_total"], 3)
        self.assertEqual((by["refused"]["status"], by["refused"]["exit_code"]), ("error", 1))
        self.assertEqual(by["refused"]["error"], "drivestress: target /x: No such file")
        self.assertEqual((by["silent"]["status"], by["silent"]["exit_code"]), ("no result", None))
        self.assertIn("nothing came back", by["silent"]["error"])
        self.assertIn("result document unusable", by["damaged"]["error"])
        self.assertEqual(by["damaged"]["status"], "error")
        self.assertIsNone(by["damaged"]["document"])
        self.assertEqual(by["good"]["ops"], doc_ops(self.a))
        self.assertEqual(by["good"]["run_id"], self.a.get("run_id"))
        # A mismatch (2) outranks a host that could not run (1).
        self.assertEqual(f["fleet"]["worst_exit_code"], 2)
        self.assertEqual(f["fleet"]["statuses"],
                         {"passed": 1, "failed": 1, "error": 2, "no result": 1})
        self.assertEqual(len(f["merged"]["documents"]), 2)
        self.assertEqual(ops(f["merged"]["phases"]), doc_ops(self.a) + doc_ops(self.b))
        with open(os.path.join(self.dir, "fleet.txt")) as t:
            text = t.read()
        self.assertEqual(text, r.stdout)
        for host in by:
            self.assertIn(host, text)
        self.assertIn("merged 2 document(s)", text)
        # Both worst exit codes, each saying what it covers.
        self.assertTrue(text.startswith("fleet: 5 host(s): "), text)
        self.assertIn("; worst exit code 2\n", text.splitlines(True)[0])
        # (The merge's totals fold at 100 columns: spaces as one.)
        self.assertIn("worst exit code 2 (of the 2 document(s) merged)", " ".join(text.split()))

    def test_a_host_of_several_drives_has_a_row_per_drive(self):
        doc = load(os.path.join(OPTS.data, "sample-c.json"))
        doc["schema_version"] = 4

        def target(name, status, code, iops, mismatches, slow=None):
            return {"name": name, "path": "/dev/" + name, "status": status, "exit_code": code,
                    "merged_phases": [{"phase": "random", "iops": iops, "p99_ns": 2_000_000}],
                    "mismatch_total": mismatches,
                    "slow": None if slow is None else {"below_median_pct": slow}}
        doc["targets"] = [target("nvme0n1", "passed", 0, 1000.0, 0),
                          target("nvme1n1", "failed", 2, 990.0, 4),
                          target("nvme2n1", "passed", 0, 400.0, 0, slow=59.6)]
        self.put("big.json", doc)
        self.outcome("big", 2)
        r = self.run_fleet("--hosts", "big")
        self.assertEqual(r.returncode, 0, r.stderr)
        f = load(os.path.join(self.dir, "fleet.json"))
        drives = f["hosts"][0]["drives"]
        self.assertEqual([(d["name"], d["status"], d["mismatch_total"]) for d in drives],
                         [("nvme0n1", "passed", 0), ("nvme1n1", "failed", 4),
                          ("nvme2n1", "passed", 0)])
        rows = {l.split()[2]: l for l in r.stdout.splitlines() if l.startswith("  big x ")}
        self.assertEqual(list(rows), ["nvme0n1", "nvme1n1", "nvme2n1"])
        self.assertIn("failed", rows["nvme1n1"])
        self.assertIn(" 990 ", rows["nvme1n1"])
        self.assertIn("SLOW: 60 % below the median", rows["nvme2n1"])
        self.assertNotIn("SLOW", rows["nvme0n1"])

    def test_a_hostile_host_cannot_write_to_the_terminal(self):
        """Names in a document from another host: control and bidirectional
        characters spelled out on stdout and in fleet.txt, kept as they are
        in fleet.json (issue 37)."""
        doc = load(os.path.join(OPTS.data, "sample-c.json"))
        doc["schema_version"] = 4
        evil = "\x1b[2J\u202eevil"
        doc["targets"] = [{"name": name, "path": "/dev/x", "status": "passed", "exit_code": 0,
                           "merged_phases": [{"phase": "random", "iops": 1000.0,
                                              "p99_ns": 2_000_000}],
                           "mismatch_total": 0, "slow": None}
                          for name in (evil, "nvme1n1")]
        self.put("h.json", doc)
        self.outcome("h", 0, "drivestress: \x1b]0;title\x07 \u2066x")
        r = self.run_fleet("--hosts", "h")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.dir, "fleet.txt"), encoding="utf-8") as f:
            kept = f.read()
        for text in (r.stdout, r.stderr, kept):
            for bad in ("\x1b", "\u202e", "\u2066", "\x07"):
                self.assertNotIn(bad, text)
        self.assertIn("\\x1b[2J\\u{202e}evil", r.stdout)
        self.assertIn("\\x1b[2J\\u{202e}evil", kept)
        f = load(os.path.join(self.dir, "fleet.json"))
        self.assertEqual(f["hosts"][0]["drives"][0]["name"], evil)

    def test_without_hosts_the_directory_says_who_ran(self):
        self.put("x.json", self.a)
        self.outcome("x", 0)
        self.outcome("y", 1, "drivestress: --size: bad")
        r = self.run_fleet()
        self.assertEqual(r.returncode, 0, r.stderr)
        f = load(os.path.join(self.dir, "fleet.json"))
        self.assertEqual([e["host"] for e in f["hosts"]], ["x", "y"])
        # Run again: its own fleet.json is not taken for a host.
        self.assertEqual(self.run_fleet().returncode, 0)
        f = load(os.path.join(self.dir, "fleet.json"))
        self.assertEqual([e["host"] for e in f["hosts"]], ["x", "y"])

    def test_nothing_came_back(self):
        r = self.run_fleet("--hosts", "a,b")
        self.assertEqual(r.returncode, 0, r.stderr)
        f = load(os.path.join(self.dir, "fleet.json"))
        self.assertIsNone(f["merged"])
        self.assertEqual(f["fleet"]["worst_exit_code"], 1)
        self.assertIn("no result document came back", r.stdout)

    def failed(self, mismatches=5, exit_code=2, status="failed"):
        doc = copy.deepcopy(self.b)
        doc["summary"].update(status=status, exit_code=exit_code, mismatch_total=mismatches)
        doc["summary"]["mismatches"]["stale"] = mismatches
        return doc

    def hosts(self, *args):
        r = self.run_fleet(*args)
        self.assertEqual(r.returncode, 0, r.stderr)
        f = load(os.path.join(self.dir, "fleet.json"))
        return f, {e["host"]: e for e in f["hosts"]}

    def test_the_document_wins_over_an_outcome_that_says_rc_0(self):
        """ansible says rc 0 (a wrapper, `|| true`), the document says
        failed with 5 mismatches: the host failed, and says why."""
        self.put("h.json", self.failed())
        self.outcome("h", 0)
        f, by = self.hosts()
        self.assertEqual((by["h"]["status"], by["h"]["exit_code"]), ("failed", 2))
        self.assertEqual((by["h"]["outcome_exit_code"], by["h"]["document_exit_code"]), (0, 2))
        self.assertEqual(by["h"]["mismatch_total"], 5)
        self.assertIn("outcome says exit 0 but the result document says failed (exit 2, "
                      "5 mismatches)", by["h"]["error"])
        self.assertEqual(f["fleet"]["worst_exit_code"], 2)
        self.assertEqual(f["fleet"]["statuses"], {"failed": 1})

    def test_mismatches_are_never_passed(self):
        """A document that counts mismatches but says exit 0 (or passed) is
        failed; so is an outcome of 2 beside a document that says passed."""
        self.put("counted.json", self.failed(exit_code=0, status="passed"))
        self.outcome("counted", 0)
        self.put("rc2.json", self.a)
        self.outcome("rc2", 2)
        _, by = self.hosts()
        for host in ("counted", "rc2"):
            self.assertEqual((by[host]["status"], by[host]["exit_code"]), ("failed", 2), host)
        self.assertIn("outcome says exit 2 but the result document says passed (exit 0)",
                      by["rc2"]["error"])

    def test_a_run_that_verified_nothing_is_no_verdict_not_passed(self):
        """drivestress exits 0 with summary status no-verdict when it
        verified nothing (--duration too short): the host is no-verdict, its
        exit 0 stands, and it is not counted as passed."""
        nothing = copy.deepcopy(self.a)
        nothing["summary"].update(status="no-verdict", exit_code=0)
        self.put("h.json", nothing)
        self.outcome("h", 0)
        f, by = self.hosts()
        self.assertEqual((by["h"]["status"], by["h"]["exit_code"]), ("no-verdict", 0))
        self.assertIsNone(by["h"]["error"])
        self.assertEqual(f["fleet"]["statuses"], {"no-verdict": 1})
        self.assertEqual(f["fleet"]["worst_exit_code"], 0)

    def test_an_unfinished_document_is_no_pass(self):
        running = copy.deepcopy(self.a)
        running["summary"].update(status="running", exit_code=None)
        self.put("h.json", running)
        self.outcome("h", 0)
        f, by = self.hosts()
        self.assertEqual((by["h"]["status"], by["h"]["exit_code"]), ("error", 1))
        self.assertIn("result document unfinished (status running)", by["h"]["error"])
        self.assertEqual(f["fleet"]["worst_exit_code"], 1)

    def test_hostile_files_are_that_hosts_error_in_one_line(self):
        """What gave a traceback: a damaged outcome or document is an error
        of its host, in one line; the fleet document is still written."""
        self.put("good.json", self.a)
        self.outcome("good", 0)
        outcomes = {"null": "null", "list": "[1]", "strrc": '{"rc": "0"}',
                    "huge": '{"rc": 1' + "0" * 400 + "}", "deep": "[" * 100000 + "]" * 100000,
                    "nan": '{"rc": NaN}', "latin1": b'{"rc": 0, "stderr": "\xff"}'}
        for host, text in outcomes.items():
            path = os.path.join(self.dir, f"{host}.outcome.json")
            with open(path, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode())
        target_null = copy.deepcopy(self.a)
        target_null["target"] = None
        self.put("tnull.json", target_null)
        self.outcome("tnull", 0)
        strings = copy.deepcopy(self.a)
        strings["iterations"][0]["phases"][0]["read_ops"] = "12"
        self.put("strings.json", strings)
        self.outcome("strings", 0)
        f, by = self.hosts()
        self.assertEqual((by["good"]["status"], by["good"]["exit_code"]), ("passed", 0))
        for host in [*outcomes, "tnull", "strings"]:
            with self.subTest(host=host):
                self.assertEqual(by[host]["status"], "error")
                self.assertNotIn("\n", by[host]["error"])
        for host in outcomes:
            self.assertIn(f"outcome unusable: {self.dir}/{host}.outcome.json", by[host]["error"])
        self.assertIn("target is null, not an object", by["tnull"]["error"])
        self.assertIn("phases[0].read_ops is a string, not a number", by["strings"]["error"])
        self.assertEqual(f["fleet"]["worst_exit_code"], 1)
        self.assertEqual(len(f["merged"]["documents"]), 1)

    def test_a_reader_that_goes_away_ends_it_quietly(self):
        self.put("x.json", self.a)
        self.outcome("x", 0)
        read_end, write_end = os.pipe()
        os.close(read_end)
        r = subprocess.run([FLEET, self.dir], stdout=write_end, stderr=subprocess.PIPE,
                           timeout=60)
        os.close(write_end)
        self.assertEqual((r.returncode, r.stderr), (1, b""))
        self.assertTrue(os.path.exists(os.path.join(self.dir, "fleet.json")))

    def test_a_schema_2_run_of_several_iterations(self):
        """sample-c: five iterations, the histograms of two kept: the p99 and
        IOPS of the whole random phase come from merged_phases."""
        c = load(os.path.join(OPTS.data, "sample-c.json"))
        self.put("c.json", c)
        self.outcome("c", 0)
        _, by = self.hosts()
        self.assertEqual((by["c"]["status"], by["c"]["error"]), ("passed", None))
        merged = {p["phase"]: p for p in c["merged_phases"]}
        self.assertEqual(by["c"]["ops"], ops(merged.values()))
        rnd = merged["random"]
        self.assertAlmostEqual(by["c"]["random_iops"], rnd["iops"], delta=rnd["iops"] * 1e-9)
        self.assertAlmostEqual(by["c"]["random_p99_ns"], rnd["latency"]["percentiles_ns"]["p99"],
                               delta=rnd["latency"]["percentiles_ns"]["p99"] * 0.01)

    def test_bad_input_is_one_line_and_exit_1(self):
        r = subprocess.run([FLEET, os.path.join(self.dir, "missing")], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertTrue(r.stderr.startswith("fleet: "))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + REST)
