#!/usr/bin/env python3
"""A deterministic mutation fuzzer for the document readers of scripts/compare
and scripts/fleet (scripts/results.py, compare.py, fleet.py).

Each case takes a real document (data/sample-*.json, and real-shaped variants
made from them here: one iteration, a failed run with a drive, a preset and a
sweep) or a fleet outcome file, mutates it (nulls, type swaps, empty
containers, integers >= 2^1024 and past Python's 4300-digit limit, 1e400,
NaN, lone surrogates, control characters, arrays and objects nested 100,000
deep, deleted and duplicated members; then sometimes truncation, flipped
bytes, non-UTF-8 bytes, UTF-16) and runs one command on it: compare A B,
compare --json, compare --merge, compare --fail-if, or fleet DIR.

Every case must end with exit status 0 or 1 (2 also for --fail-if: a crossed
gate), never a traceback or an "internal error", and on exit 1 exactly one
line on stderr naming the tool; --json output and fleet.json must be strict
JSON (no NaN, no Infinity).

Cases run in this process through the same entry the commands use
(results.run_command), and every --subprocess-every'th case also through the
real wrapper (scripts/compare, scripts/fleet).  Case N depends only on --seed
and N, so a finding replays alone:

  python3 tests/scripts/fuzz_documents.py [--seed 22] [--cases 1200] [--seconds 30]
      [--case N] [--verbose] [--save DIR] [--scripts DIR] [--data DIR]

It stops at --cases or --seconds, whichever comes first (the suite runs the
defaults: 1200 cases take about 15 s on an idle core; a busy one stops at
30 s), prints how many cases ran, and exits 1 listing the findings (each
with its case number), else 0.
"""

import argparse
import copy
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
ap.add_argument("--scripts", default=os.path.join(HERE, "..", "..", "scripts"))
ap.add_argument("--data", default=os.path.join(HERE, "data"))
ap.add_argument("--seed", type=int, default=22)
ap.add_argument("--cases", type=int, default=1200)
ap.add_argument("--seconds", type=float, default=30.0)
ap.add_argument("--subprocess-every", type=int, default=40, metavar="K")
ap.add_argument("--case", type=int, help="run this one case only")
ap.add_argument("--verbose", action="store_true", help="print every case's exit and stderr")
ap.add_argument("--save", metavar="DIR", help="keep the inputs of failing cases here")
OPTS = ap.parse_args()

sys.path.insert(0, os.path.abspath(OPTS.scripts))
import compare  # noqa: E402
import fleet  # noqa: E402
import results  # noqa: E402

DEEP = 100_000


class Raw:
    """JSON text put into a document as it is (what json.dumps cannot write)."""

    def __init__(self, text):
        self.text = text if isinstance(text, bytes) else text.encode()


RAW_VALUES = [
    Raw("1" + "0" * 400),                       # > 2^1024: beyond any float
    Raw("-" + "9" * 400),
    Raw("9" * 5000),                            # past int's 4300-digit limit
    Raw("1e400"), Raw("-1e400"), Raw("1e-400"),
    Raw("NaN"), Raw("Infinity"), Raw("-Infinity"),
    Raw("[" * DEEP + "]" * DEEP),
    Raw('{"a":' * DEEP + "0" + "}" * DEEP),
    Raw('"\\ud800"'), Raw('"\\udcff"'),           # lone surrogates
    Raw(b'"\xff\xfe\x80"'),                     # not UTF-8
    Raw('"a\\nb\\r\\u0000c"'),
]
PLAIN_VALUES = [None, True, False, 0, -1, 1.5, -0.0, 2 ** 64, 2 ** 63 - 1, -(2 ** 63),
                "", "x", "1", "1.5", "drivestress", "random", "log-linear",
                [], {}, [[]], [None], {"": None}, [0, 0], [1, -1], "x" * 10000]


def swap(value, rng):
    """The same value in another JSON type."""
    if isinstance(value, bool):
        return rng.choice([str(value).lower(), int(value), None])
    if isinstance(value, (int, float)):
        return rng.choice([str(value), [value], {"value": value}, bool(value), None])
    if isinstance(value, str):
        return rng.choice([len(value), 1.0, [value], {value: value}, None])
    if isinstance(value, list):
        return rng.choice([{str(i): v for i, v in enumerate(value)}, len(value), "[]", None])
    if isinstance(value, dict):
        return rng.choice([list(value.values()), list(value), len(value), "{}", None])
    return rng.choice(PLAIN_VALUES)


def pick(tree, rng):
    """The keys of a path to a node reached by a random descent ([]: the root)."""
    path, node = [], tree
    while isinstance(node, (dict, list)) and node and rng.random() > (0.22 if path else 0.03):
        k = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        path.append(k)
        node = node[k]
    return path


def copy_path(tree, path):
    """(new root, parent of the path's last node in it): the containers along
    the path copied, everything else shared, so the base is never changed."""
    root = type(tree)(tree)
    node = root
    for k in path[:-1]:
        node[k] = type(node[k])(node[k])
        node = node[k]
    return root, node


