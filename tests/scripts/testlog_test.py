#!/usr/bin/env python3
"""scripts/testlog.py: the counts scripts/test prints, each skipped test's
reason and each failed test, from a meson testlog.json made up here."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--scripts", required=True)
ap.add_argument("--data")
OPTS, REST = ap.parse_known_args()

LOG = [
    {"name": "drivestress:unit / knee", "result": "OK", "stdout": "", "stderr": ""},
    {"name": "drivestress:e2e / a", "result": "FAIL", "duration": 2.4, "stdout": "", "stderr": ""},
    {"name": "drivestress:scripts / plot-script", "result": "SKIP",
     "stdout": "SKIP: matplotlib is missing (apt-get install -y python3-matplotlib)\n", "stderr": ""},
    {"name": "drivestress:e2e / raw", "result": "SKIP", "stdout": "",
     "stderr": "test_raw (__main__.Raw.test_raw) ... skipped 'sfdisk not installed (Debian package fdisk)'\n"},
    {"name": "drivestress:e2e / mute", "result": "SKIP", "stdout": "", "stderr": ""},
    {"name": "drivestress:e2e / twice", "result": "SKIP",
     "stdout": "SKIP: __main__.Raw.test_holder: no device-mapper here\n",
     "stderr": "test_holder (__main__.Raw.test_holder) ... skipped 'no device-mapper here'\n"},
    {"name": "drivestress:e2e / slow", "result": "TIMEOUT", "duration": 90.0, "stdout": "",
     "stderr": ""},
]


class TestLog(unittest.TestCase):
    def run_tool(self, mode):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "testlog.json")
            with open(path, "w") as f:
                f.write("".join(json.dumps(t) + "\n" for t in LOG))
            p = subprocess.run([sys.executable, os.path.join(OPTS.scripts, "testlog.py"), mode, path],
                               capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_counts(self):
        self.assertEqual(self.run_tool("counts"), "1 2 4\n")

    def test_every_skip_with_its_reason(self):
        self.assertEqual(self.run_tool("skips").splitlines(), [
            "  SKIP drivestress:scripts / plot-script: matplotlib is missing "
            "(apt-get install -y python3-matplotlib)",
            "  SKIP drivestress:e2e / raw: sfdisk not installed (Debian package fdisk)",
            "  SKIP drivestress:e2e / mute: (no reason printed)",
            "  SKIP drivestress:e2e / twice: no device-mapper here",
        ])

    def test_every_failure_with_its_result(self):
        self.assertEqual(self.run_tool("fails").splitlines(), [
            "  FAIL drivestress:e2e / a (FAIL, 2 s)",
            "  FAIL drivestress:e2e / slow (TIMEOUT, 90 s)",
        ])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
