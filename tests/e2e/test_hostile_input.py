#!/usr/bin/env python3
"""Hostile command lines and environments, table-driven.

Every row must be refused the way DESIGN.md promises for a usage or setup
error: exit 1, exactly one stderr line `drivestress: ...` naming the
offending option or path (the row's substrings), no report on stdout, no
crash (no signal, no sanitizer report), and nothing created or changed:
each row runs in a fresh sandbox holding the target directory and the
working directory, and the whole sandbox must look the same afterwards.

Rows are grouped into a few test methods (one meson test each).  A row that
cannot be set up here is skipped with a printed reason; a group whose rows
need an option the binary does not have yet (--preset, --sweep) is skipped.

    python3 tests/e2e/test_hostile_input.py --drivestress BUILD/src/drivestress \
        HostileInput.test_sizes_and_blocks
"""

import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "hostile-input-{case}"}

RUN_TIMEOUT_S = 10  # one refused run (< 1 s even under TSan); a hang is a failure

# Placeholders in a row's strings, replaced per sandbox:
#   {T} the target directory (empty), {B} the sandbox, {C} the working directory
T, B, C = "{T}", "{B}", "{C}"
LONG_NAME = "n" * 300  # > NAME_MAX (255)
NOT_A_PATH = "/" + "d" * 5000  # > PATH_MAX (4096)

# Options that keep a run small if a row were wrongly accepted; each group is
# left out when the row sets one of its options itself.
BASE_GROUPS = [
    (("-s", "--size", "--size-mb"), ["-s", "1M"]),
    (("-j", "--files"), ["-j", "1"]),
    (("--rand-ops", "--rand-time", "--mixed-sec"), ["--rand-ops", "16"]),
    (("--progress",), ["--progress", "never"]),
]


class Row:
    """One hostile case.

    args:     the command line (without the program), placeholders allowed
    names:    substrings the one stderr line must contain
    target:   appended after args (None: no target; the row gives its own or none)
    fixture:  fixture(box) prepares the sandbox before the run
    env:      extra environment variables
    preexec:  preexec(box) runs in the child before exec (cwd, rlimits)
    absent:   paths that must not exist afterwards (outside the sandbox too)
    base:     add BASE_GROUPS (small run) where the row leaves them free
    """

    def __init__(self, name, args, names, target=T, fixture=None, env=None, preexec=None,
                 absent=(), base=True):
        self.name, self.args, self.names, self.target = name, list(args), list(names), target
        self.fixture, self.env, self.preexec = fixture, env or {}, preexec
        self.absent, self.base = list(absent), base


def fill(text, box):
    return (text.replace("{T}", os.path.join(box, "target"))
            .replace("{C}", os.path.join(box, "cwd")).replace("{B}", box))


def option_of(arg):
    if arg.startswith("--"):
        return arg.split("=", 1)[0]
    if arg.startswith("-") and len(arg) >= 2:
        return arg[:2]
    return None


def snapshot(box):
    """Everything under box: relative path -> (type, size, mode, mtime)."""
    seen = {}
    for root, dirs, files in os.walk(box):
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            size = st.st_size if stat.S_ISREG(st.st_mode) else 0
            seen[os.path.relpath(path, box)] = (stat.S_IFMT(st.st_mode), size,
                                                stat.S_IMODE(st.st_mode), st.st_mtime_ns)
    return seen


# ------------------------------------------------------------------ fixtures

def make_fifo(*parts):
    def f(box):
        os.mkfifo(os.path.join(box, *parts))
    return f


def make_file(*parts, content=b"not drivestress data\n"):
    def f(box):
        with open(os.path.join(box, *parts), "wb") as out:
            out.write(content)
    return f


def make_dir(*parts):
    def f(box):
        os.makedirs(os.path.join(box, *parts))
    return f


def make_symlink(points_to, *parts):
    def f(box):
        os.symlink(fill(points_to, box), os.path.join(box, *parts))
    return f


def make_socket(*parts):
    def f(box):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(os.path.join(box, *parts))
        s.close()  # the socket file stays
    return f


