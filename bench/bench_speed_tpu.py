#!/usr/bin/env python3
"""The model backend against the rtl backend as a user runs them: one `tpu dense` process per
backend, in turn, on the same layer (issue 13's speed goal: >= 1000x at N = 16; docs/model.md
"Speed"). bench_speed times both backends inside one process; this times the tool.

  bench/bench_speed_tpu.py --tpu BUILD/host_driver/cli/tpu [--m 1024 --k 1024 --n 1024]
                           [--scale 0.0001] [--rounds 3] [--device n16] [--seed 1]

Per round: `tpu dense --backend rtl --check --report json`, then the same with --backend model
and without --check. Printed per round: each report's `wall_s` (the backend call: lowering,
driver and device; the same definition for both backends) and their ratio, and each process's
whole wall clock (start, reading the .npy files, writing the output; the rtl's also computes
golden for --check, under 1% of it) and that ratio. The rtl run must pass --check (bit-exact
with golden) and the model run write the same bytes, so it is bit-exact too; otherwise the
script exits 1.
The inputs are seeded random tensors written as .npy files to a temporary folder (by this
script: no NumPy needed).
"""
import argparse
import array
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def save_npy(path, descr, shape, values):
    """A C-order .npy file, format 1.0: descr '|i1' (int8) or '<i4' (int32)."""
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {tuple(shape)}, }}"
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    data = array.array("b" if descr == "|i1" else "i", values)
    assert data.itemsize == (1 if descr == "|i1" else 4), "a C int of 4 bytes"
    if sys.byteorder != "little":
        data.byteswap()
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        f.write(data.tobytes())


def write_inputs(folder, m, k, n, seed):
    rng = random.Random(seed)
    save_npy(os.path.join(folder, "x.npy"), "|i1", (m, k),
             (rng.randint(-128, 127) for _ in range(m * k)))
    save_npy(os.path.join(folder, "w.npy"), "|i1", (k, n),
             (rng.randint(-128, 127) for _ in range(k * n)))
    save_npy(os.path.join(folder, "b.npy"), "<i4", (n,),
             (rng.randint(-1000, 1000) for _ in range(n)))


def run_tpu(tpu, folder, backend, args):
    """One `tpu dense` process: (report wall_s, process wall seconds, output bytes)."""
    out = os.path.join(folder, f"y_{backend}.npy")
    cmd = [tpu, "dense", "--input", os.path.join(folder, "x.npy"),
           "--weights", os.path.join(folder, "w.npy"), "--bias", os.path.join(folder, "b.npy"),
           "--scale", str(args.scale), "--device", args.device, "--backend", backend,
           "--output", out, "--report", "json"] + (["--check"] if backend == "rtl" else [])
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    process_s = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"bench_speed_tpu: tpu dense --backend {backend} exited {p.returncode}: "
                 f"{p.stderr.strip()}")
    report = json.loads(p.stdout)
    if backend == "rtl" and not report["check"].startswith("PASS"):
        sys.exit(f"bench_speed_tpu: --backend {backend}: check {report['check']}")
    with open(out, "rb") as f:
        return report["wall_s"], process_s, f.read()


def spread(values):
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tpu", required=True, help="the tpu binary (BUILD/host_driver/cli/tpu)")
    ap.add_argument("--m", type=int, default=1024, help="rows of x")
    ap.add_argument("--k", type=int, default=1024, help="input channels")
    ap.add_argument("--n", type=int, default=1024, help="output channels")
    ap.add_argument("--scale", type=float, default=0.0001, help="requantization scale")
    ap.add_argument("--rounds", type=int, default=3, help="rtl then model, this many times")
    ap.add_argument("--device", default="n16", help="device configuration")
    ap.add_argument("--seed", type=int, default=1, help="seed of the random inputs")
    args = ap.parse_args()
    if min(args.m, args.k, args.n, args.rounds) < 1:
        sys.exit("bench_speed_tpu: --m, --k, --n and --rounds must be >= 1")
    if not os.access(args.tpu, os.X_OK):
        sys.exit(f"bench_speed_tpu: --tpu {args.tpu}: not an executable; build it with "
                 "`cmake --build build --target tpu`")

    print(f"tpu dense, rtl then model, one process each: {args.m} x {args.k} x {args.n}, "
          f"device {args.device}, {args.rounds} rounds\n")
    print("| round | rtl wall_s | model wall_s ms | ratio | rtl process s | model process ms "
          "| process ratio |")
    print("|---|---|---|---|---|---|---|")
    ratios, process_ratios = [], []
    with tempfile.TemporaryDirectory(prefix="bench_speed_tpu_") as folder:
        write_inputs(folder, args.m, args.k, args.n, args.seed)
        for r in range(1, args.rounds + 1):
            rtl_s, rtl_process, rtl_y = run_tpu(args.tpu, folder, "rtl", args)
            model_s, model_process, model_y = run_tpu(args.tpu, folder, "model", args)
            if rtl_y != model_y:
                sys.exit("bench_speed_tpu: the two backends wrote different outputs")
            ratios.append(rtl_s / model_s)
            process_ratios.append(rtl_process / model_process)
            print(f"| {r} | {rtl_s:.3f} | {1e3 * model_s:.3f} | {ratios[-1]:.0f} | "
                  f"{rtl_process:.3f} | {1e3 * model_process:.1f} | {process_ratios[-1]:.0f} |",
                  flush=True)
    print(f"\nratio (wall_s, the backend call)  min / median / max {spread(ratios)} "
          "(goal >= 1000 at N = 16)")
    print(f"ratio (whole processes)           min / median / max {spread(process_ratios)}")
    print("outputs bit-exact with golden on rtl (--check), and the model's equal to them")


if __name__ == "__main__":
    main()
