"""Compare drivestress result documents, or merge them into one.

  compare A.json B.json [...] [--fail-if RULES]   side by side, A is the baseline
  compare --merge A.json [B.json ...]            one latency distribution per phase

Side by side: one row per (iteration, phase) present in any document, one line
per document: bandwidth (MiB/s) and IOPS with their ratio to the baseline,
p50/p99/p99.9 latency (ms) with the change from the baseline in ms and %, and
the latency sample count (p99.9 is "-" for an iteration whose histogram a
schema_version 2 document does not keep: see --iteration-detail).  A
percentile marked * is not supported by its sample count: fewer than 10
samples lie beyond it (p99 needs 1,000 samples,
p99.9 10,000), so it is one of the slowest few operations, not a stable
figure.  When the documents ran different configurations (backend, qd and
the qd in effect, files, size, blocks, read share, phases, sync, batch,
verification, direct I/O, preset), a warning lists what differs: their
ratios compare unlike runs.

With --repeat (schema_version 3: a phase's `repeats` estimates), a line under
each document's figures says, for MiB/s, IOPS and p99, whether the difference
from the baseline is real ("higher"/"lower": the medians' intervals lie
apart) or "within noise" (they overlap), by the rule of src/stats/estimate.cpp
(scripts/stats.py); "one repeat" when a side has no estimates.  A phase run
once (schema: `interval`) brings its own interval of MiB/s and IOPS, from its
slices: those two are judged on it ("a run's own intervals"); its p99 has
none ("no estimate").

--fail-if RULES: a regression gate for CI and fleets.  RULES is a comma list
(the option may be repeated) of [PHASE:]METRIC<CHANGE% or [PHASE:]METRIC>CHANGE%,
CHANGE being the change of every other document from the baseline A, in %:
  iops<-10%          fails when IOPS fell by more than 10 % in any phase
  p99>+20%           fails when p99 latency rose by more than 20 %
  random:bw<-5%      only the random phase; bw is bandwidth (MiB/s)
METRIC is iops, bw, mean, max, or a percentile p50, p90, p95, p99, p99.9,
p99.99.  Every (iteration, phase) that both documents ran is checked; a
percentile that either sample count does not support is not judged (listed
as such), and a rule that could judge nothing fails as bad input.  Each check
is listed with both values, the change and its verdict; the last line names
the rules crossed.  When both documents carry --repeat estimates for the
figure (iops, bw, p99), or each phase's own interval of one run (iops, bw), a
crossed threshold fails only when the intervals lie apart in the rule's
direction ("ok (crossed, but within noise ...)" otherwise); without them (no
interval on a side, or a metric with none) the check judges the single
figures as before, and the gate says how many checks had one repeat.

--merge: for documents of runs that ran at the same time (one per host, one
per drive), every phase's histograms of every document and iteration are
summed bucket by bucket (exact: the bucket boundaries are fixed) and the
percentiles recomputed with the C++ nearest-rank rule; bytes and operations
are summed, and the bandwidth and IOPS of the phase are the sum of each
document's rate (its bytes over its seconds in that phase).

--json prints the same figures as one JSON object instead of a table.
Exit status: 0; 2 when a --fail-if threshold was crossed; 1 with one line on
stderr for bad input, however damaged the document (or a --fail-if rule that
judged nothing); 1 without a word when the reader of the output goes away
(`| head`).  Needs python3 alone (standard library only).
"""

import argparse
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
import stats  # noqa: E402
from results import MIB, InputError  # noqa: E402

# Percentiles of the side-by-side table: (document key, p).
TABLE_PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9))
# Percentiles of a merged distribution, and those a --fail-if rule can name:
# the document's own set.
MERGE_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0,
                     "p99.9": 99.9, "p99.99": 99.99}
# Figures a phase's --repeat estimates cover: (entry key, repeats key, label,
# the --fail-if metric).
REPEAT_FIGURES = (("bandwidth", "bandwidth_bytes_per_sec", "MiB/s", "bw"),
                  ("iops", "iops", "IOPS", "iops"),
                  ("p99", "p99_ns", "p99", "p99"))
ONE_REPEAT = "one repeat"
# A figure one side has no interval of (a single run's p99).
NO_ESTIMATE = "no estimate"
# Exit status when a --fail-if threshold was crossed.
EXIT_GATE_FAILED = 2