def make_deep_dirs(box):
    """A directory whose path is just under PATH_MAX, for a prefix whose
    file names go over it."""
    path = os.path.join(box, "deep")
    while len(path) < 4096 - 250:
        path = os.path.join(path, "d" * 200)
    os.makedirs(path)
    with open(os.path.join(box, "deep-path"), "w") as f:
        f.write(path)


def deep_prefix(box):
    with open(os.path.join(box, "deep-path")) as f:
        path = f.read()
    return os.path.join(path, "p" * (4096 - len(path) - 2))  # stat-able, +"0.dat" is not


def chain(*fixtures):
    def f(box):
        for fx in fixtures:
            fx(box)
    return f


# ------------------------------------------------------------- preexec hooks

def cwd_deleted(box):
    gone = os.path.join(box, "gone")
    os.mkdir(gone)
    os.chdir(gone)
    os.rmdir(gone)


def cwd_at(path):
    def f(box):
        os.chdir(path)
    return f


def rlimit(which, soft):
    def f(box):
        hard = resource.getrlimit(which)[1]
        resource.setrlimit(which, (soft, hard))
    return f


# ----------------------------------------------------------------- the rows

def size_rows():
    rows = []
    for opt in ("--size", "--seq-block", "--rand-block"):
        for bad, why in [("0", "zero"), ("-1", "negative"), ("-4K", "negative with suffix"),
                         ("99999999999999999999", "overflows 64 bits"),
                         ("20000000T", "overflows with suffix"), ("4X", "unknown suffix"),
                         ("1MM", "doubled suffix"), ("4KBs", "suffix typo"), ("", "empty"),
                         ("1.5M", "fraction")]:
            rows.append(Row(f"{opt} {why} ({bad!r})", [opt, bad], [opt]))
    rows += [
        Row("--size= with nothing after the equal sign", ["--size="], ["--size"]),
        Row("--size=-1 glued", ["--size=-1"], ["--size"]),
        Row("--size blank", ["--size", "  "], ["--size"]),
        Row("--size hexadecimal", ["--size", "0x1000"], ["--size"]),
        Row("--size with a plus sign", ["--size", "+4K"], ["--size"]),
        Row("--size with an inner space", ["--size", "4 K"], ["--size"]),
        Row("--size exabytes", ["--size", "1E"], ["--size"]),
        Row("--size not a multiple of --rand-block", ["--size", "1000"], ["--size"]),
        Row("--size-mb zero", ["--size-mb", "0"], ["--size-mb"]),
        Row("--size-mb word", ["--size-mb", "abc"], ["--size-mb"]),
        Row("--size-mb fraction", ["--size-mb", "1.5"], ["--size-mb"]),
        Row("--size-mb overflowing", ["--size-mb", "99999999999999999999"], ["--size-mb"]),
        Row("--rand-block not a power of two", ["--rand-block", "3000"], ["--rand-block"]),
        Row("--rand-block 6K", ["--rand-block", "6K"], ["--rand-block"]),
        Row("--rand-block below 512", ["--rand-block", "256"], ["--rand-block"]),
        Row("--rand-block above 64M", ["--rand-block", "128M", "--seq-block", "128M",
                                       "--size", "128M"], ["--rand-block"]),
        Row("--rand-block larger than the file", ["--size", "1M", "--rand-block", "2M",
                                                  "--seq-block", "2M"], ["--size"]),
        Row("--seq-block larger than the file", ["--size", "1M", "--seq-block", "2M"],
            ["--seq-block"]),
        Row("--seq-block above 64M", ["--seq-block", "128M", "--size", "256M"], ["--seq-block"]),
        Row("--seq-block not a power of two nor a multiple", ["--seq-block", "3000"],
            ["--seq-block"]),
        Row("--seq-block below --rand-block", ["--seq-block", "512"], ["--seq-block"]),
        Row("--seq-block not a multiple of --rand-block",
            ["--seq-block", "12K", "--rand-block", "8K", "--size", "96K"],
            ["--seq-block", "--rand-block"]),
        # Free space: the total is checked before anything is written, also
        # when size x files does not fit in 64 bits (2^62 x 4 = 2^64).
        Row("--size larger than any free space", ["--size", "16777215T"], ["free space"]),
        Row("--size x --files wraps around 2^64", ["--size", "4194304T", "--files", "4"],
            ["free space"]),
    ]
    return rows


