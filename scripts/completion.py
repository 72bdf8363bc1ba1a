"""Bash completion for drivestress, generated from its --help.

  completion.py DRIVESTRESS > drivestress.bash

--help is the one description of the options (src/cli/option_table.cpp); the
completion is made from it at build time, as the man page is (help2man), so
neither can miss an option.  Every option is completed by name; a value is
completed when --help says what it can be: a choice list (auto|io_uring|sync),
a LIST of the words its "(words: a,b,c)" names (after the last comma, so
"seq-write,se" completes), a file (PATH, STATE), a block device (DEV: block
devices and directories, never /dev/loop-control), a preset (NAME of the
presets listed), a sweep parameter; TARGET is a directory.  Standard library
only.
"""

import re
import subprocess
import sys

# "  -s, --size SIZE   ..." or "      --backend auto|io_uring|sync"
OPTION = re.compile(r"^  (?:-(\w), |    )--([a-z0-9-]+)(?: (\S+))?")
# "  desktop:   ..." in the Presets section
PRESET = re.compile(r"^  ([a-z0-9-]+):\s")
# "(words: seq-write,seq-read)" in an option's help (one unbroken word)
WORDS = re.compile(r"\(words: ([a-z0-9_,-]+)\)")
SWEEP_PARAMETERS = ("qd=", "files=", "rand-block=")


def parse_help(text):
    """([(short, long, metavar or None, [list words])], [preset names]) from
    --help."""
    options, presets, section = [], [], None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):  # a section heading
            section = line
            continue
        if section and section.startswith("Presets"):
            m = PRESET.match(line)
            if m:
                presets.append(m.group(1))
            continue
        m = OPTION.match(line)
        if m:
            options.append((m.group(1), m.group(2), m.group(3), []))
        w = WORDS.search(line)
        if w and options:  # on the option's own lines, before the next option
            options[-1][3].extend(w.group(1).split(","))
    return options, presets


def value_case(names, metavar, presets, words=()):
    """The `case` arm completing the value of an option, or None."""
    pattern = "|".join(names)
    if words:  # a comma-separated LIST: the word after the last comma
        return (f'        {pattern}) compopt -o nospace 2>/dev/null; '
                'local head=""; [[ $cur == *,* ]] && head=${cur%,*},; '
                f'COMPREPLY=($(compgen -P "$head" -W "{" ".join(words)}" -- "${{cur##*,}}")) ;;')
    if "|" in metavar:
        words = " ".join(metavar.split("|"))
        return f'        {pattern}) COMPREPLY=($(compgen -W "{words}" -- "$cur")) ;;'
    if metavar in ("PATH", "STATE"):
        return (f'        {pattern}) compopt -o filenames 2>/dev/null; '
                'COMPREPLY=($(compgen -f -- "$cur")) ;;')
    if metavar == "DEV":  # block devices, and directories to reach them (/dev/disk/by-id)
        return (f'        {pattern}) compopt -o filenames 2>/dev/null; local f; '
                f'for f in $(compgen -f -- "${{cur:-/dev/}}"); do '
                '[[ -b $f || -d $f ]] && COMPREPLY+=("$f"); done ;;')
    if metavar == "NAME":
        return f'        {pattern}) COMPREPLY=($(compgen -W "{" ".join(presets)}" -- "$cur")) ;;'
    if metavar == "NAME=VALUES":
        words = " ".join(SWEEP_PARAMETERS)
        return (f'        {pattern}) compopt -o nospace 2>/dev/null; '
                f'COMPREPLY=($(compgen -W "{words}" -- "$cur")) ;;')
    return None


def script(options, presets):
    words = []
    arms, plain_values = [], []
    for short, long, metavar, list_words in options:
        names = [f"--{long}"] + ([f"-{short}"] if short else [])
        words.extend(names)
        if metavar is None:
            continue
        arm = value_case(names, metavar, presets, list_words)
        if arm:
            arms.append(arm)
        else:
            plain_values.extend(names)
    arms.append(f"        {'|'.join(plain_values)}) ;;  # a number, size or duration")
    body = "\n".join(arms)
    return f"""# bash completion for drivestress; generated from `drivestress --help` by
# scripts/completion.py at build time.  Installed by `meson install`.
_drivestress() {{
    local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}}
    COMPREPLY=()
    # --opt=value: bash splits the words at "=" ("--opt" "=" "value").
    if [[ $cur == = ]]; then
        cur=""
    elif [[ $prev == = && $COMP_CWORD -ge 2 ]]; then
        prev=${{COMP_WORDS[COMP_CWORD-2]}}
    fi
    case $prev in
{body}
        *)
            if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "{' '.join(words)}" -- "$cur"))
            else
                compopt -o filenames 2>/dev/null
                COMPREPLY=($(compgen -d -- "$cur"))  # TARGET: a directory
            fi
            ;;
    esac
}}
complete -F _drivestress drivestress
"""


def main(argv):
    if len(argv) != 2:
        print("usage: completion.py DRIVESTRESS", file=sys.stderr)
        return 1
    r = subprocess.run([argv[1], "--help"], capture_output=True, text=True)
    options, presets = parse_help(r.stdout)
    if r.returncode != 0 or not options or not presets:
        print(f"completion.py: {argv[1]} --help gave no options or presets (exit {r.returncode})",
              file=sys.stderr)
        return 1
    sys.stdout.write(script(options, presets))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