class UsageParser(argparse.ArgumentParser):
    """Usage errors end like bad input: one line, exit 1."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {results.one_line(message)}\n")
        sys.exit(results.EXIT_BAD_INPUT)


def label(i):
    """A, B, ..., Z, D27, D28, ..."""
    return chr(ord("A") + i) if i < 26 else f"D{i + 1}"


def ratio(b, a):
    return b / a if a else None


def doc_header(docs, paths):
    """Who is who: one entry per document, kept in a merge (run_id and drive
    are absent, None, in documents written before they existed)."""
    out = []
    for i, (doc, path) in enumerate(zip(docs, paths)):
        out.append({
            "label": label(i),
            "path": path,
            "host": doc.get("host", {}).get("hostname"),
            "run_id": doc.get("run_id"),
            "target": doc.get("target", {}).get("path"),
            "drive": doc.get("target", {}).get("drive"),
            "backend": doc.get("backend", {}).get("used"),
            "started_at": doc.get("started_at"),
            "status": doc.get("summary", {}).get("status"),
            "exit_code": doc.get("summary", {}).get("exit_code"),
        })
    return out


# --- side by side -----------------------------------------------------------

def entry(phase, doc_label):
    """One document's figures for one (iteration, phase)."""
    lat = phase.get("latency", {})
    count = lat.get("count", 0)
    e = {
        "document": doc_label,
        "bandwidth_bytes_per_sec": phase.get("bandwidth_bytes_per_sec", 0.0),
        "bandwidth_mib_per_sec": phase.get("bandwidth_bytes_per_sec", 0.0) / MIB,
        "iops": phase.get("iops", 0.0),
        "latency_count": count,
        "mean_ns": lat.get("mean_ns", 0.0),
        "max_ns": lat.get("max_ns", 0),
    }
    for name, p in MERGE_PERCENTILES.items():
        e[f"{name}_ns"] = results.percentile_ns(phase, name, p) if count else 0
        e[f"{name}_supported"] = results.percentile_supported(count, p)
    e["repeats"] = repeat_estimates(phase.get("repeats"))
    e["own_interval"] = False
    if e["repeats"] is None:  # one repeat: the phase's own interval, where it has one
        e["repeats"] = own_estimates(phase)
        e["own_interval"] = e["repeats"] is not None
    return e


def own_estimates(phase):
    """One run's estimates of its bandwidth and IOPS from the phase's own
    interval (schema: interval, from its slices; bandwidth and IOPS of a
    phase move together, so one relative width serves both); no p99 (an
    order-statistic interval of one run is narrower than run-to-run noise).
    None without an interval (documents before it, short phases)."""
    iv = phase.get("interval")
    if not isinstance(iv, dict):
        return None
    try:
        value, low, high = float(iv["value"]), float(iv["low"]), float(iv["high"])
        conf, n = float(iv["confidence"]), float(iv["batches"])
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if not all(math.isfinite(v) for v in (value, low, high, conf, n)) or value <= 0:
        return None
    out = {}
    for key, doc_key in (("bandwidth", "bandwidth_bytes_per_sec"), ("iops", "iops")):
        figure = phase.get(doc_key)
        if not isinstance(figure, (int, float)) or not math.isfinite(figure):
            return None
        k = figure / value
        out[key] = {"median": figure, "min": low * k, "max": high * k, "low": low * k,
                    "high": high * k, "confidence": conf, "n": n}
    return out


def repeat_estimates(rep):
    """{figure: estimate} of a phase's --repeat figures; None without them
    (one repeat, or a document written before --repeat)."""
    if not isinstance(rep, dict):
        return None
    out = {}
    for key, doc_key, _, _ in REPEAT_FIGURES:
        est = rep.get(doc_key)
        if not isinstance(est, dict):
            return None
        try:
            out[key] = {k: float(est[k]) for k in stats.KEYS}
        except (KeyError, TypeError, ValueError, OverflowError):
            return None
        if not all(math.isfinite(v) for v in out[key].values()):
            return None  # a damaged document: no verdict rather than a traceback
    return out


def noise(e, base, figure):
    """stats.compare of `figure` in entry `e` against the baseline: "higher",
    "lower", "within noise", or ONE_REPEAT when either side has no repeats."""
    if not e["repeats"] or not base["repeats"]:
        return ONE_REPEAT
    if figure not in e["repeats"] or figure not in base["repeats"]:
        return NO_ESTIMATE
    verdict = stats.compare(e["repeats"][figure], base["repeats"][figure])
    return ONE_REPEAT if verdict == stats.ONE_SAMPLE else verdict


