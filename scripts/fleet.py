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

- per host: status (passed, no-verdict: exit 0 with nothing verified, failed, error,
  interrupted, or no result), exit
  code, the error line of a host that failed to run, host name, run id,
  drive, target, operations, random-phase IOPS and p99, mismatches;
- per drive of a host whose run had several targets (schema_version 4
  `targets[]`), an indented row under the host's: its status, the drive
  (name and path), random-phase IOPS and p99, mismatches, and whether it
  was the slow drive: a fleet of servers with many drives reads as host x
  drive;
- merged: scripts/compare --merge of every document there is (one latency
  distribution per phase, summed operations, bytes and rates).

A host's verdict is the worse of what its outcome and its document say (2,
a mismatch or an I/O error, outranks every other code): a document that says
failed, or counts mismatches, is never outvoted by an outcome of rc 0, and a
host whose outcome and document disagree says so.  A host whose outcome or
document cannot be read is an error of that host, not of the fleet.

Exit status: 0 when the fleet document was written (whatever the hosts'
verdicts: see fleet.worst_exit_code), 1 with one line on stderr otherwise
(1 without a word when the reader of the output goes away: `| head`).
Needs python3 alone (standard library only).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import results  # noqa: E402
from results import INTEGER, STRING, InputError, nullable  # noqa: E402

NO_RESULT = "no result"
# What fleet reads of an outcome file (deploy/ansible/drivestress.yml's).
OUTCOME_SHAPE = {"rc": nullable(INTEGER), "stderr": nullable(STRING)}
# summary.status of a finished document -> its exit status (the C++ verdict_word).
STATUS_CODES = {"passed": 0, "no-verdict": 0, "error": 1, "failed": 2}
# Clean exits: a run that verified nothing ends 0 too, but is never a pass.
CLEAN = ("passed", "no-verdict")


class UsageParser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"{self.prog}: {results.one_line(message)}\n")
        sys.exit(results.EXIT_BAD_INPUT)


def verdict(code):
    """The verdict word of an exit status, as drivestress's own."""
    if code is None:
        return NO_RESULT
    return {0: "passed", 1: "error", 2: "failed"}.get(code, "interrupted")


def read_outcome(path):
    """The outcome object at `path`, None when there is none; InputError when
    it cannot be read."""
    if not os.path.lexists(path):
        return None
    outcome = results.read_json(path, "an outcome (JSON)")
    try:
        results.check_shape(outcome, OUTCOME_SHAPE, "")
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    return outcome


def worse(a, b):
    """The worse of two exit statuses (None: none): 2 outranks everything."""
    if a is None or b is None:
        return b if a is None else a
    return 2 if 2 in (a, b) else max(a, b)


def document_code(doc):
    """The exit status a result document gives: 2 when it says failed or
    counts a mismatch, whatever its exit_code says; None when it gives none
    (a run that never finished its document)."""
    s = doc.get("summary") or {}
    mismatches = s.get("mismatches") or {}
    if (s.get("status") == "failed" or (s.get("mismatch_total") or 0) > 0
            or any(n > 0 for n in mismatches.values())):
        return 2
    if s.get("exit_code") is not None:
        return s["exit_code"]
    return STATUS_CODES.get(s.get("status"))


def phase_figures(doc):
    """Operations over every phase; the random phase's IOPS (its operations
    over its seconds, every iteration together) and p99 (of its histograms:
    every iteration's in version 1, the merged phase's in version 2, whose
    iterations carry figures only)."""
    ops, random_ops, random_s, h = 0, 0, 0.0, None
    for name, phase in results.histogram_rows(doc):
        n = phase.get("read_ops", 0) + phase.get("write_ops", 0)
        ops += n
        if name == "random":
            random_ops += n
            random_s += phase.get("elapsed_s", 0.0)
            ph = results.phase_histogram(phase)
            h = ph if h is None else h.merge(ph)
    iops = random_ops / random_s if random_s > 0 else None
    p99 = h.percentile(99.0) if h is not None and h.count else None
    return ops, iops, p99


def drive_entries(doc):
    """Per target of a run of several (targets[], schema_version 4): its own
    status and figures; none for a single-target run."""
    targets = doc.get("targets")
    if not isinstance(targets, list) or len(targets) < 2:
        return []
    drives = []
    for t in targets:
        if not isinstance(t, dict):
            raise InputError("targets[]: not an object")
        random = next((p for p in t.get("merged_phases") or []
                       if isinstance(p, dict) and p.get("phase") == "random"), None)
        drives.append({
            "name": t.get("name"), "path": t.get("path"), "status": t.get("status"),
            "exit_code": t.get("exit_code"),
            "random_iops": random.get("iops") if random else None,
            "random_p99_ns": random.get("p99_ns") if random else None,
            "mismatch_total": t.get("mismatch_total") or 0,
            "slow_below_median_pct": (t.get("slow") or {}).get("below_median_pct"),
        })
    return drives


def read_document(doc_path):
    """(document, None) or (None, why it cannot be used): it must load and its
    figures and histograms must add up, as the merge will add them."""
    if not os.path.lexists(doc_path):
        return None, None
    try:
        doc = results.load_document(doc_path)
        phase_figures(doc)
        drive_entries(doc)
        compare.merge([doc], [doc_path])
    except InputError as e:
        return None, f"result document unusable: {e}"
    return doc, None


