"""Root in a world-writable sticky directory, with a hostile second user.

`nobody` plants symbolic links, hard links (fs.protected_hardlinks is
turned off for the test, as on machines that leave it off), FIFOs, files of
its own and crafted state files at every name drivestress writes: the test
files, the state file, --json, --prom, --timeseries and guesses at their
temporary names.  Whatever drivestress then does (refuse, or run), no file
it does not own is changed or removed: root's secrets inside and outside
the directory and every entry nobody planted are checked before and after
(content hashes, link targets, kinds)."""

import hashlib
import os
import shutil
import stat
import subprocess
import tempfile

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "hostile-user-{case}", "timeout": 120}

NOBODY = 65534
RUN = ("-s", "1M", "-j", 3, "--rand-ops", 300)


def as_nobody(action):
    """Runs `action()` in a child process with nobody's uid and gid."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            action()
            os._exit(0)
        except BaseException as e:  # report, never return into the test runner
            os.write(2, f"as nobody: {e!r}\n".encode())
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise AssertionError("an action as nobody failed")


def snapshot(paths):
    """{path: what it is}: kind, and content hash or link target."""
    out = {}
    for p in paths:
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            out[p] = "missing"
            continue
        if stat.S_ISLNK(st.st_mode):
            out[p] = ("symlink", os.readlink(p), st.st_uid)
        elif stat.S_ISFIFO(st.st_mode):
            out[p] = ("fifo", st.st_uid)
        elif stat.S_ISREG(st.st_mode):
            with open(p, "rb") as f:
                out[p] = ("file", hashlib.sha256(f.read()).hexdigest(), st.st_uid, st.st_ino)
        else:
            out[p] = ("other", stat.S_IFMT(st.st_mode))
    return out


class HostileUser(harness.DriveStressTest):

    def setUp(self):
        super().setUp()
        harness.require_root(self, "a second user")
        with open("/proc/sys/fs/protected_hardlinks") as f:
            saved = f.read().strip()
        with open("/proc/sys/fs/protected_hardlinks", "w") as f:
            f.write("0")
        self.addCleanup(self.restore_hardlinks, saved)
        os.chmod(self.tmp, 0o755)
        self.box = os.path.join(self.tmp, "sticky")
        os.mkdir(self.box)
        os.chmod(self.box, 0o1777)
        # Root's secrets: one outside the directory, one inside.
        self.secret_out = os.path.join(self.tmp, "root-secret")
        self.secret_in = os.path.join(self.box, "root-notes")
        for p in (self.secret_out, self.secret_in):
            with open(p, "wb") as f:
                f.write(os.urandom(64 * 1024))
            os.chmod(p, 0o600)
        # A real state file of nobody's own --keep run, to copy into place.
        self.nobody_dir = os.path.join(self.tmp, "nobody")
        os.mkdir(self.nobody_dir)
        os.chown(self.nobody_dir, NOBODY, NOBODY)
        keep = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
             harness.DRIVESTRESS, "--progress", "never", *map(str, RUN), "--keep",
             self.nobody_dir],
            capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        self.assertEqual(keep.returncode, 0, keep.stdout + keep.stderr)
        self.nobody_state = os.path.join(self.nobody_dir, "drivestress.state")

    @staticmethod
    def restore_hardlinks(saved):
        with open("/proc/sys/fs/protected_hardlinks", "w") as f:
            f.write(saved)

    def names(self):
        out = [self.secret_out, self.secret_in]
        for e in sorted(os.listdir(self.box)):
            p = os.path.join(self.box, e)
            if os.lstat(p).st_uid == NOBODY or p == self.secret_in:
                out.append(p)
        return out

    def plant(self, **what):
        """what: name -> kind (symlink-out, symlink-in, hardlink-in, fifo,
        own-file, own-unit-file, state-copy, state-symlink)."""
        def act():
            for name, kind in what.items():
                p = os.path.join(self.box, name)
                if kind == "symlink-out":
                    os.symlink(self.secret_out, p)
                elif kind == "symlink-in":
                    os.symlink(self.secret_in, p)
                elif kind == "hardlink-in":
                    os.link(self.secret_in, p)
                elif kind == "fifo":
                    os.mkfifo(p)
                elif kind == "own-file":
                    with open(p, "wb") as f:
                        f.write(b"nobody's file\n" * 100)
                elif kind == "own-unit-file":  # a real drivestress file, of nobody's
                    shutil.copyfile(os.path.join(self.nobody_dir, "drivestress-0.dat"), p)
                elif kind == "state-copy":
                    shutil.copyfile(self.nobody_state, p)
                elif kind == "state-symlink":
                    os.symlink(self.secret_out, p)
                else:
                    raise ValueError(kind)
        as_nobody(act)

    def run_root(self, *args):
        p = subprocess.run([harness.DRIVESTRESS, "--progress", "never", *map(str, args)],
                           capture_output=True, text=True, timeout=harness.EXIT_TIMEOUT_S)
        return harness.Result(p.returncode, p.stdout, p.stderr, None, 0)

    def check_untouched(self, scenario, args, allowed_codes, replaced=()):
        """Plants `scenario`, runs drivestress as root with `args`, checks the
        exit status and that nothing but the `replaced` output names changed."""
        self.plant(**scenario)
        before = snapshot(self.names())
        r = self.run_root(*args)
        self.assertIn(r.returncode, allowed_codes, r.describe())
        after = snapshot(before.keys())
        for p in replaced:  # an output name the user gave: replaced, never written through
            before.pop(p, None)
            after.pop(p, None)
        self.assertEqual(after, before, r.describe())
        secret = os.stat(self.secret_in).st_ino
        leftovers = [e for e in os.listdir(self.box)
                     if e.startswith("drivestress-") and os.lstat(
                         os.path.join(self.box, e)).st_uid == 0 and os.lstat(
                             os.path.join(self.box, e)).st_ino != secret]
        self.assertEqual(leftovers, [], "root's test files left behind\n" + r.describe())
        return r

    def test_planted_at_the_test_file_names(self):
        for kind in ("symlink-out", "symlink-in", "hardlink-in", "fifo", "own-file",
                     "own-unit-file"):
            with self.subTest(kind=kind):
                try:
                    r = self.check_untouched({"drivestress-1.dat": kind}, (*RUN, self.box),
                                             (1,))
                    self.assertIn("refusing to replace it", r.stderr)
                finally:
                    for e in os.listdir(self.box):
                        if e.startswith("drivestress-"):
                            os.unlink(os.path.join(self.box, e))

    def test_planted_at_the_output_names(self):
        out = {n: os.path.join(self.box, n)
               for n in ("result.json", "x.prom", "ts.ndjson", "io.ndjson")}
        args = (*RUN, "--json", out["result.json"], "--prom", out["x.prom"], "--timeseries",
                out["ts.ndjson"], "--io-log", out["io.ndjson"], self.box)
        scenarios = [
            ({"result.json": "symlink-out"}, (1,), ()),
            ({"x.prom": "symlink-in"}, (1,), ()),
            ({"ts.ndjson": "fifo"}, (1,), ()),  # no reader: refused at once
            ({"io.ndjson": "symlink-in"}, (1,), ()),
            ({"io.ndjson": "symlink-out"}, (1,), ()),
            ({"io.ndjson": "fifo"}, (1,), ()),
            ({"result.json": "hardlink-in", "x.prom": "own-file", "ts.ndjson": "hardlink-in",
              "io.ndjson": "hardlink-in"}, (0,), tuple(out.values())),
        ]
        for scenario, codes, replaced in scenarios:
            with self.subTest(scenario=scenario):
                self.check_untouched(scenario, args, codes, replaced)
                for p in out.values():
                    if os.path.lexists(p):
                        os.unlink(p)
        # Guessed temporary names do not stop it and are not touched.
        guesses = {f".result.json.{i:016x}.tmp": "symlink-out" for i in range(8)}
        guesses.update({f".x.prom.{i:016x}.tmp": "own-file" for i in range(8)})
        self.check_untouched(guesses, args, (0,), tuple(out.values()))

    def test_planted_fifo_with_a_reader(self):
        """nobody plants a FIFO at an output name and reads it: root's
        document must not go to nobody's reader (nor may nobody hold the run
        by not reading).  Another user's FIFO is refused; the run leaves
        nothing and the reader gets nothing."""
        for name, option in (("result.json", "--json"), ("ts.ndjson", "--timeseries"),
                             ("x.prom", "--prom")):
            with self.subTest(option=option):
                fifo = os.path.join(self.box, name)
                got = os.path.join(self.nobody_dir, "got")
                self.plant(**{name: "fifo"})
                with open(got, "wb") as out:
                    reader = subprocess.Popen(
                        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                         "cat", fifo], stdout=out)
                try:
                    r = self.run_root(*RUN, option, fifo, self.box)
                finally:
                    reader.kill()
                    reader.wait()
                self.assertEqual(r.returncode, 1, r.describe())
                self.assertIn(f"drivestress: error: {option} {fifo}: is a FIFO owned by uid 65534, "
                              "not by the caller; refusing to write into it", r.stderr)
                self.assertEqual(os.path.getsize(got), 0, "nobody's reader got root's output")
                self.assertEqual(sorted(e for e in os.listdir(self.box)
                                        if e.startswith("drivestress-")), [])
                os.unlink(fifo)

    def test_crafted_state_files(self):
        state = os.path.join(self.box, "drivestress.state")
        # nobody's state file names drivestress-N.dat: root's plain run is
        # refused (those names are protected), its --verify-only refuses to
        # act on another user's state, and nothing is removed.
        r = self.check_untouched({"drivestress.state": "state-copy",
                                  "drivestress-0.dat": "own-unit-file"},
                                 (*RUN, self.box), (1,))
        self.assertIn("kept by the --keep run of", r.stderr)
        r = self.check_untouched({}, ("--verify-only", state, "--cleanup"), (1,))
        self.assertIn("owned by uid 65534", r.stderr)
        for e in ("drivestress.state", "drivestress-0.dat"):
            os.unlink(os.path.join(self.box, e))
        # A symbolic link where the state file goes: a --keep run refuses it,
        # --verify-only does not follow it.
        r = self.check_untouched({"drivestress.state": "state-symlink"},
                                 (*RUN, "--keep", self.box), (1,))
        self.assertIn("is not a drivestress state file", r.stderr)
        r = self.check_untouched({}, ("--verify-only", state, "--cleanup"), (1,))
        self.assertIn("symbolic link", r.stderr)
        # A plain run is not stopped by a link that is not a state file.
        self.check_untouched({}, (*RUN, self.box), (0,))


if __name__ == "__main__":
    harness.main()
