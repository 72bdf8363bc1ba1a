"""PNG figures of a drivestress result document.

  plot RESULT.json [TIMESERIES.ndjson] -o DIR

Writes into DIR, named after RESULT (STEM = its file name without .json):
  STEM-bandwidth.png   bandwidth of every phase of every iteration (bars; past
                       MAX_BAR_ITERATIONS iterations, of the whole run)
  STEM-latency.png     latency against percentile on a "nines" scale: reads,
                       writes and flushes of each phase apart (iterations
                       merged); each curve ends where its sample count stops
                       supporting the percentile (10 samples beyond it)
  STEM-trend.png       bandwidth and p99 latency of each phase, iteration by
                       iteration, best and worst marked, a running median
                       over long runs (two iterations or more)
  STEM-timeseries.png  bandwidth, IOPS and latency over time (with TIMESERIES):
                       each interval drawn over its own span, phases shaded
                       from their true start, sweep points marked
  STEM-sweep.png       the swept parameter against IOPS (MiB/s for block
                       sizes) and p99, knee marked (with a sweep section)
  STEM-sweep-latency.png  latency by percentile of every sweep point (when
                       the points carry their latency, as the binary's do)
  STEM-rate.png        --sweep rate: the latency-load curve, response p50,
                       p99 and p99.9 and service p99 (log) against achieved
                       IOPS, the turn-up point marked
  STEM-steady-state.png  --steady-state: every round's IOPS, the measurement
                       window with its mean, fitted line and the +-10 % /
                       +-20 % bands of the mean, as a SNIA PTS report draws it
                       (the last iteration's, when several)
  STEM-write-cliff.png  --sustained-write: write throughput of every interval
                       against the bytes written, the levels and the cliff
                       marked, the pass after --cliff-recovery's idle beside it
  STEM-preset.png      every test of a preset: read and write MiB/s, p99
                       (with a preset section; the other figures show the
                       document's own phases, which are the first test's)
and prints the path of each file it wrote.  Figures are FIG_SIZE at DPI
(1000 x 600 pixels), the time series TIMESERIES_SIZE (1000 x 800).
Exit status: 0, or 1 with one line on stderr.
Needs python3 and matplotlib (Debian: apt-get install python3-matplotlib;
elsewhere: pip install matplotlib).
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import results  # noqa: E402
from results import MIB, InputError  # noqa: E402

try:
    import matplotlib
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.ticker import (FixedLocator, FuncFormatter, LogLocator, MaxNLocator,
                                   NullFormatter)
    MATPLOTLIB_MISSING = None
except ImportError as e:  # --help still answers; a figure needs it (main says so)
    MATPLOTLIB_MISSING = e

FIG_SIZE = (10, 6)          # inches
TIMESERIES_SIZE = (10, 8)   # three panels
DPI = 100                   # so 1000 x 600 (1000 x 800) pixels
# The percentile axis runs from 0 to 99.999 %: NINES nines.
NINES = 5
CURVE_POINTS = 600  # percentiles evaluated per latency curve
# A phase's last interval shorter than this share of the nominal interval is
# merged into the interval before it: its rate over a few milliseconds is
# noise (65 operations in 0.5 ms read as 130k IOPS), not a measurement.
PARTIAL_INTERVAL_SHARE = 0.25
MAX_BAR_ITERATIONS = 12  # more iterations: one bar per phase, the trend figure for the rest
MAX_MARKED_POINTS = 60   # longer trend lines: faint, under their running median
MEDIAN_POINTS = 50       # a running median spans 1/MEDIAN_POINTS of the iterations (at least 5)
MAX_PHASE_MARKS = 40     # time series with more phases than this: no phase names or lines

SWEEP_AXES = {  # parameter -> (axis label, divisor of the values)
    "qd": ("queue depth per worker", 1),
    "files": ("workers (one file each)", 1),
    "rand-block": ("random block (KiB)", 1024),
}
# Operation types of a phase: (document key, legend name, line style).
OPS = (("read_latency", "reads", "-"), ("write_latency", "writes", "--"),
       ("flush_latency", "flushes", ":"))
PHASE_COLORS = {"seq-write": "tab:orange", "seq-read": "tab:blue", "random": "tab:green",
                "reverify": "tab:purple"}
EXTRA_COLORS = ("tab:brown", "tab:pink", "tab:olive", "tab:cyan")


class UsageParser(argparse.ArgumentParser):
    """Usage errors end like bad input: one line, exit 1."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: {results.one_line(message)}\n")
        sys.exit(results.EXIT_BAD_INPUT)


def new_figure(nrows=1, sharex=False, size=FIG_SIZE):
    return plt.subplots(nrows, 1, figsize=size, dpi=DPI, sharex=sharex, squeeze=False)


def save(fig, path):
    # No bbox_inches="tight": it would change the pixel size.
    fig.savefig(path, dpi=DPI, format="png")
    plt.close(fig)
    print(path)


def ordered_phases(doc):
    seen = []
    for _, name, _ in results.phase_rows(doc):
        if name not in seen:
            seen.append(name)
    return sorted(seen, key=lambda n: results.phase_sort_key(n, seen))


def phase_color(name, order):
    if name in PHASE_COLORS:
        return PHASE_COLORS[name]
    return EXTRA_COLORS[order.index(name) % len(EXTRA_COLORS)]


# --- axes ---------------------------------------------------------------------

def duration_text(ms):
    """A latency in ms as people write it: 50 µs, 1 ms, 2.5 s."""
    if ms <= 0:
        return "0"
    for unit, scale in (("s", 1e3), ("ms", 1.0), ("µs", 1e-3), ("ns", 1e-6)):
        if ms >= scale * 0.9999:
            return f"{ms / scale:.3g} {unit}"
    return f"{ms * 1e6:.3g} ns"