def host_entry(directory, host):
    """What one host left in DIR: its status, error and figures."""
    problems = []
    try:
        outcome = read_outcome(os.path.join(directory, f"{host}.outcome.json"))
    except InputError as e:
        outcome = None
        problems.append(f"outcome unusable: {e}")
    doc_path = os.path.join(directory, f"{host}.json")
    doc, unreadable = read_document(doc_path)
    rc = outcome.get("rc") if outcome else None
    doc_code = document_code(doc) if doc is not None else None
    code = worse(rc, doc_code)
    if doc is not None and doc_code is None:
        # The run ended (or vanished) without finishing its document.
        code = worse(code, 1)
        problems.append("result document unfinished (status "
                        f"{(doc.get('summary') or {}).get('status')}): no verdict in it")
    elif rc is not None and doc_code is not None and rc != doc_code:
        problems.append(f"outcome says exit {rc} but the result document says "
                        f"{verdict(doc_code)} (exit {doc_code}"
                        + (f", {doc['summary'].get('mismatch_total')} mismatches"
                           if (doc.get("summary") or {}).get("mismatch_total") else "")
                        + f"): exit {code} stands")
    nothing = outcome is None and doc is None and not problems and not unreadable
    if nothing:
        problems.append("nothing came back: the host was unreachable or a task failed "
                        "before drivestress ran (see the ansible-playbook output)")
    elif code not in (0, 2) and outcome:
        lines = [l for l in (outcome.get("stderr") or "").splitlines() if l.strip()]
        problems.insert(0, lines[-1] if lines else f"exit {code}")
    if unreadable:
        problems.insert(0, unreadable)
    # Something came back but no verdict can be told from it: an error.
    status = "error" if unreadable or (code is None and not nothing) else verdict(code)
    if status == "passed" and doc is not None and (doc.get("summary") or {}).get("status") == \
            "no-verdict":
        status = "no-verdict"  # exit 0, but nothing was verified: never a pass
    entry = {"host": host, "status": status, "exit_code": code,
             "outcome_exit_code": rc, "document_exit_code": doc_code,
             "error": results.one_line("; ".join(problems), 600) if problems else None,
             "document": doc_path if doc else None, "command": (outcome or {}).get("cmd")}
    if doc is not None:
        ops, iops, p99 = phase_figures(doc)
        summary = doc.get("summary") or {}
        entry.update({
            "hostname": doc.get("host", {}).get("hostname"),
            "run_id": doc.get("run_id"),
            "target": doc.get("target", {}).get("path"),
            "drive": doc.get("target", {}).get("drive"),
            "ops": ops,
            "random_iops": iops,
            "random_p99_ns": p99,
            "mismatch_total": summary.get("mismatch_total") or 0,
            "written_bytes": summary.get("written_bytes") or 0,
            "verified_bytes": summary.get("verified_bytes") or 0,
            "drives": drive_entries(doc),
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
        if code is None or (code == 0 and e["status"] not in CLEAN):
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
        for d in e.get("drives") or []:
            iops = "-" if d["random_iops"] is None else f"{d['random_iops']:.0f}"
            p99 = "-" if d["random_p99_ns"] is None else f"{d['random_p99_ns'] / 1e6:.3f}"
            slow = ("" if d["slow_below_median_pct"] is None
                    else f"  SLOW: {d['slow_below_median_pct']:.0f} % below the median")
            lines.append(f"  {e['host'] + ' x ' + str(d['name']):<24} {d['status'] or '-':<11} "
                         f"{'-' if d['exit_code'] is None else d['exit_code']:>4}  "
                         f"{'':<12} {'':<16}  {'':<24} {'':>10} {iops:>10} {p99:>9} "
                         f"{d['mismatch_total']:>10}  {d['path']}{slow}")
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


def main(argv=None, prog="fleet"):
    """The command; `prog` names it in its usage and messages (scripts/fleet,
    or drivestress-fleet installed)."""
    ap = UsageParser(prog=prog, description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("directory", metavar="DIR")
    ap.add_argument("--hosts", help="every host meant to run, comma-separated")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.directory):
        print(f"{ap.prog}: {args.directory}: not a directory", file=sys.stderr)
        return 1
    hosts = [h for h in (args.hosts or "").split(",") if h] or hosts_in(args.directory)
    try:
        f = fleet(args.directory, hosts)
        # fleet.txt is read on a terminal too: a host's names escaped there as well.
        text = results.printable(render(f), keep_lines=True)
        with open(os.path.join(args.directory, "fleet.json"), "w", encoding="utf-8") as out:
            json.dump(results.json_safe(f), out, indent=2)
            out.write("\n")
        with open(os.path.join(args.directory, "fleet.txt"), "w", encoding="utf-8",
                  errors="backslashreplace") as out:
            out.write(text)
    except OSError as e:
        raise InputError(f"{e.filename or args.directory}: {e.strerror or e}") from None
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(results.run_command("fleet", main))
