#!/usr/bin/env python3
"""Bad arguments and refused targets: exit 1, one line on stderr naming the
option or path, nothing created, nothing touched."""

import os
import subprocess
import uuid

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "bad-input-{case}"}

SMALL = ("-s", "1M", "-j", 2, "--rand-ops", 100)


class BadInput(harness.DriveStressTest):

    def check_refused(self, args, names, target=None):
        """Runs with `args` on `target` (default: the empty target dir) and
        checks the error names every string of `names`."""
        r = self.drivestress(*args, target=target, json_out=False)
        self.assertSetupError(r, *names)
        self.assertNoFilesLeft(r)
        self.assertEqual(os.listdir(self.tmp), ["target"], "nothing created next to it")
        return r

    def test_size_zero(self):
        self.check_refused(["-s", "0", "-j", 1], ["--size"])

    def test_rand_block_not_power_of_two(self):
        self.check_refused(["-s", "1M", "--rand-block", "3000"], ["--rand-block"])

    def test_read_pct_over_100(self):
        self.check_refused([*SMALL, "--read-pct", "101"], ["--read-pct"])

    def test_unknown_option(self):
        self.check_refused([*SMALL, "--bogus"], ["--bogus"])

    def test_missing_directory(self):
        missing = f"/tmp/{uuid.uuid4().hex}/sub/"
        self.check_refused(SMALL, [missing], target=missing)
        self.assertFalse(os.path.exists(os.path.dirname(missing.rstrip("/"))))

    def test_read_only_directory(self):
        ro = os.path.join(self.tmp, "ro")
        os.mkdir(ro)
        if os.geteuid() == 0:
            # chmod does not stop root: use a read-only filesystem instead.
            mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro", "tmpfs", ro],
                                   capture_output=True, text=True)
            if mount.returncode != 0:
                self.skipTest("running as root and cannot mount a read-only tmpfs: "
                              + mount.stderr.strip())
            self.addCleanup(subprocess.run, ["umount", ro], check=True)
        else:
            os.chmod(ro, 0o555)
            self.addCleanup(os.chmod, ro, 0o755)
        r = self.drivestress(*SMALL, target=ro, json_out=False)
        self.assertSetupError(r, ro)
        self.assertNoFilesLeft(r, directory=ro)

    def test_character_device(self):
        self.check_refused(SMALL, ["/dev/null"], target="/dev/null")

    def test_block_device(self):
        for dev in ("/dev/loop0", "/dev/zram0"):
            if os.path.exists(dev):
                self.check_refused(SMALL, [dev], target=dev)
                return
        self.skipTest("no /dev/loop0 or /dev/zram0 here")

    def test_not_enough_space(self):
        """Free space is checked before anything is written."""
        st = os.statvfs(self.target)
        free_gib = st.f_bavail * st.f_frsize // (1 << 30)
        r = self.check_refused(["-s", f"{free_gib + 1}G", "-j", 2], [self.target])
        self.assertIn("free space", r.stderr)

    def test_foreign_file_at_target_name(self):
        """A file that is not ours at drivestress-0.dat is never overwritten."""
        path = self.data_file(0)
        content = "not drivestress data: keep me\n"
        with open(path, "w") as f:
            f.write(content)
        r = self.drivestress(*SMALL, json_out=False)
        self.assertSetupError(r, path)
        self.assertEqual(self.target_files(), ["drivestress-0.dat"])
        with open(path) as f:
            self.assertEqual(f.read(), content)


@harness.meson_case(timeout=120)
class GivenTwice(harness.DriveStressTest):
    """Every spelling of one target (DIR/, DIR/., a symbolic link,
    /proc/self/root/DIR, a relative path) is "given twice", as DIR DIR is,
    never "in use by another drivestress run" naming the run itself."""

    def test_every_spelling_is_given_twice(self):
        link = os.path.join(self.tmp, "link")
        os.symlink(self.target, link)
        rel = os.path.relpath(self.target)
        spellings = [self.target + "/", os.path.join(self.target, "."), link,
                     "/proc/self/root" + self.target, rel, "./" + rel]
        for other in spellings:
            with self.subTest(other=other):
                r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100, self.target,
                                     target=other, json_out=False)
                self.assertSetupError(r, "given twice", other)
                self.assertNotIn("in use", r.stderr)
                self.assertNotIn(str(os.getpid()), r.stderr)
                self.assertNoFilesLeft(r)

    def test_a_raw_device_and_a_link_to_it(self):
        harness.require_root(self)
        dev = harness.loop_device(self, harness.backing_file(self, 16 << 20))
        link = os.path.join(self.tmp, "dev-link")
        os.symlink(dev, link)
        r = self.drivestress("-s", "4M", "-j", 1, "--rand-ops", 100,
                             "--raw-device", dev, "--destroy-data", dev,
                             "--raw-device", link, "--destroy-data", link,
                             target=False, json_out=False)
        self.assertSetupError(r, "given twice", link)


if __name__ == "__main__":
    harness.main()
