"""Merge the results of one drivestress run per host into one fleet document.

  fleet DIR [--hosts H1,H2,...]

DIR holds, per host H, what deploy/ansible/drivestress.yml brought back:
H.outcome.json (how the run ended there: exit code, the last lines of its
stderr, the command) and H.json (its result document, when drivestress wrote
one).  --hosts names every host that was meant to run (the inventory's), so a
host that left nothing behind (unreachable, a task that failed before
drivestress ran) is listed as such instead of vanishing; without it, the
hosts are those with an outcome or a document in DIR.

Writes DIR/fleet.json and DIR/fleet.txt and prints the table:

- per host: status (passed, failed, error, interrupted, or no result), exit
  code, the error line of a host that failed to run, host name, run id,
  drive, target, operations, random-phase IOPS and p99, mismatches;
- merged: scripts/compare --merge of every document there is (one latency
  distribution per phase, summed operations, bytes and rates).

Exit status: 0 when the fleet document was written (whatever the hosts'
verdicts: see fleet.worst_exit_code), 1 with one line on stderr otherwise.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import results  # noqa: E402
from results import InputError  # noqa: E402

NO_RESULT = "no result"


class UsageParser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"fleet: {message}\n")
        sys.exit(1)


def verdict(code):
    """The verdict word of an exit status, as drivestress's own."""
    if code is None:
        return NO_RESULT
    return {0: "passed", 1: "error", 2: "failed"}.get(code, "interrupted")


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: {e}") from None


def phase_figures(doc):
    """Operations over every phase; the random phase's IOPS and p99."""
    ops, iops, p99 = 0, None, None
    for _, name, phase in results.phase_rows(doc):
        ops += phase.get("read_ops", 0) + phase.get("write_ops", 0)
        if name == "random":
            iops = (iops or 0) + phase.get("iops", 0.0)
    random = [p for _, n, p in results.phase_rows(doc) if n == "random"]
    if random:
        h = results.phase_histogram(random[0])
        for p in random[1:]:
            h.merge(results.phase_histogram(p))
        p99 = h.percentile(99.0) if h.count else None
    return ops, iops, p99


def host_entry(directory, host):
    """What one host left in DIR: its status, error and figures."""
    outcome = read_json(os.path.join(directory, f"{host}.outcome.json"))
    doc_path = os.path.join(directory, f"{host}.json")
    doc, unreadable = None, None
    if os.path.exists(doc_path):
        try:
            doc = results.load_document(doc_path)
        except InputError as e:
            unreadable = f"result document unusable: {e}"
    code = outcome.get("rc") if outcome else None
    if code is None and doc is not None:
        code = doc.get("summary", {}).get("exit_code")
    entry = {"host": host, "status": verdict(code), "exit_code": code, "error": None,
             "document": doc_path if doc else None, "command": (outcome or {}).get("cmd")}
    if outcome is None and doc is None:
        entry["error"] = ("nothing came back: the host was unreachable or a task failed before "
                          "drivestress ran (see the ansible-playbook output)")
    elif code not in (0, 2) and outcome:
        lines = [l for l in (outcome.get("stderr") or "").splitlines() if l.strip()]
        entry["error"] = lines[-1] if lines else f"exit {code}"
    if unreadable:  # the run's verdict cannot be told from what came back
        entry.update(status="error", error=unreadable)
    if doc is not None:
        ops, iops, p99 = phase_figures(doc)
        summary = doc.get("summary", {})
        entry.update({
            "hostname": doc.get("host", {}).get("hostname"),
            "run_id": doc.get("run_id"),
            "target": doc.get("target", {}).get("path"),
            "drive": doc.get("target", {}).get("drive"),
            "ops": ops,
            "random_iops": iops,
            "random_p99_ns": p99,
            "mismatch_total": summary.get("mismatch_total", 0),
            "written_bytes": summary.get("written_bytes", 0),
            "verified_bytes": summary.get("verified_bytes", 0),
        })
    return entry, doc


def fleet(directory, hosts):
    entries, docs, paths = [], [], []
    for host in hosts:
        entry, doc = host_entry(directory, host)
        entries.append(entry)
        if doc is not None:
            docs.append(doc)
            paths.append(entry["document"])
    counts = {}
    worst = 0
    for e in entries:
        counts[e["status"]] = counts.get(e["status"], 0) + 1
        code = e["exit_code"]
        if code is None or (code == 0 and e["status"] != "passed"):
            code = 1  # nothing came back, or nothing usable
        worst = code if code == 2 or (worst != 2 and code > worst) else worst
    return {
        "fleet": {"hosts": len(entries), "statuses": counts, "worst_exit_code": worst},
        "hosts": entries,
        "merged": compare.merge(docs, paths) if docs else None,
    }


def drive_text(drive):
    if not drive or not drive.get("name"):
        return "-"
    parts = [drive["name"]] + [drive[k] for k in ("model", "serial") if drive.get(k)]
    return " ".join(parts)


def render(f):
    summary = ", ".join(f"{n} {s}" for s, n in sorted(f["fleet"]["statuses"].items()))
    lines = [f"fleet: {f['fleet']['hosts']} host(s): {summary}; worst exit code "
             f"{f['fleet']['worst_exit_code']}", ""]
    head = (f"{'host':<14} {'status':<11} {'exit':>4}  {'hostname':<12} {'run id':<16}  "
            f"{'drive':<24} {'ops':>10} {'rand IOPS':>10} {'p99 ms':>9} {'mismatches':>10}  target")
    lines += [head, "-" * len(head)]
    for e in f["hosts"]:
        exit_text = "-" if e["exit_code"] is None else str(e["exit_code"])
        row = f"{e['host']:<14} {e['status']:<11} {exit_text:>4}  "
        if e["document"]:
            iops = "-" if e["random_iops"] is None else f"{e['random_iops']:.0f}"
            p99 = "-" if e["random_p99_ns"] is None else f"{e['random_p99_ns'] / 1e6:.3f}"
            row += (f"{e['hostname'] or '-':<12} {e['run_id'] or '-':<16}  "
                    f"{drive_text(e['drive']):<24} {e['ops']:>10} {iops:>10} {p99:>9} "
                    f"{e['mismatch_total']:>10}  {e['target']}")
        lines.append(row.rstrip())
        if e["error"]:
            lines.append(f"{'':<14} {e['error']}")
    lines.append("")
    if f["merged"]:
        lines.append(compare.render_merge(f["merged"]))
    else:
        lines.append("merged: no result document came back")
    return "\n".join(lines) + "\n"


def hosts_in(directory):
    names = set()
    for name in os.listdir(directory):
        for suffix in (".outcome.json", ".json"):
            if name.endswith(suffix) and name not in ("fleet.json",):
                names.add(name[:-len(suffix)])
                break
    return sorted(names)


def main(argv=None):
    ap = UsageParser(prog="fleet", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("directory", metavar="DIR")
    ap.add_argument("--hosts", help="every host meant to run, comma-separated")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.directory):
        print(f"fleet: {args.directory}: not a directory", file=sys.stderr)
        return 1
    hosts = [h for h in (args.hosts or "").split(",") if h] or hosts_in(args.directory)
    try:
        f = fleet(args.directory, hosts)
        text = render(f)
        with open(os.path.join(args.directory, "fleet.json"), "w", encoding="utf-8") as out:
            json.dump(f, out, indent=2)
            out.write("\n")
        with open(os.path.join(args.directory, "fleet.txt"), "w", encoding="utf-8") as out:
            out.write(text)
    except (InputError, OSError) as e:
        print(f"fleet: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
