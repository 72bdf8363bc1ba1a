#!/usr/bin/env python3
"""--interference (#52): each job of a job file alone, then its group
together, --repeat times alternated; each job's IOPS and p99 alone and
together with the ratio, the job that suffered most, and every run
verified: a bit flipped in a later repeat's run is a FAIL (exit 2) shown
with that run's report, its offset and its job in --json."""

import os

import harness
from harness import UNIT_BYTES, flip_bit
from test_repeat import validate

MESON_CASE = {"name": "interference-{case}"}

# A reader that reads every unit once (in order) beside a writer, on one
# file; a third job alone in the next group.
JOBS = """\
[global]
direct=1
ioengine=io_uring
filename=shared.dat
size=1m

[reader]
rw=read
bs=4k
iodepth=1
number_ios=256

[writer]
rw=randwrite
bs=64k
iodepth=4
number_ios=100

[after]
stonewall
rw=randread
bs=4k
number_ios=200
"""


class Interference(harness.DriveStressTest):
    backend = None  # the job file's ioengine says
    as_shipped = True  # no --wide: the text as a terminal of 100 columns shows it

    def job_file(self):
        path = os.path.join(self.tmp, "jobs.fio")
        with open(path, "w", encoding="utf-8") as f:
            f.write(JOBS)
        return path

    def test_each_job_alone_then_together_with_ratios(self):
        r = self.drivestress("--job-file", self.job_file(), "--interference", "--repeat", 2)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        validate(self, doc)
        i = doc["interference"]
        self.assertEqual(i["repeat"], 2)
        self.assertEqual([(run["label"], run["jobs"], run["exit_codes"]) for run in i["runs"]],
                         [("reader alone", ["reader"], [0, 0]),
                          ("writer alone", ["writer"], [0, 0]),
                          ("group 0 together", ["reader", "writer"], [0, 0]),
                          ("after alone", ["after"], [0, 0])])
        jobs = {j["name"]: j for j in i["jobs"]}
        self.assertEqual(jobs["reader"]["with"], ["writer"])
        self.assertEqual(jobs["after"]["with"], [])
        for name in ("reader", "writer"):
            j = jobs[name]
            for side in ("alone", "together"):
                self.assertEqual(len(j[side]["iops_samples"]), 2, (name, side))
                self.assertEqual(j[side]["iops"]["n"], 2)
            ratio = j["together"]["p99_ns"]["median"] / j["alone"]["p99_ns"]["median"]
            self.assertAlmostEqual(j["p99_ratio"], ratio)
        self.assertIn(i["suffered_most"]["job"], ("reader", "writer"))
        self.assertEqual(jobs["after"]["p99_ratio"], 0)  # alone in its group: no ratio
        self.assertEqual(len(jobs["after"]["together"]["iops_samples"]), 0)
        lines = r.stdout.splitlines()
        self.assertEqual(len([x for x in lines if x.startswith("run ")]), 8, r.stdout)
        self.assertTrue(any(x.startswith("verdict  ") and " p99 " in x for x in lines), r.stdout)
        self.assertIn("result   PASS", r.stdout)
        self.assertLessEqual(max(len(x) for x in lines), 100, r.stdout)

    def test_a_bit_flipped_in_a_later_repeat_fails_the_run(self):
        """The sequence is 4 runs; the 5th (repeat 2's reader alone) finds
        the bit its reader reads: exit 2, that run's report shown, its
        document the --json one."""
        offset = 21 * UNIT_BYTES + 777
        run = self.start("--job-file", self.job_file(), "--interference", "--repeat", 2,
                         stop="random")
        for k in range(8):  # every run pauses as its jobs start
            run.wait_stopped()
            if k == 4:
                flip_bit(self.data_file(0), offset)
            run.resume()
        r = run.finish()
        self.assertExit(r, 2)
        self.assertNoFilesLeft(r)
        doc = self.assertJson(r)
        validate(self, doc)
        self.assertEqual([run["exit_codes"] for run in doc["interference"]["runs"]],
                         [[0, 2], [0, 0], [0, 0], [0, 0]])
        found = [m for m in doc["mismatches"] if m["phase"] == "random"]
        self.assertEqual(len(found), 1, doc["mismatches"])
        self.assertEqual((found[0]["offset_bytes"], found[0]["job"], found[0]["class"]),
                         (offset, "reader", "corrupt"))
        self.assertIn("run 5/8  reader alone", r.stdout)
        self.assertIn("exit 2", r.stdout)
        self.assertIn(str(offset), r.stdout.replace(",", ""))  # the run's own report
        self.assertIn("FAIL", r.stdout.splitlines()[-1])

    def test_refusals_name_the_option(self):
        r = self.drivestress("-s", "1M", "--interference", json_out=False)
        self.assertSetupError(r, "--interference", "--job-file")
        r = self.drivestress("--job-file", self.job_file(), "--interference", "--fio-json",
                             os.path.join(self.tmp, "f.json"), json_out=False)
        self.assertSetupError(r, "--interference", "--fio-json")
        self.assertNoFilesLeft(r)
        r = self.drivestress("--job-file", self.job_file(), "--repeat", 2, json_out=False)
        self.assertSetupError(r, "--job-file", "--repeat")


if __name__ == "__main__":
    harness.main()
