#!/usr/bin/env python3
"""--wait: how an io_uring worker waits for a completion (asleep in the
kernel, or spinning on the completion ring first), and what auto chooses.

Each strategy, forced, finds damage as the sleeping engine does: a bit
flipped and a lost write before seq-read (test_corruption's cases) at
depths 1, 2 and 128, and a bit flipped in the middle of a closed-loop
random phase that reads the unit again.  The sync backend has no strategy
(its waits are blocking calls): its cases run at depth 2 beside them.  The
header and the JSON plan say what auto chose and why."""

import os

import harness
from test_corruption import CorruptionCases, flip_mid_random_phase

MESON_CASE = {"name": "wait-{case}-{cls}", "threads": True}


def args_at(qd, seq_block="64K"):
    return ("-s", "8M", "-j", 2, "--qd", qd, "--seq-block", seq_block, "--rand-time", 0)


class WaitCorruptionCases:
    """test_corruption's helpers and two of its cases, with --wait."""

    run_with_damage = CorruptionCases.run_with_damage
    overwrite = CorruptionCases.overwrite
    assertDetected = CorruptionCases.assertDetected
    test_bit_flip = CorruptionCases.test_bit_flip
    test_stale_unit = CorruptionCases.test_stale_unit
    wait = ()

    def start(self, *args, **kwargs):
        return super().start(*args, *self.wait, **kwargs)

    def test_bit_flip_in_the_random_phase(self):
        """A bit flipped in the middle of a closed-loop random phase on 1 MiB
        (256 units): its later reads find it, at that byte."""
        qd = min(self.seq_qd, 64)  # at most half of the 256 units in flight
        _, doc = flip_mid_random_phase(self, "-s", "1M", "-j", 1, "--qd", qd, "--read-pct", 100,
                                       "--rand-ops", 4000)
        if self.backend == "io_uring":
            spin = self.wait[1].partition(":")[2] or "50" if self.wait[1] != "sleep" else "0"
            for w in doc["plan"]["workers"]:
                self.assertEqual(w["completion_wait"], {"spin_us": int(spin), "rule": "asked"})


def wait_class(name, backend, qd, wait, seq_block="64K"):
    """A concrete case class: `backend` at depth `qd`, `wait` its --wait."""
    cls = type(name, (WaitCorruptionCases, harness.DriveStressTest),
               {"__module__": __name__, "backend": backend, "args": args_at(qd, seq_block), "seq_qd": qd,
                "wait": ("--wait", wait) if wait else ()})
    globals()[name] = cls


for _qd, _block in ((1, "64K"), (2, "64K"), (128, "16K")):
    wait_class(f"SleepQd{_qd}", "io_uring", _qd, "sleep", _block)
    wait_class(f"SpinQd{_qd}", "io_uring", _qd, "spin:100" if _qd == 2 else "spin", _block)
wait_class("SyncQd2", "sync", 2, None)


class AutoChoice(harness.DriveStressTest):
    """What auto chooses, said in the header and the JSON plan."""

    backend = "io_uring"
    as_shipped = True

    def plan_and_line(self, *args):
        r = self.drivestress("-s", "4M", "--seq-time", 0, "--phases", "seq-write,random",
                             "--rand-ops", 200, *args)
        self.assertExit(r, 0)
        self.assertNoFilesLeft(r)
        lines = r.stdout.splitlines()
        for line in lines:
            self.assertLessEqual(len(line), 100, line)
        said = [l.strip() for l in lines if l.strip().startswith("completions: ")]
        waits = {(w["completion_wait"]["spin_us"], w["completion_wait"]["rule"])
                 for w in self.assertJson(r)["plan"]["workers"]}
        return waits, said

    def test_depth_and_cpus_decide(self):
        cpus = len(os.sched_getaffinity(0))
        waits, said = self.plan_and_line("-j", 1, "--qd", 1)
        if cpus >= 2:
            self.assertEqual(waits, {(50, "spare-cpu")})
            self.assertEqual(said, ["completions: spin up to 50 us, then sleep "
                                    "(auto: depth 4 or less, a CPU to spare)"])
        else:
            self.assertEqual(waits, {(0, "no-spare-cpu")})
        waits, said = self.plan_and_line("-j", 1, "--qd", 8)
        self.assertEqual(waits, {(0, "deep")})
        self.assertEqual(said, [])  # a sleep, as every ring did before --wait: not said
        waits, said = self.plan_and_line("-j", cpus, "--qd", 2)
        self.assertEqual(waits, {(0, "no-spare-cpu")})
        self.assertEqual(said, ["completions: sleep in the kernel "
                                "(auto: no CPU to spare for a spin)"])
        waits, said = self.plan_and_line("-j", 1, "--qd", 1, "--wait", "spin:30")
        self.assertEqual(waits, {(30, "asked")})
        self.assertEqual(said, ["completions: spin up to 30 us, then sleep (--wait)"])

    def test_a_fallback_to_sync_waits_in_its_calls(self):
        """auto chose before the backend fell back: the plan then says the
        sync backend's way, and the header says nothing of completions."""
        if not harness.NO_IO_URING or not os.access(harness.NO_IO_URING, os.X_OK):
            self.fail(f"no_io_uring helper not found: {harness.NO_IO_URING!r}")
        self.backend = None  # auto
        r = self.drivestress("-s", "4M", "-j", 1, "--qd", 1, "--seq-time", 0, "--rand-ops", 200,
                             "--phases", "seq-write,random", wrapper=[harness.NO_IO_URING])
        self.assertExit(r, 0)
        doc = self.assertJson(r)
        self.assertEqual(doc["backend"]["used"], "sync")
        self.assertEqual([w["completion_wait"] for w in doc["plan"]["workers"]],
                         [{"spin_us": 0, "rule": "not-a-ring"}])
        self.assertNotIn("completions:", r.stdout)

    def test_refused_in_one_line(self):
        r = self.drivestress("--wait", "spin", "--rate", 1000)
        self.assertSetupError(r, "--wait spin", "--rate")
        self.assertNoFilesLeft(r)
        r = self.drivestress("--wait", "nap")
        self.assertSetupError(r, "--wait", "nap")


if __name__ == "__main__":
    harness.main()
