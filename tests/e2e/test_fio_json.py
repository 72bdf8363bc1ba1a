"""--fio-json: the random phase as fio 3.33's JSON+ document, read by fio's
own fio_jsonplus_clat2csv (Debian's fio package; the cases that need it
skip, saying so, where it is not installed): the CSV's p99 rows are the
report's p99 in fio's bins and its --validate passes.  The document agrees
with drivestress's own --json (operations, bytes, latency counts), goes to
stdout with "-", has a job per sweep point, per --compare-backends row
and per preset test, a job per job of a --job-file run (its group fio's
groupid), and a command line it cannot serve is refused in one line before
any I/O."""

import csv
import json
import os
import shutil
import subprocess

import harness

MESON_CASE = {"name": "fio-json-{case}", "timeout": 120}

RUN = ("-s", "2M", "-j", 2, "--rand-ops", 3000, "--read-pct", 70)
CLAT2CSV = "fio_jsonplus_clat2csv"


def fio_bin_value(ns):
    """fio's plat_idx_to_val(plat_val_to_idx(ns)): the value naming the fio
    bin a latency falls in (fio stat.c, FIO_IO_U_PLAT_BITS 6)."""
    if ns < 128:
        return ns
    msb = ns.bit_length() - 1
    error_bits = msb - 6
    idx = min(((error_bits + 1) << 6) + ((ns >> error_bits) & 63), 29 * 64 - 1)
    error_bits = (idx >> 6) - 1
    return (1 << (error_bits + 6)) + int((idx % 64 + 0.5) * (1 << error_bits))


def random_phase(doc):
    return harness.merged_phases_of(doc)["random"]