def duration_and_count_rows():
    rows = []
    for bad, why in [("-1", "negative"), ("5x", "unknown suffix"), ("1e3s", "exponent"),
                     ("", "empty"), (".", "a lone dot"), ("1..5", "two dots"), ("inf", "infinity"),
                     ("nan", "not a number"), ("99999999999h", "too large"), ("1ms5", "trailing digits")]:
        rows.append(Row(f"--rand-time {why} ({bad!r})", ["--rand-time", bad], ["--rand-time"]))
    for bad, why in [("0", "zero"), ("0s", "zero seconds"), ("0.0", "zero as a fraction"),
                     ("-5", "negative"), ("abc", "a word"), ("", "empty")]:
        rows.append(Row(f"--duration {why} ({bad!r})", ["--duration", bad], ["--duration"]))
    for bad, why in [("-1", "negative"), ("abc", "a word"), ("1.5", "a fraction")]:
        rows.append(Row(f"--mixed-sec {why} ({bad!r})", ["--mixed-sec", bad], ["--mixed-sec"]))
    counts = {
        "--files": [("0", "zero"), ("-1", "negative"), ("abc", "a word"), ("99999", "too many"),
                    ("4097", "one above the limit"), ("", "empty"), ("1e3", "an exponent"),
                    ("+4", "a plus sign")],
        "--qd": [("0", "zero"), ("5000", "too deep"), ("abc", "a word"), ("-1", "negative")],
        "--read-pct": [("101", "above 100"), ("-1", "negative"), ("50.5", "a fraction"),
                       ("abc", "a word"), ("", "empty")],
        "--iterations": [("-1", "negative"), ("abc", "a word"), ("1.5", "a fraction")],
        "--rand-ops": [("0", "zero"), ("-5", "negative"), ("abc", "a word")],
        "--seed": [("-1", "negative"), ("abc", "a word"), ("99999999999999999999", "overflowing"),
                   ("0x10", "hexadecimal")],
    }
    for opt, cases in counts.items():
        for bad, why in cases:
            rows.append(Row(f"{opt} {why} ({bad!r})", [opt, bad], [opt]))
    rows.append(Row("--files=0 glued", ["--files=0"], ["--files"]))
    rows.append(Row("-j0 (short option, glued)", ["-j0"], ["--files"]))
    return rows


def conflict_rows():
    return [
        Row("--no-verify with --phases reverify",
            ["--no-verify", "--phases", "seq-write,reverify"], ["--no-verify", "--phases"]),
        Row("--phases without seq-write", ["--phases", "seq-read,random"], ["--phases"]),
        Row("--phases reverify alone", ["--phases", "reverify"], ["--phases"]),
        Row("--phases duplicate", ["--phases", "seq-write,seq-write"], ["--phases"]),
        Row("--phases unknown phase", ["--phases", "seq-write,bogus"], ["--phases", "bogus"]),
        Row("--phases empty", ["--phases", ""], ["--phases"]),
        Row("--phases empty item", ["--phases", "seq-write,,random"], ["--phases"]),
        Row("--phases upper case", ["--phases", "SEQ-WRITE"], ["--phases"]),
        Row("--size with --size-mb", ["--size", "1M", "--size-mb", "1"],
            ["--size", "--size-mb"]),
        Row("--rand-ops with --rand-time", ["--rand-ops", "10", "--rand-time", "5s"],
            ["--rand-ops", "--rand-time"]),
        Row("--rand-ops with --mixed-sec", ["--rand-ops", "10", "--mixed-sec", "5"],
            ["--rand-ops", "--mixed-sec"]),
        Row("--rand-time with --mixed-sec", ["--rand-time", "5s", "--mixed-sec", "5"],
            ["--rand-time", "--mixed-sec"]),
        Row("a target given twice", [T, T], ["{T}", "twice"], target=None),
        Row("TARGET and --path", ["--path", B, T], ["{T}", "{B}"], target=None),
        Row("--size given twice", ["-s", "1M", "--size", "2M"], ["size"]),
        Row("--json given twice", ["--json", "{B}/a.json", "--json", "{B}/b.json"], ["json"],
            absent=["{B}/a.json", "{B}/b.json"]),
        # Raw-device mode: refused before any device is opened for writing.
        Row("--raw-device without --destroy-data", ["--raw-device", "/dev/null"],
            ["--raw-device /dev/null", "--destroy-data"], target=None),
        Row("--destroy-data without --raw-device", ["--destroy-data", "/dev/null"],
            ["--destroy-data", "--raw-device"], target=None),
        Row("--raw-device a character device", ["--raw-device", "/dev/null", "--destroy-data",
                                                "/dev/null"],
            ["--raw-device /dev/null", "not a block device"], target=None),
        Row("--raw-device missing", ["--raw-device", "{B}/nodev", "--destroy-data", "{B}/nodev"],
            ["--raw-device {B}/nodev", "No such file"], target=None),
        Row("--raw-device a directory", ["--raw-device", B, "--destroy-data", B],
            ["--raw-device {B}", "not a block device"], target=None),
        Row("--raw-device a FIFO", ["--raw-device", "{B}/fifo", "--destroy-data", "{B}/fifo"],
            ["--raw-device {B}/fifo", "not a block device"], target=None,
            fixture=make_fifo("fifo")),
        Row("--raw-device empty", ["--raw-device=", "--destroy-data="], ["--raw-device"],
            target=None),
        Row("--raw-device not a device beside a TARGET", ["--raw-device", "/dev/null",
                                                          "--destroy-data", "/dev/null"],
            ["--raw-device /dev/null", "not a block device"]),
        Row("--destroy-data given twice", ["--raw-device", "/dev/null", "--destroy-data",
                                           "/dev/null", "--destroy-data", "/dev/null"],
            ["destroy-data"], target=None),
    ]


