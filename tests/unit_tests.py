#!/usr/bin/env python3
"""The unit test programs, found: every tests/FOLDER/NAME_test.cpp is the
doctest program NAME_test, the meson test NAME (suite unit).

  unit_tests.py               one line per program, for tests/meson.build:
                              NAME FOLDER/NAME_test.cpp THREADS
  unit_tests.py --threads     the same, of the programs in suite "threads"
  unit_tests.py --check INTRO_JSON [--threads]
                              the meson test unit-registry: every
                              *_test.cpp (in suite "threads", with
                              --threads) is a test of the build
                              (meson-info/intro-tests.json) and every
                              NAME_test program there still has its source

A program is in suite "threads" too when its source has a line
`// suite threads: WHY` (WHY: the threads it drives): the unit tests of
the TSan build, configured -Dtests=threads so that it compiles nothing else.

Meson does not watch the folders, so a file added after configure is built
only after `meson setup --reconfigure BUILD`; the check says so, naming it.
Listing fails (and with it configure) on two files of one NAME.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUFFIX = "_test.cpp"
THREADS_MARK = re.compile(r"^// suite threads: \S", re.M)


def in_threads_suite(source):
    with open(os.path.join(HERE, source)) as f:
        return THREADS_MARK.search(f.read()) is not None


def programs(threads_only=False):
    """{NAME: FOLDER/NAME_test.cpp} of every folder under tests/ (of those in
    suite "threads" only, with threads_only)."""
    found = {}
    for folder in sorted(os.listdir(HERE)):
        path = os.path.join(HERE, folder)
        if not os.path.isdir(path):
            continue
        for f in sorted(os.listdir(path)):
            if not f.endswith(SUFFIX):
                continue
            name = f[:-len(SUFFIX)]
            if name in found:
                raise ValueError(f"two unit test programs {name}_test: "
                                 f"{found[name]} and {folder}/{f}")
            found[name] = f"{folder}/{f}"
    if threads_only:
        return {n: s for n, s in found.items() if in_threads_suite(s)}
    return found


def built(intro_path):
    """{NAME: program path} of the build's tests that run a NAME_test program."""
    with open(intro_path) as f:
        tests = json.load(f)
    return {t["name"]: t["cmd"][0] for t in tests
            if t.get("cmd") and os.path.basename(t["cmd"][0]) == t["name"] + "_test"}


def check(intro_path, threads_only):
    want, have = programs(threads_only), built(intro_path)
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    for name in missing:
        print(f"not built: tests/{want[name]} (meson setup --reconfigure BUILD)")
    for name in extra:
        print(f"built, its source gone: {have[name]} (no tests/*/{name}{SUFFIX})")
    print(f"unit registry: {len(want)} *{SUFFIX} files, {len(have)} programs built, "
          f"{len(missing) + len(extra)} differences")
    return 1 if missing or extra else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", metavar="INTRO_JSON", help="check a build's unit tests")
    ap.add_argument("--threads", action="store_true", help='the programs in suite "threads" only')
    args = ap.parse_args()
    try:
        if args.check:
            return check(args.check, args.threads)
        for name, source in programs(args.threads).items():
            print(name, source, "true" if in_threads_suite(source) else "false")
        return 0
    except ValueError as e:
        print(f"unit_tests.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
