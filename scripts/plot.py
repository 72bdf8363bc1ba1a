"""PNG figures of a drivestress result document.

  plot RESULT.json [TIMESERIES.ndjson] -o DIR

Writes into DIR, named after RESULT (STEM = its file name without .json):
  STEM-bandwidth.png   bandwidth of every phase of every iteration (bars; past
                       MAX_BAR_ITERATIONS iterations, of the whole run)
  STEM-latency.png     latency against percentile on a "nines" scale, one line
                       per phase with samples (all iterations merged)
  STEM-trend.png       bandwidth and p99 latency of each phase, iteration by
                       iteration, best and worst marked, a running median
                       over long runs (two iterations or more)
  STEM-timeseries.png  IOPS and p99 latency over time (with TIMESERIES)
  STEM-sweep.png       IOPS and p99 against the swept parameter, knee marked
                       (when the document has a sweep section)
and prints the path of each file it wrote.  Every figure is FIG_SIZE at DPI
(1000 x 600 pixels).  Exit status: 0, or 1 with one line on stderr.
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
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator
except ImportError:
    print("plot: matplotlib is missing; as root run: "
          "apt-get update && apt-get install -y python3-matplotlib", file=sys.stderr)
    sys.exit(1)

FIG_SIZE = (10, 6)  # inches
DPI = 100           # so 1000 x 600 pixels
# The percentile axis runs from 0 to 99.999 %: NINES nines.
NINES = 5
CURVE_POINTS = 500  # percentiles evaluated per latency curve
MAX_BAR_ITERATIONS = 12  # more iterations: one bar per phase, the trend figure for the rest
MAX_MARKED_POINTS = 60   # longer trend lines: faint, under their running median
MEDIAN_POINTS = 50       # a running median spans 1/MEDIAN_POINTS of the iterations (at least 5)
MAX_PHASE_MARKS = 40     # time series with more phases than this: no phase boundaries drawn

SWEEP_AXES = {  # parameter -> (axis label, divisor of the values)
    "qd": ("queue depth per worker", 1),
    "files": ("workers (one file each)", 1),
    "rand-block": ("random block (KiB)", 1024),
}


class UsageParser(argparse.ArgumentParser):
    """Usage errors end like bad input: one line, exit 1."""

    def error(self, message):
        sys.stderr.write(f"plot: {message}\n")
        sys.exit(1)


def new_figure(nrows=1, sharex=False):
    return plt.subplots(nrows, 1, figsize=FIG_SIZE, dpi=DPI, sharex=sharex, squeeze=False)


def save(fig, path):
    # No bbox_inches="tight": it would change the pixel size.
    fig.tight_layout()
    fig.savefig(path, dpi=DPI, format="png")
    plt.close(fig)
    print(path)


def ordered_phases(doc):
    seen = []
    for _, name, _ in results.phase_rows(doc):
        if name not in seen:
            seen.append(name)
    return sorted(seen, key=lambda n: results.phase_sort_key(n, seen))


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
    bottom.set_ylabel("p99 latency (ms)")
    if any(p[3] for v in lines.values() for p in v):
        bottom.set_yscale("log")
        bottom.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        bottom.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
        bottom.yaxis.set_minor_formatter(FuncFormatter(lambda y, _: ""))
    bottom.xaxis.set_major_locator(MaxNLocator(integer=True))
    bottom.set_xlabel("iteration")
    bottom.grid(which="major", alpha=0.3)
    save(fig, path)
    return True


def nines(p):
    """Position of percentile p (0..100) on the nines axis: 90 -> 1, 99 -> 2."""
    return -math.log10(1.0 - p / 100.0)


def plot_latency(doc, title, path, source):
    """Latency against percentile from each phase's merged histogram."""
    curves = {}
    for name, phase in results.histogram_rows(doc):
        h = results.phase_histogram(phase, source)
        if name in curves:
            curves[name].merge(h)
        else:
            curves[name] = h
    curves = {n: h for n, h in curves.items() if h.count > 0}
    if not curves:
        return False
    fig, axes = new_figure()
    ax = axes[0][0]
    xs = [NINES * i / (CURVE_POINTS - 1) for i in range(CURVE_POINTS)]
    ps = [100.0 * (1.0 - 10.0 ** -x) for x in xs]
    iterations = len(doc["iterations"])
    for name in sorted(curves, key=lambda n: results.phase_sort_key(n, list(curves))):
        h = curves[name]
        ax.plot(xs, [h.percentile(p) / 1e6 for p in ps], drawstyle="steps-post",
                label=f"{name} ({h.count} samples)")
    ticks = list(range(NINES + 1))
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(
        lambda x, _: "0" if x == 0 else f"{100 - 10.0 ** (2 - x):.{max(int(x) - 2, 0)}f}"))
    ax.set_xlim(0, NINES)
    ax.set_yscale("log")
    ax.set_xlabel("percentile (%)")
    ax.set_ylabel("latency (ms)")
    merged = f", {iterations} iterations merged" if iterations > 1 else ""
    ax.set_title(f"Latency by percentile — {title}{merged}")
    ax.grid(which="both", alpha=0.3)
    ax.legend()
    save(fig, path)
    return True


def number(rec, key):
    v = rec.get(key)
    return float(v) if isinstance(v, (int, float)) else math.nan


