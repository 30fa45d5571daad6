#!/usr/bin/env python3
"""The roofline of a device from the timing model (issue 13): achieved TOPS against operations
per weight byte for the deep CNN example and an MLP-shaped network at batch 1 .. 256, each point
one `tpu run NET.json --backend model --device D --report json`, on the device's roofline
(peak = 2 x N^2 x clock; weight bandwidth = the weight DRAM's beat x clock) with its ridge point.
Writes a PNG and prints the points as a Markdown table (with the weight-stall share where the
report gives stall counts).

  bench/roofline.py --build build --device v1 --out build/roofline.png

Operations per weight byte = 2 x MACs / the weight bytes the layers load (the report's
essential_bytes_detail.weights); achieved TOPS = 2 x MACs / (cycles / clock). Needs matplotlib
(python3-matplotlib).
"""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
sys.dont_write_bytecode = True
from netgen import NetworkWriter  # noqa: E402

BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def device_config(name):
    """The configuration of isa/devices.json called `name`."""
    with open(os.path.join(ROOT, "isa", "devices.json")) as f:
        devices = json.load(f)["devices"]
    for d in devices:
        if d["name"] == name:
            return d
    sys.exit("roofline.py: --device %s is not in isa/devices.json (one of: %s)"
             % (name, ", ".join(d["name"] for d in devices)))


def write_mlp(out_dir, batch):
    """An MLP: 1024 -> 1024 -> 1024 -> 1024 -> 10, ReLU between (weights: 3.2 MB)."""
    w = NetworkWriter("mlp", out_dir, 1, (batch, 1024))
    w.dense("dense1", 1024, 1024, activation="relu")
    w.dense("dense2", 1024, 1024, activation="relu", input_spread=25.0)
    w.dense("dense3", 1024, 1024, activation="relu", input_spread=25.0)
    w.dense("dense4", 1024, 10, input_spread=25.0)
    with contextlib.redirect_stdout(io.StringIO()):  # the table is the only output
        w.write()


def write_deep_cnn(out_dir, batch):
    subprocess.run([sys.executable, os.path.join(ROOT, "examples", "deep_cnn", "make_network.py"),
                    "--batch", str(batch), out_dir], check=True, stdout=subprocess.DEVNULL)


def run_model(tpu, net_dir, device):
    """`tpu run` on the model backend; the JSON report."""
    cmd = [tpu, "run", os.path.join(net_dir, "net.json"), "--input",
           os.path.join(net_dir, "x.npy"), "--output", os.path.join(net_dir, "y.npy"),
           "--backend", "model", "--device", device, "--report", "json"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("roofline.py: %s failed (%d): %s" % (" ".join(cmd), r.returncode, r.stderr))
    return json.loads(r.stdout)


def point(report, clock_hz):
    """(ops per weight byte, achieved TOPS, weight-stall share or None) of one report."""
    macs = weights = cycles = stall_w = 0
    stalls_known = True
    for layer in report["layers"]:
        if layer.get("on_host") or not layer.get("cycles"):
            continue
        macs += layer["macs"]
        weights += layer["essential_bytes_detail"]["weights"]
        cycles += layer["cycles"]
        stalls = layer.get("stalls")
        if isinstance(stalls, dict) and "weights" in stalls:
            stall_w += stalls["weights"]
        else:
            stalls_known = False
    ops = 2.0 * macs
    intensity = ops / weights if weights else float("nan")
    tops = ops / (cycles / clock_hz) / 1e12 if cycles else 0.0
    share = stall_w / cycles if stalls_known and cycles else None
    return intensity, tops, share


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="CMake build directory")
    p.add_argument("--device", default="v1", help="device configuration (isa/devices.json)")
    p.add_argument("--out", default=None, help="PNG to write (default BUILD/roofline_DEVICE.png)")
    p.add_argument("--batches", default=",".join(map(str, BATCHES)),
                   help="comma-separated batch sizes")
    a = p.parse_args()
    try:
        batches = [int(b) for b in a.batches.split(",")]
    except ValueError:
        sys.exit("roofline.py: --batches must be comma-separated integers, e.g. 1,2,4")
    if not batches or min(batches) < 1:
        sys.exit("roofline.py: --batches must be positive")
    tpu = os.path.join(a.build, "host_driver", "cli", "tpu")
    if not os.access(tpu, os.X_OK):
        sys.exit("roofline.py: %s not built: cmake --build %s --target tpu" % (tpu, a.build))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("roofline.py: matplotlib is missing: apt-get install python3-matplotlib")
    dev = device_config(a.device)
    n = dev["limits"]["n"]
    clock_hz = dev["clock_mhz"] * 1e6
    peak_tops = 2.0 * n * n * clock_hz / 1e12
    weight_bw = dev["dram_width_bits"] / 8.0 * clock_hz  # bytes per second
    ridge = peak_tops * 1e12 / weight_bw
    out = a.out or os.path.join(a.build, "roofline_%s.png" % a.device)

    series = {}
    print("| network | batch | ops / weight byte | TOPS | of peak | weight-stall share |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, write in (("deep_cnn", write_deep_cnn), ("mlp", write_mlp)):
            for b in batches:
                d = os.path.join(tmp, "%s_b%d" % (name, b))
                write(d, b)
                x, y, share = point(run_model(tpu, d, a.device), clock_hz)
                series.setdefault(name, []).append((x, y))
                print("| %s | %d | %.1f | %.3f | %.3f | %s |"
                      % (name, b, x, y, y / peak_tops,
                         "n/a" if share is None else "%.3f" % share))

    fig, ax = plt.subplots(figsize=(7, 5))
    xs = [x for pts in series.values() for x, _ in pts] + [ridge]
    lo, hi = min(xs) / 2, max(xs) * 2
    grid = [lo * (hi / lo) ** (i / 200.0) for i in range(201)]
    ax.plot(grid, [min(peak_tops, x * weight_bw / 1e12) for x in grid], "k-",
            label="roofline (%.1f TOPS, %.1f GB/s weights)" % (peak_tops, weight_bw / 1e9))
    ax.axvline(ridge, color="gray", linestyle=":", label="ridge %.0f ops/byte" % ridge)
    for (name, pts), marker in zip(series.items(), ("o", "s")):
        ax.plot([x for x, _ in pts], [y for _, y in pts], marker=marker, linestyle="-",
                label="%s, batch %d..%d" % (name, batches[0], batches[-1]))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("operations per weight byte")
    ax.set_ylabel("achieved TOPS (timing model)")
    ax.set_title("%s (N = %d, %.0f MHz): roofline from --backend model" %
                 (a.device, n, dev["clock_mhz"]))
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("\nwrote %s (ridge point %.0f ops per weight byte)" % (out, ridge))


if __name__ == "__main__":
    main()
