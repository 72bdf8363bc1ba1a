"""The figures beside the pairs: the pattern generator's single-core speed
and peak RSS."""

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
from benchlib.children import *  # noqa: F401,F403
from benchlib.measure import *  # noqa: F401,F403


def run_pattern_bench(args, children, workdir):
    exe = args.pattern_exe
    if not exe:
        return {"error": "bench/pattern_bench not built"}
    out = os.path.join(workdir, "pattern.out")
    code, ru, wall = children.run([exe], out, os.path.join(workdir, "pattern.err"), timeout=600)
    with open(out) as f:
        text = f.read()
    lines = text.splitlines()
    active = next((x.split(":", 1)[1].strip() for x in lines if x.startswith("active path:")), None)
    key = []
    # The active SIMD path's block, the real fill_unit / first_mismatch lines
    # and the handed-over fill (columns: cached, streaming stores).
    block = None
    for x in lines:
        if not x.startswith(" "):
            block = x.split()[0] if x.strip() else None
        # (rows hold figures; a block's own column header has no digit)
        if x.startswith(" ") and block in (active, "units", "handed") and \
                re.search(r"\d", x):
            key.append(f"{block}: {x.strip()}")
    figures = {}
    for x in key:
        m = re.match(r"(\S+): (.*?)\s+([\d.]+)\s+([\d.]+)$", x)
        if m:
            names = (("cached_gib_s", "streaming_gib_s") if m.group(1) == "handed"
                     else ("generate_gib_s", "verify_gib_s"))
            figures[f"{m.group(1)}: {m.group(2)}"] = {names[0]: float(m.group(3)),
                                                      names[1]: float(m.group(4))}
    return {"exit_code": code, "active_path": active, "key_lines": key, "figures": figures,
            "output": text}


def run_rss(bench):
    """Peak RSS of a default run (-s 256M -j 4, every other option default)."""
    size, files = 256 * MiB, 4
    doc, ru = bench.drivestress("default run (rss)", [], files=files, size=size)
    unit = doc["config"]["unit_bytes"]
    map_bytes = size * files // unit  # about one byte per unit
    limit_kib = (64 * MiB + map_bytes) / KiB
    return {"argv": bench.log_runs[-1]["argv"], "max_rss_kib": ru.ru_maxrss,
            "generation_map_bytes": map_bytes, "limit_kib": limit_kib,
            "met": ru.ru_maxrss <= limit_kib}
