#!/usr/bin/env python3
"""--job-file (#52): a fio job file runs as it is, its jobs at once or in
stonewalled groups, every byte verified, its files drivestress's own in
TARGET and gone after; --job-set changes every job; a bit flipped while
the jobs run is named at its offset with its job (exit 2) on both of fio's
engine families; a bad job file, or an option the job file replaces, is
refused in one line before anything is written."""

import os

import harness
from harness import UNIT_BYTES, flip_bit

# Each case's meson test (tests/e2e/cases.py; harness.meson_case).
MESON_CASE = {"name": "job-file-{cls}-{case}", "threads": True}

# The engine families fio users name: io_uring (and libaio) run on the
# io_uring backend, psync (and sync, pvsync...) on the sync one.
ENGINES = {"io_uring": "io_uring", "sync": "psync"}

TWO_AT_ONCE = """\
; a reader at QD 1 beside a writer flood, on one file
[global]
ioengine={engine}
direct=1
filename=shared.dat
size=8m
runtime=1
time_based

[reader]
rw=randread
bs=4k
iodepth=1

[writer]
rw=randwrite
bs=64k
iodepth=8
"""

GROUPS = """\
[global]
ioengine={engine}
direct=1
size=4m

[first]
rw=randrw
bs=4k
number_ios=500

[second]
stonewall
rw=randread
bs=8k
numjobs=2
filename=second.dat
number_ios=300
"""

READERS = """\
[global]
ioengine={engine}
direct=1
filename=data
size=4m

[readers]
rw=read
bs=4k
iodepth={depth}
numjobs=4
"""

# JESD219's sizes (some no powers of two) at its blockalign, four copies
# on one file: a 512-byte unit, operations placed at 4K and crossing each
# other's blocks.  Reads only, so that nothing rewrites the flipped unit.
JESD219_READERS = """\
[global]
ioengine={engine}
direct=1
filename=data
size=4m

[jesd219]
rw=randread
norandommap
bssplit=512/4:1024/1:1536/1:2048/1:2560/1:3072/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3
blockalign=4k
number_ios=3000
io_size=64m
iodepth={depth}
numjobs=4
"""


# One reader alone on its file with 512-byte blocks: the file's unit is
# 512, not the command line's 4K.
ONE_READER_512 = """\
[global]
ioengine={engine}
direct=1
filename=data
size=1m

[reader]
rw=read
bs=512
iodepth={depth}
"""


