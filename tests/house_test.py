#!/usr/bin/env python3
"""The house rules docs/architecture.md and src/model/errors.h state, held on
the tree as git knows it (`git ls-files`), so that neither can drift:

- one voice on stderr: nothing in src/ writes to stderr (fprintf/fputs to
  stderr, std::cerr, perror) but units/diag.cpp, and the prefix
  "drivestress: " is spelled once, in units/diag.h;
- no test hook in the product: no DRIVESTRESS_TEST_ anywhere in src/ (the
  tests' hooked build, tests/helpers/drivestress_hooked.cpp, reads them),
  and no SIGSTOP raised by src/ (a pause point calls TestHooks::pause);
- the system's files through one seam: no string in src/ starts with
  "/proc/" or "/sys/" (sys/system_tree.h gives their paths) but
  "/proc/self/fd/", which names the process's own descriptors;
- no file in src/ over 600 lines, no function over 60 (universal-ctags
  measures them, as ../shared/tools/funclen does; lambdas count in the
  function around them; the SIMD kernels, generator_avx*, are left out);
- a namespace per folder: a file of src/FOLDER/ opens ds::FOLDER (or a
  namespace inside it) and no other;
- no `using namespace` in a header: a header names what it takes from
  another room (model::RunConfig); a .cpp may say `using namespace` for
  the vocabulary it speaks;
- each layer throws what src/model/errors.h says it does (units, stats and
  pattern std::invalid_argument; jobfile that or its JobFileError; io
  std::system_error; cli UsageError; the run's layers SetupError; sys,
  nvme and report nothing);
- nothing outside src/io/ branches on a backend's kind (BackendKind::): it
  asks the backend's flags (io::backend_flags);
- src/io/ is the device I/O room: the result files (output_file,
  block_appender, io_log) live in src/output/, never under src/io/;
- every test file (tests/**/*_test.cpp, *_test.py, test_*.py, *_e2e.py)
  opens with a line saying what it checks (a // comment, or a docstring
  after an optional #! line) and is at most 800 lines;
- docs/architecture.md names every folder of src/ in its table, every
  top-level folder of the repository, and every file it links to exists.

Exits 77 (SKIP) outside a git checkout.
Run: python3 tests/house_test.py REPO_ROOT"""

import os
import re
import subprocess
import sys

PRINTER = "src/units/diag.cpp"
PREFIX_HOME = "src/units/diag.h"
STDERR_WRITE = re.compile(r"fprintf\s*\(\s*stderr|fputs\s*\([^;]*,\s*stderr\s*\)|std::cerr|"
                          r"\bperror\s*\(|fputc\s*\([^;]*,\s*stderr\s*\)")
PREFIX = re.compile(r'"drivestress: ')
HOOK_VARIABLE = re.compile(r"DRIVESTRESS_TEST_")
SIGSTOP = re.compile(r"\bSIGSTOP\b")
MAX_LINES = 600
THROW = re.compile(r"\bthrow\s+([A-Za-z_][A-Za-z0-9_:]*)")
PURE = {"std::invalid_argument"}
SETUP = {"SetupError", "model::SetupError", "bad"}  # bad: a lambda making one
ALLOWED_THROWS = {
    "units": PURE, "stats": PURE, "pattern": PURE, "trace": PURE,
    "jobfile": PURE | {"JobFileError"},
    "io": {"std::system_error", "std::bad_alloc"},
    "sys": set(), "nvme": set(), "report": set(),
    # cli: and a job file's refusal, the reader's own (cli/job_file_jobs.h)
    "cli": {"UsageError", "bad", "jobfile::JobFileError"} | SETUP,
    "model": SETUP, "engine": SETUP, "targets": SETUP, "run": SETUP, "metrics": SETUP,
    "modes": SETUP,
}
SYSTEM_PATH = re.compile(r'"/(proc|sys)/(?!self/fd/)')
SEAM = "src/sys/system_tree.cpp"
BACKEND_KIND = re.compile(r"BackendKind::")
USING_NAMESPACE = re.compile(r"^\s*using\s+namespace\b")
NAMESPACE = re.compile(r"^\s*namespace\s+(ds(?:::[A-Za-z_]+)*)\s*\{")
RESULT_FILE_SOURCES = ("output_file", "block_appender", "io_log")
TEST_FILE = re.compile(r"^tests/(.+/)?([^/]+_test\.(cpp|py)|test_[^/]+\.py|[^/]+_e2e\.py)$")
MAX_TEST_LINES = 800
THREADS_MARK = "// suite threads:"  # tests/unit_tests.py's, not a purpose


def code_lines(text):
    """(number, line) of each line with its // comment removed (string
    literals holding // are rare enough in src/ to be flagged, not hidden)."""
    for n, line in enumerate(text.splitlines(), 1):
        yield n, re.sub(r"^\s*//.*$", "", line)


