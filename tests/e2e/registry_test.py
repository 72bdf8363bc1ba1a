#!/usr/bin/env python3
"""Every end-to-end test method is registered as a meson test.

tests/e2e/meson.build names the tests by hand (readable names such as
corruption-bit-flip-io_uring); a method added to a test_*.py file and not
registered there would never run.  This loads every test_*.py module, lists
the concrete test methods (a TestCase class that other test classes in its
module derive from is a base, not run by itself), and checks each is
selected by some registered test's command line, either as Class.method or
as Class.  It fails naming every method that no test runs.

  python3 tests/e2e/registry_test.py --intro BUILD/meson-info/intro-tests.json
"""

import argparse
import importlib.util
import inspect
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def registered_selectors(intro_path):
    """Class or Class.method arguments of the registered e2e tests, per script."""
    with open(intro_path) as f:
        tests = json.load(f)
    selected = {}
    for t in tests:
        cmd = t.get("cmd", [])
        scripts = [a for a in cmd if os.path.basename(a).startswith("test_") and a.endswith(".py")]
        if not scripts:
            continue
        script = os.path.basename(scripts[0])
        names = selected.setdefault(script, set())
        for a in cmd[cmd.index(scripts[0]) + 1:]:
            if a[:1].isupper():
                names.add(a)
    return selected


def concrete_methods(path):
    """Class.method of every test method a run of the module can select."""
    sys.path.insert(0, HERE)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
               if issubclass(c, unittest.TestCase) and c.__module__ == name]
    bases = {b for c in classes for b in c.__mro__[1:] if b in classes}
    loader = unittest.TestLoader()
    return {f"{c.__name__}.{m}" for c in classes if c not in bases
            for m in loader.getTestCaseNames(c)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--intro", required=True, help="meson-info/intro-tests.json of the build")
    args = ap.parse_args()
    selected = registered_selectors(args.intro)
    missing = []
    scripts = sorted(f for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".py"))
    for script in scripts:
        names = selected.get(script, set())
        for method in sorted(concrete_methods(os.path.join(HERE, script))):
            if method not in names and method.split(".")[0] not in names:
                missing.append(f"{script}: {method}")
    for m in missing:
        print(f"not registered in tests/e2e/meson.build: {m}")
    total = sum(len(v) for v in selected.values())
    print(f"e2e registry: {len(scripts)} scripts, {total} selectors, {len(missing)} unregistered")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
