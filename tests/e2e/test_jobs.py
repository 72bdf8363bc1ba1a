#!/usr/bin/env python3
"""Runs of several jobs (#52), given through the test hook that needs no
job file (DRIVESTRESS_TEST_JOBS, tests/helpers/drivestress_hooked.cpp):
two jobs on two files run at once (their active intervals in the JSON
overlap), two stonewalled groups run one after the other, four copies on
one file find a bit flipped before their workload at its offset with the
job named (exit 2), and a trim job beside a reader on one file passes."""

import json
import os

import harness
from harness import UNIT_BYTES, MiB, read_block, write_block

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "jobs-{case}-{backend}", "threads": True}

FILE_BYTES = 8 * MiB


class JobsCases:
    """Mixin of the cases; instantiated per backend below."""

    def start_jobs(self, jobs, files, *args, stop=None):
        """Starts a run of `jobs` (JobSpec fields; "files" are numbers of
        the run's `files` files of FILE_BYTES)."""
        path = os.path.join(self.tmp, "jobs.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(jobs, f)
        return self.start("-s", "8M", "-j", files, "--seq-block", "64K", *args, stop=stop,
                          env_extra={"DRIVESTRESS_TEST_JOBS": path})

    def jobs_of(self, r, code=0):
        """The run's jobs[] by name, after checking its exit status."""
        self.assertExit(r, code)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        return doc, {j["name"]: j for j in doc["jobs"]}

    def test_two_jobs_on_two_files_run_at_once(self):
        r = self.start_jobs([
            {"name": "reader", "files": [0], "read_pct": 100, "depth": 1},
            {"name": "writer", "files": [1], "read_pct": 0, "block": 65536, "depth": 4},
        ], 2, "--rand-time", "1").finish()
        doc, jobs = self.jobs_of(r)
        self.assertEqual(sorted(jobs), ["reader", "writer"], r.describe())
        reader, writer = jobs["reader"], jobs["writer"]
        self.assertGreater(reader["read_ops"], 0)
        self.assertEqual(reader["write_ops"], 0)
        self.assertGreater(writer["write_ops"], 0)
        self.assertEqual(writer["read_ops"], 0)
        self.assertEqual(writer["block_sizes"], [65536])
        self.assertEqual(reader["verified_bytes"], reader["read_bytes"])
        # Their active intervals overlap: they ran at once.
        self.assertLess(reader["start_ns"], writer["end_ns"], reader)
        self.assertLess(writer["start_ns"], reader["end_ns"], writer)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        self.assertIn("randread", r.stdout)  # the text's table of jobs

    def test_stonewalled_groups_run_in_order(self):
        r = self.start_jobs([
            {"name": "second", "group": 1, "files": [1], "ops": 300, "read_pct": 50},
            {"name": "first", "group": 0, "files": [0], "ops": 200, "read_pct": 50},
        ], 2).finish()
        _, jobs = self.jobs_of(r)
        first, second = jobs["first"], jobs["second"]
        self.assertEqual(first["read_ops"] + first["write_ops"], 200)
        self.assertEqual(second["read_ops"] + second["write_ops"], 300)
        self.assertLessEqual(first["end_ns"], second["start_ns"], (first, second))

    def test_four_copies_on_one_file_find_a_flipped_bit_at_qd1(self):
        self.four_copies_find_a_flipped_bit(1)

    def test_four_copies_on_one_file_find_a_flipped_bit_at_qd32(self):
        self.four_copies_find_a_flipped_bit(32)

    def four_copies_find_a_flipped_bit(self, depth):
        """numjobs=4 on one file, each copy reading it all once at `depth`:
        a bit flipped after the layout is found by every copy at its
        offset, with the job named, and again by the reverify."""
        offset = 37 * UNIT_BYTES + 1234

        def flip():  # whole units: the harness's I/O is O_DIRECT
            unit = bytearray(read_block(run_file, 37 * UNIT_BYTES, UNIT_BYTES))
            unit[1234] ^= 0x08
            write_block(run_file, 37 * UNIT_BYTES, bytes(unit))

        run = self.start_jobs([
            {"name": "readers", "copies": 4, "files": [0], "access": "sequential",
             "read_pct": 100, "depth": depth, "loops": 1},
        ], 1, stop="random")
        run_file = self.data_file(0)
        run.wait_stopped()
        flip()
        run.resume()
        doc, jobs = self.jobs_of(run.finish(), 2)
        self.assertEqual(jobs["readers"]["copies"], 4)
        records = doc["mismatches"]
        in_workload = [m for m in records if m["phase"] == "random"]
        self.assertEqual(len(in_workload), 4, records)  # each copy's pass reads it
        self.assertTrue(any(m["phase"] == "reverify" for m in records), records)
        for m in records:
            self.assertEqual(m["offset_bytes"], offset)
            self.assertEqual(m["class"], "corrupt")
            self.assertEqual(m["job"], "readers")
            self.assertEqual(m["file"], run_file)

    def test_four_jobs_on_one_file_pass(self):
        """Four jobs of other sizes and depths writing and reading one file
        at once: one generation map, every read checked, no mismatch."""
        r = self.start_jobs([
            {"name": "log", "files": [0], "read_pct": 0, "block": 4096, "depth": 1},
            {"name": "pages", "files": [0], "read_pct": 70, "block": 16384, "depth": 8},
            {"name": "scan", "files": [0], "access": "sequential", "read_pct": 100,
             "block": 65536, "depth": 4},
            {"name": "mixed", "files": [0], "copies": 2, "read_pct": 50, "block": 8192,
             "depth": 16},
        ], 1, "--rand-time", "1").finish()
        doc, jobs = self.jobs_of(r)
        self.assertEqual(sorted(jobs), ["log", "mixed", "pages", "scan"], r.describe())
        for name, j in jobs.items():
            self.assertGreater(j["read_ops"] + j["write_ops"], 0, name)
            self.assertEqual(j["mismatches"], 0, name)
            self.assertEqual(j["verified_bytes"], j["read_bytes"], name)
        self.assertEqual(jobs["scan"]["write_ops"], 0)
        self.assertEqual(jobs["log"]["read_ops"], 0)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)

    def test_a_trim_job_beside_a_reader_passes(self):
        r = self.start_jobs([
            {"name": "trimmer", "files": [0], "read_pct": 0, "trim_pct": 100, "ops": 300},
            {"name": "reader", "files": [0], "read_pct": 100, "ops": 2000, "depth": 4},
        ], 1).finish()
        doc, jobs = self.jobs_of(r)
        self.assertEqual(jobs["trimmer"]["trim_ops"], 300)
        self.assertEqual(jobs["reader"]["read_ops"], 2000)
        self.assertEqual(jobs["reader"]["mismatches"], 0)
        self.assertEqual(doc["summary"]["mismatch_total"], 0)


class JobsIoUring(JobsCases, harness.DriveStressTest):
    backend = "io_uring"


class JobsSync(JobsCases, harness.DriveStressTest):
    backend = "sync"


if __name__ == "__main__":
    harness.main()