def voice_problems(root, files):
    found = []
    for path in files:
        if not path.startswith("src/") or not path.endswith((".cpp", ".h")):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        if text.count("\n") > MAX_LINES:
            found.append(f"{path}: {text.count(chr(10))} lines, more than {MAX_LINES}")
        for n, line in enumerate(text.splitlines(), 1):  # comments too
            if HOOK_VARIABLE.search(line):
                found.append(f"{path}:{n}: names a test hook variable: {line.strip()}")
        folder = path.split("/")[1] if path.count("/") >= 2 else None
        for n, line in code_lines(text):
            m = NAMESPACE.match(line)
            if m and folder and m.group(1) != f"ds::{folder}" and \
                    not m.group(1).startswith(f"ds::{folder}::"):
                found.append(f"{path}:{n}: opens {m.group(1)} in src/{folder}/ (its namespace "
                             f"is ds::{folder})")
            if path.endswith(".h") and USING_NAMESPACE.match(line):
                found.append(f"{path}:{n}: says `using namespace` in a header (name what it "
                             f"takes: model::RunConfig): {line.strip()}")
            if SIGSTOP.search(line):
                found.append(f"{path}:{n}: raises SIGSTOP (a pause point is TestHooks::pause): "
                             f"{line.strip()}")
            for thrown in THROW.findall(line):
                if folder in ALLOWED_THROWS and thrown not in ALLOWED_THROWS[folder]:
                    found.append(f"{path}:{n}: throws {thrown}, not what src/{folder}/ throws "
                                 f"(src/model/errors.h): {line.strip()}")
            if path != SEAM and SYSTEM_PATH.search(line):
                found.append(f"{path}:{n}: reads the system by absolute path (ask "
                             f"sys::system_tree()): {line.strip()}")
            if not path.startswith("src/io/") and BACKEND_KIND.search(line):
                found.append(f"{path}:{n}: names a backend kind outside src/io/ (ask "
                             f"io::backend_flags): {line.strip()}")
            if path != PRINTER and STDERR_WRITE.search(line):
                found.append(f"{path}:{n}: writes to stderr outside {PRINTER}: {line.strip()}")
            if path != PREFIX_HOME and PREFIX.search(line):
                found.append(f"{path}:{n}: spells the prefix outside {PREFIX_HOME}: "
                             f"{line.strip()}")
    return found


MAX_FUNCTION_LINES = 60


def function_problems(root, files):
    """Functions longer than MAX_FUNCTION_LINES, by universal-ctags' start
    and end lines; None when ctags is missing (scripts/test installs it)."""
    sources = [p for p in files if p.startswith("src/") and p.endswith((".cpp", ".h"))
               and "generator_avx" not in p]
    try:
        out = subprocess.run(["ctags", "--fields=+ne", "--c++-kinds=f", "-o", "-", *sources],
                             cwd=root, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    found = []
    for line in out.splitlines():
        fields = line.split("\t")
        if fields[0].startswith("__anon"):
            continue
        start = end = None
        for f in fields[3:]:
            if f.startswith("line:"):
                start = int(f[5:])
            elif f.startswith("end:"):
                end = int(f[4:])
        if start and end and end - start + 1 > MAX_FUNCTION_LINES:
            found.append(f"{fields[1]}:{start}: {fields[0]} is {end - start + 1} lines, more "
                         f"than {MAX_FUNCTION_LINES}")
    return found


def io_room_problems(files):
    """Result-file sources under src/io/: they belong to src/output/."""
    found = []
    for path in files:
        folder, name = os.path.split(path)
        if folder == "src/io" and os.path.splitext(name)[0] in RESULT_FILE_SOURCES:
            found.append(f"{path}: a result file's source in the device I/O room (its place is "
                         f"src/output/)")
    return found


def purpose_line(path, lines):
    """The line that says what a test file checks, or None: a // comment
    opening a C++ file (not the threads-suite mark), a docstring opening a
    Python file (after an optional #! line)."""
    if path.endswith(".py"):
        if lines and lines[0].startswith("#!"):
            lines = lines[1:]
        first = lines[0] if lines else ""
        text = first[3:].strip() if first.startswith('"""') else ""
    else:
        first = lines[0] if lines else ""
        text = first[2:].strip() if first.startswith("//") and \
            not first.startswith(THREADS_MARK) else ""
    return text or None


def test_file_problems(root, files):
    found = []
    for path in files:
        if not TEST_FILE.match(path):
            continue
        with open(os.path.join(root, path), encoding="utf-8") as f:
            lines = f.read().splitlines()
        if len(lines) > MAX_TEST_LINES:
            found.append(f"{path}: {len(lines)} lines, more than {MAX_TEST_LINES} (split it by "
                         f"what it checks)")
        if purpose_line(path, lines) is None:
            found.append(f"{path}: does not open with a line saying what it checks")
    return found


def architecture_problems(root, files):
    with open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8") as f:
        page = f.read()
    found = []
    src_folders = sorted({p.split("/")[1] for p in files if p.startswith("src/") and p.count("/") >= 2})
    for folder in src_folders:
        if f"[`src/{folder}/`](../src/{folder})" not in page:
            found.append(f"docs/architecture.md: no row for src/{folder}/")
    top = sorted({p.split("/")[0] for p in files if "/" in p and not p.startswith(".")})
    for folder in top:
        if f"](../{folder})" not in page and f"](../{folder}/" not in page and folder != "docs":
            found.append(f"docs/architecture.md: the top-level folder {folder}/ is not named")
    tracked = set(files)
    tracked_dirs = {os.path.dirname(p) for p in files}
    for target in re.findall(r"\]\(\.\./([^)#\s]+)\)", page):
        target = target.rstrip("/")
        if target not in tracked and not any(d == target or d.startswith(target + "/")
                                             for d in tracked_dirs):
            found.append(f"docs/architecture.md: links to {target}, which git does not know")
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.getcwd()
    try:
        files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                               check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        print("SKIP: not a git checkout (git ls-files failed)")
        return 77
    if not files:
        print("SKIP: git ls-files lists nothing")
        return 77
    problems = (voice_problems(root, files) + io_room_problems(files) +
                test_file_problems(root, files) + architecture_problems(root, files))
    functions = function_problems(root, files)
    if functions is None:
        print("note: universal-ctags is missing: function lengths not checked "
              "(apt-get install universal-ctags)")
    else:
        problems += functions
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