def latency_axis(ax, values_ms, axis="y"):
    """A log axis of latencies in ms with unit-bearing labels: 1-2-5 within
    a span under 30x, 1-3 under 1000x, decades beyond, so the axis never has
    a single labelled tick nor a crowd of them."""
    values = [v for v in values_ms if v and v > 0 and math.isfinite(v)]
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target = ax.yaxis if axis == "y" else ax.xaxis
    if values:
        lo, hi = min(values), max(values)
        span = hi / lo
        subs = (1.0, 2.0, 5.0) if span < 30 else (1.0, 3.0) if span < 1000 else (1.0,)
        target.set_major_locator(LogLocator(base=10, subs=subs))
        target.set_minor_locator(LogLocator(base=10, subs=tuple(range(2, 10))))
        target.set_major_formatter(FuncFormatter(lambda v, _: duration_text(v)))
        target.set_minor_formatter(NullFormatter())
        # At least one labelled tick below and above the data.
        if axis == "y":
            ax.set_ylim(lo / 1.5, hi * 1.5)
        else:
            ax.set_xlim(lo / 1.5, hi * 1.5)


def nines(p):
    """Position of percentile p (0..100) on the nines axis: 90 -> 1, 99 -> 2."""
    return -math.log10(1.0 - p / 100.0)


def nines_axis(ax):
    ax.xaxis.set_major_locator(FixedLocator(list(range(NINES + 1))))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _: "0" if x == 0 else f"{100 - 10.0 ** (2 - x):.{max(int(x) - 2, 0)}f}"))
    ax.set_xlim(0, NINES)
    ax.set_xlabel("percentile (%)")


# --- bandwidth ------------------------------------------------------------------

def whole_run_bandwidth(doc):
    """{phase: bytes over seconds of all its runs}."""
    totals = {}
    for name, p in results.histogram_rows(doc):
        t = totals.setdefault(name, [0, 0.0])
        t[0] += p.get("read_bytes", 0) + p.get("write_bytes", 0)
        t[1] += p.get("elapsed_s", 0.0)
    return {name: (b / s if s > 0 else 0.0) for name, (b, s) in totals.items()}