def mutate_tree(tree, rng, raws):
    path = pick(tree, rng)
    if not path:
        return tree if rng.random() < 0.5 else swap(tree, rng)
    tree, parent = copy_path(tree, path)
    key = path[-1]
    kind = rng.random()
    if kind < 0.18:
        parent[key] = None
    elif kind < 0.42:
        parent[key] = swap(parent[key], rng)
    elif kind < 0.64:
        raws.append(rng.choice(RAW_VALUES))
        parent[key] = f"@@RAW{len(raws) - 1}@@"
    elif kind < 0.80:
        parent[key] = rng.choice(PLAIN_VALUES)
    elif kind < 0.92:
        del parent[key]
    elif isinstance(parent, list):
        parent.insert(key, parent[key])
    else:
        parent[key + "_"] = parent[key]
    return tree


def serialize(tree, raws):
    data = json.dumps(tree).encode()
    for i, raw in enumerate(raws):
        data = data.replace(f'"@@RAW{i}@@"'.encode(), raw.text)
    return data


def mutate_bytes(data, rng):
    kind = rng.randrange(7)
    if kind == 0:
        return data[:rng.randrange(len(data) + 1)]
    if kind == 1:
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 2:
        at = rng.randrange(len(data) + 1)
        return data[:at] + rng.choice([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]) + data[at:]
    if kind == 3:
        return data.decode("utf-8", "replace").encode("utf-16")
    if kind == 4:
        return b"\xef\xbb\xbf" + data
    if kind == 5:
        return b"[" * DEEP + data + b"]" * DEEP
    return rng.choice([b"", b"null", b"0", b'"x"', b"[]", b"{}", b"\xff\xfe"])


def mutated(tree, rng):
    raws = []
    for _ in range(rng.randint(1, 4)):
        tree = mutate_tree(tree, rng, raws)
    data = serialize(tree, raws)
    if rng.random() < 0.15:
        data = mutate_bytes(data, rng)
    return data


def load(name):
    with open(os.path.join(OPTS.data, name), "rb") as f:
        return json.load(f)


def bases():
    """Real documents and real-shaped variants of them."""
    a, b, c = load("sample-a.json"), load("sample-b.json"), load("sample-c.json")
    one = copy.deepcopy(c)  # one iteration: merged_phases stand for it
    one["iterations"] = one["iterations"][:1]
    one["iteration_detail"] = []
    failed = copy.deepcopy(a)
    failed["summary"].update(status="failed", exit_code=2, mismatch_total=5)
    failed["summary"]["mismatches"]["stale"] = 5
    failed["run_id"] = "0123456789abcdef"
    failed["target"]["drive"] = {"name": "nvme0n1", "model": "M", "serial": "S"}
    failed["preset"] = {"name": "quick", "tests": [{"label": "t1"}]}
    rand = next(p for p in a["iterations"][0]["phases"] if p["phase"] == "random")
    failed["sweep"] = {"parameter": "qd", "knee": {"value": 4},
                       "points": [dict(rand, value=v) for v in (1, 4, 16)]}
    return [a, b, c, one, failed]


OUTCOME = {"host": "h1", "rc": 0, "stderr": "warning: x\ndrivestress: done\n",
           "cmd": ["drivestress", "--json", "/tmp/h1.json", "/mnt"]}


def run_inprocess(tool, argv):
    """(exit status, stdout, stderr, escaped exception) of one command."""
    module = {"compare": compare, "fleet": fleet}[tool]
    out_buf, err_buf = io.BytesIO(), io.BytesIO()
    # As a real UTF-8 terminal or pipe would be: strict encoding.
    out = io.TextIOWrapper(out_buf, encoding="utf-8", errors="strict", write_through=True)
    err = io.TextIOWrapper(err_buf, encoding="utf-8", errors="backslashreplace",
                           write_through=True)
    escaped, code = None, None
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        code = results.run_command(tool, module.main, argv)
    except SystemExit as e:
        code = e.code
    except BaseException as e:  # noqa: B902: a traceback is what we look for
        escaped = e
    finally:
        sys.stdout, sys.stderr = saved
    return code, out_buf.getvalue(), err_buf.getvalue(), escaped


def run_subprocess(tool, argv):
    r = subprocess.run([os.path.join(OPTS.scripts, tool), *argv], capture_output=True,
                       timeout=60)
    return r.returncode, r.stdout, r.stderr, None


def strict_json(data):
    def bad(name):
        raise ValueError(f"{name} in output")
    json.loads(data, parse_constant=bad)


