"""--baseline EXE: the A/B of two drivestress builds inside one bench.  Every
drivestress run of a case runs a second time with EXE in the same repetition
(this build first in odd repetitions, EXE first in even ones, so that an order
effect cancels), its figures under the key "base:" + key, and each key of this
build gets a pair row: this build over EXE."""

from benchlib.cases_qd import pair_row
from benchlib.report import summarise_pair

BASE = "base:"


def with_baseline(bench, runs, rep):
    """The (tool, fn) runs of one repetition, each drivestress run (every
    tool whose name starts with "drivestress") followed
    (or, in every other repetition, preceded) by the same run with the
    baseline binary when --baseline is given."""
    exe = bench.args.baseline_exe
    if not exe:
        return runs
    out = []
    for tool, fn in runs:
        if not tool.startswith("drivestress"):  # "drivestress --rate", "drivestress x4", ...
            out.append((tool, fn))
            continue
        pair = [(tool, fn), ("baseline" + tool[len("drivestress"):], on_baseline(bench, fn, exe))]
        out += pair if rep % 2 == 0 else pair[::-1]
    return out


def on_baseline(bench, fn, exe):
    def run():
        mine, bench.ds = bench.ds, exe
        try:
            res = fn()
        finally:
            bench.ds = mine
        return {BASE + k: m for k, m in res.items()}
    return run


def baseline_rows(gid, case, samples):
    """A pair row per figure both builds gave in this group: this build's
    figure over the baseline's, repetition by repetition."""
    unit = "MiB/s" if case == "seq" else "IOPS"
    rows = []
    for key in sorted(k for k in samples if not k.startswith(BASE) and BASE + k in samples):
        first = samples[key][0]
        row = pair_row(f"{gid}-{key}-vs-baseline", f"{gid} {key} vs baseline",
                       first.unit or unit, key, "this build", BASE + key, "baseline")
        rows.append(summarise_pair(row, samples))
    return rows
