"""Medians, spreads and ratios, the printed table and the goals."""

import argparse
import datetime
import errno
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import stats  # noqa: F401  scripts/stats.py (scripts/ is on sys.path)

from benchlib.common import *  # noqa: F401,F403
from benchlib.measure import *  # noqa: F401,F403
from benchlib.cases_open import *  # noqa: F401,F403





def fmt_pct(v):
    return "-" if v is None else f"{v * 100:.0f}%"


def fmt_steal(v):
    return "-" if v is None else f"{v * 100:.1f}%"


def fmt_num(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def summarise_pair(row, samples):
    """A pair_row's entry: both sides' medians and spreads, and the ratio
    A/B of each repetition's two figures (the value, or CPU per operation),
    its median and range: paired, so a load that drifts between
    repetitions moves both sides of a ratio alike."""
    a, b = samples.get(row["a"], []), samples.get(row["b"], []) if row["b"] else []

    def fig(m):
        return m.value if row["compare"] == "value" else m.cpu_s_per_mop
    ratios = [fig(x) / fig(y) for x, y in zip(a, b) if fig(x) and fig(y)]
    steals = [m.extra.get("steal") for m in a + b]
    steals = [x for x in steals if x is not None]
    extras = {}
    for k in sorted({k for m in a for k, v in m.extra.items()
                     if isinstance(v, (int, float)) and not isinstance(v, bool)}):
        extras[k] = median([m.extra.get(k) for m in a])
    return {"kind": "pair", "id": row["id"], "case": row["case"], "unit": row["unit"],
            "compare": row["compare"], "a_name": row["a_name"], "b_name": row["b_name"],
            "a_median": median([m.value for m in a]), "b_median": median([m.value for m in b]),
            "a_spread": spread([m.value for m in a]), "b_spread": spread([m.value for m in b]),
            "a_cpu_s_per_mop": median([m.cpu_s_per_mop for m in a]),
            "b_cpu_s_per_mop": median([m.cpu_s_per_mop for m in b]),
            "ratio": median(ratios), "ratios": ratios,
            "ratio_min": min(ratios) if ratios else None,
            "ratio_max": max(ratios) if ratios else None,
            "ratio_spread": spread(ratios), "a_extra_medians": extras,
            "steal_max": max(steals) if steals else None,
            "a_samples": [m.as_dict() for m in a], "b_samples": [m.as_dict() for m in b]}


def summarise(rows, samples):
    table = []
    for row in rows:
        if isinstance(row, dict):
            table.append(summarise_pair(row, samples))
            continue
        row_id, title, unit, ds_key, fio_key, uring = row[:6]
        ds, fio = samples.get(ds_key, []), samples.get(fio_key, [])
        floor = samples.get(row[6], []) if len(row) > 6 else []
        ds_med, fio_med = median([m.value for m in ds]), median([m.value for m in fio])
        steals = [m.extra.get("steal") for m in ds + fio + floor]
        steals = [x for x in steals if x is not None]
        table.append({
            "steal_max": max(steals) if steals else None,
            "floor_median": median([m.value for m in floor]),
            "floor_cpu_s_per_mop": median([m.cpu_s_per_mop for m in floor]),
            "floor_samples": [m.as_dict() for m in floor],
            "ds_spread": spread([m.value for m in ds]),
            "fio_spread": spread([m.value for m in fio]),
            "id": row_id, "case": title, "unit": unit, "io_uring": uring,
            "drivestress_median": ds_med, "fio_median": fio_med,
            "ratio": ds_med / fio_med if ds_med and fio_med else None,
            "ds_cpu_s_per_mop": median([m.cpu_s_per_mop for m in ds]),
            "fio_cpu_s_per_mop": median([m.cpu_s_per_mop for m in fio]),
            "drivestress_samples": [m.as_dict() for m in ds],
            "fio_samples": [m.as_dict() for m in fio],
        })
    return table


def print_pairs(table):
    """The pair rows (rate, targets): A against B of the same repetitions."""
    head = ("case", "A", "A median", "B", "B median", "ratio A/B", "ratio range", "A CPU s/Mop",
            "B CPU s/Mop", "spread A/B", "steal")
    lines = []
    for r in table:
        rng = (f"{r['ratio_min']:.2f}-{r['ratio_max']:.2f}" if r["ratio_min"] is not None
               else "-")
        lines.append((r["case"], r["a_name"], fmt_value(r["a_median"], r["unit"]),
                      r["b_name"] or "-", fmt_value(r["b_median"], r["unit"]),
                      fmt_num(r["ratio"]), rng, fmt_num(r["a_cpu_s_per_mop"]),
                      fmt_num(r["b_cpu_s_per_mop"]),
                      f"{fmt_pct(r['a_spread'])}/{fmt_pct(r['b_spread'])}",
                      fmt_steal(r.get("steal_max"))))
    print_columns(head, lines)
    print("(ratio A/B: the median over the repetitions of A's figure over B's in the same "
          "repetition, of IOPS, or on CPU/op rows of CPU per operation; ratio range: its lowest "
          "and highest)")
    rate = next((r for r in table if r["id"] == "rate-issue-error"), None)
    if rate and rate["a_extra_medians"]:
        x = rate["a_extra_medians"]
        print(f"--rate: requested {fmt_value(x['requested_iops'], 'IOPS')}, achieved "
              f"{fmt_value(x['achieved_iops'], 'IOPS')}, late {x['late_ops']:.0f}; issue error "
              f"p50 {x['issue_error_p50_us']:.1f} us, p99 {x['issue_error_p99_us']:.1f} us, "
              f"p99.9 {x['issue_error_p99.9_us']:.1f} us, max {x['issue_error_max_us']:.1f} us "
              "(medians over the repetitions)")
    for r in table:
        x = r["b_samples"] if r["b_samples"] and "overlap_s" in r["b_samples"][0] else []
        if x:
            print(f"{r['b_name']}: IOPS over the span all were in their random phase "
                  f"({median([m['overlap_s'] for m in x]):.2f} s of "
                  f"{median([m['phase_s'] for m in x]):.2f}, starts "
                  f"{median([m['start_skew_s'] for m in x]) * 1e3:.0f} ms apart; medians); "
                  f"whole phases summed: "
                  f"{fmt_value(median([m['whole_phases_iops'] for m in x]), 'IOPS')}"
                  f"{'' if all(m['aligned'] for m in x) else '; NOT aligned in some runs'}")


def print_columns(head, lines):
    widths = [max(len(x[i]) for x in [head] + lines) for i in range(len(head))]

    def out(cells):
        print(" | ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))))
    out(head)
    print("-+-".join("-" * w for w in widths))
    for x in lines:
        out(x)


def print_table(table):
    head = ("case", "drivestress median", "fio median", "ratio", "ds CPU s/Mop", "fio CPU s/Mop",
            "floor", "floor CPU s/Mop", "spread ds/fio", "steal")
    lines = []
    for r in table:
        lines.append((r["case"], fmt_value(r["drivestress_median"], r["unit"]),
                      fmt_value(r["fio_median"], r["unit"]), fmt_num(r["ratio"]),
                      fmt_num(r["ds_cpu_s_per_mop"]), fmt_num(r["fio_cpu_s_per_mop"]),
                      fmt_value(r.get("floor_median"), r["unit"]),
                      fmt_num(r.get("floor_cpu_s_per_mop")),
                      f"{fmt_pct(r['ds_spread'])}/{fmt_pct(r['fio_spread'])}",
                      fmt_steal(r.get("steal_max"))))
    print_columns(head, lines)


def evaluate_goals(table, rss):
    """The performance goals of the engine issue, each met or missed."""
    by_id = {r["id"]: r for r in table}
    goals = []

    def add(text, measured, met, unit=None):
        g = {"goal": text, "measured": measured, "met": met}
        if unit:
            g["unit"] = unit
        goals.append(g)

    def ratio_goal(row_id, bound, text):
        r = by_id.get(row_id)
        if r and r["ratio"] is not None:
            add(text, r["ratio"], r["ratio"] >= bound)

    def cpu_goal(row_id, bound, text):
        r = by_id.get(row_id)
        if r and r["ds_cpu_s_per_mop"] and r["fio_cpu_s_per_mop"]:
            x = r["ds_cpu_s_per_mop"] / r["fio_cpu_s_per_mop"]
            add(text, x, x <= bound)

    def floor_goal(row_id, text):
        r = by_id.get(row_id)
        if r and r["ds_cpu_s_per_mop"] and r.get("floor_cpu_s_per_mop"):
            x = r["ds_cpu_s_per_mop"] / r["floor_cpu_s_per_mop"]
            add(text, x, x <= 1.1)

    def floor_spins(row_id):
        samples = (by_id.get(row_id) or {}).get("floor_samples") or []
        return bool(samples) and str(samples[0].get("wait") or "").startswith("spin")

    for qd in (1, 2, 4, 32, 128):
        ratio_goal(f"randread-qd{qd}", 1.0, f"randread verify QD{qd} >= 1.0x fio io_uring")
        ratio_goal(f"randread-qd{qd}-noverify", 1.0,
                   f"randread no-verify QD{qd} >= 1.0x fio io_uring")
        if floor_spins(f"randread-qd{qd}"):
            # drivestress spins here (--wait auto) and fio sleeps: CPU per
            # operation is compared with the floor spinning the same way.
            floor_goal(f"randread-qd{qd}", f"CPU/op verify QD{qd} within 10% of the touching "
                                           "floor (both spin)")
        else:
            cpu_goal(f"randread-qd{qd}-noverify", 0.9, f"CPU/op no-verify QD{qd} <= 0.9x fio")
            cpu_goal(f"randread-qd{qd}", 1.0, f"CPU/op verify QD{qd} <= 1.0x fio")
        floor_goal(f"randread-qd{qd}-noverify", f"CPU/op no-verify QD{qd} within 10% of the floor")
    ratio_goal("mix70-qd32", 1.0, "randrw 70/30 QD32 >= 1.0x fio randrw")
    r = by_id.get("nop-qd32")
    if r and r["ds_cpu_s_per_mop"] and r.get("floor_cpu_s_per_mop"):
        x = r["ds_cpu_s_per_mop"] / r["floor_cpu_s_per_mop"]
        add("NOP QD32 CPU/op within 10% of the NOP floor's", x, x <= 1.1)
    ratio_goal("seq-write", 1.0, "seq write >= 1.0x fio")
    cpu_goal("seq-write", 1.5, "seq write CPU/MiB <= 1.5x fio")
    ratio_goal("seq-read-noverify", 1.0, "seq read no-verify >= 1.0x fio read")
    cpu_goal("seq-read-noverify", 1.5, "seq read no-verify CPU/MiB <= 1.5x fio")
    ratio_goal("seq-read-verify-vs-read", 0.95, "seq read+verify >= 0.95x fio plain read")
    ratio_goal("sync-randread-1w", 1.0, "sync 1 worker >= 1.0x fio psync")
    ratio_goal("sync-randread-2w", 1.0, "sync 2 workers >= 1.0x fio psync")
    r = by_id.get("rate-issue-error")
    if r and r["a_median"] is not None:
        add(f"issue error p99 at --rate {RATE_IOPS // 1000}k, 1 worker <= 10 us", r["a_median"],
            r["a_median"] <= 10, "us")
    r = by_id.get("rate-cpu")
    if r and r["ratio"] is not None:
        add("CPU/op with --rate within 10% of the closed loop's at the same IOPS",
            r["ratio"], r["ratio"] <= 1.1)
    for n in TARGET_COUNTS[1:]:
        for row_id, bound, text in (
                (f"targets-{n}-vs-processes", 0.95, f">= 0.95x {n} separate processes"),
                (f"targets-{n}-vs-fio", 1.0, f">= 1.0x fio {n} jobs")):
            r = by_id.get(row_id)
            if r and r["ratio"] is not None:
                add(f"{n} targets in one process {text}", r["ratio"], r["ratio"] >= bound)
        r = by_id.get(f"targets-{n}-cpu")
        if r and r["ratio"] is not None:
            add(f"CPU/op with {n} targets <= 1 target's", r["ratio"], r["ratio"] <= 1.0)
    if rss and "max_rss_kib" in rss:
        add("peak RSS of -s 256M -j 4 <= 64 MiB + generation map", rss["max_rss_kib"] / 1024.0,
            rss["met"], "MiB")
    return goals


def pair_notes(table):
    """What makes a pair row's comparison other than it says."""
    notes = []
    r = next((x for x in table if x["id"] == "rate-cpu"), None)
    far = [(x["value"], y["value"]) for x, y in zip(r["a_samples"], r["b_samples"])
           if y["value"] and abs(x["value"] / y["value"] - 1) > 0.1] if r else []
    if far:
        notes.append("CPU/op --rate vs closed loop: --rate did not achieve the closed loop's "
                     "IOPS within 10 % in " + ", ".join(
                         f"{fmt_value(x, 'IOPS')} vs {fmt_value(y, 'IOPS')}" for x, y in far))
    return notes


def print_goals(goals):
    print("\ngoals (ratio = drivestress/fio, or A/B on the A-B rows; CPU rows: CPU per op "
          "over fio's, the floor's or B's)")
    for g in goals:
        unit = g.get("unit")
        m = f"{g['measured']:.1f} {unit}" if unit else f"{g['measured']:.2f}"
        print(f"  {'met ' if g['met'] else 'MISS'}  {g['goal']}: {m}")
