#!/usr/bin/env python3
"""Reads meson's testlog.json for scripts/test.

  testlog.py counts TESTLOG   "passed failed skipped"
  testlog.py skips TESTLOG    one line per skipped test: "  SKIP name: reason"
  testlog.py fails TESTLOG    one line per failed test: "  FAIL name (RESULT, N s)"

A skipped test says why on its output (a "SKIP: ..." line, or unittest's
"skipped 'reason'"); meson keeps that only in its log, so scripts/test
prints it at the end: a skip is a test that did not run, and its reason
is what tells a missing package from a machine that cannot run it.
"""

import json
import re
import sys

# unittest's own words first: a "SKIP: test-id: reason" line that repeats
# one of them adds nothing.
REASONS = (re.compile(r"skipped ['\"](.+?)['\"]\s*$", re.M),
           re.compile(r"^SKIP:?\s*(.+)$", re.M))

FAILED = ("FAIL", "TIMEOUT", "ERROR", "UNEXPECTEDPASS")


def results(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def counts(tests):
    c = {}
    for t in tests:
        r = t.get("result", "ERROR")
        c[r] = c.get(r, 0) + 1
    failed = sum(c.get(k, 0) for k in FAILED)
    return c.get("OK", 0) + c.get("EXPECTEDFAIL", 0), failed, c.get("SKIP", 0)


def skip_reason(test):
    text = (test.get("stdout") or "") + "\n" + (test.get("stderr") or "")
    found = []
    for pattern in REASONS:
        for m in pattern.finditer(text):
            reason = m.group(1).strip()
            if reason and not any(f in reason for f in found):
                found.append(reason)
    return "; ".join(found) or "(no reason printed)"


def skips(tests):
    return [f"  SKIP {t['name']}: {skip_reason(t)}" for t in tests if t.get("result") == "SKIP"]


def fails(tests):
    return [f"  FAIL {t['name']} ({t.get('result', 'ERROR')}, {t.get('duration', 0):.0f} s)"
            for t in tests if t.get("result", "ERROR") in FAILED]


def main(argv):
    if len(argv) != 3 or argv[1] not in ("counts", "skips", "fails"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    tests = results(argv[2])
    if argv[1] == "counts":
        print(*counts(tests))
    else:
        for line in (skips if argv[1] == "skips" else fails)(tests):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