def path_rows():
    rows = [
        Row("target path longer than PATH_MAX", [], [NOT_A_PATH[:64]], target=NOT_A_PATH),
        Row("target name longer than NAME_MAX", [], [LONG_NAME], target="{T}/" + LONG_NAME),
        Row("prefix whose file names go over NAME_MAX", [], ["{T}/" + "p" * 250],
            target="{T}/" + "p" * 252),
        Row("prefix whose file paths go over PATH_MAX", [], ["{B}/deep/"], target=None,
            fixture=make_deep_dirs),  # target filled in by run_row (it depends on the box)
        Row("target on /proc", [], ["/proc"], target="/proc"),
        Row("target prefix on /proc", [], ["/proc/drivestress-prefix"],
            target="/proc/drivestress-prefix", absent=["/proc/drivestress-prefix0.dat"]),
        Row("target on /sys", [], ["/sys"], target="/sys"),
        Row("target on /sys/kernel", [], ["/sys/kernel"], target="/sys/kernel"),
        Row("target is a FIFO", [], ["{B}/fifo"], target="{B}/fifo", fixture=make_fifo("fifo"),
            absent=["{B}/fifo0.dat"]),
        Row("target is a symlink to /dev/null", [], ["{B}/null"], target="{B}/null",
            fixture=make_symlink("/dev/null", "null")),
        Row("target is /dev/null", [], ["/dev/null"], target="/dev/null"),
        Row("target is a regular file", [], ["{B}/file"], target="{B}/file",
            fixture=make_file("file"), absent=["{B}/file0.dat"]),
        Row("target is a Unix socket", [], ["{B}/sock"], target="{B}/sock",
            fixture=make_socket("sock")),
        Row("target is a symlink loop", [], ["{B}/loop"], target="{B}/loop",
            fixture=make_symlink("{B}/loop", "loop")),
        Row("target directory missing", [], ["{B}/missing/sub/"], target="{B}/missing/sub/",
            absent=["{B}/missing"]),
        Row("target prefix in a missing directory", [], ["{B}/missing/pre"],
            target="{B}/missing/pre", absent=["{B}/missing"]),
        Row("target prefix under a regular file", [], ["{B}/file/pre"], target="{B}/file/pre",
            fixture=make_file("file")),
        Row("target empty", [], ["target"], target=""),
        Row("--path empty", ["--path", ""], ["target"], target=None),
        Row("a directory at our file name", [], ["{T}/drivestress-0.dat"],
            fixture=make_dir("target", "drivestress-0.dat")),
        Row("a FIFO at our file name", [], ["{T}/drivestress-0.dat"],
            fixture=make_fifo("target", "drivestress-0.dat")),
        Row("a symlink at our file name", [], ["{T}/drivestress-0.dat"],
            fixture=chain(make_file("victim"),
                          make_symlink("{B}/victim", "target", "drivestress-0.dat"))),
        Row("a foreign file at the second file name: the first is not created",
            ["--files", "2"], ["{T}/drivestress-1.dat"],
            fixture=make_file("target", "drivestress-1.dat"),
            absent=["{T}/drivestress-0.dat"]),
        Row("--json into a missing directory", ["--json", "{B}/missing/result.json"],
            ["--json", "{B}/missing"], absent=["{B}/missing"]),
        Row("--json pointing at a directory", ["--json", "{B}/jsondir"], ["--json", "{B}/jsondir"],
            fixture=make_dir("jsondir")),
        Row("--json empty", ["--json", ""], ["--json"]),
        Row("--json under a regular file", ["--json", "{B}/file/result.json"],
            ["--json", "{B}/file"], fixture=make_file("file")),
        Row("--json name longer than NAME_MAX", ["--json", "{B}/" + LONG_NAME], ["--json"]),
        Row("--json on /proc", ["--json", "/proc/drivestress-result.json"], ["--json"],
            absent=["/proc/drivestress-result.json"]),
    ]
    for fstype, mountpoint in pseudo_mounts():
        rows.append(Row(f"target on {fstype} ({mountpoint})", [], [mountpoint],
                        target=mountpoint))
    return rows


