"""A figure measured several times: its median, spread and an interval for the
median that holds whatever the figure's distribution, and how two such
figures compare.  The same rule as src/stats/estimate.cpp (the C++ --repeat
estimates), in one place for scripts/bench and scripts/compare.

The interval: with the n samples sorted, [x(k), x(n-k+1)] covers the true
median with probability 1 - 2 * P(Binomial(n, 1/2) < k); k is the largest
that keeps that at 95 % or more.  Below n = 6 no k does, and the interval is
[min, max] with its own, lower coverage (n = 5: 93.75 %, n = 3: 75 %), which
`confidence` states.  A difference is named only when two intervals do not
overlap.  Standard library only.
"""

# How two estimates compare (the strings of the C++ to_string(Difference)).
ONE_SAMPLE = "one sample"
WITHIN_NOISE = "within noise"
HIGHER = "higher"
LOWER = "lower"

# Keys of an estimate, as in the JSON document's "estimate" objects.
KEYS = ("median", "min", "max", "low", "high", "confidence", "n")


def binomial_half_below(n, k):
    """P(Binomial(n, 1/2) < k), summed as the C++ does."""
    term = 0.5 ** n  # C(n, 0) / 2^n
    total = 0.0
    i = 0
    while i < k and i <= n:
        total += term
        term = term * (n - i) / (i + 1)
        i += 1
    return total


def median(values):
    """The median of `values` (None dropped); None when there are none."""
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def estimate(samples):
    """{median, min, max, low, high, confidence, n} of `samples` (any order;
    None dropped).  Empty: n = 0 and all zero; one sample: the interval is the
    sample itself with confidence 0."""
    v = sorted(float(x) for x in samples if x is not None)
    n = len(v)
    e = dict.fromkeys(KEYS, 0.0)
    e["n"] = n
    if not v:
        return e
    e["median"] = median(v)
    e["min"], e["max"] = v[0], v[-1]
    e["low"] = e["high"] = e["median"]
    if n < 2:
        return e
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * binomial_half_below(n, k + 1) >= 0.95:
        k += 1
    e["low"], e["high"] = v[k - 1], v[n - k]
    e["confidence"] = 1 - 2 * binomial_half_below(n, k)
    return e


def spread(e):
    """(max - min) / median of an estimate, a fraction; None for no samples or
    a zero median."""
    if not e["n"] or not e["median"]:
        return None
    return (e["max"] - e["min"]) / abs(e["median"])


def half_width_pct(e):
    """Half the interval's width as a percentage of the median (the "±4 %")."""
    if e["n"] < 2 or not e["median"]:
        return 0.0
    return (e["high"] - e["low"]) / 2 / abs(e["median"]) * 100


def compare(a, b):
    """How estimate `a` compares with `b`: ONE_SAMPLE when a side has n < 2,
    HIGHER or LOWER when the intervals do not overlap, else WITHIN_NOISE."""
    if a["n"] < 2 or b["n"] < 2:
        return ONE_SAMPLE
    if a["low"] > b["high"]:
        return HIGHER
    if a["high"] < b["low"]:
        return LOWER
    return WITHIN_NOISE
