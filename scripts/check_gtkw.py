#!/usr/bin/env python3
"""check_gtkw.py LAYOUT.gtkw DUMP.fst: fails (exit 1) unless every signal the GTKWave layout
names exists in the dump (and every bit a #{...} row takes from a vector lies inside it), so a
renamed or resized RTL signal cannot silently leave a hole in a layout, and unless every state
register (`state_q`) is shown by its value names (GTKWave's enum flag, see ENUM in
scripts/gen_gtkw_common.py). Reads the dump's signal list with fst2vcd (from the gtkwave
package)."""
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from gen_gtkw_common import ENUM  # noqa: E402  the enum trace flag the layouts use


def dump_signals(fst):
    header = subprocess.run(["fst2vcd", "-f", fst], capture_output=True, text=True, check=True)
    scopes, names = [], set()
    for line in header.stdout.splitlines():
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scopes.append(tok[2])
        elif tok[0] == "$upscope":
            scopes.pop()
        elif tok[0] == "$var":
            # $var <type> <width> <id> <name> [range] $end
            name = tok[4] + (tok[5] if len(tok) > 6 and tok[5].startswith("[") else "")
            names.add(".".join(scopes + [name]))
        elif tok[0] == "$enddefinitions":
            break
    return names


def layout_signals(gtkw):
    wanted = []
    for line in open(gtkw):
        line = line.strip()
        if not line or line[0] in "[*@-":
            continue
        if line.startswith("+{"):
            # +{alias} name: a signal shown under another name.
            wanted.append(line[line.index("}") + 1:].strip())
            continue
        if line.startswith("#{"):
            # #{alias} (bit)name (bit)name ...: every referenced vector must exist, and hold
            # the bit (counted from its MSB): "(bit)name" stands for itself when it does not.
            for ref in line[line.index("}") + 1:].split():
                m = re.match(r"^\((\d+)\)(.*\[(\d+):(\d+)\])$", ref)
                inside = m and int(m.group(1)) <= abs(int(m.group(3)) - int(m.group(4)))
                wanted.append(m.group(2) if inside else ref)
        else:
            wanted.append(line)
    return wanted


def states_shown_as_numbers(gtkw):
    """The state registers the layout shows with a trace flag other than ENUM."""
    flags, bad = None, []
    for line in open(gtkw):
        line = line.strip()
        if line.startswith("@"):
            flags = line
        elif "state_q" in line and line[0] not in "[*-#" and flags != ENUM:
            bad.append(line)
    return bad


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    have = dump_signals(sys.argv[2])
    wanted = layout_signals(sys.argv[1])
    missing = sorted(set(w for w in wanted if w not in have))
    for m in missing:
        print(f"{sys.argv[1]}: signal not in {sys.argv[2]}: {m}")
    numbers = states_shown_as_numbers(sys.argv[1])
    for n in numbers:
        print(f"{sys.argv[1]}: state shown as a number, not by its value names ({ENUM}): {n}")
    print(f"{sys.argv[1]}: {len(set(wanted)) - len(missing)} of {len(set(wanted))} signals found")
    sys.exit(1 if missing or numbers or not wanted else 0)


if __name__ == "__main__":
    main()