class JobFileCases:
    """Mixin of the cases; instantiated per engine family below."""

    engine = None

    def job_file(self, text, **values):
        path = os.path.join(self.tmp, "jobs.fio")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.format(engine=self.engine, **values))
        return path

    def jobs_of(self, r, code=0):
        self.assertExit(r, code)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        return doc, {j["name"]: j for j in doc["jobs"]}

    def test_two_jobs_on_one_file_run_at_once(self):
        r = self.drivestress("--job-file", self.job_file(TWO_AT_ONCE))
        doc, jobs = self.jobs_of(r)
        self.assertEqual(sorted(jobs), ["reader", "writer"], r.describe())
        reader, writer = jobs["reader"], jobs["writer"]
        self.assertGreater(reader["read_ops"], 0)
        self.assertEqual(reader["write_ops"], 0)
        self.assertGreater(writer["write_ops"], 0)
        self.assertEqual(reader["verified_bytes"], reader["read_bytes"])
        self.assertLess(reader["start_ns"], writer["end_ns"])
        self.assertLess(writer["start_ns"], reader["end_ns"])
        self.assertEqual(doc["summary"]["mismatch_total"], 0)
        self.assertIn("shared.dat is drivestress-0.dat", r.stderr)
        self.assertIn("PASS", r.stdout)

    def test_stonewalled_groups_run_in_order(self):
        r = self.drivestress("--job-file", self.job_file(GROUPS))
        _, jobs = self.jobs_of(r)
        first, second = jobs["first"], jobs["second"]
        self.assertEqual(first["read_ops"] + first["write_ops"], 500)
        self.assertEqual(second["read_ops"], 600)  # number_ios of each of 2 copies
        self.assertEqual(second["copies"], 2)
        self.assertLessEqual(first["end_ns"], second["start_ns"], (first, second))

    def test_job_set_changes_every_job(self):
        r = self.drivestress("--job-file", self.job_file(GROUPS), "--job-set", "number_ios=100")
        _, jobs = self.jobs_of(r)
        self.assertEqual(jobs["first"]["read_ops"] + jobs["first"]["write_ops"], 100)
        self.assertEqual(jobs["second"]["read_ops"], 200)

    def copies_find_a_flipped_bit(self, text, depth, job):
        """A bit flipped after the layout, before `job`'s copies run: every
        mismatch is at its offset, its job named, exit 2; the workload's
        records."""
        offset = 21 * UNIT_BYTES + 777
        run = self.start("--job-file", self.job_file(text, depth=depth), stop="random")
        run.wait_stopped()
        flip_bit(self.data_file(0), offset)
        run.resume()
        r = run.finish()
        doc, jobs = self.jobs_of(r, 2)
        for m in doc["mismatches"]:
            self.assertEqual(m["offset_bytes"], offset)
            self.assertEqual(m["class"], "corrupt")
            self.assertEqual(m["job"], job)
        records = [m for m in doc["mismatches"] if m["phase"] == "random"]
        self.assertEqual(jobs[job]["mismatches"], len(records))
        return records

    def test_four_copies_find_a_flipped_bit_at_qd1(self):
        records = self.copies_find_a_flipped_bit(READERS, 1, "readers")
        self.assertEqual(len(records), 4, records)  # each copy reads it once

    def test_four_copies_find_a_flipped_bit_at_qd32(self):
        records = self.copies_find_a_flipped_bit(READERS, 32, "readers")
        self.assertEqual(len(records), 4, records)

    def test_damage_is_counted_in_its_files_units(self):
        """Two bits flipped in two 512-byte units of one 4K: a file whose
        unit is 512 (its one job's block) has two damaged units, each
        named at its own offset."""
        base = 21 * UNIT_BYTES
        run = self.start("--job-file", self.job_file(ONE_READER_512, depth=4), stop="random")
        run.wait_stopped()
        flip_bit(self.data_file(0), base + 100)
        flip_bit(self.data_file(0), base + 600)
        run.resume()
        r = run.finish()
        doc, jobs = self.jobs_of(r, 2)
        self.assertEqual(doc["summary"]["damaged_units"], 2, r.describe())
        self.assertEqual({(m["offset_bytes"], m["unit_offset_bytes"]) for m in doc["mismatches"]},
                         {(base + 100, base), (base + 600, base + 512)})
        self.assertEqual(jobs["reader"]["mismatches"], 2)

    def test_jesd219_sizes_find_a_flipped_bit_at_qd1(self):
        # 12000 reads (number_ios; io_size lifts fio's default end, size=4m's
        # bytes: about 550 reads a copy, and no read of the bit 2 % of runs)
        # over 1024 4K steps, each covering 1.8 on average: about 21 cover
        # the bit, none with probability e^-21.
        self.assertGreater(len(self.copies_find_a_flipped_bit(JESD219_READERS, 1, "jesd219")), 0)

    def test_jesd219_sizes_find_a_flipped_bit_at_qd64(self):
        self.assertGreater(len(self.copies_find_a_flipped_bit(JESD219_READERS, 64, "jesd219")), 0)


class JobFileIoUring(JobFileCases, harness.DriveStressTest):
    backend = None  # the job file's ioengine says
    engine = ENGINES["io_uring"]


class JobFileSync(JobFileCases, harness.DriveStressTest):
    backend = None
    engine = ENGINES["sync"]