def add_changes(e, base):
    """Ratios and deltas of entry `e` against the baseline's entry."""
    e["bandwidth_ratio"] = ratio(e["bandwidth_bytes_per_sec"], base["bandwidth_bytes_per_sec"])
    e["iops_ratio"] = ratio(e["iops"], base["iops"])
    for name, _ in TABLE_PERCENTILES:
        a, b = base[f"{name}_ns"], e[f"{name}_ns"]
        # None: a schema 2 iteration without its histogram (--iteration-detail).
        has = base["latency_count"] and e["latency_count"] and a is not None and b is not None
        e[f"{name}_delta_ms"] = (b - a) / 1e6 if has else None
        e[f"{name}_delta_pct"] = (b / a - 1) * 100 if has and a else None
    e["noise"] = {figure: noise(e, base, figure) for figure, _, _, _ in REPEAT_FIGURES}


def drive_rows(docs):
    """Per drive of runs with several targets (targets[], schema_version 4),
    by name: each document's random-phase IOPS (its ratio to the baseline's),
    mismatches and status; none when no document had several targets."""
    names, by_doc = [], []
    for doc in docs:
        targets = doc.get("targets")
        drives = {}
        if isinstance(targets, list) and len(targets) > 1:
            for t in targets:
                if not isinstance(t, dict):
                    raise results.InputError("targets[]: not an object")
                random = next((ph for ph in t.get("merged_phases") or []
                               if isinstance(ph, dict) and ph.get("phase") == "random"), None)
                drives[t.get("name")] = {"iops": random.get("iops") if random else None,
                                         "mismatch_total": t.get("mismatch_total") or 0,
                                         "status": t.get("status")}
                if t.get("name") not in names:
                    names.append(t.get("name"))
        by_doc.append(drives)
    rows = []
    for name in names:
        entries = [d.get(name) for d in by_doc]
        base = entries[0]
        for e in entries[1:]:
            if e is not None and base is not None and e["iops"] is not None:
                e["iops_ratio"] = ratio(e["iops"], base["iops"])
        rows.append({"drive": name, "documents": entries})
    return rows


def compare(docs, paths):
    """Rows of (iteration, phase) with one entry per document (None if absent)."""
    keys = []
    by_doc = []
    for doc in docs:
        rows = {}
        for it, name, phase in results.phase_rows(doc):
            rows[(it, name)] = phase
            if (it, name) not in keys:
                keys.append((it, name))
        by_doc.append(rows)

    out_rows = []
    for key in keys:
        entries = []
        base = None
        for i, rows in enumerate(by_doc):
            phase = rows.get(key)
            if phase is None:
                entries.append(None)
                continue
            e = entry(phase, label(i))
            if i == 0:
                base = e
            elif base is not None:
                add_changes(e, base)
            entries.append(e)
        out_rows.append({"iteration": key[0], "phase": key[1], "documents": entries})
    return {"baseline": label(0), "documents": doc_header(docs, paths),
            "config_differences": config_differences(docs), "rows": out_rows,
            "drives": drive_rows(docs)}


def config_differences(docs):
    """[{item, values: [per document, None where not recorded]}] for every
    configuration item on which the documents that record it disagree."""
    recorded = [results.config_values(d) for d in docs]
    out = []
    for item, _ in results.CONFIG_ITEMS:
        values = [r.get(item) for r in recorded]
        known = [v for v in values if v is not None]
        if len(set(map(json.dumps, known))) > 1:
            out.append({"item": item, "values": values})
    return out


