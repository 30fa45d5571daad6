#!/usr/bin/env python3
"""The device sizes side by side (`make bench-scale`): for each device configuration, the cost of
its Verilated model and what it achieves, every run checked bit for bit against golden.

  bench/bench_scale.py --build BUILD [--devices n8,n16,...] [--no-build-time] [--out FILE.md]

Per device (default: every device of isa/devices.json the build tree has a Verilated model of,
as `tpu info --device NAME` says):
  - Verilator build: seconds to verilate and compile its vtpu_top_<K> from scratch (the target's
    outputs are removed first and rebuilt, so the tree ends as it started; --no-build-time skips
    it) and the size of the model library;
  - dense 4N x 8N x 8N on the rtl backend (`tpu dense --device D --check`): simulated cycles per
    second, MXU utilization, and end to end (doorbell to interrupt) over max(compute, transfer):
    compute = MXU rows M x ceil(K/N) x ceil(Nout/N) at one row per cycle, transfer = the larger
    of each direction's PCIe payload over the link's payload limit;
  - the deep CNN example (`examples/run.sh deep_cnn --device D`): cycles and MXU utilization;
  - DMA: host -> device payload rate of one large READ_HOST (4 MiB, or the weight DRAM's size
    if smaller) as a share of the link's payload limit (`bench_system --case dma --device D`).
A device whose run fails is reported with the failure; the table is printed (and written to
--out) at the end. Figures come from one run on a shared machine: compare them as ratios.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")


def run(cmd, env=None, **kw):
    """Runs cmd; returns its stdout, or raises RuntimeError with its stderr's last lines."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env or ENV, **kw)
    if p.returncode != 0:
        tail = "\n".join((p.stderr or p.stdout).strip().splitlines()[-5:])
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited {p.returncode}: {tail}")
    return p.stdout


def json_report(stdout):
    """The one JSON object a `--report json` run prints (its last line)."""
    return json.loads(stdout.strip().splitlines()[-1])


def devices_of(tpu):
    """Every configuration of isa/devices.json (name, index, N) and whether this build verilated
    it (`tpu info --device NAME`)."""
    with open(os.path.join(ROOT, "isa", "devices.json")) as f:
        listed = json.load(f)["devices"]
    found = []
    for d in listed:
        info = json_report(run([tpu, "info", "--device", d["name"], "--report", "json"]))
        found.append({"name": d["name"], "index": d["index"], "n": d["limits"]["n"],
                      "dram_bytes": int(info["dram_bytes"]),
                      "built": str(info["built"]).startswith("yes")})
    return found


def model_library(build, device):
    return os.path.join(build, "testbench", "host_if", f"libvtpu_top_{device['index']}.a")


def build_time(build, device):
    """Seconds to rebuild the device's Verilated model from scratch (verilate + compile)."""
    target = f"vtpu_top_{device['index']}"
    obj = os.path.join(build, "testbench", "host_if", "CMakeFiles", f"{target}.dir")
    shutil.rmtree(obj, ignore_errors=True)
    if os.path.exists(model_library(build, device)):
        os.remove(model_library(build, device))
    start = time.monotonic()
    run(["cmake", "--build", build, "--target", target, "-j", str(os.cpu_count() or 2)])
    return time.monotonic() - start