class FioJson(harness.DriveStressTest):
    def fio_path(self, name="fio.json"):
        return os.path.join(self.tmp, name)  # beside the target, not in it

    def run_both(self, *args):
        path = self.fio_path()
        r = self.drivestress(*args, "--fio-json", path)
        self.assertExit(r, 0)
        with open(path) as f:
            return self.assertJson(r), json.load(f), path

    def test_document_agrees_with_the_report(self):
        doc, fio, _ = self.run_both(*RUN)
        self.assertTrue(fio["fio version"].startswith("drivestress "), fio["fio version"])
        self.assertIn("fio-3.33", fio["fio version"])
        self.assertEqual(fio["global options"]["directory"], os.path.realpath(self.target))
        self.assertEqual(fio["disk_util"], [])
        self.assertEqual(len(fio["jobs"]), 1)
        job, rnd = fio["jobs"][0], random_phase(doc)
        self.assertEqual((job["jobname"], job["groupid"], job["error"]), ("random", 0, 0))
        self.assertEqual(job["job options"]["numjobs"], "2")
        self.assertEqual(job["job options"]["rwmixread"], "70")
        self.assertEqual(job["job options"]["randseed"], str(doc["config"]["seed"]))
        for fio_dir, ds in (("read", "read"), ("write", "write")):
            d = job[fio_dir]
            self.assertEqual(d["total_ios"], rnd[ds + "_ops"])
            self.assertEqual(d["io_bytes"], rnd[ds + "_ops"] * harness.UNIT_BYTES)
            self.assertEqual(d["clat_ns"]["N"], rnd[ds + "_latency"]["count"])
            self.assertEqual(d["clat_ns"]["min"], rnd[ds + "_latency"]["min_ns"])
            self.assertEqual(d["clat_ns"]["max"], rnd[ds + "_latency"]["max_ns"])
            self.assertEqual(d["clat_ns"]["percentile"]["99.000000"],
                             rnd[ds + "_latency"]["percentiles_ns"]["p99"])
            self.assertEqual(sum(d["clat_ns"]["bins"].values()), d["total_ios"])
            self.assertEqual(d["lat_ns"], d["clat_ns"])  # closed loop
        self.assertEqual(rnd["read_ops"] + rnd["write_ops"], 3000)
        self.assertEqual(job["trim"]["total_ios"], 0)
        self.assertNotIn("bins", job["trim"]["clat_ns"])
        self.assertAlmostEqual(sum(job["latency_us"].values()) + sum(job["latency_ns"].values())
                               + sum(job["latency_ms"].values()), 100, delta=0.5)

    def test_clat2csv_reads_it_and_gives_the_report_p99(self):
        tool = shutil.which(CLAT2CSV)
        if not tool:
            self.skipTest(f"{CLAT2CSV} not found (Debian's fio package installs it)")
        doc, fio, path = self.run_both(*RUN)
        stub = os.path.join(self.tmp, "lat.csv")
        p = subprocess.run([tool, path, stub], capture_output=True, text=True, timeout=60)
        if p.returncode != 0 and "No module named" in p.stderr:
            self.skipTest(f"{CLAT2CSV} cannot run here: {p.stderr.strip().splitlines()[-1]}")
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.tmp, "lat_job0.csv")) as f:
            rows = list(csv.reader(f, skipinitialspace=True))
        header = [h.strip() for h in rows[0]]
        rows = [r for r in rows[1:] if r and r[0].strip()]
        rnd = random_phase(doc)
        for ddir in ("read", "write"):
            ours = rnd[ddir + "_latency"]["percentiles_ns"]["p99"]
            for lat in ("clat_ns", "lat_ns"):
                with self.subTest(ddir=ddir, lat=lat):
                    col = header.index(f"{ddir}_{lat}_percentile")
                    cum = header.index(f"{ddir}_{lat}_cumulative")
                    p99 = next(int(r[0]) for r in rows
                               if r[col].strip() and float(r[col]) >= 0.99)
                    # The report's p99 lies in one fio bin, whose value the CSV
                    # gives: within fio's 1/128 of it (its stated error).
                    self.assertEqual(p99, fio_bin_value(ours), (p99, ours))
                    self.assertLessEqual(abs(p99 - ours), ours / 128 + 1)
                    last = [int(r[cum]) for r in rows if r[cum].strip()][-1]
                    self.assertEqual(last, rnd[ddir + "_ops"])
        v = subprocess.run([tool, path, stub, "--validate"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        self.assertIn("lat_job0.csv validated", v.stdout)

    def test_rate_lat_is_response_time(self):
        """Under --rate, lat_ns counts from when each operation was due:
        never below its service time (clat_ns), rank for rank."""
        doc, fio, _ = self.run_both("-s", "2M", "-j", 2, "--rand-ops", 600, "--rate", 2000)
        job = fio["jobs"][0]
        copies = int(job["job options"]["numjobs"])  # io_uring: 2 workers; sync: their threads
        self.assertEqual(job["job options"]["rate_iops"], str(round(2000 / copies)))
        self.assertEqual(job["iodepth_level"]["1"], 0.0)  # an open loop: not sampled
        for ddir in ("read", "write"):
            d = job[ddir]
            self.assertEqual(d["lat_ns"]["N"], d["clat_ns"]["N"])
            for key, value in d["clat_ns"]["percentile"].items():
                self.assertGreaterEqual(d["lat_ns"]["percentile"][key], value, (ddir, key))
        self.assertEqual(job["read"]["lat_ns"]["N"] + job["write"]["lat_ns"]["N"],
                         random_phase(doc)["rate"]["response_latency"]["count"])

    def test_stdout_and_the_text_on_stderr(self):
        r = self.drivestress(*RUN, "--fio-json", "-", json_out=False)
        self.assertExit(r, 0)
        fio = json.loads(r.stdout)
        self.assertEqual(fio["jobs"][0]["jobname"], "random")
        self.assertIn("PASS", r.stderr)

    def test_sweep_points_are_groups(self):
        _, fio, _ = self.run_both("-s", "2M", "-j", 1, "--rand-ops", 400, "--sweep", "qd=1,4")
        self.assertEqual([(j["jobname"], j["groupid"]) for j in fio["jobs"]],
                         [("random qd=1", 0), ("random qd=4", 1)])
        self.assertEqual([j["job options"]["iodepth"] for j in fio["jobs"]], ["1", "4"])
        self.assertEqual([j["read"]["total_ios"] + j["write"]["total_ios"] for j in fio["jobs"]],
                         [400, 400])

    def test_compare_backends_rows_and_preset_tests_are_jobs(self):
        if harness.io_uring_unavailable_reason():
            self.skipTest("io_uring is not available here")
        _, fio, _ = self.run_both("-s", "1M", "-j", 1, "--rand-ops", 200, "--compare-backends")
        self.assertEqual([j["jobname"] for j in fio["jobs"]], ["io_uring", "sync"])
        self.assertEqual([j["job options"]["ioengine"] for j in fio["jobs"]],
                         ["io_uring", "psync"])
        self.assertEqual([j["groupid"] for j in fio["jobs"]], [0, 1])
        _, fio, _ = self.run_both("-s", "1M", "-j", 1, "--rand-ops", 200, "--preset", "quick")
        self.assertEqual(len(fio["jobs"]), 1)
        self.assertEqual(fio["jobs"][0]["read"]["total_ios"] + fio["jobs"][0]["write"]["total_ios"],
                         200)

    def test_refused_before_any_io(self):
        fio = self.fio_path()
        cases = [
            (("--phases", "seq-write,seq-read", "--fio-json", fio), ("--fio-json", "no random phase")),
            (("--rand-time", 0, "--fio-json", fio), ("--fio-json",)),
            (("--fio-json", ""), ("--fio-json: empty path",)),
            (("--fio-json", "-", "--json", "-"), ("--json -", "--fio-json -", "same file")),
        ]
        for args, names in cases:
            with self.subTest(args=args):
                r = self.drivestress("-s", "1M", "-j", 1, *args, json_out=False)
                self.assertSetupError(r, *names)
                self.assertNoFilesLeft(r)
                self.assertFalse(os.path.exists(fio))
        os.symlink(os.path.join(self.tmp, "elsewhere"), fio)
        r = self.drivestress("-s", "1M", "-j", 1, "--fio-json", fio, json_out=False)
        self.assertSetupError(r, "--fio-json " + fio)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "elsewhere")))
        r = self.drivestress("--verify-only", os.path.join(self.tmp, "x.state"), "--fio-json",
                             os.path.join(self.tmp, "v.json"), json_out=False, target=False)
        self.assertSetupError(r, "--fio-json")


