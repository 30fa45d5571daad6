#!/usr/bin/env python3
"""Place and route of one block on a Lattice iCE40, and the table of every block's results.

  fpga_flow.py run --name NAME --read READ.ys --top TOP --device {hx8k,up5k} --freq MHZ
                   --out DIR [--must-route] [--min-fmax MHZ]
      Synthesizes with Yosys `synth_ice40` (UP5K: `-dsp`, so multipliers become SB_MAC16, and
      `-spram`), places and routes with nextpnr-ice40 (HX8K in the ct256 package, UP5K in sg48;
      no PCF: the wrappers under fpga/ need six pins, which nextpnr places itself), packs the
      bitstream with icepack, and writes DIR/NAME.result.json and a one-line summary. READ.ys
      holds the Yosys commands that read the sources and set the parameters (written by CMake's
      tpu_synth_read(), cmake/TpuFpga.cmake). A design that does not fit is a result: its JSON
      names the demand (LUT4s, RAM blocks, DSPs) and what the device has. Exit status 1 when a
      tool fails, with --must-route when the design does not fit or route, and with --min-fmax
      when it routes slower than that; 2 on bad arguments or a missing tool; 0 otherwise.
  fpga_flow.py table DIR NAME...
      Prints the table of the named results (docs/fpga.md explains the columns).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

DEVICES = {
    # device: (nextpnr flag, package, synth_ice40 options)
    "hx8k": ("--hx8k", "ct256", []),
    "up5k": ("--up5k", "sg48", ["-dsp", "-spram"]),
}
# Capacities the table reports demand against (nextpnr's own figures for these parts).
CAPACITY = {
    "hx8k": {"ICESTORM_LC": 7680, "ICESTORM_RAM": 32, "ICESTORM_DSP": 0, "ICESTORM_SPRAM": 0},
    "up5k": {"ICESTORM_LC": 5280, "ICESTORM_RAM": 30, "ICESTORM_DSP": 8, "ICESTORM_SPRAM": 4},
}


def fail_usage(msg):
    print(f"fpga_flow.py: {msg}", file=sys.stderr)
    sys.exit(2)


def run_logged(cmd, log):
    """Runs cmd at low priority, its output to log; returns the exit status."""
    with open(log, "w") as f:
        return subprocess.run(["nice"] + cmd, stdout=f, stderr=subprocess.STDOUT).returncode


def yosys_cells(stat_path):
    """Cell type -> count from Yosys `stat` of the flattened top."""
    cells = {}
    with open(stat_path) as f:
        for line in f:
            m = re.match(r"^\s+(SB_\w+|\$\w+)\s+(\d+)\s*$", line)
            if m:
                cells[m.group(1)] = cells.get(m.group(1), 0) + int(m.group(2))
    return cells


def cell_name(name):
    """A packed cell's name as the RTL register or net it comes from."""
    name = re.sub(r"(_SB_\w+?)?(_LC|_DFFLC|_CARRY\w*)?$", "", name)
    return re.sub(r"_SB_(LUT4|DFF\w*|CARRY)\w*$", "", name)


def critical_path(report_path):
    """(start, end, logic levels, ns) of the register-to-register critical path in nextpnr's
    report, or None: start is the net the launching flip-flop drives, end the capturing cell
    (a flip-flop, or the logic cell holding it, named after what Yosys named it)."""
    with open(report_path) as f:
        report = json.load(f)
    for cp in report.get("critical_paths", []):
        if cp["from"].startswith("posedge") and cp["to"].startswith("posedge") and cp["path"]:
            path = cp["path"]
            nets = [seg["net"] for seg in path if seg["type"] == "routing" and "net" in seg]
            start = nets[0] if nets else cell_name(path[0]["from"]["cell"])
            levels = sum(1 for seg in path if seg["type"] == "logic")
            total = sum(seg["delay"] for seg in path)
            return start, cell_name(path[-1]["to"]["cell"]), levels, round(total, 2)
    return None


def describe_unfit(result, log_path):
    """Sets result's demand and reason from the log of a nextpnr run that did not fit."""
    with open(log_path) as f:
        log = f.read()
    # nextpnr prints the packed design's demand before it gives up ("ICESTORM_LC: 15342/
    # 7680 199%"): the logic cells it needs, LUTs and flip-flops packed together.
    demand = dict((m.group(1), int(m.group(2))) for m in
                  re.finditer(r"(ICESTORM_\w+):\s+(\d+)/\s*\d+", log))
    errors = [l.strip() for l in log.splitlines() if l.startswith("ERROR")]
    error = errors[0] if errors else "nextpnr failed"
    # The two ways nextpnr 0.4 reports a cell type it has too few of: the packer's and the
    # placer's ("Failed to expand region (0, 0) |_> (25, 31) of 5677 ICESTORM_LCs").
    m = (re.search(r"no BELs remaining to implement cell type '(\w+)'", error) or
         re.search(r"Failed to expand region .* of \d+ (ICESTORM_\w+?)s?$", error))
    if m:
        error = f"nextpnr ran out of {m.group(1)}"
    cap = CAPACITY[result["device"]]
    result["lcs_demand"] = demand.get("ICESTORM_LC")
    result["reason"] = (
        f"needs {result['lcs_demand'] or '?'} logic cells ({result['lut4']} LUT4, "
        f"{result['ffs']} FFs), {result['rams']} RAM blocks, {result['dsps']} DSPs; "
        f"{result['device']} has {cap['ICESTORM_LC']}, {cap['ICESTORM_RAM']}, "
        f"{cap['ICESTORM_DSP']} ({error})")


