#!/usr/bin/env python3
"""The README and the guides in docs/ against the binary they document.

Pages: README.md, every docs/*.md and any --page given (tests/README.md).

Example outputs: a fenced block preceded by an HTML comment

    <!-- shape: COMMAND -->

is an example this test checks, on whichever page it is.  COMMAND is a
shell command line run in a fresh temporary directory, with {drivestress}
(the built binary), {scripts} (the scripts/ directory) and {dir} (that
directory) filled in; it may be a smaller run than the one the page shows
(fewer MiB, shorter phases), since only the shape is compared.  Its output
(stdout and stderr) must have the block's shape (a line continued at 9 or 13
columns taken as one with the line before it), where a line's shape is its
labels: every token that is a number becomes '#' (with the size or time unit
that follows it), every absolute path '/', what depends on the machine (host
name, kernel, generator, filesystem and device) a placeholder, runs of spaces
one space, and consecutive lines of the same shape one line (tables of any
length).  Lines of the block starting with "$ " are the command shown, not
output; a line "..." stands for any number of lines.  When the output changes
on purpose, run the page's own command again and paste its output.

Options: every option --help lists is a row of the option table (the one
page that holds "| option | meaning | default |", docs/options.md), with the
same metavariable and default.

Commands: every option on a command line a page or the man page's EXAMPLES
shows (a line starting with "drivestress ") is one --help lists.

Links: every relative link of every page names a file that exists, and an
anchor (page.md#heading) a heading of that page, so the front page's links
cannot rot.  README.md stays a front page: under 450 lines.

  python3 tests/docs/readme_test.py --readme README.md --docs docs \
      --page tests/README.md --man-include share/drivestress.h2m \
      --drivestress BUILD/src/drivestress \
      --scripts scripts [unittest args]
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ap = argparse.ArgumentParser(add_help=False)
ap.add_argument("--readme", required=True)
ap.add_argument("--docs", help="the docs/ directory: every *.md in it is checked too")
ap.add_argument("--page", action="append", default=[], help="one more page to check")
ap.add_argument("--man-include", help="the man page's help2man include (its EXAMPLES)")
ap.add_argument("--drivestress", required=True)
ap.add_argument("--scripts", required=True)
OPTS, REST = ap.parse_known_args()

# The front page stays one: what it is, how to start, links to the guides.
README_MAX_LINES = 450
# Shape examples across all pages (six when the guides moved to docs/): a
# lower count means an example lost its comment on the way.
MIN_EXAMPLES = 6


def pages():
    """[(path, text)] of README.md, docs/*.md and the --page files."""
    paths = [OPTS.readme]
    if OPTS.docs:
        paths += sorted(os.path.join(OPTS.docs, n) for n in os.listdir(OPTS.docs)
                        if n.endswith(".md"))
    paths += OPTS.page
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            out.append((path, f.read()))
    return out


def name(path):
    """A page's name in messages: relative to the current directory."""
    return os.path.relpath(path)

EXAMPLE = re.compile(r"<!-- shape: (?P<cmd>.*?) -->\n```[a-z]*\n(?P<block>.*?)```", re.S)
# Values that belong to the machine, not to the program: (pattern, placeholder).
MACHINE = (
    (re.compile(r"^(drivestress \S+  )\S+(  kernel )\S+"), r"\1HOST\2KERNEL"),
    (re.compile(r"\bgenerator \S+"), "generator SIMD"),
    (re.compile(r"\bhost \S+"), "host HOST"),
    (re.compile(r"\((\S+) on (/\S+)\)"), "(FS on DEV)"),
    (re.compile(r"block device \S+ \(\S+\)"), "block device DEV"),
)
# A value: starts with a digit, maybe after a sign or bracket ("+3.2%",
# "(0", "64.6k", "2026-11-30T03:20:46Z"); "p99", "SEQ1M", "avx2" are labels.
NUMBER = re.compile(r"^[(\[+\-\u00b1]?\.?\d")
UNITS = {"B", "KiB", "MiB", "GiB", "TiB", "ns", "us", "µs", "ms", "s", "min", "h"}


def line_shape(line):
    for pattern, placeholder in MACHINE:
        line = pattern.sub(placeholder, line)
    out = []
    for token in line.split():
        if token.startswith("/"):
            token = "/"
        elif NUMBER.match(token):
            token = "#"
        elif set(token) == {"-"}:
            token = "---"
        elif token in UNITS and out and out[-1] == "#":
            continue  # "1.7 GiB" and "768 MiB" are both a size
        if token == "#" and out and out[-1] == "#":
            continue  # a run of numbers is one value
        out.append(token)
    indent = "  " if line[:1].isspace() else ""
    return indent + " ".join(out)


# Lines that depend on what else the machine did while the example ran (the
# test suite runs two tests at once): never part of an example's shape.
HOST_BUSY = re.compile(r"^\s*host busy: ")


# What a run's own noise decides: whether a figure moved within its phase.
UNSTEADY = " (unsteady)"
# A line the report continues at 9 or 13 columns (report/text_width.h), or
# scripts/compare its line on the noise at 19: where a long line folds
# depends on its numbers' widths, so a continuation is taken back into the
# line before it, on the page and in the output alike.
CONTINUATION = re.compile(r"^(?: {9}| {13}| {19})\S")


# --compare-backends' ratio lines and verdict: which run wins, by how much
# and whether outside the noise is the data, not the layout ("sync 1.07x the
# MiB/s, p50 ... lower on io_uring" against "MiB/s within noise (...)").
RATIO = re.compile(r"^(\s+(?:seq-write|seq-read|random|reverify)\s).*\blower on\b")
VERDICT = re.compile(r"^(verdict  [^:]*:).*")
# drivestress-compare's line on the noise ("vs A: MiB/s lower, IOPS within noise, ...").
NOISE_LINE = re.compile(r"^(\s+vs [A-Z]\w*:).*")


def data_words(line):
    m = RATIO.match(line) or VERDICT.match(line) or NOISE_LINE.match(line)
    return m.group(1) + " (ratios)" if m else line


def unfolded(text):
    out = []
    for line in text.splitlines():
        if CONTINUATION.match(line) and out and out[-1].strip():
            out[-1] += "  " + line.strip()
        else:
            out.append(line)
    return out


def shape(text):
    """The shapes of the lines of `text`, runs of one shape kept once."""
    out = []
    for line in unfolded(text):
        if HOST_BUSY.match(line):
            continue
        s = line_shape(data_words(line.replace(UNSTEADY, "")))
        if not out or out[-1] != s:
            out.append(s)
    return out


def matches(expected, actual):
    """Whether `actual` lines fit `expected`, where "..." is any lines."""
    pattern = "".join("(?:.*\n)*?" if e == "..." else re.escape(e) + "\n" for e in expected)
    return re.fullmatch(pattern, "".join(a + "\n" for a in actual)) is not None


def examples(readme):
    out = []
    for m in EXAMPLE.finditer(readme):
        block = "\n".join(l for l in m["block"].splitlines() if not l.startswith("$ "))
        line = readme.count("\n", 0, m.start()) + 1
        out.append((line, m["cmd"], block))
    return out


class ReadmeExamples(unittest.TestCase):

    def run_example(self, cmd):
        d = tempfile.mkdtemp(prefix="ds-readme.")
        try:
            filled = cmd.format(drivestress=os.path.abspath(OPTS.drivestress),
                                scripts=os.path.abspath(OPTS.scripts), dir=d)
            r = subprocess.run(["bash", "-c", filled], capture_output=True, text=True,
                               timeout=300, cwd=d)
            return r.stdout + r.stderr
        finally:
            shutil.rmtree(d)

    def test_examples_have_the_shape_of_what_the_binary_prints(self):
        found = [(path, *e) for path, text in pages() for e in examples(text)]
        self.assertGreaterEqual(len(found), MIN_EXAMPLES,
                                "checked examples went missing from README.md and docs/")
        self.assertTrue(any(path == OPTS.readme for path, *_ in found),
                        "the front page shows no checked example")
        for path, line, cmd, block in found:
            with self.subTest(page=name(path), line=line):
                expected = shape(block)
                output = self.run_example(cmd)
                actual = shape(output)
                if not matches(expected, actual):
                    diff = "\n".join(difflib.unified_diff(
                        expected, actual, "page (shape)", "output (shape)", lineterm=""))
                    self.fail(f"{name(path)}:{line}: the example no longer has the shape of "
                              f"what `{cmd}` prints; run the page's command again and paste its "
                              f"output.\n{diff}\n--- output:\n{output}")

    def test_shape_keeps_labels_and_drops_numbers(self):
        a = "  seq-write     1472.3 MiB/s     0.70 s  cpu usr 20% sys 4%  6240 MiB/cpu-s"
        b = "  seq-write      31.0 MiB/s    12.00 s  cpu usr 1% sys 14%  40 MiB/cpu-s"
        self.assertEqual(line_shape(a), line_shape(b))
        self.assertNotEqual(line_shape(a), line_shape(b.replace("sys", "system")))
        self.assertNotEqual(line_shape(a), line_shape(a.lstrip()))
        self.assertEqual(line_shape("summary  1.7 GiB written"), line_shape("summary  768 MiB written"))
        self.assertEqual(shape("x 1\nx 2\ny\n"), ["x #", "y"])
        self.assertEqual(line_shape("lat ms p50 1.217 p99 31.785"), "lat ms p50 # p99 #")
        self.assertEqual(line_shape("target /tmp/ds-1 (ext4 on /dev/vda)  2 x 64 MiB"),
                         "target / (FS on DEV) # x #")
        self.assertTrue(matches(["a", "...", "c"], ["a", "b", "b2", "c"]))
        self.assertFalse(matches(["a", "c"], ["a", "b", "c"]))
        self.assertFalse(matches(["a", "b"], ["a", "b", "writes: #"]))  # a new line counts


TABLE_HEAD = "| option | meaning | default |"
OPTION = re.compile(r"^  (?:(-\w), |    )(--[a-z0-9-]+)(?: (\S+))?")
ROW = re.compile(r"^\| `(?:(-\w), )?(--[a-z0-9-]+)(?: ([^`]+))?` \|.*\|\s*([^|]*?)\s*\|$")


COMMAND_LINE = re.compile(r"^\s*(?:\$ |# |\.B )?drivestress (.*)$", re.M)


def shown_options(text):
    """The long options of every drivestress command line of a page."""
    out = set()
    for m in COMMAND_LINE.finditer(text):
        line = m[1].replace("\\-", "-").split("`")[0]  # roff's \-; prose after a `
        out.update(re.findall(r"(?:^|\s)(--[a-z0-9-]+)", line))
    return out


class ReadmeOptions(unittest.TestCase):
    def test_every_option_of_help_is_in_the_table_alike(self):
        help_text = subprocess.run([OPTS.drivestress, "--help"], capture_output=True,
                                   text=True, check=True).stdout
        holders = [(path, text) for path, text in pages() if TABLE_HEAD in text.splitlines()]
        self.assertEqual(len(holders), 1, f"one page holds the option table ({TABLE_HEAD}), "
                         f"not {[name(p) for p, _ in holders]}")
        path, text = holders[0]
        lines = text.splitlines()
        start = lines.index(TABLE_HEAD)
        end = start
        while end < len(lines) and lines[end].startswith("|"):
            end += 1
        rows = {}
        for line in lines[start:end]:
            m = ROW.match(line)
            if m:
                metavar = m[3].replace("\\|", "|") if m[3] else None
                rows[m[2]] = (m[1], metavar, m[4].strip())
        options = help_text[:help_text.index("\nAliases kept")]  # aliases: in prose
        entries = []  # [first line match, whole text of the entry]
        for line in options.splitlines():
            m = OPTION.match(line)
            if m:
                entries.append([m, line])
            elif entries and line.startswith(" " * 20):
                entries[-1][1] += " " + line.strip()
        checked = 0
        for m, entry in entries:
            short, option, metavar = m.groups()
            default = re.search(r"\(default: (.*)\)$", " ".join(entry.split()))
            with self.subTest(option=option):
                self.assertIn(option, rows, f"{option} is in --help but not in the table of "
                              f"{name(path)}")
                self.assertEqual(rows[option][:2], (short, metavar))
                if default:
                    self.assertEqual(rows[option][2], default[1])
            checked += 1
        self.assertGreater(checked, 30)
        self.assertEqual(set(rows), {m[2] for m, _ in entries})

    def test_command_lines_shown_use_options_that_exist(self):
        help_text = subprocess.run([OPTS.drivestress, "--help"], capture_output=True,
                                   text=True, check=True).stdout
        known = set(re.findall(r"(?m)^\s+(?:-\w, )?(--[a-z0-9-]+)", help_text))
        shown = [(name(path), text) for path, text in pages()]
        if OPTS.man_include:
            with open(OPTS.man_include, encoding="utf-8") as f:
                shown.append((name(OPTS.man_include), f.read()))
        for page, text in shown:
            with self.subTest(page=page):
                self.assertEqual(shown_options(text) - known, set(),
                                 f"{page} shows options drivestress --help does not know")
        self.assertGreater(sum(len(shown_options(t)) for _, t in shown), 20)


FENCE = re.compile(r"^ *```.*?^ *```", re.S | re.M)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6} +(.*?) *#*$", re.M)


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text):
    """Every anchor the headings of a page make (repeats get -1, -2, ...)."""
    seen = {}
    out = set()
    for m in HEADING.finditer(FENCE.sub("", text)):
        a = anchor(m[1])
        n = seen.get(a, 0)
        seen[a] = n + 1
        out.add(a if n == 0 else f"{a}-{n}")
    return out


def links(text):
    """[(line, target)] of the links and images of a page, code left out."""
    out = []
    prose = FENCE.sub(lambda m: "\n" * m[0].count("\n"), text)
    for number, line in enumerate(prose.splitlines(), 1):
        for m in LINK.finditer(CODE.sub("", line)):
            out.append((number, m[1]))
    return out


def broken_links(path, text):
    """Messages for the relative links of one page that lead nowhere."""
    out = []
    for line, target in links(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # http:, https:, mailto:: not this test's to fetch
        file, _, frag = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        where = f"{name(path)}:{line}: ({target})"
        if not os.path.exists(dest):
            out.append(f"{where}: {name(dest)} does not exist")
        elif frag and dest.endswith(".md"):
            with open(dest, encoding="utf-8") as f:
                if frag not in anchors(f.read()):
                    out.append(f"{where}: {name(dest)} has no heading #{frag}")
    return out


class Pages(unittest.TestCase):
    def test_relative_links_lead_to_files_and_headings_that_exist(self):
        found = [(path, text) for path, text in pages()]
        self.assertGreater(sum(len(links(t)) for _, t in found), 10, "the pages lost their links")
        broken = [b for path, text in found for b in broken_links(path, text)]
        self.assertFalse(broken, "links that lead nowhere:\n" + "\n".join(broken))

    def test_json_table_is_generated_from_the_schema(self):
        """docs/json.md's key table is scripts/json_table.py's output: a key
        added to, renamed in or removed from the schema fails this until the
        table is regenerated (it once said iops had total/read/write parts)."""
        page = os.path.join(OPTS.docs, "json.md")
        tool = os.path.join(OPTS.scripts, "json_table.py")
        r = subprocess.run([sys.executable, tool, "--check", page], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(page) as f:
            text = f.read()
        self.assertIn("read_iops", text)

    def test_every_preset_is_listed_where_the_presets_are(self):
        """--help's presets, each in the README's row for docs/presets.md and
        in the option table's --preset row (database was missing from both)."""
        help_text = subprocess.run([OPTS.drivestress, "--help"], capture_output=True,
                                   text=True, check=True).stdout
        section = help_text[help_text.index("Presets (--preset NAME"):]
        presets = re.findall(r"(?m)^  ([a-z][a-z0-9-]*):", section)
        self.assertIn("database", presets)
        texts = dict(pages())
        readme_row = next(l for l in texts[OPTS.readme].splitlines()
                          if l.startswith("| [docs/presets.md]"))
        options_row = next(l for l in texts[os.path.join(OPTS.docs, "options.md")].splitlines()
                           if l.startswith("| `--preset NAME`"))
        for preset in presets:
            with self.subTest(preset=preset):
                self.assertIn(f"`{preset}`", readme_row)
                self.assertIn(f"`{preset}`", options_row)

    def test_results_page_names_the_schema_versions_compare_reads(self):
        """docs/results.md says compare reads schema versions up to the
        current one: the one the schema (and so the binary) writes, the
        highest the scripts read."""
        sys.path.insert(0, os.path.abspath(OPTS.scripts))
        import results  # noqa: E402
        schema = os.path.join(OPTS.scripts, "..", "schema", "result.schema.json")
        with open(schema) as f:
            current = json.load(f)["properties"]["schema_version"]["const"]
        self.assertEqual(max(results.SCHEMA_MAJORS), current)
        with open(os.path.join(OPTS.docs, "results.md"), encoding="utf-8") as f:
            text = " ".join(f.read().split())
        self.assertIn(f"read schema versions 1 to {current}, the current one", text)

    def test_verification_page_says_how_a_power_cut_is_checked(self):
        """docs/verification.md points to --keep and --verify-only, with an
        example of what --verify-only prints (checked by its shape)."""
        with open(os.path.join(OPTS.docs, "verification.md"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("`--keep`", text)
        self.assertIn("`--verify-only", text)
        self.assertTrue(any("--verify-only" in cmd for _, cmd, _ in examples(text)),
                        "no shape example runs --verify-only")

    def test_readme_stays_a_front_page(self):
        with open(OPTS.readme, encoding="utf-8") as f:
            count = len(f.read().splitlines())
        self.assertLess(count, README_MAX_LINES,
                        f"{name(OPTS.readme)} has {count} lines; a guide belongs in docs/")

    def test_command_lines_are_read_from_pages_and_roff(self):
        self.assertEqual(shown_options("    drivestress --keep -s 8M /x\n# drivestress --raw-device /d"),
                         {"--keep", "--raw-device"})
        self.assertEqual(shown_options(".B drivestress \\-\\-brief /mnt"), {"--brief"})
        self.assertEqual(shown_options("The `drivestress --json` flag"), set())
        self.assertEqual(shown_options("`drivestress --seed 1 /tmp/x` (4 files"), set())

    def test_link_checker_reads_markdown_as_github_does(self):
        self.assertEqual(anchor("Polling modes: `--sqpoll` and `--iopoll`"),
                         "polling-modes---sqpoll-and---iopoll")
        self.assertEqual(anchor("Drive health (NVMe)"), "drive-health-nvme")
        self.assertEqual(anchors("# A\n```\n# not a heading\n```\n## A\n"), {"a", "a-1"})
        self.assertEqual(links("[x](a.md#b) `[y](c.md)`\n```\n[z](d.md)\n```\n![i](e.png)"),
                         [(1, "a.md#b"), (5, "e.png")])


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *REST], verbosity=2)