def plot_timeseries(records, title, path):
    """IOPS (read, write, total) above, p50/p99 latency below, phases marked."""
    records = sorted(records, key=lambda r: r["elapsed_s"])
    t = [r["elapsed_s"] for r in records]
    r_iops = [number(r, "read_iops") for r in records]
    w_iops = [number(r, "write_iops") for r in records]
    total = [(0 if math.isnan(a) else a) + (0 if math.isnan(b) else b)
             for a, b in zip(r_iops, w_iops)]
    fig, axes = new_figure(2, sharex=True)
    top, bottom = axes[0][0], axes[1][0]
    top.plot(t, total, label="total", color="black", linewidth=1.2)
    top.plot(t, r_iops, label="read", linewidth=0.8)
    top.plot(t, w_iops, label="write", linewidth=0.8)
    bad = [(x, y) for x, y, r in zip(t, total, records) if number(r, "mismatches") > 0]
    if bad:
        top.scatter(*zip(*bad), color="red", marker="x", zorder=3, label="mismatches")
    top.set_ylabel("IOPS (operations/s)")
    top.set_title(f"IOPS and p99 latency over time — {title}")
    # Legends beside the plots, clear of the phase names.
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    top.grid(alpha=0.3)

    p99 = [number(r, "p99_ns") / 1e6 for r in records]
    p50 = [number(r, "p50_ns") / 1e6 for r in records]
    bottom.plot(t, p99, label="p99", color="tab:red", linewidth=1.2)
    bottom.plot(t, p50, label="p50", color="tab:blue", linewidth=0.8, linestyle="--")
    if any(v > 0 for v in p99 + p50):
        bottom.set_yscale("log")
    bottom.set_ylabel("latency (ms)")
    bottom.set_xlabel("elapsed time (s)")
    bottom.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    bottom.grid(which="both", alpha=0.3)

    # Phase boundaries: a line where (iteration, phase) changes, its name on
    # top; a long run has too many to read (its trend figure shows them).
    starts, prev = [], None
    for x, r in zip(t, records):
        key = (r.get("iteration"), r.get("phase"))
        if key != prev:
            starts.append((x, key))
            prev = key
    if len(starts) > MAX_PHASE_MARKS:
        starts = []
    for x, key in starts:
        for ax in (top, bottom):
            ax.axvline(x, color="gray", linewidth=0.6, linestyle=":")
        if key[1] is not None:
            top.annotate(f"{key[1]}" + (f" #{key[0]}" if key[0] is not None else ""),
                         (x, 1.0), xycoords=("data", "axes fraction"),
                         xytext=(2, -3), textcoords="offset points", fontsize=7,
                         color="dimgray", rotation=90, va="top")
    save(fig, path)
    return True


def plot_sweep(sweep, title, path):
    """IOPS (left axis) and p99 (right axis) against the swept value."""
    param, points, knee = sweep
    if not points:
        return False
    axis_label, div = SWEEP_AXES.get(param, (param, 1))
    xs = [v / div for v, _, _ in points]
    fig, axes = new_figure()
    ax = axes[0][0]
    ax.plot(xs, [i for _, i, _ in points], marker="o", color="tab:blue", label="IOPS")
    ax.set_xlabel(axis_label)
    ax.set_ylabel("IOPS (operations/s)", color="tab:blue")
    ax.set_ylim(bottom=0)
    if all(x > 0 for x in xs) and max(xs) / min(xs) >= 4:
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_locator(FixedLocator(xs))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    right = ax.twinx()
    right.plot(xs, [math.nan if p is None else p / 1e6 for _, _, p in points], marker="s",
               color="tab:red", label="p99 latency")
    right.set_ylabel("p99 latency (ms)", color="tab:red")
    right.set_ylim(bottom=0)
    if knee is not None:
        ax.axvline(knee / div, color="gray", linestyle="--", linewidth=1)
        ax.annotate(f"knee: {param} {knee / div:g}", (knee / div, 0.02),
                    xycoords=("data", "axes fraction"), xytext=(4, 0),
                    textcoords="offset points", color="dimgray")
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="upper left")
    ax.grid(alpha=0.3)
    ax.set_title(f"Random phase over {param} — {title}")
    save(fig, path)
    return True


def main(argv=None):
    ap = UsageParser(prog="plot", description=__doc__.split("\n\n")[0],
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("result", metavar="RESULT.json")
    ap.add_argument("timeseries", nargs="?", metavar="TIMESERIES.ndjson")
    ap.add_argument("-o", "--output", required=True, metavar="DIR",
                    help="directory for the PNG files (created if missing)")
    args = ap.parse_args(argv)
    try:
        doc = results.load_document(args.result)
        records = results.load_timeseries(args.timeseries) if args.timeseries else None
        sweep = results.sweep_points(doc, args.result)
        try:
            os.makedirs(args.output, exist_ok=True)
        except OSError as e:
            raise InputError(f"{args.output}: {e.strerror}") from None
        stem = os.path.basename(args.result)
        stem = stem[:-5] if stem.endswith(".json") else stem
        out = lambda kind: os.path.join(args.output, f"{stem}-{kind}.png")  # noqa: E731
        title = results.describe(doc)
        if not plot_bandwidth(doc, title, out("bandwidth")):
            print(f"plot: {args.result}: no phases, no bandwidth figure", file=sys.stderr)
        if not plot_latency(doc, title, out("latency"), args.result):
            print(f"plot: {args.result}: no latency samples, no latency figure", file=sys.stderr)
        plot_trend(doc, title, out("trend"))  # quietly none for a single iteration
        if records is not None:
            if records:
                plot_timeseries(records, title, out("timeseries"))
            else:
                print(f"plot: {args.timeseries}: no records, no time-series figure",
                      file=sys.stderr)
        if sweep is not None:
            plot_sweep(sweep, title, out("sweep"))
    except InputError as e:
        print(f"plot: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
