#!/usr/bin/env python3
"""deploy/ansible/drivestress.yml run by the real ansible-playbook (Debian
package ansible; skipped, with the reason, without it) against an inventory
of three hosts on this machine: ansible_connection=local, a target, a work
directory and a node_exporter textfile directory each.

- three hosts that pass: the fleet document merges their three result
  documents (merged operations = the sum of the three), keeps each host's
  verdict, run id and drive, and every host's textfile carries its verdict;
- one host with a bad target: reported as failed, with drivestress's own
  error line, while the other two are still listed and merged, and the
  playbook ends failed.
"""

import json
import os
import shutil
import subprocess

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "ansible-{case}", "timeout": 300}

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
PLAYBOOK = os.path.join(ROOT, "deploy", "ansible", "drivestress.yml")
# Bound on one ansible-playbook run (three small runs plus Ansible's own time).
PLAYBOOK_TIMEOUT_S = 240
ARGS = ["-s", "8M", "-j", "2", "--seq-block", "256K", "--rand-ops", "2000"]


def load(path):
    with open(path) as f:
        return json.load(f)


def ops_of(phases):
    return sum(p["read_ops"] + p["write_ops"] for p in phases)


class Ansible(harness.DriveStressTest):
    backend = None

    def setUp(self):
        super().setUp()
        harness.plain_suite_only(self, "ansible-playbook's start is most of this case's "
                                       "time: run once, in the plain suite")
        if not shutil.which("ansible-playbook"):
            self.skipTest("ansible-playbook not installed (Debian package ansible; "
                          "scripts/test installs it as root)")
        self.fleet = os.path.join(self.tmp, "fleet")

    def host_dirs(self, host):
        base = os.path.join(self.tmp, host)
        return {"target": os.path.join(base, "target"), "work": os.path.join(base, "work"),
                "textfiles": os.path.join(base, "textfiles")}

    def playbook(self, bad_target_host=None):
        """Runs the playbook on hosts h1, h2, h3; `bad_target_host` gets a
        target that does not exist."""
        lines = ["[drivestress]"]
        for host in ("h1", "h2", "h3"):
            d = self.host_dirs(host)
            os.makedirs(d["target"])
            target = d["target"] + "-missing" if host == bad_target_host else d["target"]
            lines.append(f"{host} drivestress_target={target} drivestress_work_dir={d['work']} "
                         f"drivestress_textfile_dir={d['textfiles']}")
        lines += ["[all:vars]", "ansible_connection=local",
                  "ansible_python_interpreter=/usr/bin/python3"]
        inventory = os.path.join(self.tmp, "inventory.ini")
        with open(inventory, "w") as f:
            f.write("\n".join(lines) + "\n")
        extra = {"drivestress_args": ARGS, "drivestress_fleet_dir": self.fleet,
                 "drivestress_local_binary": harness.DRIVESTRESS,
                 "drivestress_prom_labels": {"rack": "r12"}}
        env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0",
                   ANSIBLE_LOCAL_TEMP=os.path.join(self.tmp, "ansible-local"),
                   ANSIBLE_REMOTE_TEMP=os.path.join(self.tmp, "ansible-remote"),
                   ANSIBLE_ASYNC_DIR=os.path.join(self.tmp, "ansible-async"),
                   ANSIBLE_DEPRECATION_WARNINGS="0")
        p = subprocess.run(["ansible-playbook", "-i", inventory, PLAYBOOK,
                            "-e", json.dumps(extra)],
                           cwd=self.tmp, env=env, capture_output=True, text=True,
                           timeout=PLAYBOOK_TIMEOUT_S, stdin=subprocess.DEVNULL)
        fleet_json = os.path.join(self.fleet, "fleet.json")
        self.assertTrue(os.path.exists(fleet_json),
                        f"no fleet document; ansible-playbook exit {p.returncode}:\n"
                        f"{p.stdout[-6000:]}{p.stderr[-3000:]}")
        with open(os.path.join(self.fleet, "fleet.txt")) as f:
            print(f.read())  # the table, for the test log
        return p, load(fleet_json)

    def host_docs(self, hosts):
        return {h: load(os.path.join(self.fleet, f"{h}.json")) for h in hosts}

    def test_three_hosts_merge_into_one_fleet_document(self):
        p, fleet = self.playbook()
        self.assertEqual(p.returncode, 0, p.stdout[-6000:])
        self.assertIn("fleet: 3 host(s): 3 passed", p.stdout)
        docs = self.host_docs(("h1", "h2", "h3"))
        self.assertEqual([e["host"] for e in fleet["hosts"]], ["h1", "h2", "h3"])
        for e in fleet["hosts"]:
            doc = docs[e["host"]]
            self.assertEqual((e["status"], e["exit_code"]), ("passed", 0), e)
            self.assertEqual(e["run_id"], doc["run_id"])
            self.assertEqual(e["target"], self.host_dirs(e["host"])["target"])
            self.assertEqual(e["drive"], doc["target"]["drive"])
            self.assertEqual(e["ops"], ops_of(p for _, p in harness.phases_of(doc)))
            self.assertIn(ARGS[-1], e["command"])
        self.assertEqual(len({d["run_id"] for d in docs.values()}), 3)
        merged = fleet["merged"]
        self.assertEqual(len(merged["documents"]), 3)
        self.assertEqual(ops_of(merged["phases"]),
                         sum(ops_of(p for _, p in harness.phases_of(d)) for d in docs.values()))
        random = [p for p in merged["phases"] if p["phase"] == "random"][0]
        self.assertEqual(random["read_ops"] + random["write_ops"], 3 * 2000)
        self.assertEqual(fleet["fleet"], {"hosts": 3, "statuses": {"passed": 3},
                                          "worst_exit_code": 0})
        # Each host's textfile, in its node_exporter directory, has the verdict.
        for host in ("h1", "h2", "h3"):
            with open(os.path.join(self.host_dirs(host)["textfiles"], "drivestress.prom")) as f:
                text = f.read()
            self.assertIn('rack="r12",verdict="passed"} 1', text)
            self.assertIn("drivestress_running{", text)

    def test_a_failing_host_is_reported_without_hiding_the_others(self):
        p, fleet = self.playbook(bad_target_host="h2")
        self.assertNotEqual(p.returncode, 0, "the play must end failed when a host failed")
        by_host = {e["host"]: e for e in fleet["hosts"]}
        self.assertEqual(sorted(by_host), ["h1", "h2", "h3"])
        bad = by_host["h2"]
        self.assertEqual((bad["status"], bad["exit_code"], bad["document"]), ("error", 1, None))
        self.assertIn(self.host_dirs("h2")["target"] + "-missing", bad["error"])
        self.assertTrue(bad["error"].startswith("drivestress: "), bad["error"])
        for host in ("h1", "h3"):
            self.assertEqual((by_host[host]["status"], by_host[host]["exit_code"]), ("passed", 0))
        docs = self.host_docs(("h1", "h3"))
        self.assertFalse(os.path.exists(os.path.join(self.fleet, "h2.json")))
        merged = fleet["merged"]
        self.assertEqual(len(merged["documents"]), 2)
        self.assertEqual(ops_of(merged["phases"]),
                         sum(ops_of(p for _, p in harness.phases_of(d)) for d in docs.values()))
        self.assertEqual(fleet["fleet"]["worst_exit_code"], 1)
        self.assertEqual(fleet["fleet"]["statuses"], {"passed": 2, "error": 1})
        self.assertIn("not every host passed", p.stdout)


if __name__ == "__main__":
    harness.main()