def pseudo_mounts():
    """[(fstype, mountpoint)]: the first mount of each kernel pseudo
    filesystem found here, besides /proc and /sys (rows of their own)."""
    wanted = ("cgroup2", "cgroup", "tracefs", "debugfs", "devpts", "securityfs")
    found = {}
    try:
        with open("/proc/self/mountinfo") as f:
            for line in f:
                fields = line.split()
                fstype = fields[fields.index("-") + 1]
                if fstype in wanted and fstype not in found and "\\" not in fields[4]:
                    found[fstype] = fields[4]
    except OSError:
        pass
    return sorted(found.items())


def option_rows():
    return [
        Row("unknown option", ["--bogus"], ["--bogus"]),
        Row("abbreviated option --si", ["--si", "1M"], ["--si"]),
        Row("abbreviated option --rand", ["--rand", "1s"], ["--rand"]),
        Row("unknown short option", ["-x"], ["-x"]),
        Row("option with a non-ASCII name", ["--s\u00efze", "1M"], ["--s\u00efze"]),
        Row("--size without its value", ["--size"], ["--size"], target=None),
        Row("--json without its value", ["--json"], ["--json"], target=None),
        Row("switch given a value", ["--no-verify=yes"], ["--no-verify"]),
        # Boost.Program_options fills %...% placeholders into its messages;
        # the user's text must come out as typed (and not loop forever).
        Row("unknown option spelled --%canonical_option%", ["--%canonical_option%"],
            ["--%canonical_option%"]),
        Row("unknown option spelled --%original_token%", ["--%original_token%"],
            ["--%original_token%"]),
        Row("unknown option spelled --%option%", ["--%option%"], ["--%option%"]),
        Row("unknown option spelled --%prefix%", ["--%prefix%"], ["--%prefix%"]),
        Row("--backend bogus", ["--backend", "bogus"], ["--backend", "bogus"]),
        Row("--backend empty", ["--backend", ""], ["--backend"]),
        Row("--backend upper case", ["--backend", "IO_URING"], ["--backend"]),
        Row("--progress bogus", ["--progress", "bogus"], ["--progress", "bogus"]),
        Row("--progress empty", ["--progress="], ["--progress"]),
        # One line means one line: text from the command line is never
        # printed raw with its newlines.
        Row("newline inside a size", ["--size", "4\nK"], ["--size"]),
        Row("newline inside --backend", ["--backend", "sync\nrm -rf /"], ["--backend"]),
        Row("newline inside a missing target", [], ["{B}/missing"], target="{B}/missing\n/sub/",
            absent=["{B}/missing\n"]),
        # The exposition format's rules for --prom-label (checked by main).
        Row("--prom-label name starting with a digit",
            ["--prom", "{B}/x.prom", "--prom-label", "2rack=x"], ["--prom-label", "2rack"],
            absent=["{B}/x.prom"]),
        Row("--prom-label a name the metrics set themselves",
            ["--prom", "{B}/x.prom", "--prom-label", "phase=x"], ["--prom-label", "phase"],
            absent=["{B}/x.prom"]),
        Row("--prom-label value not UTF-8", ["--prom", "{B}/x.prom", "--prom-label", "rack=\udcff"],
            ["--prom-label rack"], absent=["{B}/x.prom"]),
    ]


