"""Shared by the generators of the GTKWave layouts (scripts/gen_*_gtkw.py): reads the signal
list of an FST dump and writes a .gtkw save file of named groups, taking every vector's range
from the dump so the layout names exactly what a trace holds (scripts/check_gtkw.py checks it).
"""
import math
import struct
import subprocess

# GTKWave trace flags: right-justified binary, hex, unsigned and signed decimal; group markers.
BIN, HEX, DEC, SDEC = "@28", "@22", "@24", "@424"
# A state register's value names: Verilator writes each `typedef enum` signal's names into the
# FST dump, and GTKWave shows them for a trace with its enum flag (bit 32) over binary.
ENUM = "@100000028"
GROUP_BEGIN, GROUP_END = "@800200", "@1000200"


def fst_signals(fst):
    """{full name: range} of every variable in the dump, e.g. 'TOP.tpu_top.rx_data_i': '[127:0]'
    (range '' for a single bit). Read with fst2vcd (package gtkwave)."""
    out = subprocess.run(["fst2vcd", "-f", fst], capture_output=True, text=True, check=True).stdout
    scopes, found = [], {}
    for line in out.splitlines():
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scopes.append(tok[2])
        elif tok[0] == "$upscope":
            scopes.pop()
        elif tok[0] == "$var":
            # $var <type> <width> <id> <name> [range] $end
            rng = tok[5] if len(tok) > 6 and tok[5].startswith("[") else ""
            found.setdefault(".".join(scopes + [tok[4]]), rng)
        elif tok[0] == "$enddefinitions":
            break
    return found


def fst_end_time(fst):
    """The dump's last timestamp, from its header block (type 0, length, start, end: big endian)."""
    with open(fst, "rb") as f:
        head = f.read(25)
    if len(head) < 25 or head[0] != 0:
        raise SystemExit(f"{fst}: not an FST dump with its header first")
    return struct.unpack(">Q", head[17:25])[0]


def zoom_to_fit(end_time, signals_width, window_width=1600):
    """The GTKWave zoom (the '*' line) that shows times 0..end_time in the wave pane of a window
    window_width pixels wide whose signal pane is signals_width wide (as wide as its longest
    name): GTKWave shows 2^-zoom / 200 time units per pixel."""
    pane = window_width - signals_width - 60  # the panes' borders and scroll bar
    return -math.ceil(math.log2(max(end_time, 1) * 200 / pane) * 4) / 4


def find_scope(have, marker, what, dump):
    """The one scope S for which S + marker names a signal of the dump (e.g. marker
    '.u_host_if.u_dma.u_dma_rd.busy_o' finds the tpu_top instance); exits naming what was found."""
    found = sorted({n[:-len(marker)] for n in have if n.endswith(marker)})
    if len(found) != 1:
        raise SystemExit(f"{dump}: expected one {what} scope (with {marker[1:]}), found {found}")
    return found[0]


class Layout:
    """A GTKWave save file being written: groups of signals, each shown under an optional
    alias, with its range taken from the dump. Signals the dump lacks are collected in missing
    instead of written, so a generator can refuse to write a layout with holes."""

    def __init__(self, have, top, title, signals_width=340, zoom=-15.0):
        self.have, self.top, self.missing = have, top + ".", []
        self.lines = [f"[*] {title}", "[timestart] 0", "[size] 1600 1000",
                      f"[signals_width] {signals_width}", "[sst_expanded] 0",
                      "[sst_vpaned_height] 200", f"*{zoom:.6f} 0"]

    def group(self, title, rows):
        """rows: signal(...) / bits(...) results, in order."""
        self.lines.extend([GROUP_BEGIN, "-" + title])
        for row in rows:
            row(self)
        self.lines.extend([GROUP_END, "-" + title])

    def _full(self, name):
        full = self.top + name
        if full not in self.have:
            self.missing.append(full)
            return None
        return full + self.have[full]


def signal(name, alias=None, fmt=None):
    """A row showing signal top.name (binary if one bit, a state register (`state_q`, an enum in
    the RTL) by its value names, else hex unless fmt says)."""
    def add(layout):
        full = layout._full(name)
        if full is None:
            return
        default = ENUM if name.endswith("state_q") else HEX if full.endswith("]") else BIN
        layout.lines.append(fmt or default)
        layout.lines.append(("+{%s} " % alias if alias else "") + full)
    return add


def bits(name, msb, lsb, alias, fmt=HEX):
    """A row showing bits [msb:lsb] of vector top.name (declared [W-1:0]) as one value."""
    def add(layout):
        full = layout._full(name)
        if full is None:
            return
        width = int(full[full.rindex("[") + 1:full.rindex(":")]) + 1
        # (k)name is bit k of the vector counted from its MSB.
        refs = " ".join(f"({width - 1 - b}){full}" for b in range(msb, lsb - 1, -1))
        layout.lines.extend([fmt, "#{%s} %s" % (alias, refs)])
    return add


def write(layout, out):
    if layout.missing:
        raise SystemExit("signals not in the dump: " + ", ".join(layout.missing))
    with open(out, "w") as f:
        f.write("\n".join(layout.lines) + "\n")
    print(f"wrote {out}")