def dense_case(build, tpu, device, work):
    n = device["n"]
    m, k, nout = 4 * n, 8 * n, 8 * n
    d = os.path.join(work, f"dense_{device['name']}")
    run([sys.executable, os.path.join(ROOT, "scripts", "make_dense_inputs.py"), "--m", str(m),
         "--k", str(k), "--n", str(nout), "--seed", "1", d])
    r = json_report(run([tpu, "dense", "--input", f"{d}/x.npy", "--weights", f"{d}/w.npy",
                         "--bias", f"{d}/b.npy", "--scale", "0.0005", "--activation", "relu",
                         "--output", f"{d}/y.npy", "--backend", "rtl", "--check",
                         "--device", device["name"], "--report", "json"]))
    if not r["check"].startswith("PASS"):
        raise RuntimeError(f"dense {m}x{k}x{nout}: {r['check']}")
    rows = m * -(-k // n) * -(-nout // n)
    compute_us = rows / r["clock_mhz"]
    limit = r["pcie_payload_limit_gbytes_per_s"] * 1e3  # bytes per us
    transfer_us = max(r["pcie_bytes_to_device"], r["pcie_bytes_from_device"]) / limit
    return {"shape": f"{m}x{k}x{nout}", "kcps": r["sim_kcycles_per_s"],
            "util": r["mxu_utilization"], "cycles": r["cycles"],
            "e2e": r["simulated_us"] / max(compute_us, transfer_us)}


def deep_cnn_case(build, device):
    r = json_report(run([os.path.join(ROOT, "examples", "run.sh"), "deep_cnn", "--device",
                         device["name"], "--report", "json"], cwd=ROOT,
                        env=dict(ENV, BUILD=build)))
    if not str(r.get("check", "")).startswith("PASS"):
        raise RuntimeError(f"deep_cnn: check {r.get('check')}")
    t = r["totals"]
    return {"cycles": t["cycles"], "util": t["mxu_utilization"]}


DMA_BYTES = 4 << 20  # one READ_HOST into the weight DRAM; less where the DRAM is smaller


def dma_case(build, device):
    out = run([os.path.join(build, "bench", "bench_system"), "--case", "dma", "--device",
               device["name"], "--bytes", str(min(DMA_BYTES, device["dram_bytes"]))])
    # The first direction printed is host -> device: "= 0.7360 of the link's payload limit".
    m = re.search(r"= ([0-9.]+) of the link's payload limit", out)
    if not m:
        raise RuntimeError("bench_system --case dma: no host -> device share in its output")
    return float(m.group(1))


def cell(fn, *args):
    try:
        return fn(*args), None
    except (RuntimeError, KeyError, ValueError) as e:
        return None, str(e)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--devices", help="comma-separated device names (default: every built one)")
    ap.add_argument("--no-build-time", action="store_true")
    ap.add_argument("--out", help="also write the table (Markdown) to this file")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    tpu = os.path.join(build, "host_driver", "cli", "tpu")
    if not os.access(tpu, os.X_OK):
        sys.exit(f"bench_scale: {tpu} not built: cmake --build {build} --target tpu")
    known = devices_of(tpu)
    if a.devices:
        names = a.devices.split(",")
        unknown = [x for x in names if x not in {d["name"] for d in known}]
        if unknown:
            sys.exit(f"bench_scale: no device {', '.join(unknown)}; devices: "
                     + ", ".join(d["name"] for d in known))
        chosen = [d for d in known if d["name"] in names]
    else:
        chosen = [d for d in known if d.get("built")]
    chosen.sort(key=lambda d: (d["n"], d["index"]))
    not_built = [d["name"] for d in chosen if not d.get("built")]
    if not_built:
        sys.exit(f"bench_scale: not built in {build}: {', '.join(not_built)} (reconfigure with "
                 f"-DTPU_BUILD_DEVICES=... and rebuild)")
    work = os.path.join(build, "bench_scale")
    os.makedirs(work, exist_ok=True)

    head = ("| device | N | build s | model MiB | dense shape | kcycles/s | MXU util | "
            "e2e / max(comp, xfer) | deep CNN cycles | deep CNN util | DMA / link limit |")
    rows, errors = [head, "|" + "---|" * 11], []
    for d in chosen:
        print(f"bench_scale: {d['name']} (N = {d['n']}) ...", flush=True)
        bt, e1 = (None, None) if a.no_build_time else cell(build_time, build, d)
        lib = model_library(build, d)
        size = os.path.getsize(lib) if os.path.exists(lib) else None
        dn, e2 = cell(dense_case, build, tpu, d, work)
        cnn, e3 = cell(deep_cnn_case, build, d)
        dma, e4 = cell(dma_case, build, d)
        errors += [f"{d['name']}: {e}" for e in (e1, e2, e3, e4) if e]

        def f(v, fmt):
            return fmt % v if v is not None else "-"
        rows.append("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            d["name"], d["n"], f(bt, "%.0f"), f(size and size / 2**20, "%.1f"),
            dn["shape"] if dn else "-", f(dn and dn["kcps"], "%.1f"),
            f(dn and dn["util"], "%.4f"), f(dn and dn["e2e"], "%.4f"),
            f(cnn and cnn["cycles"], "%d"), f(cnn and cnn["util"], "%.4f"), f(dma, "%.3f")))
    table = "\n".join(rows)
    print("\n" + table)
    for e in errors:
        print("FAILED " + e)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write(table + "\n")
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