def config_text(item, v):
    if v is None:
        return "-"
    if item in ("size", "seq-block", "rand-block") and isinstance(v, int):
        for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
            if v and v % (1 << shift) == 0:
                return f"{v >> shift}{unit}"
        return str(v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


def render_config_warning(cmp):
    diffs = cmp["config_differences"]
    if not diffs:
        return []
    lines = ["warning: the documents ran different configurations, so their ratios "
             "compare unlike runs:"]
    for d in diffs:
        vals = "  ".join(f"{label(i)} {config_text(d['item'], v):<12}"
                         for i, v in enumerate(d["values"]))
        lines.append(f"  {d['item']:<12} {vals}".rstrip())
    return lines


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def fit_num(v, spec, room, suffix="", missing="-"):
    """format(v, spec) + suffix in at most `room` characters: fewer decimals
    when it is wider (a 12-second p99, a change of +14000 %), so a column
    never runs into the one before it."""
    if v is None:
        return missing
    m = re.fullmatch(r"([+]?)\.(\d+)f", spec)
    text = format(v, spec) + suffix
    if not m:
        return text
    for decimals in range(int(m.group(2)) - 1, -1, -1):
        if len(text) <= room:
            break
        text = format(v, f"{m.group(1)}.{decimals}f") + suffix
    return text


# The table is two, each under 100 columns (one would be 151): rates, then
# latency, a row per phase and document in both.
TABLE_WIDTH = 100


def render_rate_entry(e, it, ph):
    """One document's line of a row of the rates table."""
    cols = [f"{it}  {ph} {e['document']:<4}",
            f"{fit_num(e['bandwidth_mib_per_sec'], '.1f', 9):>10}",
            f" {fit_num(e.get('bandwidth_ratio'), '.3f', 6, missing=''):>6}",
            f"{e['iops']:>11.0f}",
            f" {fit_num(e.get('iops_ratio'), '.3f', 6, missing=''):>6}",
            f"{e['latency_count']:>10}"]
    return "".join(cols).rstrip()


def render_latency_entry(e, i, it, ph):
    """One document's line of a row of the latency table."""
    has_lat = e["latency_count"] > 0
    cols = [f"{it}  {ph} {e['document']:<4}"]
    for name, _ in TABLE_PERCENTILES:
        v = e[f"{name}_ns"] / 1e6 if has_lat and e[f"{name}_ns"] is not None else None
        mark = "*" if v is not None and not e[f"{name}_supported"] else ""
        cols.append(f"{fit_num(v, '.3f', 8, mark):>9}")
        if i == 0:
            cols.append(" " * 17)
            continue
        pct_text = fit_num(e.get(name + "_delta_pct"), "+.1f", 7, "%")
        cols.append(f"{fit_num(e.get(name + '_delta_ms'), '+.3f', 8):>9}{pct_text:>8}")
    return "".join(cols).rstrip()


def render_rows(cmp, head, entry, with_noise):
    """A table: its head, a rule, each row's documents."""
    lines = [head, "-" * len(head)]
    for row in cmp["rows"]:
        first = True
        for i, e in enumerate(row["documents"]):
            it = f"{str(row['iteration']):>4}" if first else " " * 4
            ph = f"{row['phase']:<10}" if first else " " * 10
            first = False
            if e is None:
                lines.append(f"{it}  {ph} {label(i):<4}{'(not run)':>10}")
                continue
            lines.append(entry(e, i, it, ph))
            base = row["documents"][0]
            if with_noise and i and base is not None and (e["repeats"] or base["repeats"]):
                lines += render_noise(e, base)
    return lines


WIDTH = 100


def fit_words(fields, indent, width=WIDTH, then=None):
    """Fields joined by two spaces after `indent`, wrapped onto lines of at
    most `width` columns (a field longer than that has a line of its own),
    each after `then` (`indent` if not given)."""
    lines, line = [], ""
    for f in map(str, fields):
        if line and len(line) + 2 + len(f) > width:
            lines.append(line)
            line = then if then is not None else indent
            line += f
            continue
        line = line + "  " + f if line else indent + f
    return lines + [line]


# A number and the unit after it: never put on two lines.
NUMBER_UNIT = re.compile(r"(?<=\d) (?=(?:%|ms|MiB|MiB/s|IOPS|checks|samples)\b)")


def wrap(text, prefix="", indent="", width=WIDTH):
    """Prose folded at its spaces onto lines of at most `width` columns: the
    first after `prefix`, the rest after `indent`; a number keeps its unit."""
    words = NUMBER_UNIT.sub("\u00a0", text).split(" ")
    lines, line = [], prefix
    for w in words:
        sep = "" if not line.strip() or line.endswith(" ") else " "
        if line.strip() and len(line) + len(sep) + len(w) > width:
            lines.append(line)
            line, sep = indent, ""
        line += sep + w
    return [l.rstrip().replace("\u00a0", " ") for l in lines + [line]]


def render_table(cmp):
    lines = []
    for d in cmp["documents"]:
        role = "  (baseline)" if d["label"] == cmp["baseline"] else ""
        # The document and its outcome, then where and when it ran (a line
        # whatever the paths' lengths, wrapped only past 100 columns).
        lines += fit_words([f"{d['path']}{role}", d["status"]], f"{d['label']}  ")
        lines += fit_words([f"host {d['host']}", f"backend {d['backend']}", d["started_at"],
                            f"target {d['target']}"], " " * (len(d["label"]) + 2))
    lines += render_config_warning(cmp)
    lines.append(f"x {cmp['baseline']}: ratio to the baseline; Δ: change from the baseline; "
                 "latency of reads and writes together")
    lines.append(f"*: fewer than {results.MIN_TAIL_SAMPLES} samples beyond this percentile "
                 "(one of the slowest operations: not stable)")
    lines.append("")
    key = f"{'iter':>4}  {'phase':<10} {'doc':<4}"
    rates = (f"{key}{'MiB/s':>10} {'x ' + cmp['baseline']:>6}{'IOPS':>11} "
             f"{'x ' + cmp['baseline']:>6}{'samples':>10}")
    lines += render_rows(cmp, rates, lambda e, i, it, ph: render_rate_entry(e, it, ph), True)
    lines.append("")
    latency = key + "".join(f"{name + ' ms':>9}{'Δ ms':>9}{'Δ %':>8}"
                            for name, _ in TABLE_PERCENTILES)
    lines += render_rows(cmp, latency, render_latency_entry, False)
    lines += render_drives(cmp)
    return "\n".join(lines)


def render_drives(cmp):
    """The per-drive rows of runs with several targets (drive x document)."""
    if not cmp.get("drives"):
        return []
    head = (f"{'drive':<24} {'doc':<4}{'rand IOPS':>11} {'x ' + cmp['baseline']:>7}"
            f"{'mismatches':>11}  status")
    lines = ["", "per drive (runs of several targets)", head, "-" * len(head)]
    for row in cmp["drives"]:
        for i, e in enumerate(row["documents"]):
            name = row["drive"] if i == 0 else ""
            if e is None:
                lines.append(f"{name:<24} {label(i):<4}{'(not run)':>11}")
                continue
            iops = fmt(e["iops"], ".0f")
            x = fmt(e.get("iops_ratio"), ".2f") if i else ""
            lines.append(f"{name:<24} {label(i):<4}{iops:>11} {x:>7}"
                         f"{e['mismatch_total']:>11}  {e['status'] or '-'}")
    return lines


def render_noise(e, base):
    """The line under a document's figures when either side ran --repeat:
    which differences from the baseline lie outside the noise."""
    pad = " " * 17  # under the doc column, folded to the table's 100 columns
    if not e["repeats"] or not base["repeats"]:
        who = base["document"] if not base["repeats"] else e["document"]
        return wrap(f"vs {base['document']}: one repeat ({who} has no --repeat estimates), "
                    "no verdict on the noise", pad, pad + "  ")
    verdicts = ", ".join(f"{text} {e['noise'][figure]}"
                         for figure, _, text, _ in REPEAT_FIGURES)
    if e["own_interval"] or base["own_interval"]:
        return wrap(f"vs {base['document']}: {verdicts} (a run's own intervals)", pad, pad + "  ")
    n_a, n_b = int(base["repeats"]["iops"]["n"]), int(e["repeats"]["iops"]["n"])
    conf = min(base["repeats"]["iops"]["confidence"], e["repeats"]["iops"]["confidence"])
    return wrap(f"vs {base['document']}: {verdicts} "
                f"(medians' {conf * 100:.0f} % intervals, n={n_a}/{n_b})", pad, pad + "  ")


# --- regression gate ----------------------------------------------------------

# [PHASE:]METRIC(<|>)[+-]NUMBER%
RULE = re.compile(r"^(?:(?P<phase>[a-z-]+):)?(?P<metric>[a-z0-9.]+)(?P<op>[<>])"
                  r"(?P<pct>[+-]?\d+(?:\.\d+)?)%$")
METRICS = ("iops", "bw", "mean", "max", *MERGE_PERCENTILES)


def parse_rules(texts):
    """The --fail-if rules, each {text, phase, metric, op, pct}; InputError
    naming the rule that cannot be read."""
    rules = []
    for text in texts:
        for item in text.split(","):
            item = item.strip()
            m = RULE.match(item.lower().replace(" ", ""))
            if not m:
                raise InputError(f"--fail-if: '{item}' is not [PHASE:]METRIC<CHANGE% or "
                                 "[PHASE:]METRIC>CHANGE% (e.g. iops<-10%, p99>+20%)")
            if m["metric"] not in METRICS:
                raise InputError(f"--fail-if: '{item}': unknown metric '{m['metric']}' "
                                 f"(use {', '.join(METRICS)})")
            rules.append({"text": item, "phase": m["phase"], "metric": m["metric"],
                          "op": m["op"], "pct": float(m["pct"])})
    if not rules:
        raise InputError("--fail-if: no rule given")
    return rules


def metric_value(e, metric):
    """(value, supported) of `metric` in entry `e`; value in its display unit."""
    if metric == "iops":
        return e["iops"], True
    if metric == "bw":
        return e["bandwidth_mib_per_sec"], True
    if not e["latency_count"]:
        return None, False
    if e.get(f"{metric}_ns") is None:  # a schema 2 iteration without its histogram
        return None, False
    if metric in ("mean", "max"):
        return e[f"{metric}_ns"] / 1e6, True
    return e[f"{metric}_ns"] / 1e6, e[f"{metric}_supported"]


def check(rule, row, base, e):
    """One check of `rule` on a row: a dict with the verdict."""
    c = {"rule": rule["text"], "metric": rule["metric"], "iteration": row["iteration"],
         "phase": row["phase"], "document": e["document"]}
    a, a_ok = metric_value(base, rule["metric"])
    b, b_ok = metric_value(e, rule["metric"])
    c["baseline_value"], c["value"] = a, b
    if a is None or b is None:
        c.update(verdict="not judged", reason="no latency samples")
    elif not (a_ok and b_ok):
        n = min(base["latency_count"], e["latency_count"])
        c.update(verdict="not judged",
                 reason=f"{n} samples do not support {rule['metric']}")
    elif a == 0:
        c.update(verdict="not judged", reason="baseline is 0")
    else:
        change = (b / a - 1) * 100
        crossed = change < rule["pct"] if rule["op"] == "<" else change > rule["pct"]
        c.update(change_pct=change, verdict="FAILED" if crossed else "ok")
        judge_noise(c, rule, base, e, crossed)
    return c


def judge_noise(c, rule, base, e, crossed):
    """With --repeat estimates on both sides, a crossed threshold fails only
    when the intervals lie apart in the rule's direction; c["noise"] says
    what the check knew: the stats verdict, ONE_REPEAT (judged on the single
    figures, as without --repeat) or "no estimate" (a metric --repeat does
    not estimate: judged on the single figures)."""
    figure = next((f for f, _, _, m in REPEAT_FIGURES if m == rule["metric"]), None)
    if not e["repeats"] or not base["repeats"]:
        c["noise"] = ONE_REPEAT
        return
    if figure is None:
        c["noise"] = NO_ESTIMATE
        return
    c["noise"] = noise(e, base, figure)
    if c["noise"] in (ONE_REPEAT, NO_ESTIMATE):  # judged on the single figures
        return
    apart = stats.LOWER if rule["op"] == "<" else stats.HIGHER
    if crossed and c["noise"] != apart:
        c["verdict"] = "ok"
        c["crossed_within_noise"] = True


def gate(cmp, rules):
    """Every check of every rule on every row both the baseline and a document ran."""
    checks = []
    for rule in rules:
        judged = 0
        for row in cmp["rows"]:
            base = row["documents"][0]
            if base is None or (rule["phase"] and rule["phase"] != row["phase"]):
                continue
            for i, e in enumerate(row["documents"][1:], 1):
                if e is None:
                    checks.append({"rule": rule["text"], "metric": rule["metric"],
                                   "iteration": row["iteration"], "phase": row["phase"],
                                   "document": label(i), "baseline_value": None, "value": None,
                                   "verdict": "not judged", "reason": f"not run by {label(i)}"})
                    continue
                c = check(rule, row, base, e)
                judged += c["verdict"] != "not judged"
                checks.append(c)
        if not judged:
            where = f"phase {rule['phase']}" if rule["phase"] else "any phase"
            raise InputError(f"--fail-if: '{rule['text']}' judged nothing ({where}: not in "
                             "both documents, or no supported values)")
    failed = [c for c in checks if c["verdict"] == "FAILED"]
    return {"rules": [r["text"] for r in rules], "checks": checks,
            "failed": len(failed), "passed": not failed}


def render_gate(g, baseline):
    lines = ["", f"gate --fail-if {','.join(g['rules'])} (change from {baseline})"]
    w = max(len(r) for r in g["rules"]) + 2
    head = (f"{'iter':>4}  {'phase':<10} {'doc':<4}{'rule':<{w}}{baseline:>15}{'value':>15}"
            f"{'change':>10}  verdict")
    lines += [head, "-" * len(head)]
    for c in g["checks"]:
        metric = c["metric"]

        def val(v):
            if v is None:
                return "-"
            if metric == "iops":
                return f"{v:.0f}"
            return f"{v:.1f} MiB/s" if metric == "bw" else f"{v:.3f} ms"
        change = "-" if "change_pct" not in c else f"{c['change_pct']:+.1f}%"
        verdict = c["verdict"] + (f": {c['reason']}" if "reason" in c else "")
        if c.get("crossed_within_noise"):
            verdict += " (crossed, but within noise: the intervals overlap)"
        elif c.get("noise") not in (None, ONE_REPEAT):
            verdict += {stats.HIGHER: " (intervals apart)", stats.LOWER: " (intervals apart)",
                        stats.WITHIN_NOISE: " (within noise)"}.get(c["noise"], f" ({c['noise']})")
        row = (f"{str(c['iteration']):>4}  {c['phase']:<10} {c['document']:<4}"
               f"{c['rule']:<{w}}{val(c['baseline_value']):>15}{val(c['value']):>15}"
               f"{change:>10}  ")
        # The verdict's words fold under it (under the rule when the row
        # leaves them too little room).
        under = " " * (len(row) if len(row) <= WIDTH - 40 else 21)
        lines += wrap(verdict, row, under)
    single = sum(c.get("noise") == ONE_REPEAT for c in g["checks"])
    if single:
        lines += wrap(f"gate: {single} of {len(g['checks'])} checks had one repeat (no --repeat "
                      "estimates on a side): judged on single figures, whatever the noise",
                      indent="      ")
    if g["passed"]:
        lines.append(f"gate: passed, {len(g['checks'])} checks, no threshold crossed")
    else:
        crossed = []
        for c in g["checks"]:
            if c["verdict"] == "FAILED":
                what = f"{c['rule']} ({c['phase']}, {c['document']})"
                if what not in crossed:
                    crossed.append(what)
        lines += wrap(f"gate: FAILED, {g['failed']} of {len(g['checks'])} checks crossed a "
                      f"threshold: {'; '.join(crossed)}", indent="      ")
    return lines


# --- merge ------------------------------------------------------------------

def merge(docs, paths):
    """One entry per phase: summed totals, summed rates, merged histogram."""
    phases = {}
    seen = []
    for path, doc in zip(paths, docs):
        per_doc = {}  # phase -> [bytes read, bytes written, read ops, write ops, seconds]
        for name, phase in results.histogram_rows(doc):
            if name not in seen:
                seen.append(name)
            m = phases.setdefault(name, {"documents": set(), "histogram": None,
                                         "read_bytes": 0, "write_bytes": 0,
                                         "read_ops": 0, "write_ops": 0,
                                         "bandwidth_bytes_per_sec": 0.0, "iops": 0.0})
            h = results.phase_histogram(phase, path)
            m["histogram"] = h if m["histogram"] is None else m["histogram"].merge(h)
            t = per_doc.setdefault(name, [0, 0, 0, 0, 0.0])
            t[0] += phase.get("read_bytes", 0)
            t[1] += phase.get("write_bytes", 0)
            t[2] += phase.get("read_ops", 0)
            t[3] += phase.get("write_ops", 0)
            t[4] += phase.get("elapsed_s", 0.0)
        for name, (rb, wb, ro, wo, secs) in per_doc.items():
            m = phases[name]
            m["documents"].add(path)
            m["read_bytes"] += rb
            m["write_bytes"] += wb
            m["read_ops"] += ro
            m["write_ops"] += wo
            if secs > 0:
                m["bandwidth_bytes_per_sec"] += (rb + wb) / secs
                m["iops"] += (ro + wo) / secs

    out_phases = []
    for name in sorted(phases, key=lambda n: results.phase_sort_key(n, seen)):
        m = phases[name]
        out_phases.append({
            "phase": name,
            "documents": len(m["documents"]),
            "read_bytes": m["read_bytes"],
            "write_bytes": m["write_bytes"],
            "read_ops": m["read_ops"],
            "write_ops": m["write_ops"],
            "bandwidth_bytes_per_sec": m["bandwidth_bytes_per_sec"],
            "iops": m["iops"],
            "latency": m["histogram"].to_json(MERGE_PERCENTILES),
        })
    totals = {"written_bytes": 0, "read_bytes": 0, "verified_bytes": 0, "mismatch_total": 0,
              "mismatches": {}, "worst_exit_code": 0}
    for doc in docs:
        s = doc.get("summary", {})
        for k in ("written_bytes", "read_bytes", "verified_bytes", "mismatch_total"):
            totals[k] += s.get(k, 0) or 0
        for cls, n in (s.get("mismatches") or {}).items():
            totals["mismatches"][cls] = totals["mismatches"].get(cls, 0) + n
        code = s.get("exit_code") or 0
        # A mismatch (2) outranks everything, as in the C++ exit status.
        if code == 2 or (totals["worst_exit_code"] != 2 and code > totals["worst_exit_code"]):
            totals["worst_exit_code"] = code
    return {"documents": doc_header(docs, paths), "phases": out_phases, "totals": totals}


def render_merge(mg):
    """Who was merged, then two tables under 100 columns (one would be 136):
    each phase's rates and sample count, then its latency."""
    lines = [f"merged {len(mg['documents'])} document(s):"]
    for d in mg["documents"]:
        lines += fit_words([d["path"], f"host {d['host']}", f"target {d['target']}",
                            f"backend {d['backend']}", d["started_at"], d["status"]],
                           "  ", then="    ")
    lines += wrap("bandwidth, IOPS: sum of each document's rate; latency: summed histogram "
                  "buckets of all documents and iterations", indent="  ")
    lines.append("")
    head = f"{'phase':<10} {'docs':>4} {'MiB/s':>10} {'IOPS':>11} {'samples':>10}"
    lines += [head, "-" * len(head)]
    for p in mg["phases"]:
        lines.append(f"{p['phase']:<10} {p['documents']:>4} "
                     f"{fit_num(p['bandwidth_bytes_per_sec'] / MIB, '.1f', 9):>10} "
                     f"{p['iops']:>11.0f} {p['latency']['count']:>10}")
    lines.append("")
    pct_names = list(MERGE_PERCENTILES)
    head = (f"{'phase':<10}{'min ms':>10}" + "".join(f"{n + ' ms':>10}" for n in pct_names)
            + f"{'max ms':>10}")
    lines += [head, "-" * len(head)]
    for p in mg["phases"]:
        lat = p["latency"]
        has = lat["count"] > 0

        def ms(v):
            return fit_num(v / 1e6, ".3f", 9) if has else "-"

        lines.append(f"{p['phase']:<10}{ms(lat['min_ns']):>10}"
                     + "".join(f"{ms(lat['percentiles_ns'][n]):>10}" for n in pct_names)
                     + f"{ms(lat['max_ns']):>10}")
    t = mg["totals"]
    lines.append("")
    lines += wrap(f"totals: {t['written_bytes'] / MIB:.1f} MiB written, "
                  f"{t['read_bytes'] / MIB:.1f} MiB read, {t['verified_bytes'] / MIB:.1f} MiB "
                  f"verified, {t['mismatch_total']} mismatches, worst exit code "
                  f"{t['worst_exit_code']} (of the {len(mg['documents'])} document(s) merged)",
                  indent="        ")
    return "\n".join(lines)


def main(argv=None, prog="compare"):
    """The command; `prog` names it in its usage and messages (scripts/compare,
    or drivestress-compare installed)."""
    ap = UsageParser(prog=prog, description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("documents", nargs="+", metavar="RESULT.json")
    ap.add_argument("--merge", action="store_true",
                    help="merge the documents into one distribution per phase")
    ap.add_argument("--fail-if", action="append", metavar="RULES", default=[],
                    help="exit 2 when a document's change from the baseline crosses a "
                         "threshold, e.g. iops<-10%%,p99>+20%% (see below)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    if not args.merge and len(args.documents) < 2:
        ap.error("comparing needs at least two documents (or --merge)")
    if args.merge and args.fail_if:
        ap.error("--fail-if compares documents with a baseline; it does not apply to --merge")
    # Bad input raises InputError: results.run_command prints it as one line.
    rules = parse_rules(args.fail_if) if args.fail_if else None
    docs = [results.load_document(p) for p in args.documents]
    out = merge(docs, args.documents) if args.merge else compare(docs, args.documents)
    if rules:
        out["gate"] = gate(out, rules)
    if args.json:
        for d in out.get("config_differences", []):
            print(f"{ap.prog}: warning: configurations differ: {d['item']} "
                  + ", ".join(f"{label(i)} {config_text(d['item'], v)}"
                              for i, v in enumerate(d["values"])), file=sys.stderr)
        json.dump(results.json_safe(out), sys.stdout, indent=2)
        print()
    elif args.merge:
        print(render_merge(out))
    else:
        lines = [render_table(out)]
        if rules:
            lines += render_gate(out["gate"], out["baseline"])
        print("\n".join(lines))
    if rules and not out["gate"]["passed"]:
        return EXIT_GATE_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(results.run_command("compare", main))