def environment_rows():
    return [
        Row("no TARGET and the working directory was deleted", [], ["."], target=None,
            preexec=cwd_deleted),
        Row("no TARGET and the working directory is /proc", [], ["."], target=None,
            preexec=cwd_at("/proc")),
        # Any failure to open the files is a setup error, and the files
        # already created are removed.
        Row("too few file descriptors for --files 32 (RLIMIT_NOFILE 16)",
            ["--files", "32", "--backend", "sync"], ["{T}"],
            preexec=rlimit(resource.RLIMIT_NOFILE, 16)),
        # RLIMIT_FSIZE below the file size: the kernel answers EFBIG and sends
        # SIGXFSZ, whose default action kills the process and leaves files.
        Row("file size limit below --size (RLIMIT_FSIZE 64K)", ["--size", "1M"], ["{T}"],
            preexec=rlimit(resource.RLIMIT_FSIZE, 64 * 1024)),
        Row("unknown locale and a bad size", ["--size", "4X"], ["--size"],
            env={"LC_ALL": "xx_XX.UTF-8", "LANG": "xx_XX.UTF-8"}),
    ]


def unwritable_rows():
    return [
        Row("read-only target directory", [], ["{B}/ro"], target="{B}/ro"),
        Row("prefix in a read-only directory", [], ["{B}/ro"], target="{B}/ro/pre"),
        Row("--json into a read-only directory", ["--json", "{B}/ro/result.json"],
            ["--json", "{B}/ro"]),
        Row("no TARGET and a read-only working directory", [], ["."], target=None,
            preexec=cwd_at_ro),
    ]


def cwd_at_ro(box):
    os.chdir(os.path.join(box, "ro"))


def preset_rows():
    return [
        Row("--preset unknown", ["--preset", "bogus"], ["--preset", "bogus"]),
        Row("--preset empty", ["--preset="], ["--preset"]),
        Row("--preset upper case", ["--preset", "QUICK"], ["--preset"]),
        Row("--preset with a bad option", ["--preset", "quick", "--qd", "0"], ["--qd"]),
    ]


def sweep_rows():
    return [
        Row("--sweep without =", ["--sweep", "qd"], ["--sweep"]),
        Row("--sweep unknown parameter", ["--sweep", "bogus=1,2"], ["--sweep", "bogus"]),
        Row("--sweep empty values", ["--sweep", "qd="], ["--sweep"]),
        Row("--sweep zero", ["--sweep", "qd=0,1"], ["--sweep"]),
        Row("--sweep range downwards", ["--sweep", "qd=8..1"], ["--sweep"]),
        Row("--sweep range without an end", ["--sweep", "qd=1.."], ["--sweep"]),
        Row("--sweep duplicate value", ["--sweep", "qd=4,4"], ["--sweep"]),
        Row("--sweep qd above the limit", ["--sweep", "qd=1,5000"], ["--sweep"]),
        Row("--sweep rand-block not a power of two", ["--sweep", "rand-block=3000"],
            ["--sweep"]),
        Row("--sweep files zero", ["--sweep", "files=0..4"], ["--sweep"]),
        Row("--sweep qd with --qd", ["--sweep", "qd=1..4", "--qd", "8"], ["--sweep", "--qd"]),
        Row("--sweep with --iterations 2", ["--sweep", "qd=1..4", "--iterations", "2"],
            ["--sweep", "--iterations"]),
        Row("--sweep with a huge range", ["--sweep", "qd=1..99999999999999999999"],
            ["--sweep"]),
    ]


# ------------------------------------------------------------------ the test

