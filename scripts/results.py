"""Reading drivestress result documents (--json) and their latency histograms.

Shared by scripts/plot.py and scripts/compare.py; standard library only.

A document is schema_version 1 to 6 (3: 2 with --repeat's estimates; 4: 3 with
targets[] and --rate's rate{}; 5: 4 with a size mix's sizes[]; 6: 5 with jobs[];
src/report/json_report.h).  A phase
object has bandwidth_bytes_per_sec, iops and latency{count, min_ns, mean_ns,
max_ns, percentiles_ns, histogram}; version 1 has one per phase of every
iteration under iterations[]; version 2 has one per phase merged over all
iterations under merged_phases[] (and the last --iteration-detail iterations
under iteration_detail[]), and under iterations[] each phase's figures only
(bytes, ops, elapsed_s, p50_ns, p99_ns, max_ns).  The histogram is
log-linear with fixed bucket boundaries, so histograms of different workers,
iterations, runs or hosts merge exactly by adding the counts of equal buckets.
"""

import io
import json
import math
import os
import sys

# The schema major versions these scripts understand.
SCHEMA_MAJORS = (1, 2, 3, 4, 5, 6)

# Phases in run order; anything else sorts after them, in order of appearance.
PHASE_ORDER = ("seq-write", "seq-read", "random", "reverify")

MIB = 1024 * 1024

# A percentile is "supported" by a sample count when at least this many
# samples lie beyond it: count x (1 - p/100) >= MIN_TAIL_SAMPLES.  With fewer,
# the percentile is one of the last few samples (with less than one beyond it,
# the maximum itself): it moves with the luck of a handful of operations and
# says nothing stable about the tail.  p99 needs 1,000 samples, p99.9 10,000.
MIN_TAIL_SAMPLES = 10


class InputError(Exception):
    """A file the scripts cannot use; the message is one line for the user."""


# Exit status of bad input, of any failure, and of a reader that went away.
EXIT_BAD_INPUT = 1
EXIT_INTERRUPTED = 130


def _discard_stdout():
    """Points file descriptor 1 at /dev/null, so what Python still holds for
    it (and flushes at exit) goes nowhere instead of failing again."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # no descriptor: an in-memory stream
        pass


def run_command(tool, main, argv=None):
    """Runs main(argv) as the command `tool` and returns its exit status.

    Whatever a document holds, the command ends with its own status or with
    one line on stderr and EXIT_BAD_INPUT, never a traceback: bad input
    (InputError) says what is wrong with which file; an error no reader
    foresaw says "internal error" (the fuzzer, tests/scripts/fuzz_documents.py,
    treats that as a finding).  A reader that went away (`| head` closing
    the pipe) ends the command quietly with EXIT_BAD_INPUT: the output was
    not all delivered.  Everything printed goes through printable(): a
    name's control and bidirectional characters are spelled out, not sent
    to the terminal (text that cannot be encoded is backslash-escaped)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:  # started with the descriptor closed: print nowhere
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))
        else:
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
            # Names come from documents, and documents from other hosts.
            setattr(sys, name, PrintableStream(stream))
    try:
        code = main(argv)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _discard_stdout()
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except InputError as e:
        message = str(e)
    except RecursionError:
        message = "input nested too deeply"
    except MemoryError:
        message = "out of memory"
    except OSError as e:
        if e.filename is None:  # a write to standard output (a full disk)
            _discard_stdout()
        message = f"{e.filename or 'standard output'}: {e.strerror or e}"
    except Exception as e:  # noqa: BLE001: the last line of defence, still one line
        message = f"internal error (please report it): {type(e).__name__}: {e}"
    print(f"{tool}: {one_line(message)}", file=sys.stderr)
    return EXIT_BAD_INPUT


