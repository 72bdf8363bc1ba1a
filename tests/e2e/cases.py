#!/usr/bin/env python3
"""The end-to-end cases, found in tests/e2e/test_*.py: one meson test each.

A case is a concrete test method: a method unittest's loader finds on a
TestCase class of the module, unless another test class of that module
derives from the class (then it is a base, run through its subclasses).
Its meson name, timeout, is_parallel and threads are declared in its module
(harness.meson_case, MESON_CASE; see harness.py), so a case is written in
one place and tests/e2e/meson.build lists nothing by hand:

  cases.py --sources           the files cases are declared in: harness.py
                               and every test_*.py, for meson.build to pass
                               back as arguments (a changed one re-runs
                               configure)
  cases.py [FILE...]           one line per case of the test_*.py among them
                               (of every one without FILE):
                               NAME SCRIPT SELECTOR TIMEOUT PARALLEL THREADS
  cases.py --threads [FILE...] the same, of the cases in suite "threads" only
  cases.py --check INTRO_JSON [--threads]
                               the meson test e2e-registry: the e2e tests the
                               build registered (meson-info/intro-tests.json)
                               against the cases in the tree now (those in
                               suite "threads" in a -Dtests=threads build)

Listing fails (and with it meson's configure) on a name used twice, a name
with a character other than [A-Za-z0-9._-], or a template it cannot fill.
Configure imports every module: at import time a module uses the standard
library only and runs nothing (a missing tool or package is a skip in setUp).
The check can only find drift a configure has not caught: a module added
after the build was configured (meson does not watch the directory), or a
registration changed in meson.build; it names each case that differs.
"""

import argparse
import importlib
import inspect
import json
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402  (after the path: the modules import it too)

NAME_RE = re.compile(r"^[A-Za-z0-9._-]+$")


class DeclarationError(Exception):
    pass


def module_files():
    return sorted(f for f in os.listdir(HERE) if f.startswith("test_") and f.endswith(".py"))


def test_classes(module):
    """The concrete TestCase classes defined in module."""
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
               if issubclass(c, unittest.TestCase) and c.__module__ == module.__name__]
    bases = {b for c in classes for b in c.__mro__[1:] if b in classes}
    return [c for c in classes if c not in bases]


def attributes(module, cls, method):
    """CASE_DEFAULTS < the module's MESON_CASE < classes, base first < the method."""
    layers = [getattr(module, "MESON_CASE", {})]
    layers += [k.__dict__.get("meson_case", {}) for k in reversed(cls.__mro__)]
    layers.append(getattr(getattr(cls, method), "meson_case", {}))
    merged = dict(harness.CASE_DEFAULTS)
    for layer in layers:
        unknown = set(layer) - set(harness.CASE_DEFAULTS)
        if unknown:
            raise DeclarationError(f"{module.__name__}.py: MESON_CASE has unknown "
                                   f"attribute {sorted(unknown)[0]!r}")
        merged.update(layer)
    return merged


def dashed(text):
    return text.replace("_", "-")


def case_of(module, cls, method):
    """(name, script, selector, timeout, is_parallel, threads) of one test method."""
    attrs = attributes(module, cls, method)
    selector = f"{cls.__name__}.{method}"
    fields = {"case": dashed(method.removeprefix("test_")), "cls": cls.__name__.lower(),
              "module": dashed(module.__name__.removeprefix("test_")),
              "backend": getattr(cls, "backend", None)}
    try:
        name = attrs["name"].format(**fields)
    except KeyError as e:
        raise DeclarationError(f"{module.__name__}.py: {selector}: unknown {{{e.args[0]}}} "
                               f"in name {attrs['name']!r}") from None
    if "{backend}" in attrs["name"] and not fields["backend"]:
        raise DeclarationError(f"{module.__name__}.py: {selector}: name {attrs['name']!r} "
                               f"says {{backend}} but the class sets no backend")
    if not NAME_RE.match(name):
        raise DeclarationError(f"{module.__name__}.py: {selector}: bad meson name {name!r}")
    return (name, module.__name__ + ".py", selector, int(attrs["timeout"]),
            bool(attrs["is_parallel"]), bool(attrs["threads"]))


def cases(files, threads_only=False):
    """Every case of the given test_*.py files, in file, class, method order
    (those in suite "threads" only, with threads_only)."""
    found, names = [], {}
    for f in (f for f in files if os.path.basename(f).startswith("test_")):
        module = importlib.import_module(os.path.splitext(os.path.basename(f))[0])
        loader = unittest.TestLoader()
        for cls in test_classes(module):
            for method in loader.getTestCaseNames(cls):
                case = case_of(module, cls, method)
                if case[0] in names:
                    raise DeclarationError(f"meson name {case[0]!r} of {case[1]}: {case[2]} "
                                           f"is also that of {names[case[0]]}")
                names[case[0]] = f"{case[1]}: {case[2]}"
                if case[5] or not threads_only:
                    found.append(case)
    return found


def registered(intro_path):
    """The build's e2e tests (a test_*.py of this folder in the command) as cases."""
    with open(intro_path) as f:
        tests = json.load(f)
    found = []
    for t in tests:
        cmd = t.get("cmd", [])
        scripts = [a for a in cmd if os.path.dirname(os.path.realpath(a)) == HERE
                   and os.path.basename(a).startswith("test_") and a.endswith(".py")]
        if not scripts:
            continue
        after = cmd[cmd.index(scripts[0]) + 1:]
        selectors = " ".join(a for a in after if a[:1].isupper())
        found.append((t["name"], os.path.basename(scripts[0]), selectors,
                      int(t.get("timeout", 30)), bool(t.get("is_parallel", True)),
                      any(s.split(":")[-1] == "threads" for s in t.get("suite", []))))
    return found


def check(intro_path, threads_only):
    """0 when the build registers exactly the cases in the tree, else 1 naming each."""
    want, have = set(cases(module_files(), threads_only)), set(registered(intro_path))
    for c in sorted(want - have):
        print(f"not registered: {' '.join(map(str, c))}")
    for c in sorted(have - want):
        print(f"registered, not in the tree: {' '.join(map(str, c))}")
    if want != have:
        print("(a test_*.py added since configure: meson setup --reconfigure BUILD)")
    print(f"e2e registry: {len(module_files())} modules, {len(want)} cases, "
          f"{len(have)} registered, {len(want ^ have)} differences")
    return 0 if want == have else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", action="store_true", help="list the files cases are declared in")
    ap.add_argument("--check", metavar="INTRO_JSON", help="check a build's registered tests")
    ap.add_argument("--threads", action="store_true", help='the cases in suite "threads" only')
    ap.add_argument("files", nargs="*", help="list the cases of these test_*.py files")
    args = ap.parse_args()
    try:
        if args.sources:
            print("\n".join(["harness.py"] + module_files()))
            return 0
        if args.check:
            return check(args.check, args.threads)
        for c in cases(args.files or module_files(), args.threads):
            print(" ".join([*map(str, c[:4]), *("true" if b else "false" for b in c[4:])]))
        return 0
    except DeclarationError as e:
        print(f"cases.py: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