class HostileInput(harness.DriveStressTest):

    def run_rows(self, rows):
        for row in rows:
            with self.subTest(row=row.name):
                self.run_row(row)
        print(f"\n{type(self).__name__}.{self._testMethodName}: {len(rows)} rows")

    def argv(self, row, box):
        args = [fill(a, box) for a in row.args]
        argv = [harness.DRIVESTRESS]
        if row.base:
            given = {option_of(a) for a in args}
            for options, words in BASE_GROUPS:
                if not given.intersection(options):
                    argv += words
        argv += args
        if row.target is not None:
            argv.append(fill(row.target, box))
        elif row.fixture is make_deep_dirs:
            argv.append(deep_prefix(box))
        return argv

    def run_row(self, row):
        box = tempfile.mkdtemp(prefix="row-", dir=self.tmp)
        self.addCleanup(shutil.rmtree, box, True)
        os.mkdir(os.path.join(box, "target"))
        os.mkdir(os.path.join(box, "cwd"))
        if row.fixture:
            row.fixture(box)
        if getattr(self, "prepare_box", None):
            self.prepare_box(box)
        before = snapshot(box)
        argv = self.argv(row, box)
        env = dict(os.environ)
        env.pop("DRIVESTRESS_TEST_STOP", None)
        env.update(row.env)
        preexec = (lambda: row.preexec(box)) if row.preexec else None
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=os.path.join(box, "cwd"), env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=RUN_TIMEOUT_S, preexec_fn=preexec)
        except subprocess.TimeoutExpired as e:
            self.fail(f"no answer within {RUN_TIMEOUT_S} s: {argv!r}\n"
                      f"stderr: {(e.stderr or b'').decode(errors='replace')}")
        seconds = time.monotonic() - started
        stdout = proc.stdout.decode(errors="replace")
        stderr = proc.stderr.decode(errors="replace")
        shown = (f"argv: {[a if len(a) < 200 else a[:60] + '...' for a in argv]!r}\n"
                 f"exit {proc.returncode} after {seconds:.2f} s\n--- stdout\n{stdout[:3000]}"
                 f"--- stderr\n{stderr[:3000]}---")

        # No crash: not killed by a signal, no sanitizer abort.
        self.assertGreaterEqual(proc.returncode, 0, "killed by a signal\n" + shown)
        self.assertLessEqual(proc.returncode, 128, "crashed\n" + shown)
        self.assertEqual(proc.returncode, 1, shown)
        lines = stderr.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        self.assertEqual(len(lines), 1, "stderr must be exactly one line\n" + shown)
        self.assertTrue(lines[0].startswith("drivestress: error: "), shown)
        for name in row.names:
            self.assertIn(fill(name, box), lines[0], "the message must name it\n" + shown)
        self.assertEqual(stdout, "", "a refused run prints no report\n" + shown)
        after = snapshot(box)
        self.assertEqual(sorted(set(after) - set(before)), [], "created\n" + shown)
        self.assertEqual(sorted(set(before) - set(after)), [], "removed\n" + shown)
        changed = [p for p in before if p in after and before[p] != after[p]
                   and not stat.S_ISDIR(before[p][0])]
        self.assertEqual(changed, [], "changed\n" + shown)
        for path in row.absent:
            self.assertFalse(os.path.lexists(fill(path, box)), f"{path} exists\n" + shown)

    # -- groups (one meson test each)

    def test_sizes_and_blocks(self):
        self.run_rows(size_rows())

    def test_durations_and_counts(self):
        self.run_rows(duration_and_count_rows())

    def test_conflicts(self):
        self.run_rows(conflict_rows())

    def test_paths(self):
        self.run_rows(path_rows())

    def test_options(self):
        self.run_rows(option_rows())

    def test_environment(self):
        self.run_rows(environment_rows())

    def test_unwritable_dir(self):
        """A directory drivestress cannot write: a read-only tmpfs when root
        (chmod does not stop root), mode 555 otherwise."""
        if os.geteuid() == 0:
            probe = os.path.join(self.tmp, "mount-probe")
            os.mkdir(probe)
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro", "tmpfs", probe],
                               capture_output=True, text=True)
            if r.returncode != 0:
                self.skipTest("root and cannot mount a read-only tmpfs: " + r.stderr.strip())
            subprocess.run(["umount", probe], check=True)

            def prepare(box):
                ro = os.path.join(box, "ro")
                os.mkdir(ro)
                subprocess.run(["mount", "-t", "tmpfs", "-o", "ro", "tmpfs", ro], check=True)
                # Runs before the box is removed (cleanups run last-in first-out).
                self.addCleanup(subprocess.run, ["umount", ro], check=True)
        else:
            def prepare(box):
                ro = os.path.join(box, "ro")
                os.mkdir(ro)
                os.chmod(ro, 0o555)
                self.addCleanup(os.chmod, ro, 0o755)
                probe = os.path.join(ro, "probe")
                try:
                    open(probe, "w").close()
                except PermissionError:
                    return
                os.unlink(probe)
                self.skipTest("mode 555 does not stop this user from writing")
        self.prepare_box = prepare
        self.run_rows(unwritable_rows())

    def help_text(self):
        r = subprocess.run([harness.DRIVESTRESS, "--help"], capture_output=True, text=True,
                           timeout=RUN_TIMEOUT_S)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_presets(self):
        if "--preset" not in self.help_text():
            self.skipTest("--preset is not in --help (not implemented yet): rows not run")
        self.run_rows(preset_rows())

    def test_sweeps(self):
        if "--sweep" not in self.help_text():
            self.skipTest("--sweep is not in --help (not implemented yet): rows not run")
        self.run_rows(sweep_rows())

    def test_json_into_fifo_with_reader(self):
        """Not a refusal: --json into a named FIFO that a reader (cat) holds
        open is valid, and the reader gets the whole document once.  Checking
        the --json path up front must not open and close the FIFO (the reader
        would see end-of-file, and the final write would then wait forever
        for a reader that is gone)."""
        fifo = os.path.join(self.tmp, "result.fifo")
        received = os.path.join(self.tmp, "received.json")
        os.mkfifo(fifo)
        with open(received, "wb") as out:
            reader = subprocess.Popen(["cat", fifo], stdout=out)
        self.addCleanup(reader.wait)
        self.addCleanup(reader.kill)
        run = self.start("-s", "1M", "-j", 1, "--rand-ops", 16, "--json", fifo, json_out=False)
        r = run.finish(timeout=10)  # a 1 MiB run; a hang is the failure
        self.assertExit(r, 0)
        reader.wait(10)
        with open(received) as f:
            text = f.read()
        self.assertIn('"schema_version"', text, "the reader got:\n" + text[:2000])
        self.assertNoFilesLeft(r)