def json_safe(value):
    """`value` with every non-finite float (a ratio over a zero-ish
    baseline) as None, so json.dump writes strict JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def schema_major(version):
    """The major part of a schema_version: 1 for 1, "1", "1.2" or 1.2."""
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return None


# Numbers the documents can hold: counters are unsigned 64-bit, so anything
# of magnitude 2^64 or more is not drivestress's (and beyond 2^1024 it does
# not even fit a float).  Every number a reader uses is held to this (see
# check_shape), so its sums, products and float conversions stay finite.
NUMBER_LIMIT = 2 ** 64
# Longest error line, in characters: a document can put anything in a
# message (a schema_version of a megabyte, a path with newlines).
MESSAGE_LIMIT = 300


# Characters that change how a terminal shows what follows them, besides
# the controls: the Arabic letter mark, left-to-right and right-to-left
# marks, line and paragraph separators, embeddings, overrides and isolates.
_TERMINAL_UNSAFE = frozenset([0x061C, 0x200E, 0x200F, *range(0x2028, 0x202F),
                              *range(0x2066, 0x206A)])


def _printable_char(c, keep_lines):
    n = ord(c)
    if keep_lines and c in "\n\t":
        return c
    if c == "\n":
        return "\\n"
    if n < 0x20 or n == 0x7F:
        return f"\\x{n:02x}"
    if 0x80 <= n <= 0x9F or n in _TERMINAL_UNSAFE:
        return f"\\u{{{n:04x}}}"
    return c


def printable(text, keep_lines=False):
    """`text` safe to write to a terminal, as drivestress itself writes names
    (src/units/utf8.h): ASCII controls and DEL as \\xNN (newline and tab
    kept when `keep_lines`, else newline as \\n), C1 controls,
    bidirectional marks/overrides/isolates and line separators as
    \\u{XXXX}.  (A lone surrogate cannot be encoded: the stream's
    backslashreplace writes it as \\udXXX.)  A document from another host decides the
    names this prints; it must not decide what the operator's terminal does."""
    return "".join(_printable_char(c, keep_lines) for c in str(text))


class PrintableStream(io.TextIOBase):
    """A text stream that writes through printable(..., keep_lines=True)."""

    def __init__(self, under):
        super().__init__()
        self._under = under

    def write(self, text):
        self._under.write(printable(text, keep_lines=True))
        return len(text)

    def flush(self):
        self._under.flush()

    def fileno(self):
        return self._under.fileno()

    def writable(self):
        return True

    def isatty(self):
        return self._under.isatty()

    @property
    def encoding(self):
        return self._under.encoding