def check(tool, argv, result, allowed, json_out):
    """The findings of one run (empty when it behaved)."""
    code, out, err, escaped = result
    found = []
    if escaped is not None:
        found.append(f"escaped {type(escaped).__name__}: {str(escaped)[:200]}")
    if b"Traceback" in err:
        found.append("traceback on stderr: " + err.decode("utf-8", "replace")[-400:])
    if code not in allowed:
        found.append(f"exit status {code}")
    lines = err.splitlines()
    if code == 1:
        if len(lines) != 1 or not err.endswith(b"\n"):
            found.append(f"{len(lines)} lines on stderr: {err[:300]!r}")
        elif not lines[0].startswith(tool.encode() + b": "):
            found.append(f"stderr does not name {tool}: {lines[0][:200]!r}")
    if any(b"internal error" in line for line in lines):
        found.append(f"internal error: {err[:300]!r}")
    if code == 0 and json_out is not None:
        try:
            data = out if json_out == "-" else open(json_out, "rb").read()
            strict_json(data)
        except (ValueError, OSError) as e:
            found.append(f"output is not strict JSON: {e}")
        else:
            if tool == "fleet":
                found += check_fleet(json.loads(data))
    return found


def check_fleet(f):
    """A fleet document's hosts: each with a verdict word, errors one line."""
    found = []
    for e in f.get("hosts", []):
        if e.get("status") not in ("passed", "failed", "error", "interrupted", "no result"):
            found.append(f"host {e.get('host')}: status {e.get('status')!r}")
        if "\n" in (e.get("error") or "") or "\r" in (e.get("error") or ""):
            found.append(f"host {e.get('host')}: error of several lines: {e['error'][:200]!r}")
        if e.get("status") == "passed" and e.get("mismatch_total"):
            found.append(f"host {e.get('host')}: passed with {e['mismatch_total']} mismatches")
    return found


def one_case(n, docs, tmp):
    """Runs case n; returns (description, exit status, findings)."""
    rng = random.Random(f"{OPTS.seed}:{n}")
    d = os.path.join(tmp, str(n))
    os.mkdir(d)

    def put(name, data):
        path = os.path.join(d, name)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else json.dumps(data).encode())
        return path

    base = rng.randrange(len(docs))
    other = rng.randrange(len(docs))
    target = rng.choice(["compare", "compare", "json", "merge", "gate", "fleet", "fleet"])
    if target == "fleet":
        tool, allowed, json_out = "fleet", (0, 1), os.path.join(d, "fleet.json")
        which = rng.random()
        put("h1.json", mutated(docs[base], rng) if which < 0.7 else docs[base])
        put("h1.outcome.json", mutated(OUTCOME, rng) if which >= 0.5 else OUTCOME)
        put("h2.json", docs[other])
        put("h2.outcome.json", dict(OUTCOME, host="h2"))
        argv = [d, "--hosts", "h1,h2,h3"] if rng.random() < 0.5 else [d]
    else:
        tool, allowed, json_out = "compare", (0, 1), None
        bad = put("m.json", mutated(docs[base], rng))
        good = put("g.json", docs[other])
        pair = [bad, good] if rng.random() < 0.5 else [good, bad]
        argv = {"compare": pair, "json": ["--json", *pair], "merge": ["--merge", *pair],
                "gate": [*pair, "--fail-if", "iops<-10%,p99>+20%,random:bw<-5%"]}[target]
        if target == "gate":
            allowed = (0, 1, 2)
        if target == "json":
            json_out = "-"
    desc = f"case {n}: {tool} {' '.join(os.path.relpath(a, tmp) if a.startswith(tmp) else a for a in argv)}"
    result = run_inprocess(tool, argv)
    found = check(tool, argv, result, allowed, json_out)
    if OPTS.verbose:
        print(f"{desc}: exit {result[0]}: {result[2].decode('utf-8', 'replace').strip()}")
    if not found and OPTS.subprocess_every and n % OPTS.subprocess_every == 0:
        found = [f"(subprocess) {f}"
                 for f in check(tool, argv, run_subprocess(tool, argv), allowed, json_out)]
    if found and OPTS.save:
        dest = os.path.join(OPTS.save, str(n))
        shutil.copytree(d, dest, dirs_exist_ok=True)
    return desc, result[0], found


def main():
    docs = bases()
    start = time.monotonic()
    cases = [OPTS.case] if OPTS.case is not None else range(OPTS.cases)
    findings, ran, codes = [], 0, {}
    if OPTS.save:
        os.makedirs(OPTS.save, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ds-fuzz.") as tmp:
        for n in cases:
            if OPTS.case is None and time.monotonic() - start > OPTS.seconds:
                break
            desc, code, found = one_case(n, docs, tmp)
            ran += 1
            codes[code] = codes.get(code, 0) + 1
            if found:
                findings.append((desc, found))
            shutil.rmtree(os.path.join(tmp, str(n)), ignore_errors=True)
    secs = time.monotonic() - start
    by_code = ", ".join(f"exit {c}: {k}" for c, k in sorted(codes.items(), key=str))
    print(f"fuzz_documents: seed {OPTS.seed}: {ran} case(s) in {secs:.1f} s ({by_code}), "
          f"{len(findings)} finding(s)")
    for desc, found in findings:
        print(desc)
        for f in found:
            print("   ", f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