def plot_bandwidth(doc, title, path):
    """Grouped bars: one group per phase, one bar per iteration; past
    MAX_BAR_ITERATIONS iterations, one bar per phase for the whole run."""
    phases = ordered_phases(doc)
    iterations = [it.get("index") for it in doc["iterations"]]
    if not phases:
        return False
    fig, axes = new_figure()
    ax = axes[0][0]
    groups = []  # (label, {phase: bandwidth})
    if len(iterations) > MAX_BAR_ITERATIONS:
        groups.append((f"{len(iterations)} iterations", whole_run_bandwidth(doc)))
    else:
        for index in iterations:
            groups.append((f"iteration {index}", {}))
        by_index = dict(zip(iterations, (g[1] for g in groups)))
        for index, name, p in results.phase_rows(doc):
            by_index[index][name] = p.get("bandwidth_bytes_per_sec", 0.0)
    width = 0.8 / max(len(groups), 1)
    bars = 0
    for k, (label, by_phase) in enumerate(groups):
        xs, ys = [], []
        for j, name in enumerate(phases):
            if name in by_phase:
                xs.append(j - 0.4 + width * (k + 0.5))
                ys.append(by_phase[name] / MIB)
        rects = ax.bar(xs, ys, width * 0.9, label=label)
        bars += len(xs)
        if bars <= 24:  # values on the bars while they stay readable
            ax.bar_label(rects, fmt="%.0f", fontsize=8, padding=2)
    ax.set_xticks(range(len(phases)))
    ax.set_xticklabels(phases)
    ax.set_xlabel("phase")
    ax.set_ylabel("bandwidth (MiB/s)")
    ax.set_title(f"Bandwidth per phase — {title}")
    ax.grid(axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save(fig, path)
    return True


def running_median(ys):
    """Median of a window centred on each point (NaN left out)."""
    half = max(len(ys) // MEDIAN_POINTS, 5) // 2
    out = []
    for i in range(len(ys)):
        window = sorted(y for y in ys[max(0, i - half):i + half + 1] if not math.isnan(y))
        out.append(window[len(window) // 2] if window else math.nan)
    return out


def trend_line(ax, xs, ys, name, color=None):
    """Few points: a line with markers; many: faint, under a running median."""
    if len(xs) <= MAX_MARKED_POINTS:
        line, = ax.plot(xs, ys, linewidth=1, marker="o", markersize=3, color=color, label=name)
        return line
    faint, = ax.plot(xs, ys, linewidth=0.6, alpha=0.35, color=color)
    line, = ax.plot(xs, running_median(ys), linewidth=1.6, color=faint.get_color(), label=name)
    return line


def plot_trend(doc, title, path):
    """Bandwidth (above) and p99 latency (below) of each phase against the
    iteration, interrupted runs left out; each phase's best and worst
    iteration marked; a long run's lines under their running median.  False
    with fewer than two iterations."""
    lines = results.trend(doc)
    if len(doc["iterations"]) < 2 or not any(len(v) >= 2 for v in lines.values()):
        return False
    fig, axes = new_figure(2, sharex=True)
    top, bottom = axes[0][0], axes[1][0]
    names = sorted(lines, key=lambda n: results.phase_sort_key(n, list(lines)))
    handles = []
    for name in names:
        pts = lines[name]
        xs = [p[0] for p in pts]
        bw = [p[1] / MIB for p in pts]
        p99 = [math.nan if p[3] is None else p[3] / 1e6 for p in pts]
        line = trend_line(top, xs, bw, name)
        handles.append(line)
        trend_line(bottom, xs, p99, name, line.get_color())
        # Best and worst: the highest and lowest bandwidth, the lowest and highest p99.
        for ax, ys, best, worst in ((top, bw, max, min), (bottom, p99, min, max)):
            valid = [(y, x) for x, y in zip(xs, ys) if not math.isnan(y)]
            if len(valid) < 2:
                continue
            for (y, x), marker in ((best(valid), "^"), (worst(valid), "v")):
                ax.scatter([x], [y], marker=marker, s=60, color=line.get_color(),
                           edgecolors="black", zorder=3)
    handles += [Line2D([], [], linestyle="", marker=m, markersize=8, color="white",
                       markeredgecolor="black", label=label)
                for m, label in (("^", "best"), ("v", "worst"))]
    top.set_ylabel("bandwidth (MiB/s)")
    top.set_ylim(bottom=0)
    top.set_title(f"Per-iteration trend — {title}")
    top.grid(alpha=0.3)
    top.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    bottom.set_ylabel("p99 latency")
    latency_axis(bottom, [p[3] / 1e6 for v in lines.values() for p in v if p[3]])
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_xlabel("iteration")
    bottom.grid(which="major", alpha=0.3)
    fig.tight_layout()
    save(fig, path)
    return True


# --- latency by percentile --------------------------------------------------------

def latency_histograms(doc, source):
    """{(phase, op key): Histogram} merged over iterations, with samples.
    Documents without the read/write split give their combined latency."""
    merged = {}
    for name, phase in results.histogram_rows(doc):
        keys = [k for k, _, _ in OPS if k in phase] or ["latency"]
        for key in keys:
            where = f"{source}: phase {name} {key}"
            h = results.Histogram.from_latency(phase[key], where)
            if (name, key) in merged:
                merged[(name, key)].merge(h)
            else:
                merged[(name, key)] = h
    return {k: h for k, h in merged.items() if h.count > 0}


def draw_curve(ax, h, color, style, label):
    """The curve of `h` up to the highest percentile its samples support;
    False when they support none."""
    top = results.max_supported_percentile(h.count)
    if top is None:
        return False
    end = min(NINES, nines(top))
    xs = [end * i / (CURVE_POINTS - 1) for i in range(CURVE_POINTS)]
    ys = [h.percentile(100.0 * (1.0 - 10.0 ** -x)) / 1e6 for x in xs]
    ax.plot(xs, ys, drawstyle="steps-post", color=color, linestyle=style, label=label)
    if end < NINES:  # where the curve stops, and why
        ax.plot([end], [ys[-1]], marker="|", markersize=7, color=color)
    return ys


def plot_latency(doc, title, path, source):
    """Latency against percentile: a curve per phase and operation type."""
    hists = latency_histograms(doc, source)
    if not hists:
        return False
    fig, axes = new_figure()
    ax = axes[0][0]
    order = ordered_phases(doc)
    names = {k: n for k, n, _ in OPS}
    styles = {k: s for k, _, s in OPS}
    drawn, skipped = [], []
    op_order = [k for k, _, _ in OPS]
    for (name, key), h in sorted(hists.items(), key=lambda kv: (
            results.phase_sort_key(kv[0][0], order),
            op_order.index(kv[0][1]) if kv[0][1] in op_order else -1)):
        what = f"{name} {names.get(key, 'all')}"
        ys = draw_curve(ax, h, phase_color(name, order), styles.get(key, "-"),
                        f"{what} ({h.count:,} samples)")
        if ys is False:
            skipped.append(f"{what} ({h.count})")
        else:
            drawn += ys
    nines_axis(ax)
    latency_axis(ax, drawn)
    ax.set_ylabel("latency")
    iterations = len(doc["iterations"])
    merged = f", {iterations} iterations merged" if iterations > 1 else ""
    ax.set_title(f"Latency by percentile — {title}{merged}", fontsize=11)
    note = (f"reads solid, writes dashed, flushes dotted; a curve ends (|) where fewer than "
            f"{results.MIN_TAIL_SAMPLES} samples lie beyond the percentile")
    if skipped:
        note += "; too few samples for a curve: " + ", ".join(skipped)
    fig.text(0.01, 0.01, note, fontsize=7.5, color="dimgray", wrap=True)
    ax.grid(which="major", alpha=0.35)
    ax.grid(which="minor", axis="y", alpha=0.12)
    if drawn:  # curves climb to the right: the lower right is free
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save(fig, path)
    return True


def plot_sweep_latency(doc, title, path, source):
    """Latency against percentile of every sweep point's random phase (reads
    and writes together), light to dark as the swept value grows."""
    sweep = doc.get("sweep") or {}
    points = [pt for pt in sweep.get("points", []) if isinstance(pt.get("latency"), dict)]
    if not points:
        return False
    fig, axes = new_figure()
    ax = axes[0][0]
    cmap = matplotlib.colormaps["viridis"]
    drawn, skipped = [], []
    for n, pt in enumerate(points):
        h = results.Histogram.from_latency(pt["latency"], f"{source}: sweep point {pt['value']}")
        what = sweep_text(sweep.get("parameter"), pt["value"])
        color = cmap(0.9 * (1 - n / max(len(points) - 1, 1)))
        ys = draw_curve(ax, h, color, "-", f"{what} ({h.count:,} samples)")
        if ys is False:
            skipped.append(f"{what} ({h.count})")
        else:
            drawn += ys
    nines_axis(ax)
    latency_axis(ax, drawn)
    ax.set_ylabel("latency")
    ax.set_title(f"Latency by percentile at each {sweep.get('parameter')} — {title}", fontsize=11)
    note = (f"random phase of each sweep point, reads and writes together; a curve ends (|) "
            f"where fewer than {results.MIN_TAIL_SAMPLES} samples lie beyond the percentile")
    if skipped:
        note += "; too few samples for a curve: " + ", ".join(skipped)
    fig.text(0.01, 0.01, note, fontsize=7.5, color="dimgray")
    ax.grid(which="major", alpha=0.35)
    if drawn:
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save(fig, path)
    return True


# --- time series ------------------------------------------------------------------

def number(rec, key):
    v = rec.get(key)
    return float(v) if isinstance(v, (int, float)) else None


def interval_of(rec, start):
    """One record as an interval over [start, end] with raw counts (rates
    times the span when a record has no raw counts)."""
    end = float(rec["elapsed_s"])
    span = max(end - start, 0.0)
    iv = {"start": start, "end": end, "iteration": rec.get("iteration"),
          "phase": rec.get("phase"), "sweep_value": rec.get("sweep_value"),
          "mismatches": number(rec, "mismatches") or 0, "merged": False}
    for kind in ("read", "write"):
        ops, rate = number(rec, f"{kind}_ops"), number(rec, f"{kind}_iops")
        iv[f"{kind}_ops"] = ops if ops is not None else (rate or 0.0) * span
        b, brate = number(rec, f"{kind}_bytes"), number(rec, f"{kind}_bytes_per_sec")
        iv[f"{kind}_bytes"] = b if b is not None else (brate or 0.0) * span
    for key in ("p50_ns", "p99_ns", "max_ns"):
        v = number(rec, key)
        iv[key] = v / 1e6 if v is not None and v > 0 else None
    return iv


def segments(records):
    """Intervals in time order, grouped by (iteration, phase, sweep point).
    An interval starts at elapsed_s - interval_s, or where the one before it
    ended (records without interval_s)."""
    out, prev_end = [], 0.0
    for rec in sorted(records, key=lambda r: r["elapsed_s"]):
        span = number(rec, "interval_s")
        start = float(rec["elapsed_s"]) - span if span and span > 0 else prev_end
        iv = interval_of(rec, start)
        prev_end = iv["end"]
        key = (iv["iteration"], iv["phase"], iv["sweep_value"])
        if out and out[-1][0] == key:
            out[-1][1].append(iv)
        else:
            out.append((key, [iv]))
    return out


def fold_partial(intervals, nominal):
    """Merges a last interval shorter than PARTIAL_INTERVAL_SHARE x nominal
    into the one before it: counts add up over the joint span, latency keeps
    the longer interval's percentiles and the larger max."""
    if len(intervals) < 2:
        return intervals, 0
    last, prev = intervals[-1], intervals[-2]
    if last["end"] - last["start"] >= PARTIAL_INTERVAL_SHARE * nominal:
        return intervals, 0
    joined = dict(prev, end=last["end"], mismatches=last["mismatches"], merged=True)
    for key in ("read_ops", "write_ops", "read_bytes", "write_bytes"):
        joined[key] = prev[key] + last[key]
    joined["max_ns"] = max(v for v in (prev["max_ns"], last["max_ns"], 0) if v is not None) or None
    return intervals[:-2] + [joined], 1


def rate(iv, key):
    span = iv["end"] - iv["start"]
    return iv[key] / span if span > 0 else 0.0


def draw_rates(ax, segs, keys, scale, styles):
    """Each segment as steps over its intervals' spans (never joined across
    phases); styles: {label: (color, width)}; keys: {label: [count keys]}."""
    for n, (_, ivs) in enumerate(segs):
        edges = [iv["start"] for iv in ivs] + [ivs[-1]["end"]]
        for label, ks in keys.items():
            values = [sum(rate(iv, k) for k in ks) / scale for iv in ivs]
            color, width = styles[label]
            ax.stairs(values, edges, baseline=None, color=color, linewidth=width,
                      label=label if n == 0 else None)


def draw_latency(ax, segs):
    """p50 and p99 of each interval as steps over its span, where the
    interval's operations support them (a gap where they do not), max as a
    thin line; returns the values drawn (ms)."""
    drawn = []
    lines = (("max_ns", None, "silver", 0.8, "max"), ("p99_ns", 99, "tab:red", 1.5, "p99"),
             ("p50_ns", 50, "tab:blue", 1.2, "p50"))
    for n, (_, ivs) in enumerate(segs):
        edges = [iv["start"] for iv in ivs] + [ivs[-1]["end"]]
        for key, p, color, width, label in lines:
            values = []
            for iv in ivs:
                ops = iv["read_ops"] + iv["write_ops"]
                ok = iv[key] is not None and (p is None or results.percentile_supported(ops, p))
                values.append(iv[key] if ok else math.nan)
            drawn += [v for v in values if not math.isnan(v)]
            if any(not math.isnan(v) for v in values):
                ax.stairs(values, edges, baseline=None, color=color, linewidth=width)
    for _, _, color, width, label in reversed(lines):
        ax.plot([], [], color=color, linewidth=width, label=label)  # legend entries
    return drawn


def shade_phases(axes, segs, total, sweep_param):
    """Each (iteration, phase) shaded in its colour from its true start, its
    name on top where it fits; sweep points marked by a dashed line and value."""
    order = [k[1] for k, _ in segs]
    iterations = {k[0] for k, _ in segs}
    top = axes[0]
    # A long run has too many phases to name or mark (its trend figure
    # shows the iterations): shading only.
    marks = len(segs) <= MAX_PHASE_MARKS
    seen = set()
    last_it = None
    for (it, phase, sweep), ivs in segs:
        start, end = ivs[0]["start"], ivs[-1]["end"]
        color = phase_color(phase, order)
        if marks and last_it is not None and it != last_it:  # a new iteration begins
            for ax in axes:
                ax.axvline(start, color="dimgray", linewidth=0.9)
        last_it = it
        for ax in axes:
            ax.axvspan(start, end, color=color, alpha=0.10, linewidth=0,
                       label=phase if ax is top and phase not in seen else None)
        seen.add(phase)
        text = sweep_text(sweep_param, sweep) if sweep else phase
        if not sweep and len(iterations) > 1:
            text += f" #{it}"
        if sweep and marks:
            for ax in axes:
                ax.axvline(start, color="gray", linewidth=0.7, linestyle="--")
        # The name above the panel, centred on the phase, where it fits.
        if marks and (end - start) >= 0.06 * total:
            top.annotate(text, ((start + end) / 2, 1.0), xycoords=("data", "axes fraction"),
                         xytext=(0, 2), textcoords="offset points", fontsize=7.5,
                         color="dimgray", ha="center", va="bottom")


def sweep_text(param, value):
    """A sweep point as the command line names it: "qd 16", "64K"."""
    if param == "rand-block":
        return f"{value // 1024}K" if value % 1024 == 0 else str(value)
    return f"{param} {value}"


def mark_mismatches(ax, segs):
    """A red x where the run's mismatch count rose."""
    xs, before = [], 0
    for _, ivs in segs:
        for iv in ivs:
            if iv["mismatches"] > before:
                xs.append((iv["start"] + iv["end"]) / 2)
            before = iv["mismatches"]
    if xs:
        lo, hi = ax.get_ylim()
        ax.scatter(xs, [hi * 0.95] * len(xs), color="red", marker="x", zorder=3,
                   label="new mismatches")



def plot_timeseries(records, title, path, sweep_param=None):
    """Bandwidth, IOPS and latency over time, one step per interval."""
    segs = segments(records)
    nominal = max(iv["end"] - iv["start"] for _, ivs in segs for iv in ivs) or 1.0
    merged = 0
    for n, (key, ivs) in enumerate(segs):
        ivs, folded = fold_partial(ivs, nominal)
        segs[n] = (key, ivs)
        merged += folded
    total = segs[-1][1][-1]["end"] - segs[0][1][0]["start"] or 1.0
    fig, axes = new_figure(3, sharex=True, size=TIMESERIES_SIZE)
    bw, iops, lat = (a[0] for a in axes)
    styles = {"total": ("black", 1.3), "read": ("tab:blue", 0.9), "write": ("tab:orange", 0.9)}
    keys = {"total": ["read_bytes", "write_bytes"], "read": ["read_bytes"],
            "write": ["write_bytes"]}
    draw_rates(bw, segs, keys, MIB, styles)
    draw_rates(iops, segs, {k: [b.replace("bytes", "ops") for b in v] for k, v in keys.items()},
               1.0, styles)
    drawn = draw_latency(lat, segs)
    latency_axis(lat, drawn)
    for ax in (bw, iops):
        ax.set_ylim(bottom=0)
    mark_mismatches(iops, segs)
    shade_phases([bw, iops, lat], segs, total, sweep_param)
    bw.set_ylabel("MiB/s")
    iops.set_ylabel("IOPS (operations/s)")
    lat.set_ylabel("latency")
    lat.set_xlabel("time in phases (s)")
    bw.set_title(f"Over time — {title}", fontsize=11, pad=16)
    for ax in (bw, iops, lat):
        ax.grid(which="major", alpha=0.3)
        # Legends beside the plots, clear of the phase names.
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    note = (f"Each interval ({nominal:g} s) is drawn over its own span; p50 and p99 only where "
            f"the interval has the operations to support them ({2 * results.MIN_TAIL_SAMPLES} "
            f"and {100 * results.MIN_TAIL_SAMPLES}).")
    if merged:
        note += (f"\nA phase's last interval shorter than {PARTIAL_INTERVAL_SHARE * nominal:g} s "
                 f"is merged into the one before it ({merged} merged): a rate over a few "
                 "milliseconds is noise.")
    fig.text(0.01, 0.005, note, fontsize=7.5, color="dimgray", va="bottom")
    fig.tight_layout(rect=(0, 0.045, 1, 1))
    save(fig, path)
    return True


# --- sweep ----------------------------------------------------------------------

def rate_points(doc):
    """(achieved IOPS, {name: ms}) of each point of a --sweep rate (or of
    --find-rate's probes), by achieved IOPS: a curve, whatever order the
    points were run in."""
    sweep = doc.get("sweep") or {}
    if sweep.get("parameter") != "rate":
        return []
    out = []
    for pt in sweep.get("points", []):
        rate = pt.get("rate")
        if not isinstance(rate, dict):
            continue
        resp = rate["response_latency"]["percentiles_ns"]
        lat = {f"response {k}": resp[k] / 1e6 for k in ("p50", "p99", "p99.9")}
        lat["service p99"] = pt["latency"]["percentiles_ns"]["p99"] / 1e6
        out.append((rate["achieved_iops"], lat))
    return sorted(out, key=lambda p: p[0])


def plot_rate_curve(doc, title, path):
    """--sweep rate: response percentiles and service p99 against the
    achieved rate (log latency); the turn-up point the run named, marked."""
    points = rate_points(doc)
    if not points:
        return False
    fig, axes = new_figure()
    ax = axes[0][0]
    xs = [x for x, _ in points]
    styles = {"response p50": ("tab:blue", "-"), "response p99": ("tab:red", "-"),
              "response p99.9": ("tab:purple", "-"), "service p99": ("tab:red", "--")}
    values = []
    for name, (color, style) in styles.items():
        ys = [lat[name] for _, lat in points]
        values += ys
        ax.plot(xs, ys, marker="o", color=color, linestyle=style, label=name)
    latency_axis(ax, values)
    ax.set_xlabel("achieved IOPS (operations/s)")
    ax.set_ylabel("latency")
    turn_up = (doc.get("sweep") or {}).get("turn_up")
    if turn_up:
        x = turn_up["achieved_iops"]
        ax.axvline(x, color="gray", linestyle=":", linewidth=1)
        why = ("rate not met" if not turn_up["rate_met"] else "response p99 turned up")
        ax.annotate(f"turn-up found by the run: {turn_up['requested_iops']:.0f} IOPS "
                    f"requested ({why})", (x, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(4, 0), textcoords="offset points", color="dimgray")
    find = doc.get("find_rate")
    if find:
        bound = f"p{find['percentile']:g} <= {find['bound_ns'] / 1e6:g} ms"
        ax.axhline(find["bound_ns"] / 1e6, color="gray", linestyle="--", linewidth=1)
        if find["found_iops"] is not None:
            x = find["found_iops"]
            ax.axvline(x, color="gray", linestyle=":", linewidth=1)
            ax.annotate(f"find-rate: {x:.0f} IOPS meets {bound}", (x, 0.06),
                        xycoords=("data", "axes fraction"), xytext=(4, 0),
                        textcoords="offset points", color="dimgray")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    what = "--find-rate" if find else "--sweep rate"
    ax.set_title(f"Latency against load (open loop, {what}) — {title}", fontsize=11)
    fig.tight_layout()
    save(fig, path)
    return True


def note_at(ax, x, text, color="dimgray", y=0.02):
    """A note beside a vertical line at data x, on the side with room: one
    right of the middle reads leftwards, so it is never cut off."""
    ax.get_xlim()  # settle autoscaling before asking where x lands
    frac = ax.transAxes.inverted().transform(ax.transData.transform((x, 0)))[0]
    right = frac > 0.5
    ax.annotate(text, (x, y), xycoords=("data", "axes fraction"),
                xytext=(-4 if right else 4, 0), textcoords="offset points",
                ha="right" if right else "left", color=color)


def draw_compared(ax, right, compared):
    """--compare-backends --sweep: sync's IOPS and p99 beside io_uring's, and
    the crossover (the depth from which io_uring pays) marked."""
    pts = compared.get("points") or []
    xs = [pt["qd"] for pt in pts]
    ax.plot(xs, [pt["sync"]["iops"] for pt in pts], marker="^", color="tab:orange",
            linestyle="--", label="sync IOPS")
    right.plot(xs, [pt["sync"]["p99_ns"] / 1e6 for pt in pts], color="tab:red", linestyle="--",
               label="sync p99 latency")
    qd = compared.get("crossover_qd")
    if qd is not None:
        ax.axvline(qd, color="tab:green", linestyle="-.", linewidth=1.2)
        note_at(ax, qd, f"crossover: io_uring pays from qd {qd}", color="tab:green", y=0.08)
    else:
        why = ("the backends are within noise at every depth"
               if compared.get("crossover_verdict") == "within_noise"
               else f"io_uring never leads sync by {compared.get('margin_pct', 0):g} % to the end")
        ax.annotate(f"no crossover: {why}", (0.01, 0.08), xycoords="axes fraction",
                    color="tab:green")
    return [pt["sync"]["p99_ns"] / 1e6 for pt in pts]


def plot_sweep(sweep, title, path, compared=None):
    """The swept value against IOPS (MiB/s for block sizes: IOPS always fall
    as blocks grow) on the left axis and p99 on the right; with `compared`
    (a --compare-backends sweep), both backends and their crossover."""
    param, points, knee = sweep
    if not points:
        return False
    axis_label, div = SWEEP_AXES.get(param, (param, 1))
    xs = [pt["value"] / div for pt in points]
    by_bandwidth = param == "rand-block"
    fig, axes = new_figure()
    ax = axes[0][0]
    if by_bandwidth:
        ys = [pt["bandwidth_bytes_per_sec"] / MIB for pt in points]
        ax.set_ylabel("bandwidth (MiB/s)", color="tab:blue")
    else:
        ys = [pt["iops"] for pt in points]
        ax.set_ylabel("IOPS (operations/s)", color="tab:blue")
    ax.plot(xs, ys, marker="o", color="tab:blue",
            label=("io_uring " + ax.get_ylabel()) if compared else ax.get_ylabel())
    ax.set_xlabel(axis_label)
    if all(x > 0 for x in xs) and max(xs) / min(xs) >= 4:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    right = ax.twinx()
    p99 = [pt["p99_ns"] / 1e6 if pt["p99_ns"] is not None else math.nan for pt in points]
    right.plot(xs, p99, color="tab:red",
               label="io_uring p99 latency" if compared else "p99 latency")
    more_p99 = draw_compared(ax, right, compared) if compared else []
    ok = [(x, y) for x, y, pt in zip(xs, p99, points) if pt["p99_supported"]]
    weak = [(x, y) for x, y, pt in zip(xs, p99, points) if not pt["p99_supported"]]
    if ok:
        right.scatter(*zip(*ok), marker="s", color="tab:red", zorder=3)
    if weak:
        right.scatter(*zip(*weak), marker="s", facecolors="none", edgecolors="tab:red",
                      zorder=3, label="p99 from too few samples")
    latency_axis(right, p99 + more_p99)
    ax.set_ylim(bottom=0)  # after every IOPS curve, so none is cut
    right.set_ylabel("p99 latency", color="tab:red")
    figure = "MiB/s" if by_bandwidth else "IOPS"
    if knee is not None:
        ax.axvline(knee / div, color="gray", linestyle="--", linewidth=1)
        note_at(ax, knee / div, f"saturation point found by the run (by {figure}): "
                                f"{sweep_text(param, knee)}")
    else:
        ax.annotate(f"no saturation point (by {figure}): still climbing at the last point",
                    (0.01, 0.02), xycoords="axes fraction", color="dimgray")
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title(f"Random phase over {param} — {title}", fontsize=11)
    fig.tight_layout()
    save(fig, path)
    return True


# --- steady state ---------------------------------------------------------------

def plot_steady_state(doc, title, path):
    """Round values of the (last) --steady-state block, its window, mean,
    least-squares line and the +-10 % and +-20 % bands of the window mean."""
    blocks = doc.get("steady_state") or []
    if not blocks or not blocks[-1].get("rounds_iops"):
        return False
    ss = blocks[-1]
    ys = ss["rounds_iops"]
    xs = list(range(1, len(ys) + 1))  # rounds as the text report numbers them
    fig, axes = new_figure()
    ax = axes[0][0]
    ax.plot(xs, ys, marker="o", color="tab:blue", label="IOPS of each round")
    w = ss.get("window")
    rule = ss["rule"]
    if w:
        lo, hi = w["first_round"] + 1, w["last_round"] + 1
        mean = w["mean_iops"]
        span = [lo - 0.3, hi + 0.3]
        for pct, alpha in ((rule["max_range_pct"], 0.10), (rule["max_excursion_pct"], 0.18)):
            ax.fill_between(span, [mean * (1 - pct / 100)] * 2, [mean * (1 + pct / 100)] * 2,
                            color="tab:green", alpha=alpha, linewidth=0,
                            label=f"mean ± {pct:g} %")
        ax.plot(span, [mean] * 2, color="tab:green", linewidth=1.5,
                label=f"window mean {mean:,.0f} IOPS")
        line = [w["intercept_iops"] + w["slope_iops_per_round"] * (x - 1) for x in (lo, hi)]
        ax.plot([lo, hi], line, color="tab:red", linestyle="--",
                label=f"least-squares line: excursion {w['excursion_pct']:.1f} % "
                      f"(max {rule['max_excursion_pct']:g})")
        ax.scatter(xs[lo - 1:hi], ys[lo - 1:hi], s=60, facecolors="none",
                   edgecolors="black", zorder=3,
                   label=f"window: rounds {lo}-{hi}, range {w['range_pct']:.1f} % "
                         f"(max {rule['max_range_pct']:g})")
    verdict = {"attained": f"steady state attained at round {ss.get('attained_at_round')}",
               "max-rounds": f"not steady within {len(ys)} rounds",
               "interrupted": "interrupted before a verdict"}.get(ss["status"], ss["status"])
    ax.set_xlabel(f"round ({ss['round_s']:g} s each)")
    ax.set_ylabel("IOPS (operations/s)")
    ax.set_ylim(bottom=0, top=max(ys) * 1.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"Steady state (SNIA PTS rule), iteration {ss['iteration']}: {verdict}\n"
                 f"{title}", fontsize=11)
    fig.tight_layout()
    save(fig, path)
    return True


# --- write cliff ------------------------------------------------------------------

def byte_scale(total):
    return (1 << 30, "GiB") if total >= 4 << 30 else (MIB, "MiB")


def plot_write_cliff(doc, title, path):
    """Throughput of each interval of the (last) --sustained-write block
    against the bytes written so far, each level and step marked."""
    blocks = doc.get("sustained_write") or []
    if not blocks or not blocks[-1].get("intervals"):
        return False
    sw = blocks[-1]
    cliff = sw["cliff"]
    div, unit = byte_scale(cliff["total_bytes"] + sum(iv["bytes"] for iv in
                                                      (sw.get("recovery") or {}).get("intervals", [])))
    fig, axes = new_figure()
    ax = axes[0][0]

    def draw(intervals, start, color, label):
        xs, ys, at = [], [], start
        for iv in intervals:
            xs += [at / div, (at + iv["bytes"]) / div]
            ys += [iv["bytes"] / iv["seconds"] / MIB] * 2
            at += iv["bytes"]
        ax.plot(xs, ys, color=color, linewidth=1.2, label=label)
        return at

    end = draw(sw["intervals"], 0, "tab:blue",
               f"MiB/s of each {sw['interval_s']:g} s interval, {sw['passes_done']} passes")
    steps = cliff["steps"]
    bounds = [0] + [st["bytes_before"] for st in steps] + [end]
    levels = [st["before_bytes_per_sec"] for st in steps] + (
        [steps[-1]["after_bytes_per_sec"]] if steps else [])
    for i, level in enumerate(levels):
        ax.plot([bounds[i] / div, bounds[i + 1] / div], [level / MIB] * 2, color="black",
                linestyle="--", linewidth=1, label="level (median)" if i == 0 else None)
    for i, st in enumerate(steps):
        x = st["bytes_before"] / div
        ax.axvline(x, color="tab:red", linewidth=1.5)
        name = "write cliff" if i == 0 else "next step"
        ax.annotate(f"{name} after {st['bytes_before'] / div:.1f} {unit}:\n"
                    f"{st['before_bytes_per_sec'] / MIB:.0f} -> "
                    f"{st['after_bytes_per_sec'] / MIB:.0f} MiB/s (-{st['drop_pct']:.0f}%)",
                    (x, 0.92 - 0.12 * i), xycoords=("data", "axes fraction"), xytext=(6, 0),
                    textcoords="offset points", color="tab:red", fontsize=9, va="top")
    rec = sw.get("recovery")
    if rec:
        gap = end + 0.02 * end
        ax.axvspan(end / div, gap / div, color="gray", alpha=0.3,
                   label=f"idle {rec['idle_s']:g} s")
        draw(rec["intervals"], gap, "tab:green",
             f"after the idle: {rec['recovered_pct']:.0f} % of the drop recovered")
    if not steps:
        verdict = (f"no write cliff within {cliff['total_bytes'] / div:.1f} {unit}"
                   if cliff["long_enough"] else "too few intervals for a verdict")
        ax.annotate(verdict, (0.5, 0.95), xycoords="axes fraction", ha="center", va="top")
    ax.set_xlabel(f"written ({unit})")
    ax.set_ylabel("write throughput (MiB/s)")
    ax.set_ylim(bottom=0)
    ax.set_xlim(left=0)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title(f"Sustained write, iteration {sw['iteration']}: "
                 f"{sw['passes']} x {sw['capacity_bytes'] / MIB:.0f} MiB — {title}", fontsize=11)
    fig.tight_layout()
    save(fig, path)
    return True


# --- preset -----------------------------------------------------------------------

def plot_preset(preset, title, path):
    """Every test of a preset: read and write MiB/s (bars), p99 (right)."""
    tests = preset.get("tests") or []
    if not tests:
        return False
    fig, axes = new_figure()
    ax = axes[0][0]
    xs = list(range(len(tests)))
    rd = [t.get("read_bandwidth_bytes_per_sec", 0) / MIB for t in tests]
    wr = [t.get("write_bandwidth_bytes_per_sec", 0) / MIB for t in tests]
    r1 = ax.bar([x - 0.2 for x in xs], rd, 0.38, color="tab:blue", label="read MiB/s")
    r2 = ax.bar([x + 0.2 for x in xs], wr, 0.38, color="tab:orange", label="write MiB/s")
    for rects in (r1, r2):
        ax.bar_label(rects, labels=[f"{v:.0f}" if v else "" for v in rects.datavalues],
                     fontsize=7, padding=2)
    ax.set_xticks(xs)
    ax.set_xticklabels([t.get("label", "?") for t in tests], rotation=20, ha="right",
                       fontsize=8)
    ax.set_ylabel("bandwidth (MiB/s)")
    ax.set_ylim(bottom=0)
    right = ax.twinx()
    p99 = [t.get("p99_ns", 0) / 1e6 for t in tests]
    right.plot(xs, p99, linestyle="none", marker="D", color="tab:red", label="p99 latency")
    latency_axis(right, p99)
    right.set_ylabel("p99 latency", color="tab:red")
    bad = [x for x, t in zip(xs, tests) if t.get("mismatch_total")]
    for x in bad:
        ax.annotate("MISMATCHES", (x, 0), xytext=(0, 4), textcoords="offset points",
                    ha="center", color="red", fontsize=7)
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"Preset {preset.get('name')}: every test — {title}", fontsize=11)
    fig.tight_layout()
    save(fig, path)
    return True


def main(argv=None, prog="plot"):
    """The command; `prog` names it in its usage and messages (scripts/plot,
    or drivestress-plot installed)."""
    ap = UsageParser(prog=prog, description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("result", metavar="RESULT.json")
    ap.add_argument("timeseries", nargs="?", metavar="TIMESERIES.ndjson")
    ap.add_argument("-o", "--output", required=True, metavar="DIR",
                    help="directory for the PNG files (created if missing)")
    args = ap.parse_args(argv)
    if MATPLOTLIB_MISSING is not None:
        print(f"{ap.prog}: matplotlib is missing ({MATPLOTLIB_MISSING}); as root run: "
              "apt-get update && apt-get install -y python3-matplotlib", file=sys.stderr)
        return results.EXIT_BAD_INPUT
    try:
        doc = results.load_document(args.result)
        records = results.load_timeseries(args.timeseries) if args.timeseries else None
        sweep = results.sweep_series(doc, args.result)
        try:
            os.makedirs(args.output, exist_ok=True)
        except OSError as e:
            raise InputError(f"{args.output}: {e.strerror}") from None
        stem = os.path.basename(args.result)
        stem = stem[:-5] if stem.endswith(".json") else stem
        out = lambda kind: os.path.join(args.output, f"{stem}-{kind}.png")  # noqa: E731
        title = results.describe(doc)
        preset = doc.get("preset")
        # With a preset, the document's phases are its first test's: say so.
        phase_title = (f"{title}, first test of preset {preset.get('name')} "
                       f"({preset['tests'][0].get('label')})" if preset and preset.get("tests")
                       else title)
        if preset:
            plot_preset(preset, title, out("preset"))
        if not plot_bandwidth(doc, phase_title, out("bandwidth")):
            print(f"{ap.prog}: {args.result}: no phases, no bandwidth figure", file=sys.stderr)
        if not plot_latency(doc, phase_title, out("latency"), args.result):
            print(f"{ap.prog}: {args.result}: no latency samples, no latency figure", file=sys.stderr)
        plot_trend(doc, phase_title, out("trend"))
        if records is not None:
            if records:
                plot_timeseries(records, title, out("timeseries"), sweep[0] if sweep else None)
            else:
                print(f"{ap.prog}: {args.timeseries}: no records, no time-series figure",
                      file=sys.stderr)
        plot_steady_state(doc, title, out("steady-state"))
        plot_write_cliff(doc, title, out("write-cliff"))
        if sweep is not None:
            plot_sweep(sweep, title, out("sweep"),
                       (doc.get("compare_backends") or {}).get("sweep"))
            plot_sweep_latency(doc, title, out("sweep-latency"), args.result)
            plot_rate_curve(doc, title, out("rate"))
    except InputError as e:
        print(f"{ap.prog}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(results.run_command("plot", main))