def cmd_run(args):
    for tool in ("yosys", "nextpnr-ice40", "icepack"):
        if not shutil.which(tool):
            fail_usage(f"{tool} not found: run scripts/install-deps.sh (Debian packages yosys, "
                       "nextpnr-ice40, fpga-icestorm)")
    if not os.path.isfile(args.read):
        fail_usage(f"--read {args.read}: no such file (configure the build first)")
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, args.name)
    pnr_flag, package, synth_opts = DEVICES[args.device]
    result = {"name": args.name, "top": args.top, "device": args.device, "package": package,
              "freq": args.freq}

    with open(args.read) as f:
        script = f.read()
    script += (f"synth_ice40 -top {args.top} {' '.join(synth_opts)} -json {base}.json\n"
               f"tee -q -o {base}.stat.txt stat\n")
    with open(base + ".ys", "w") as f:
        f.write(script)
    if run_logged(["yosys", "-q", "-s", base + ".ys"], base + ".yosys.log") != 0:
        print(f"{args.name}: Yosys failed, see {base}.yosys.log", file=sys.stderr)
        return 1
    cells = yosys_cells(base + ".stat.txt")
    result["ffs"] = sum(n for c, n in cells.items() if c.startswith("SB_DFF"))
    result["lut4"] = cells.get("SB_LUT4", 0)
    result["carry"] = cells.get("SB_CARRY", 0)
    result["dsps"] = cells.get("SB_MAC16", 0)
    result["rams"] = cells.get("SB_RAM40_4K", 0) + cells.get("SB_SPRAM256KA", 0)

    status = run_logged(["nextpnr-ice40", pnr_flag, "--package", package, "--json",
                         base + ".json", "--asc", base + ".asc", "--freq", str(args.freq),
                         "--report", base + ".report.json", "--seed", "1",
                         "--timing-allow-fail"], base + ".nextpnr.log")
    if status != 0 or not os.path.isfile(base + ".report.json"):
        result["routed"] = False
        describe_unfit(result, base + ".nextpnr.log")
    else:
        with open(base + ".report.json") as f:
            report = json.load(f)
        util = report["utilization"]
        result["routed"] = True
        result["lcs"] = util["ICESTORM_LC"]["used"]
        result["lcs_available"] = util["ICESTORM_LC"]["available"]
        result["dsps"] = util.get("ICESTORM_DSP", {}).get("used", 0)
        result["rams"] = (util.get("ICESTORM_RAM", {}).get("used", 0) +
                          util.get("ICESTORM_SPRAM", {}).get("used", 0))
        fmax = [v["achieved"] for v in report["fmax"].values()]
        result["fmax"] = round(min(fmax), 2) if fmax else None
        result["report"] = base + ".report.json"
        if run_logged(["icepack", base + ".asc", base + ".bin"], base + ".icepack.log") != 0:
            print(f"{args.name}: icepack failed, see {base}.icepack.log", file=sys.stderr)
            return 1
        result["bitstream"] = base + ".bin"
    with open(base + ".result.json", "w") as f:
        json.dump(result, f, indent=1)
    print(summary(result))
    if not result["routed"]:
        return 1 if args.must_route else 0
    if args.min_fmax and (result["fmax"] is None or result["fmax"] < args.min_fmax):
        print(f"{args.name}: Fmax {result['fmax']} MHz is below the required {args.min_fmax} "
              "MHz", file=sys.stderr)
        return 1
    return 0


def summary(r):
    if not r["routed"]:
        return f"{r['name']}: does not fit {r['device']}: {r['reason']}"
    return (f"{r['name']}: {r['lcs']}/{r['lcs_available']} LCs, {r['dsps']} DSPs, {r['rams']} "
            f"RAMs, {r['ffs']} FFs, Fmax {r['fmax']} MHz")


def cmd_table(args):
    rows = []
    for name in args.names:
        path = os.path.join(args.dir, name + ".result.json")
        if not os.path.isfile(path):
            rows.append(f"| {name} | (not run: no {path}) |||||||")
            continue
        with open(path) as f:
            r = json.load(f)
        if not r["routed"]:
            describe_unfit(r, os.path.join(args.dir, name + ".nextpnr.log"))
            rows.append(f"| {name} | {r['device']} | does not fit: {r['reason']} |||||||")
            continue
        cp = critical_path(os.path.join(args.dir, name + ".report.json")) or ("", "", "", "")
        rows.append(f"| {name} | {r['device']} | {r['lcs']} ({100 * r['lcs'] // r['lcs_available']}"
                    f"%) | {r['dsps']} | {r['rams']} | {r['ffs']} | {r['fmax']} | {cp[2]} | "
                    f"`{cp[0]}` -> `{cp[1]}` |")
    print("| block | device | logic cells | DSPs | RAMs | FFs | Fmax (MHz) | levels | "
          "critical path (start -> end) |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--name", required=True)
    r.add_argument("--read", required=True, help="Yosys script that reads the sources")
    r.add_argument("--top", required=True)
    r.add_argument("--device", required=True, choices=sorted(DEVICES))
    r.add_argument("--freq", type=float, required=True, help="clock constraint, MHz")
    r.add_argument("--out", required=True)
    r.add_argument("--must-route", action="store_true", help="fail when it does not route")
    r.add_argument("--min-fmax", type=float, default=0.0, help="fail below this Fmax, MHz")
    t = sub.add_parser("table")
    t.add_argument("dir")
    t.add_argument("names", nargs="+")
    args = p.parse_args()
    if args.cmd == "run" and args.freq <= 0:
        fail_usage(f"--freq {args.freq}: give the clock constraint in MHz, e.g. --freq 50")
    return cmd_run(args) if args.cmd == "run" else cmd_table(args)


if __name__ == "__main__":
    sys.exit(main())
