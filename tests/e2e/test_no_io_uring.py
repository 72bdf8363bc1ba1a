#!/usr/bin/env python3
"""io_uring blocked by seccomp, as in a container: --backend auto falls back
to sync with a one-line reason; --backend io_uring is refused."""

import os

import harness

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "no-io_uring-{case}", "threads": True}

SMALL = ("-s", "1M", "-j", 2, "--rand-ops", 200)


class NoIoUring(harness.DriveStressTest):

    def setUp(self):
        super().setUp()
        if not harness.NO_IO_URING or not os.access(harness.NO_IO_URING, os.X_OK):
            self.fail(f"no_io_uring helper not found: {harness.NO_IO_URING!r} "
                      "(use --no-io-uring)")
        self.wrapper = [harness.NO_IO_URING]

    @harness.meson_case(name="no-io_uring-auto-fallback")
    def test_auto_falls_back_to_sync(self):
        self.backend = "auto"
        r = self.drivestress(*SMALL, wrapper=self.wrapper)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        notes = [line for line in r.stdout.splitlines() if "io_uring_setup" in line]
        self.assertEqual(len(notes), 1, r.stdout)
        self.assertIn("Operation not permitted", notes[0])
        doc = self.assertJson(r)
        b = doc["backend"]
        self.assertEqual((b["requested"], b["used"]), ("auto", "sync"))
        self.assertIsNotNone(b["fallback_reason"])
        self.assertIn("io_uring_setup", b["fallback_reason"])
        self.assertIsNone(b["io_uring"])
        self.assertEqual(doc["summary"]["exit_code"], 0)
        self.assertGreater(doc["summary"]["verified_bytes"], 0)

    @harness.meson_case(name="no-io_uring-required-refused")
    def test_io_uring_required_is_refused(self):
        self.backend = "io_uring"
        r = self.drivestress(*SMALL, wrapper=self.wrapper, json_out=False)
        self.assertSetupError(r, "io_uring")
        self.assertNoFilesLeft(r)
        self.assertEqual(os.listdir(self.tmp), ["target"])


if __name__ == "__main__":
    harness.main()
