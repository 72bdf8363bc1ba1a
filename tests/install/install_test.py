#!/usr/bin/env python3
"""`meson install` into a temporary DESTDIR: the binary runs from there, the
man page documents every option --help lists, the bash completion
completes option names and values the way --help describes them, and the
result tools (drivestress-compare, -fleet, -plot) answer --help and work
from their installed place, with their Python modules, not from the source
tree.

  python3 tests/install/install_test.py --build BUILD --meson MESON [--data DIR] [unittest args]

--data: tests/scripts/data, real result documents for the installed tools.
"""

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--build", required=True, help="the meson build directory")
ap.add_argument("--meson", required=True, help="the meson program")
ap.add_argument("--data", help="tests/scripts/data: result documents for the installed tools")
OPTS, REST = ap.parse_known_args()
if OPTS.data:
    OPTS.data = os.path.abspath(OPTS.data)

OPTION = re.compile(r"^  (?:-\w, |    )(--[a-z0-9-]+)")


def help_options(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    return [m.group(1) for m in map(OPTION.match, out.splitlines()) if m]


class Installed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.destdir = tempfile.mkdtemp(prefix="ds-install.")
        r = subprocess.run([OPTS.meson, "install", "-C", OPTS.build, "--no-rebuild",
                            "--destdir", cls.destdir], capture_output=True, text=True)
        if r.returncode != 0:
            raise AssertionError(f"meson install failed:\n{r.stdout}\n{r.stderr}")
        installed = json.loads(subprocess.run(
            [OPTS.meson, "introspect", "--installed", OPTS.build],
            capture_output=True, text=True, check=True).stdout)
        # Where each built file went ({built: installed}), under DESTDIR.
        cls.paths = {cls.destdir + dst for dst in installed.values()}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.destdir)

    def installed(self, suffix):
        hits = [p for p in self.paths if p.endswith(suffix)]
        self.assertEqual(len(hits), 1, f"{suffix} among {sorted(self.paths)}")
        self.assertTrue(os.path.isfile(hits[0]), hits[0])
        return hits[0]

    def test_binary_runs_from_its_installed_place(self):
        binary = self.installed("/bin/drivestress")
        r = subprocess.run([binary, "--version"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"^drivestress \d+\.\d+\.\d+\n$")

    def test_man_page_documents_every_option(self):
        suffix = "/man1/drivestress.1"
        if not any(p.endswith(suffix) for p in self.paths):
            self.skipTest("no man page in this build (help2man missing, -Dman=auto)")
        with open(self.installed(suffix)) as f:
            roff = f.read()
        self.assertRegex(roff, r'(?m)^\.TH DRIVESTRESS "1"')
        self.assertIn(".SH SYNOPSIS", roff)
        text = re.sub(r"\\f[BIR]|\\[,/]", "", roff).replace("\\-", "-")
        lines = text.splitlines()
        # Each option is the term of a list entry (.TP, then "-s, --size SIZE").
        terms = {m.group(1) for prev, line in zip(lines, lines[1:]) if prev == ".TP"
                 for m in [re.match(r"(?:-\w, )?(--[a-z0-9-]+)", line)] if m}
        options = help_options(self.installed("/bin/drivestress"))
        self.assertGreater(len(options), 30)
        self.assertEqual(set(options) - terms, set())
        for heading in ("Exit status:", "Presets (--preset NAME"):
            self.assertIn(f'.SS "{heading}', text)
        # The EXAMPLES section (share/drivestress.h2m): real command lines,
        # each using options the binary has.
        self.assertIn(".SH EXAMPLES", roff)
        examples = text.split(".SH EXAMPLES", 1)[1].split("\n.SH ", 1)[0]
        used = set(re.findall(r"(--[a-z][a-z0-9-]+)", examples))
        self.assertGreater(len(used), 3, examples)
        self.assertEqual(used - set(options), set())
        # Installed, the result tools are drivestress-plot and the like, not
        # the source tree's scripts/plot (issue 33).
        self.assertNotIn("scripts/", text)
        for tool in re.findall(r"drivestress-([a-z]+)", examples):
            self.assertTrue(any(p.endswith("/bin/drivestress-" + tool) for p in self.paths),
                            f"the man page names drivestress-{tool}, which is not installed")

    def complete(self, *words):
        """What the installed completion offers for `drivestress WORDS...`
        (the last word is the one being completed)."""
        script = self.installed("/completions/drivestress")
        line = "drivestress " + " ".join(words)
        cmd = (f'source "$1"; COMP_WORDS=(drivestress "${{@:2}}"); '
               f'COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 )); COMP_LINE="{line}"; '
               '_drivestress; printf "%s\\n" "${COMPREPLY[@]}"')
        r = subprocess.run(["bash", "-c", cmd, "complete", script, *words],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return set(filter(None, r.stdout.splitlines()))

    def test_completion_offers_every_option_and_the_listed_values(self):
        options = help_options(self.installed("/bin/drivestress"))
        self.assertEqual(self.complete("--"), set(options))
        self.assertEqual(self.complete("--ba"), {"--backend", "--batch"})
        self.assertEqual(self.complete("--backend", ""), {"auto", "io_uring", "sync", "nop"})
        self.assertEqual(self.complete("--backend", "=", ""), {"auto", "io_uring", "sync", "nop"})
        self.assertEqual(self.complete("--sync", "fd"), {"fdatasync"})
        self.assertEqual(self.complete("--preset", ""),
                         {"quick", "desktop", "nvme", "burn-in", "database", "nvme-endurance"})
        self.assertEqual(self.complete("--sweep", ""), {"qd=", "files=", "rand-block="})
        self.assertEqual(self.complete("--size", ""), set())  # a SIZE: nothing to guess
        # LISTs of fixed words, from the option table, after the last comma.
        self.assertEqual(self.complete("--phases", ""),
                         {"seq-write", "seq-read", "random", "reverify"})
        self.assertEqual(self.complete("--phases", "seq-write,r"),
                         {"seq-write,random", "seq-write,reverify"})
        self.assertEqual(self.complete("--compare-extra", ""), {"sync-qd1", "sqpoll"})
        self.assertEqual(self.complete("--compare-extra", "sync-qd1,s"),
                         {"sync-qd1,sync-qd1", "sync-qd1,sqpoll"})

    def test_completion_of_raw_devices_offers_block_devices_only(self):
        import stat
        offered = self.complete("--raw-device", "/dev/loo")
        self.assertNotIn("/dev/loop-control", offered)
        for path in offered:
            mode = os.stat(path).st_mode
            self.assertTrue(stat.S_ISBLK(mode) or stat.S_ISDIR(mode), path)
        loops = {"/dev/" + n for n in os.listdir("/dev") if n.startswith("loo")
                 and stat.S_ISBLK(os.stat("/dev/" + n).st_mode)}
        self.assertEqual(offered, loops)
        if not loops and not os.path.exists("/dev/loop-control"):
            self.skipTest("no /dev/loop* here: nothing to tell block devices from")

    def test_completion_of_paths(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "sub"))
            open(os.path.join(d, "state.file"), "w").close()
            self.assertEqual(self.complete(d + "/"), {d + "/sub"})  # TARGET: directories
            self.assertEqual(self.complete("--verify-only", d + "/st"), {d + "/state.file"})

    # --- the result tools ------------------------------------------------------

    TOOLS = {  # tool -> what its --help must say it needs
        "compare": "Needs python3 alone",
        "fleet": "Needs python3 alone",
        "plot": "Needs python3 and matplotlib",
    }

    def run_tool(self, tool, *args, cwd=None):
        """The installed launcher, with nothing of the source tree in reach:
        no PYTHONPATH, run from an empty directory."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        with tempfile.TemporaryDirectory() as empty:
            return subprocess.run([self.installed(f"/bin/drivestress-{tool}"), *args],
                                  capture_output=True, text=True, env=env, cwd=cwd or empty,
                                  timeout=120)

    def test_result_tools_answer_help_from_their_installed_place(self):
        moduledir = os.path.dirname(self.installed("/drivestress/python/results.py"))
        for tool, needs in self.TOOLS.items():
            with self.subTest(tool=tool):
                launcher = self.installed(f"/bin/drivestress-{tool}")
                self.assertTrue(os.access(launcher, os.X_OK), launcher)
                self.assertEqual(os.path.dirname(self.installed(f"/python/{tool}.py")),
                                 moduledir)
                r = self.run_tool(tool, "--help")
                self.assertEqual((r.returncode, r.stderr), (0, ""))
                self.assertTrue(r.stdout.startswith(f"usage: drivestress-{tool} "), r.stdout)
                self.assertIn(needs, " ".join(r.stdout.split()))
                # The modules it ran are the installed ones: the launcher run
                # as __main__, the files of its modules printed at exit.
                probe = ("import atexit, runpy, sys; atexit.register(lambda: print("
                         f"sys.modules['results'].__file__, sys.modules['{tool}'].__file__)); "
                         "sys.argv = [sys.argv[1], '--help']; "
                         "runpy.run_path(sys.argv[0], run_name='__main__')")
                r = subprocess.run([sys.executable, "-c", probe, launcher],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                files = r.stdout.splitlines()[-1].split()
                self.assertEqual(files, [os.path.join(moduledir, "results.py"),
                                         os.path.join(moduledir, f"{tool}.py")])

    def test_result_tools_work_on_real_documents(self):
        if not OPTS.data:
            self.skipTest("no --data (tests/scripts/data)")
        a = os.path.join(OPTS.data, "sample-a.json")
        b = os.path.join(OPTS.data, "sample-b.json")
        r = self.run_tool("compare", "--merge", a, b)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("merged 2 document(s)", r.stdout)
        r = self.run_tool("compare", a, os.path.join(OPTS.data, "missing.json"))
        self.assertEqual((r.returncode, r.stdout), (1, ""))
        self.assertTrue(r.stderr.startswith("drivestress-compare: "), r.stderr)
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(a, os.path.join(d, "h1.json"))
            r = self.run_tool("fleet", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "fleet.json")) as f:
                self.assertEqual(json.load(f)["hosts"][0]["status"], "passed")
            if importlib.util.find_spec("matplotlib") is None:
                return  # plot's --help said what it needs; a figure needs it too
            r = self.run_tool("plot", a, "-o", os.path.join(d, "png"))
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.isfile(os.path.join(d, "png", "sample-a-latency.png")))


if __name__ == "__main__":
    if shutil.which("bash") is None:
        print("SKIP: bash is missing")
        sys.exit(77)
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