FIO_EXAMPLES = "/usr/share/doc/fio/examples"
# The examples that run today (with --job-set size=8m and runtime=1); one
# that stops running fails the corpus case.  null.fio and zipf.fio name
# fio's null engine: the nop backend, no verdict.
RUNS_TODAY = {"aio-read.fio", "backwards-read.fio", "basic-verify.fio", "fio-rand-RW.fio",
              "fio-rand-read.fio", "fio-rand-write.fio", "fio-seq-read.fio", "fio-seq-write.fio",
              "fixed-rate-submission.fio", "fsx.fio", "iometer-file-access-server.fio",
              "jesd219.fio", "null.fio", "poisson-rate-submission.fio", "rand-zones.fio",
              "ssd-test.fio", "tiobench-example.fio", "waitfor.fio", "zipf.fio"}
NULL_ENGINE = {"null.fio", "zipf.fio"}
# Examples whose filename= names a device (/dev/nvme0n1) or an absolute
# path (/tmp/data): their file goes in TARGET, as the refusal without it says.
IN_TARGET = {"basic-verify.fio", "jesd219.fio", "waitfor.fio"}


class JobFileCorpus(harness.DriveStressTest):
    """fio's own examples (Debian's fio-examples), each shrunk with
    --job-set: it runs to PASS (no verdict on the null engine) or is
    refused in one line naming the file, before anything is written."""

    backend = None

    @harness.meson_case(timeout=240)
    def test_fio_examples_run_or_are_refused_in_one_line(self):
        if not os.path.isdir(FIO_EXAMPLES):
            self.skipTest(f"{FIO_EXAMPLES} not found (Debian's fio-examples)")
        if harness.sanitizer():
            self.skipTest("the corpus runs once, in the plain build")
        ran = set()
        for name in sorted(os.listdir(FIO_EXAMPLES)):
            if not name.endswith(".fio"):
                continue
            path = os.path.join(FIO_EXAMPLES, name)
            extra = ["--job-set", "filename=data"] if name in IN_TARGET else []
            r = self.drivestress("--job-file", path, "--job-set", "size=8m",
                                 "--job-set", "runtime=1", *extra)
            self.assertNoFilesLeft(r)
            if r.returncode == 0:
                ran.add(name)
                # the null engine's verdict names the job file's option, not --backend
                verdict = "NO VERDICT: ioengine=null" if name in NULL_ENGINE else "PASS"
                self.assertIn(f"result   {verdict}", r.stdout, r.describe())
                continue
            self.assertExit(r, 1)
            errors = [line for line in r.stderr.splitlines() if "error:" in line]
            self.assertEqual(len(errors), 1, r.describe())
            self.assertTrue(errors[0].startswith(f"drivestress: error: {path}"), r.describe())
        print(f"{len(ran)} examples ran: {' '.join(sorted(ran))}")
        self.assertEqual(RUNS_TODAY - ran, set(), "examples that ran before no longer run")


class JobFileRefusals(harness.DriveStressTest):
    """One line, exit 1, nothing written in TARGET."""

    backend = None

    def refused(self, text, *args, expect):
        path = os.path.join(self.tmp, "bad.fio")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        r = self.drivestress("--job-file", path, *args)
        self.assertExit(r, 1)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, r.describe())
        for word in expect:
            self.assertIn(word, lines[0], r.describe())
        self.assertNoFilesLeft(r)
        self.assertIsNone(r.doc)

    def test_an_unknown_option_is_named_with_its_line(self):
        self.refused("[a]\nrw=randread\nsize=1m\nbogus_option=3\n", expect=["bad.fio:4", "bogus"])

    def test_an_engine_it_cannot_take_is_named(self):
        self.refused("[a]\nioengine=rdma\nrw=read\nsize=1m\n", expect=["bad.fio:2", "rdma"])

    def test_an_option_the_job_file_replaces_is_refused(self):
        self.refused("[a]\nrw=read\nsize=1m\n", "--qd", "4", expect=["--job-file", "--qd"])

    def test_a_file_outside_target_is_refused(self):
        self.refused("[a]\nrw=read\nsize=1m\nfilename=/tmp/elsewhere.dat\n",
                     expect=["/tmp", "TARGET"])

    def test_a_binary_file_is_refused(self):
        self.refused("\x00\x01\x02[\xff]\n", expect=["bad.fio"])


if __name__ == "__main__":
    harness.main()
