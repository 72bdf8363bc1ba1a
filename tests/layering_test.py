#!/usr/bin/env python3
"""The layering src/meson.build declares, checked on the #include lines.

Each folder under src/ is one library and may include headers of the
folders below it only (data flows cli -> model -> run -> engine and targets
-> io, output, pattern, stats -> results in model -> report and metrics).  A new arrow is a design change: make it here and in
src/meson.build on purpose, or the test fails naming the file and line.
Run: python3 tests/layering_test.py SRC_DIR"""

import os
import re
import sys

GROUND = {"units", "jobfile", "pattern", "stats", "trace", "sys", "io", "output"}
ALLOWED = {
    "units": set(),
    # jobfile reads fio's job files into typed jobs; units/ for sizes in
    # its messages.  It knows nothing of the engine: cli/ or run/ map its jobs.
    "jobfile": {"units"},
    "pattern": set(),
    "stats": set(),
    # trace reads I/O traces for --replay: std and nlohmann/json only.
    "trace": set(),
    # io reads kernel.io_uring_disabled through sys/system_tree.h and owns
    # its descriptors through sys/unique_fd.h.
    "io": {"sys"},
    # output writes result files and the I/O log through sys/'s descriptors
    # and whole-transfer loops; it never reaches a backend.
    "output": {"sys"},
    # sys speaks through units/diag.h (the signal handler's last word).
    "sys": {"units"},
    "nvme": {"sys"},
    "model": GROUND | {"nvme"},
    "engine": GROUND | {"model"},
    "targets": GROUND | {"model"},
    "run": GROUND | {"nvme", "model", "engine", "targets"},
    # The command line and the renderers speak the vocabulary only: they
    # never reach the engine, the target or the coordinator.  cli maps the
    # job-file reader's jobs onto the engine's (cli/job_file_jobs.h).
    "cli": {"units", "jobfile", "sys", "output", "model"},
    "report": GROUND | {"nvme", "model"},
    "metrics": GROUND | {"nvme", "model", "report"},
    "modes": GROUND | {"nvme", "model", "engine", "targets", "run", "cli", "report", "metrics"},
}
# Inside an allowed module, headers it must still not reach for: the modes
# start runs through the coordinator, never a worker of their own.
FORBIDDEN_HEADERS = {
    "modes": {"engine/worker.h", "engine/worker_pool.h", "engine/engine.h"},
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