def one_line(text, limit=MESSAGE_LIMIT):
    """`text` as one printable line: control and bidirectional characters
    escaped (printable()), shortened."""
    text = printable(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _refuse_constant(name):
    raise InputError(f"{name} is not a number JSON allows")


def read_json(path, what="JSON"):
    """The JSON value in the file at `path` (NaN and Infinity refused);
    InputError (one line) otherwise."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except InputError as e:
        raise InputError(f"{path}: not {what} these scripts read: {e}") from None
    except (ValueError, UnicodeDecodeError) as e:  # JSONDecodeError is a ValueError
        if "integer string conversion" in str(e):  # int() refuses more than 4300 digits
            raise InputError(f"{path}: not {what} these scripts read: "
                             "a number of more than 4300 digits") from None
        raise InputError(f"{path}: not {what} ({one_line(e)})") from None
    except RecursionError:
        raise InputError(f"{path}: not {what} these scripts read: nested too deeply") from None


# --- shapes -------------------------------------------------------------------
#
# What the readers expect of the members they read.  A member that is absent
# is left to the reader's default; a member that is present must have its
# shape, or the document is refused with one line naming the member.  A shape
# is a type name, a dict (an object: its members' shapes, "name!" when
# required), list_of(shape), map_of(shape) (an object of any keys), or
# nullable(shape); None accepts anything.

NUMBER, INTEGER, STRING, BOOLEAN = "number", "integer", "string", "boolean"


def nullable(shape):
    return ("nullable", shape)


def list_of(shape):
    return ("list", shape)


def map_of(shape):
    return ("map", shape)


def json_type(value):
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _is_number(v):
    return type(v) in (int, float) and -NUMBER_LIMIT < v < NUMBER_LIMIT  # not bool, inf


_SCALARS = {
    NUMBER: _is_number,
    INTEGER: lambda v: type(v) is int and -NUMBER_LIMIT < v < NUMBER_LIMIT,
    STRING: lambda v: isinstance(v, str),
    BOOLEAN: lambda v: isinstance(v, bool),
}


def check_shape(value, shape, where):
    """Raises InputError when `value` at `where` ("iterations[0].iops") does
    not have `shape`."""
    def refuse(expected):
        raise InputError(f"{where or 'the document'} is {json_type(value)}, not {expected}")
    if shape is None:
        return
    if isinstance(shape, str):
        if not _SCALARS[shape](value):
            if shape == INTEGER and type(value) is float and _is_number(value):
                refuse("an integer")
            if shape in (NUMBER, INTEGER) and type(value) in (int, float):
                raise InputError(f"{where or 'the document'} is a number out of range "
                                 "(magnitude 2^64 or more)")
            refuse(("an " if shape == INTEGER else "a ") + shape)
    elif isinstance(shape, dict):
        if not isinstance(value, dict):
            refuse("an object")
        for key, member in shape.items():
            name = key.rstrip("!")
            if name in value:
                check_shape(value[name], member, f"{where}.{name}" if where else name)
            elif key.endswith("!"):
                raise InputError(f"{where or 'the document'} has no {name}")
    elif shape[0] == "nullable":
        if value is not None:
            check_shape(value, shape[1], where)
    elif shape[0] == "list":
        if not isinstance(value, list):
            refuse("a list")
        inner = shape[1]
        if isinstance(inner, tuple) and inner[0] == "list" and isinstance(inner[1], str):
            # Histogram buckets, thousands of pairs: the items' own check only
            # for an item that fails.
            ok = _SCALARS[inner[1]]
            for i, item in enumerate(value):
                if type(item) is not list or not all(map(ok, item)):
                    check_shape(item, inner, f"{where}[{i}]")
            return
        for i, item in enumerate(value):
            check_shape(item, inner, f"{where}[{i}]")
    else:  # map
        if not isinstance(value, dict):
            refuse("an object")
        for name, item in value.items():
            check_shape(item, shape[1], f"{where}.{name}")


LATENCY_SHAPE = {
    "count": NUMBER, "min_ns": NUMBER, "mean_ns": NUMBER, "max_ns": NUMBER,
    "percentiles_ns": map_of(nullable(NUMBER)),
    "histogram": {"scheme": STRING, "sub_bucket_bits": INTEGER,
                  "buckets": list_of(list_of(INTEGER))},
}
PHASE_SHAPE = {
    "phase!": STRING, "interrupted": BOOLEAN,
    "bandwidth_bytes_per_sec": NUMBER, "iops": NUMBER, "elapsed_s": NUMBER,
    "read_bytes": NUMBER, "write_bytes": NUMBER, "read_ops": NUMBER, "write_ops": NUMBER,
    "max_ns": nullable(NUMBER), "p50_ns": nullable(NUMBER), "p99_ns": nullable(NUMBER),
    "latency": LATENCY_SHAPE, "read_latency": LATENCY_SHAPE,
    "write_latency": LATENCY_SHAPE, "flush_latency": LATENCY_SHAPE,
}
ITERATION_SHAPE = {"index": nullable(INTEGER), "phases": list_of(PHASE_SHAPE)}
DOCUMENT_SHAPE = {
    "tool!": {"name": STRING},
    "run_id": nullable(STRING), "started_at": nullable(STRING),
    "host": {"hostname": nullable(STRING)},
    "target": {"path": nullable(STRING), "directory": nullable(STRING),
               "direct_io": nullable(BOOLEAN),
               "drive": nullable({"name": nullable(STRING), "model": nullable(STRING),
                                  "serial": nullable(STRING)})},
    "backend": {"used": nullable(STRING), "random_qd_per_worker": nullable(NUMBER)},
    "config": {"file_size_bytes": nullable(INTEGER), "seq_block_bytes": nullable(INTEGER),
               "rand_block_bytes": nullable(INTEGER), "phases": nullable(list_of(STRING))},
    "preset": nullable({"name": nullable(STRING), "tests": list_of({"label": nullable(STRING)})}),
    "summary": {"status": nullable(STRING), "exit_code": nullable(INTEGER),
                "mismatch_total": nullable(NUMBER), "written_bytes": nullable(NUMBER),
                "read_bytes": nullable(NUMBER), "verified_bytes": nullable(NUMBER),
                "mismatches": nullable(map_of(NUMBER))},
    "iterations!": list_of(ITERATION_SHAPE),
    "merged_phases": list_of(PHASE_SHAPE),
    "iteration_detail": list_of(ITERATION_SHAPE),
    "sweep": nullable({"parameter": STRING, "knee": nullable({"value": NUMBER}),
                       "points": list_of({"value": NUMBER, "iops": NUMBER,
                                          "bandwidth_bytes_per_sec": nullable(NUMBER),
                                          "p99_ns": nullable(NUMBER),
                                          "latency": LATENCY_SHAPE})}),
}


def load_document(path):
    """The parsed result document at `path`; InputError if it is not one, or
    if a member the scripts read has another type than the document's."""
    doc = read_json(path)
    if (not isinstance(doc, dict) or "schema_version" not in doc
            or not isinstance(doc.get("tool"), dict)
            or doc["tool"].get("name") != "drivestress"):
        raise InputError(f"{path}: not a drivestress result document")
    major = schema_major(doc["schema_version"])
    if major not in SCHEMA_MAJORS:
        v = doc["schema_version"]
        raise InputError(f"{path}: schema_version "
                         f"{one_line(v if isinstance(v, str) else json.dumps(v), 40)} "
                         f"(these scripts read major versions "
                         f"{', '.join(map(str, SCHEMA_MAJORS))})")
    if not isinstance(doc.get("iterations"), list):
        raise InputError(f"{path}: no iterations list")
    if major >= 2 and not isinstance(doc.get("merged_phases"), list):
        raise InputError(f"{path}: no merged_phases list")
    try:
        check_shape(doc, DOCUMENT_SHAPE, "")
    except InputError as e:
        raise InputError(f"{path}: {e}") from None
    return doc


def figures_phase(p):
    """A version 2 iteration's phase (figures only) shaped like a phase
    object, without a histogram: rates from bytes, ops and seconds; latency
    with count and the percentiles it has (p50, p99)."""
    secs = p.get("elapsed_s") or 0.0
    ops = p.get("read_ops", 0) + p.get("write_ops", 0)
    out = dict(p)
    out["interrupted"] = p.get("interrupted", False)
    out["bandwidth_bytes_per_sec"] = (
        (p.get("read_bytes", 0) + p.get("write_bytes", 0)) / secs if secs > 0 else 0.0)
    out["iops"] = ops / secs if secs > 0 else 0.0
    out["latency"] = {"count": ops, "max_ns": p.get("max_ns", 0),
                      "percentiles_ns": {"p50": p.get("p50_ns"), "p99": p.get("p99_ns")}}
    return out


def phase_rows(doc):
    """(iteration index, phase name, phase object) for every phase of every
    iteration, in order.  Version 2: the full object where the document has
    it (iteration_detail, or merged_phases of a one-iteration run), else the
    iteration's figures shaped by figures_phase (no histogram, no p99.9)."""
    if schema_major(doc["schema_version"]) < 2:
        for it in doc["iterations"]:
            for p in it.get("phases", []):
                yield it.get("index"), p.get("phase"), p
        return
    full = {it.get("index"): {p.get("phase"): p for p in it.get("phases", [])}
            for it in doc.get("iteration_detail", [])}
    if len(doc["iterations"]) == 1:
        full.setdefault(doc["iterations"][0].get("index"),
                        {p.get("phase"): p for p in doc["merged_phases"]})
    for it in doc["iterations"]:
        for p in it.get("phases", []):
            name = p.get("phase")
            whole = full.get(it.get("index"), {}).get(name)
            yield it.get("index"), name, whole if whole is not None else figures_phase(p)


def histogram_rows(doc):
    """(phase name, phase object with a histogram) that together hold every
    operation of the run once: each iteration's phases (version 1), each
    phase merged over the iterations (version 2)."""
    if schema_major(doc["schema_version"]) < 2:
        for _, name, p in phase_rows(doc):
            yield name, p
        return
    for p in doc["merged_phases"]:
        yield p.get("phase"), p


def trend(doc):
    """{phase name: [(iteration, bandwidth_bytes_per_sec, iops, p99_ns)]} of
    the phase runs that were not interrupted, in iteration order."""
    out = {}
    for index, name, p in phase_rows(doc):
        if p.get("interrupted"):
            continue
        out.setdefault(name, []).append((index, p.get("bandwidth_bytes_per_sec", 0.0),
                                         p.get("iops", 0.0), percentile_ns(p, "p99", 99)))
    return out


def phase_sort_key(name, seen):
    """Run order for the known phases, then first appearance in `seen`."""
    if name in PHASE_ORDER:
        return (0, PHASE_ORDER.index(name))
    return (1, seen.index(name) if name in seen else len(seen))


def percentile_supported(count, p):
    """Whether `count` samples support percentile p (0..100): see MIN_TAIL_SAMPLES."""
    return count * (1.0 - p / 100.0) >= MIN_TAIL_SAMPLES - 1e-9


def max_supported_percentile(count):
    """The highest percentile `count` samples support, or None when none is."""
    if count < MIN_TAIL_SAMPLES:
        return None
    return 100.0 * (1.0 - MIN_TAIL_SAMPLES / count)


# What a run was asked to do, for telling like from unlike: (label, reader).
# A reader returns None when the document does not record the item.
CONFIG_ITEMS = (
    ("backend", lambda d: d.get("backend", {}).get("used")),
    ("qd", lambda d: d.get("config", {}).get("qd")),
    # What the backend ran: sync is 1 per worker whatever --qd says.
    ("qd in effect", lambda d: d.get("backend", {}).get("random_qd_per_worker")),
    ("files", lambda d: d.get("config", {}).get("files")),
    ("size", lambda d: d.get("config", {}).get("file_size_bytes")),
    ("seq-block", lambda d: d.get("config", {}).get("seq_block_bytes")),
    # A mix of sizes as --rand-block spelled it ("8K:70,16K:15,64K:10,128K:5",
    # schema_version 5), else the one size: a mix is never shown as its 8K.
    ("rand-block", lambda d: d.get("config", {}).get("rand_mix")
     or d.get("config", {}).get("rand_block_bytes")),
    ("unit", lambda d: d.get("config", {}).get("unit_bytes")),
    ("read-pct", lambda d: d.get("config", {}).get("read_pct")),
    # Documents from before --trim-pct had none: 0.
    ("trim-pct", lambda d: d.get("config", {}).get("trim_pct", 0)),
    ("distribution", lambda d: d.get("config", {}).get("distribution")),
    ("compress", lambda d: d.get("config", {}).get("compress")),
    # Documents from before --dedupe had none: 0.
    ("dedupe", lambda d: d.get("config", {}).get("dedupe", 0)),
    ("phases", lambda d: ",".join(d["config"]["phases"])
     if isinstance(d.get("config", {}).get("phases"), list) else None),
    ("sync", lambda d: d.get("config", {}).get("sync")),
    ("sync-every", lambda d: d.get("config", {}).get("sync_every")),
    ("batch", lambda d: d.get("config", {}).get("batch")),
    ("verify", lambda d: d.get("config", {}).get("verify")),
    ("direct I/O", lambda d: d.get("target", {}).get("direct_io")),
    ("preset", lambda d: (d.get("preset") or {}).get("name") or "none"),
)


def config_values(doc):
    """{label: value} of CONFIG_ITEMS that the document records."""
    out = {}
    for label, read in CONFIG_ITEMS:
        try:
            v = read(doc)
        except (KeyError, TypeError, AttributeError):
            v = None
        if v is not None:
            out[label] = v
    return out


def describe(doc):
    """'TARGET (BACKEND)' for titles and table headers."""
    target = doc.get("target", {}).get("path") or doc.get("target", {}).get("directory") or "?"
    backend = doc.get("backend", {}).get("used") or "?"
    return f"{target} ({backend})"


# A histogram splits each power of two into 2^sub_bucket_bits buckets (7 in
# the C++ LatencyHistogram); past 62 a bucket is wider than any latency.
MAX_SUB_BUCKET_BITS = 62


class Histogram:
    """A log-linear latency histogram as the C++ LatencyHistogram keeps it.

    Below 2^sub_bucket_bits ns every value has its own bucket; above, each
    power of two is split into 2^sub_bucket_bits equal buckets.  A bucket is
    known by its lower bound; min and max are exact beside the buckets.
    """

    def __init__(self, sub_bucket_bits=7):
        self.sub_bucket_bits = sub_bucket_bits
        self.buckets = {}  # lower bound in ns -> count
        self.count = 0
        self.sum_ns = 0.0  # for the mean: documents carry mean_ns, not the sum
        self.min_ns = None
        self.max_ns = 0

    @classmethod
    def from_latency(cls, latency, where="latency"):
        """From a document's latency object (count, min_ns, mean_ns, max_ns, histogram)."""
        try:
            hist = latency["histogram"]
            if hist.get("scheme") != "log-linear":
                raise InputError(f"{where}: histogram scheme "
                                 f"{one_line(repr(hist.get('scheme')), 40)}, not log-linear")
            bits = int(hist["sub_bucket_bits"])
            if not 0 <= bits <= MAX_SUB_BUCKET_BITS:
                raise InputError(f"{where}: histogram sub_bucket_bits {bits} "
                                 f"(0 to {MAX_SUB_BUCKET_BITS})")
            h = cls(bits)
            for lower, n in hist["buckets"]:
                h.buckets[int(lower)] = h.buckets.get(int(lower), 0) + int(n)
            h.count = int(latency["count"])
            if h.count:
                h.min_ns = int(latency["min_ns"])
                h.max_ns = int(latency["max_ns"])
                h.sum_ns = float(latency["mean_ns"]) * h.count
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"{where}: malformed latency histogram "
                             f"({one_line(repr(e), 80)})") from None
        if sum(h.buckets.values()) != h.count:
            raise InputError(f"{where}: histogram buckets hold {sum(h.buckets.values())} "
                             f"samples, count says {h.count}")
        return h

    def width(self, lower):
        """Width in ns of the bucket starting at `lower`."""
        if lower < (1 << self.sub_bucket_bits):
            return 1
        return 1 << (lower.bit_length() - 1 - self.sub_bucket_bits)

    def merge(self, other):
        """Adds `other`'s samples: exact, the bucket boundaries are fixed."""
        if other.sub_bucket_bits != self.sub_bucket_bits:
            raise InputError("cannot merge histograms of different sub_bucket_bits "
                             f"({self.sub_bucket_bits} and {other.sub_bucket_bits})")
        for lower, n in other.buckets.items():
            self.buckets[lower] = self.buckets.get(lower, 0) + n
        if other.count:
            self.min_ns = other.min_ns if self.min_ns is None else min(self.min_ns, other.min_ns)
            self.max_ns = max(self.max_ns, other.max_ns)
        self.count += other.count
        self.sum_ns += other.sum_ns
        return self

    def mean(self):
        return self.sum_ns / self.count if self.count else 0.0

    def percentile(self, p):
        """Nearest rank, as LatencyHistogram::value_at_percentile: the bucket
        holding the sample of rank ceil(p/100 * count) (clamped to 1..count),
        as its midpoint clamped to [min, max]; 0 when empty."""
        if not self.count:
            return 0
        p = min(max(p, 0.0), 100.0)
        rank = math.ceil(p / 100.0 * float(self.count))
        rank = min(max(rank, 1), self.count)
        seen = 0
        for lower in sorted(self.buckets):
            seen += self.buckets[lower]
            if seen >= rank:
                mid = lower + self.width(lower) // 2
                return min(max(mid, self.min_ns), self.max_ns)
        return self.max_ns

    def to_json(self, percentiles):
        """A latency object shaped like the document's (percentiles: {name: p})."""
        return {
            "count": self.count,
            "min_ns": self.min_ns or 0,
            "mean_ns": self.mean(),
            "max_ns": self.max_ns,
            "percentiles_ns": {name: self.percentile(p) for name, p in percentiles.items()},
            "histogram": {
                "scheme": "log-linear",
                "sub_bucket_bits": self.sub_bucket_bits,
                "relative_error": 1.0 / (2 << self.sub_bucket_bits),
                "buckets": [[lower, self.buckets[lower]] for lower in sorted(self.buckets)
                            if self.buckets[lower]],
            },
        }


