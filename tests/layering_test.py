#!/usr/bin/env python3
"""The layering src/meson.build declares, checked on the #include lines.

Each folder under src/ is one library and may include headers of the
folders below it only (data flows cli -> run -> io, pattern, stats ->
results -> report).  A new arrow is a design change: make it here and in
src/meson.build on purpose, or the test fails naming the file and line.
Run: python3 tests/layering_test.py SRC_DIR"""

import os
import re
import sys

ALLOWED = {
    "units": set(),
    "pattern": set(),
    "stats": set(),
    "io": set(),
    "nvme": {"io"},
    "run": {"units", "pattern", "stats", "io", "nvme"},
    "cli": {"units", "io", "run"},
    "report": {"units", "pattern", "stats", "io", "nvme", "run"},
    "modes": {"units", "pattern", "stats", "io", "nvme", "run", "cli", "report"},
}
# Inside an allowed module, headers a lower layer must still not reach for:
# the run layer's coordinator is not for the command line to call.
FORBIDDEN_HEADERS = {
    "cli": {"run/runner.h", "run/worker.h", "run/target.h"},
    "report": {"run/runner.h", "run/worker.h", "run/target.h"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"(([a-z_]+)/[^"]+)"')


def violations(src):
    found = []
    for module in sorted(os.listdir(src)):
        folder = os.path.join(src, module)
        if not os.path.isdir(folder):
            continue
        if module not in ALLOWED:
            found.append(f"{folder}: a module tests/layering_test.py does not know; declare it")
            continue
        for name in sorted(os.listdir(folder)):
            if not name.endswith((".h", ".cpp")):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header, target = m.group(1), m.group(2)
                    if target == module:
                        continue
                    if target not in ALLOWED:
                        continue  # not a module (e.g. a generated header)
                    if target not in ALLOWED[module]:
                        found.append(f"{path}:{number}: {module}/ may not include {header}")
                    elif header in FORBIDDEN_HEADERS.get(module, set()):
                        found.append(f"{path}:{number}: {module}/ may not include {header}")
    return found


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..",
                                                             "src")
    found = violations(src)
    for v in found:
        print(v)
    print(f"layering: {len(found)} violation(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