def all_rows():
    return (size_rows() + duration_and_count_rows() + conflict_rows() + path_rows()
            + option_rows() + environment_rows() + unwritable_rows() + preset_rows()
            + sweep_rows())


@harness.meson_case(timeout=120)
class NoHooksInTheProduct(harness.DriveStressTest):
    """The product binary reads no test hook: a hostile or stale environment
    (DRIVESTRESS_TEST_STOP=create left exported) does not stop a run with
    SIGSTOP; only the tests' hooked build obeys it."""

    def test_the_product_ignores_test_hook_variables(self):
        env = dict(os.environ, DRIVESTRESS_TEST_STOP="create",
                   DRIVESTRESS_TEST_STOP_ON_SIGNAL="1", DRIVESTRESS_TEST_SYSFS_ROOT="/nonexistent",
                   DRIVESTRESS_TEST_HEALTH_LOGS="/nonexistent/page")
        argv = self.command("-j", 1, "-s", "1M", "--rand-ops", 100)
        self.assertEqual(argv[0], harness.DRIVESTRESS)
        p = subprocess.run(argv, env=env, capture_output=True, text=True,
                           timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("result   PASS", p.stdout)
        self.assertNotIn("fixture", p.stdout)
        self.assertNoFilesLeft()
        # The hooked build of the same program does stop there.
        run = self.start("-j", 1, "-s", "1M", "--rand-ops", 100, stop="create")
        self.assertEqual(run.argv[0], harness.HOOKED)
        run.wait_stopped()
        run.resume()
        self.assertExit(run.finish(), 0)


if __name__ == "__main__":
    harness.main()