# Two jobs at once on one file, then a paced pair: fio's jobs 0 and 1 in
# group 0, job 2 in group 1.
JOBS = """\
[global]
direct=1
size=4m
filename=shared.dat

[reader]
rw=randread
bs=4k
iodepth=1
number_ios=400

[writer]
rw=randwrite
bs=64k
iodepth=4
number_ios=300

[paced]
stonewall
rw=randread
bs=8k
numjobs=2
rate_iops=400
number_ios=200
"""


class FioJsonJobFile(harness.DriveStressTest):
    """A --job-file run: each job of the file is a job of the document, its
    figures the --json document's jobs[] entry, its options read off what
    ran; fio's own clat2csv reads it, job by job."""

    backend = None

    def test_each_job_is_a_fio_job(self):
        jobs = os.path.join(self.tmp, "jobs.fio")
        with open(jobs, "w", encoding="utf-8") as f:
            f.write(JOBS)
        path = os.path.join(self.tmp, "fio.json")
        r = self.drivestress("--job-file", jobs, "--fio-json", path)
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        with open(path) as f:
            fio = json.load(f)
        self.assertEqual([(j["jobname"], j["groupid"]) for j in fio["jobs"]],
                         [("reader", 0), ("writer", 0), ("paced", 1)])
        options = [j["job options"] for j in fio["jobs"]]
        self.assertEqual([(o["rw"], o["bs"], o["numjobs"], o["size"]) for o in options],
                         [("randread", "4k", "1", "4m"), ("randwrite", "64k", "1", "4m"),
                          ("randread", "8k", "2", "4m")])
        self.assertEqual([o["number_ios"] for o in options], ["400", "300", "200"])  # each copy's
        self.assertEqual(options[2]["rate_iops"], "400")
        for job, ours in zip(fio["jobs"], doc["jobs"]):
            with self.subTest(job=job["jobname"]):
                self.assertEqual(job["error"], 0)
                for ddir in ("read", "write"):
                    self.assertEqual(job[ddir]["total_ios"], ours[ddir + "_ops"])
                    self.assertEqual(job[ddir]["io_bytes"], ours[ddir + "_bytes"])
                    self.assertEqual(job[ddir]["clat_ns"]["N"], ours[ddir + "_ops"])
        reader, paced = fio["jobs"][0], fio["jobs"][2]
        self.assertEqual(reader["read"]["clat_ns"]["percentile"]["99.000000"],
                         doc["jobs"][0]["latency_ns"]["p99"])
        self.assertEqual(reader["read"]["lat_ns"], reader["read"]["clat_ns"])  # closed loop
        for key, value in paced["read"]["clat_ns"]["percentile"].items():
            self.assertGreaterEqual(paced["read"]["lat_ns"]["percentile"][key], value, key)
        self.clat2csv_agrees(path, [doc["jobs"][0]["latency_ns"]["p99"]])

    def clat2csv_agrees(self, path, p99s):
        """fio_jsonplus_clat2csv writes lat_jobN.csv per job: job N's read
        clat p99 row is p99s[N] in fio's bins; --validate passes."""
        tool = shutil.which(CLAT2CSV)
        if not tool:
            print(f"  (skipped the clat2csv check: {CLAT2CSV} not found)")
            return
        stub = os.path.join(self.tmp, "lat.csv")
        p = subprocess.run([tool, path, stub], capture_output=True, text=True, timeout=60)
        if p.returncode != 0 and "No module named" in p.stderr:
            print(f"  (skipped the clat2csv check: {p.stderr.strip().splitlines()[-1]})")
            return
        self.assertEqual(p.returncode, 0, p.stderr)
        for n, ours in enumerate(p99s):
            with open(os.path.join(self.tmp, f"lat_job{n}.csv")) as f:
                rows = list(csv.reader(f, skipinitialspace=True))
            header = [h.strip() for h in rows[0]]
            col = header.index("read_clat_ns_percentile")
            p99 = next(int(r[0]) for r in rows[1:]
                       if r and r[0].strip() and r[col].strip() and float(r[col]) >= 0.99)
            self.assertEqual(p99, fio_bin_value(ours), (n, p99, ours))
        v = subprocess.run([tool, path, stub, "--validate"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)
        for n in range(3):
            self.assertIn(f"lat_job{n}.csv validated", v.stdout)


if __name__ == "__main__":
    harness.main()