def phase_histogram(phase, path="document"):
    """The Histogram of a phase's latency (reads and writes together)."""
    where = f"{path}: phase {phase.get('phase')}"
    if "latency" not in phase:
        raise InputError(f"{where}: no latency")
    return Histogram.from_latency(phase["latency"], where)


def percentile_ns(phase, name, p):
    """A phase's percentile `name` ("p99") from the document, else from its
    histogram; None when it has neither (a version 2 iteration's p99.9)."""
    lat = phase.get("latency", {})
    pct = lat.get("percentiles_ns", {})
    if name in pct and pct[name] is not None:
        return pct[name]
    if "histogram" not in lat:
        return None
    return phase_histogram(phase).percentile(p)


def load_timeseries(path):
    """The records of an NDJSON time series (one JSON object per line; blank
    lines skipped), each with at least elapsed_s."""
    records = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{n}: not JSON ({e})") from None
                if not isinstance(rec, dict) or not isinstance(rec.get("elapsed_s"), (int, float)):
                    raise InputError(f"{path}:{n}: not a time-series record (no elapsed_s)")
                records.append(rec)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not text ({e})") from None
    return records


def sweep_series(doc, path="document"):
    """The sweep of a document as (parameter, points, knee value or None), or
    None without one.  Each point: value, iops, bandwidth_bytes_per_sec,
    p99_ns and p99_supported (False when its latency count is known and does
    not support p99).  A point is a phase object (the binary's --sweep) or
    carries iops and p99_ns itself; without bandwidth, a block-size point's
    is its IOPS times its block."""
    sweep = doc.get("sweep")
    if not sweep:
        return None
    try:
        points = []
        for pt in sweep["points"]:
            p99 = pt.get("p99_ns")
            count = pt.get("latency", {}).get("count")
            if p99 is None and "latency" in pt:
                p99 = percentile_ns(pt, "p99", 99) if count else None
            bw = pt.get("bandwidth_bytes_per_sec")
            if bw is None:
                per_op = pt["value"] if sweep["parameter"] == "rand-block" else 0
                bw = pt["iops"] * per_op
            points.append({"value": pt["value"], "iops": pt["iops"],
                           "bandwidth_bytes_per_sec": bw, "p99_ns": p99,
                           "p99_supported": count is None or percentile_supported(count, 99)})
        knee = sweep.get("knee")
        return sweep["parameter"], points, knee["value"] if knee else None
    except (KeyError, TypeError) as e:
        raise InputError(f"{path}: malformed sweep section ({e!r})") from None
