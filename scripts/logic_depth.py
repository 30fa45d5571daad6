#!/usr/bin/env python3
"""The logic-depth budget: the deepest combinational path of a block in generic gate levels.

  logic_depth.py check --name NAME --read READ.ys --top TOP --ceilings FILE --out DIR
      Synthesizes the block generically with Yosys (flattened; `abc -g` maps it to two-input
      gates and multiplexers), finds the longest topological path with `ltp -noff` (flip-flops
      cut the paths, so this is the deepest register-to-register, port-to-register or
      register-to-port path of the block) and writes DIR/NAME.depth.json. Fails (exit 1) when
      the depth exceeds the block's ceiling: the budget (64 levels, docs/fpga.md) unless FILE
      lists a higher one for NAME (a block not yet pipelined), and also when FILE lists a
      ceiling for a block that now meets the budget (delete its line then).
  logic_depth.py ceilings --ceilings FILE NAME...
      Fails when FILE names a block that is not among NAME... (a stale line) or is malformed.
  logic_depth.py report DIR NAME...
      Prints the depth table of the named blocks (after `check` has run for them).

FILE: one block a line, "<name> <levels>", '#' starts a comment. READ.ys holds the Yosys
commands that read the sources and set the parameters (CMake's tpu_synth_read()).
"""
import argparse
import json
import os
import re
import subprocess
import sys

BUDGET = 64
GATES = "AND,NAND,OR,NOR,XOR,XNOR,ANDNOT,ORNOT,MUX"


def node_name(line):
    """The signal an ltp line names, as the RTL names it (Yosys's and ABC's prefixes dropped)."""
    m = re.match(r"^\s+(?:\d+|ff): (\S+)(?: \[(\d+)\])?", line)
    name = re.sub(r"^\$abc\$\d+\$", "", m.group(1)).lstrip("\\")
    return name + (f"[{m.group(2)}]" if m.group(2) else "")


def read_ceilings(path):
    """name -> ceiling; exits 2 naming the line when FILE is malformed."""
    ceilings = {}
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError as e:
        print(f"logic_depth.py: --ceilings {path}: {e.strerror}", file=sys.stderr)
        sys.exit(2)
    for number, line in enumerate(lines, 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if len(fields) != 2 or not fields[1].isdigit() or fields[0] in ceilings:
            print(f"{path}:{number}: expected '<block> <levels>' once per block, got "
                  f"'{line.strip()}'", file=sys.stderr)
            sys.exit(2)
        ceilings[fields[0]] = int(fields[1])
    return ceilings


def cmd_check(args):
    ceilings = read_ceilings(args.ceilings)
    if not os.path.isfile(args.read):
        print(f"logic_depth.py: --read {args.read}: no such file (configure the build first)",
              file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, args.name)
    with open(args.read) as f:
        script = f.read()
    # synth checks the hierarchy itself (an explicit `hierarchy -top` first would rename a
    # top whose parameters were set to its derived name, and synth would not find it).
    script += (f"synth -flatten -top {args.top}\n"
               f"abc -g {GATES}\n"
               f"tee -o {base}.ltp.txt ltp -noff\n")
    with open(base + ".depth.ys", "w") as f:
        f.write(script)
    with open(base + ".depth.log", "w") as log:
        status = subprocess.run(["nice", "yosys", "-q", "-s", base + ".depth.ys"], stdout=log,
                                stderr=subprocess.STDOUT).returncode
    if status != 0:
        print(f"{args.name}: Yosys failed, see {base}.depth.log", file=sys.stderr)
        return 1
    with open(base + ".ltp.txt") as f:
        text = f.read()
    m = re.search(r"Longest topological path in \S+ \(length=(\d+)\):\n"
                  r"((?:\s+(?:\d+|ff): .*\n?)*)", text)
    if not m:
        print(f"{args.name}: no path in {base}.ltp.txt", file=sys.stderr)
        return 1
    depth = int(m.group(1))
    # "  12: \\name [bit] (via cell)"; the last line, "ff:", is the flip-flop the path ends in.
    nodes = [node_name(l) for l in m.group(2).splitlines()]
    result = {"name": args.name, "top": args.top, "levels": depth,
              "start": nodes[0] if nodes else "", "end": nodes[-1] if nodes else "",
              "ceiling": ceilings.get(args.name, BUDGET)}
    with open(base + ".depth.json", "w") as f:
        json.dump(result, f, indent=1)
    print(f"{args.name}: {depth} levels ({result['start']} -> {result['end']}), "
          f"ceiling {result['ceiling']}")
    if depth > result["ceiling"]:
        print(f"{args.name}: {depth} levels exceed the ceiling of {result['ceiling']} "
              f"({'the budget' if args.name not in ceilings else args.ceilings})",
              file=sys.stderr)
        return 1
    if args.name in ceilings and depth <= BUDGET:
        print(f"{args.name}: now within the {BUDGET}-level budget: delete its line from "
              f"{args.ceilings}", file=sys.stderr)
        return 1
    return 0


def cmd_ceilings(args):
    stale = sorted(set(read_ceilings(args.ceilings)) - set(args.names))
    if stale:
        print(f"{args.ceilings}: no such block: {', '.join(stale)} (known: "
              f"{', '.join(args.names)})", file=sys.stderr)
        return 1
    return 0


def cmd_report(args):
    print("| block | levels | ceiling | deepest path (start -> end) |")
    print("|---|---|---|---|")
    for name in args.names:
        path = os.path.join(args.dir, name + ".depth.json")
        if not os.path.isfile(path):
            print(f"| {name} | (not measured: no {path}) | | |")
            continue
        with open(path) as f:
            r = json.load(f)
        over = " (over budget)" if r["levels"] > BUDGET else ""
        print(f"| {name} | {r['levels']}{over} | {r['ceiling']} | `{r['start']}` -> "
              f"`{r['end']}` |")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--name", required=True)
    c.add_argument("--read", required=True)
    c.add_argument("--top", required=True)
    c.add_argument("--ceilings", required=True)
    c.add_argument("--out", required=True)
    k = sub.add_parser("ceilings")
    k.add_argument("--ceilings", required=True)
    k.add_argument("names", nargs="+")
    r = sub.add_parser("report")
    r.add_argument("dir")
    r.add_argument("names", nargs="+")
    args = p.parse_args()
    return {"check": cmd_check, "ceilings": cmd_ceilings, "report": cmd_report}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
