"""Compare drivestress result documents, or merge them into one.

  compare A.json B.json [...]          side by side, A is the baseline
  compare --merge A.json [B.json ...]  one latency distribution per phase

Side by side: one row per (iteration, phase) present in any document, one line
per document: bandwidth (MiB/s) and IOPS with their ratio to the baseline,
p50/p99/p99.9 latency (ms) with the change from the baseline in ms and %
(p99.9 is "-" for an iteration whose histogram a schema_version 2 document
does not keep: see --iteration-detail).

--merge: for documents of runs that ran at the same time (one per host, one
per drive), every phase's histograms of every document and iteration are
summed bucket by bucket (exact: the bucket boundaries are fixed) and the
percentiles recomputed with the C++ nearest-rank rule; bytes and operations
are summed, and the bandwidth and IOPS of the phase are the sum of each
document's rate (its bytes over its seconds in that phase).

--json prints the same figures as one JSON object instead of a table.
Exit status: 0, or 1 with one line on stderr for bad input.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
from results import MIB, InputError  # noqa: E402

# Percentiles of the side-by-side table: (document key, p).
TABLE_PERCENTILES = (("p50", 50.0), ("p99", 99.0), ("p99.9", 99.9))
# Percentiles of a merged distribution: the document's own set.
MERGE_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0,
                     "p99.9": 99.9, "p99.99": 99.99}


class UsageParser(argparse.ArgumentParser):
    """Usage errors end like bad input: one line, exit 1."""

    def error(self, message):
        sys.stderr.write(f"compare: {message}\n")
        sys.exit(1)


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
            e = {
                "document": label(i),
                "bandwidth_bytes_per_sec": phase.get("bandwidth_bytes_per_sec", 0.0),
                "bandwidth_mib_per_sec": phase.get("bandwidth_bytes_per_sec", 0.0) / MIB,
                "iops": phase.get("iops", 0.0),
                "latency_count": phase.get("latency", {}).get("count", 0),
            }
            for name, p in TABLE_PERCENTILES:
                e[f"{name}_ns"] = results.percentile_ns(phase, name, p)
            if i == 0:
                base = e
            elif base is not None:
                e["bandwidth_ratio"] = ratio(e["bandwidth_bytes_per_sec"],
                                             base["bandwidth_bytes_per_sec"])
                e["iops_ratio"] = ratio(e["iops"], base["iops"])
                for name, _ in TABLE_PERCENTILES:
                    a, b = base[f"{name}_ns"], e[f"{name}_ns"]
                    has = (base["latency_count"] and e["latency_count"] and a is not None
                           and b is not None)
                    e[f"{name}_delta_ms"] = (b - a) / 1e6 if has else None
                    e[f"{name}_delta_pct"] = (b / a - 1) * 100 if has and a else None
            entries.append(e)
        out_rows.append({"iteration": key[0], "phase": key[1], "documents": entries})
    return {"baseline": label(0), "documents": doc_header(docs, paths), "rows": out_rows}


def fmt(v, spec, missing="-"):
    return missing if v is None else format(v, spec)


def render_table(cmp):
    lines = []
    for d in cmp["documents"]:
        role = "  (baseline)" if d["label"] == cmp["baseline"] else ""
        lines.append(f"{d['label']}  {d['path']}  host {d['host']}  target {d['target']}  "
                     f"backend {d['backend']}  {d['started_at']}  {d['status']}{role}")
    lines.append(f"x {cmp['baseline']}: ratio to the baseline; Δ: change from the baseline; "
                 "latency of reads and writes together")
    lines.append("")
    pct_cols = "".join(f"{name + ' ms':>10} {'Δ ms':>9} {'Δ %':>8}"
                       for name, _ in TABLE_PERCENTILES)
    head = (f"{'iter':>4}  {'phase':<10} {'doc':<4}{'MiB/s':>10} {'x ' + cmp['baseline']:>7}"
            f"{'IOPS':>11} {'x ' + cmp['baseline']:>7}{pct_cols}")
    lines.append(head)
    lines.append("-" * len(head))
    for row in cmp["rows"]:
        first = True
        for i, e in enumerate(row["documents"]):
            it = f"{str(row['iteration']):>4}" if first else " " * 4
            ph = f"{row['phase']:<10}" if first else " " * 10
            first = False
            if e is None:
                lines.append(f"{it}  {ph} {label(i):<4}{'(not run)':>10}")
                continue
            has_lat = e["latency_count"] > 0
            cols = [f"{it}  {ph} {e['document']:<4}",
                    f"{e['bandwidth_mib_per_sec']:>10.1f}",
                    f" {fmt(e.get('bandwidth_ratio'), '.3f', ''):>6}",
                    f"{e['iops']:>11.0f}",
                    f" {fmt(e.get('iops_ratio'), '.3f', ''):>6}"]
            for name, _ in TABLE_PERCENTILES:
                v = e[f"{name}_ns"] / 1e6 if has_lat and e[f"{name}_ns"] is not None else None
                cols.append(f"{fmt(v, '.3f'):>10}")
                if i == 0:
                    cols.append(" " * 19)
                    continue
                pct = e.get(name + "_delta_pct")
                pct_text = "-" if pct is None else f"{pct:+.1f}%"
                cols.append(f" {fmt(e.get(name + '_delta_ms'), '+.3f'):>9} {pct_text:>8}")
            lines.append("".join(cols).rstrip())
    return "\n".join(lines)


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
    lines = [f"merged {len(mg['documents'])} document(s):"]
    for d in mg["documents"]:
        lines.append(f"  {d['path']}  host {d['host']}  target {d['target']}  "
                     f"backend {d['backend']}  {d['started_at']}  {d['status']}")
    lines.append("bandwidth, IOPS: sum of each document's rate; latency: summed histogram "
                 "buckets of all documents and iterations")
    lines.append("")
    pct_names = list(MERGE_PERCENTILES)
    head = (f"{'phase':<10} {'docs':>4} {'MiB/s':>10} {'IOPS':>11} {'samples':>10} {'min ms':>9}"
            + "".join(f"{n + ' ms':>11}" for n in pct_names) + f"{'max ms':>11}")
    lines.append(head)
    lines.append("-" * len(head))
    for p in mg["phases"]:
        lat = p["latency"]
        has = lat["count"] > 0

        def ms(v):
            return f"{v / 1e6:.3f}" if has else "-"

        lines.append(f"{p['phase']:<10} {p['documents']:>4} "
                     f"{p['bandwidth_bytes_per_sec'] / MIB:>10.1f} {p['iops']:>11.0f} "
                     f"{lat['count']:>10} {ms(lat['min_ns']):>9}"
                     + "".join(f"{ms(lat['percentiles_ns'][n]):>11}" for n in pct_names)
                     + f"{ms(lat['max_ns']):>11}")
    t = mg["totals"]
    lines.append("")
    lines.append(f"totals: {t['written_bytes'] / MIB:.1f} MiB written, "
                 f"{t['read_bytes'] / MIB:.1f} MiB read, {t['verified_bytes'] / MIB:.1f} MiB "
                 f"verified, {t['mismatch_total']} mismatches, worst exit code "
                 f"{t['worst_exit_code']}")
    return "\n".join(lines)


def main(argv=None):
    ap = UsageParser(prog="compare", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("documents", nargs="+", metavar="RESULT.json")
    ap.add_argument("--merge", action="store_true",
                    help="merge the documents into one distribution per phase")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args(argv)
    if not args.merge and len(args.documents) < 2:
        ap.error("comparing needs at least two documents (or --merge)")
    try:
        docs = [results.load_document(p) for p in args.documents]
        out = merge(docs, args.documents) if args.merge else compare(docs, args.documents)
    except InputError as e:
        print(f"compare: {e}", file=sys.stderr)
        return 1
    if args.json:
        json.dump(out, sys.stdout, indent=2)
        print()
    else:
        print(render_merge(out) if args.merge else render_table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
