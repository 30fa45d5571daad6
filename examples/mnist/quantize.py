#!/usr/bin/env python3
"""Post-training quantization of a trained MNIST model (train.py) in TensorFlow Lite's int8
scheme (quant.py), written as the project's network format and as an int8 ONNX model, with the
float and int8 accuracy on the 2,000 test digits:

  DIR/NAME/net.json            the network (docs/networks.md): input scale and zero point,
                               per-channel float requantization scales ("requant": {"scales":
                               "LAYER_scales.npy"}) and every conv2d/dense layer's output_scale
  DIR/NAME/net_fixed.json      the same network with the per-channel multipliers and shifts
                               computed here ({"multipliers", "shifts"}: int32 .npy files)
  DIR/NAME/LAYER_w.npy, _b.npy int8 weights (conv2d HWIO, dense (K, N)), int32 biases
  DIR/NAME/model.onnx          the same int8 network as ONNX (onnx_export.py), if python3-onnx
  DIR/NAME/test_x_int8.npy     the test digits as the network's int8 input (pixel - 128)
  DIR/NAME/test_x_float.npy    the test digits as float32 pixel / 255 (for --input-float)
  DIR/NAME/test_ref_int8.npy   the NumPy int8 reference's outputs (2000, 10)
  DIR/NAME/quantized.json      calibration, accuracies, times

Input: pixel p in 0..255 is the real p / 255, held as the int8 p - 128 (scale 1/255 as a
float32, zero point -128): lossless. Activations are calibrated on --calibration training
digits (default 2000, the first of the training set) by min/max.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402
import quant  # noqa: E402

# Scales are float32 numbers, as TFLite and ONNX store them (quant.f32), so that a tool reading
# the ONNX export computes the same multipliers as net.json's.
INPUT_SCALE = quant.f32(1.0 / 255.0)
INPUT_ZERO_POINT = -128


def calibrate(steps, x):
    """Float forward pass over x recording [min, max] of every conv2d/dense output (after a
    fused ReLU)."""
    ranges = []
    with torch.no_grad():
        t = x
        for s in steps:
            if s[0] in ("conv2d", "dense"):
                t = s[1](t)
                if s[-1]:
                    t = torch.relu(t)
                ranges.append((float(t.min()), float(t.max())))
            elif s[0] == "pool":
                t = torch.nn.functional.max_pool2d(t, s[1])
            elif s[0] == "relu":
                t = torch.relu(t)
            elif s[0] == "flatten":
                t = t.permute(0, 2, 3, 1).flatten(1)
    return ranges


def quantize_model(steps, ranges):
    """The quantized layer records (quant.run_reference's input) and the output's scale and
    zero point."""
    layers = []
    s_in, z_in = INPUT_SCALE, INPUT_ZERO_POINT
    counts = {}
    it = iter(ranges)
    for s in steps:
        kind = s[0]
        counts[kind] = counts.get(kind, 0) + 1
        name = f"{kind}{counts[kind]}"
        if kind in ("conv2d", "dense"):
            m = s[1]
            w = m.weight.detach().numpy().astype(np.float64)
            if kind == "conv2d":
                w = w.transpose(2, 3, 1, 0)          # (Cout, Cin, KH, KW) -> HWIO
            else:
                w = w.T                              # (N, K) -> (K, N)
            q, w_scales = quant.quantize_weights(np.ascontiguousarray(w), axis=w.ndim - 1)
            b = m.bias.detach().numpy().astype(np.float64)
            bias = np.round(b / (s_in * w_scales)).astype(np.int64)
            if np.abs(bias).max() > quant.INT32_MAX:
                sys.exit(f"quantize.py: {name}: a bias does not fit int32")
            s_out, z_out = quant.activation_params(*next(it))
            real = (s_in * w_scales) / s_out          # TFLite's order, in double
            qm = [quant.quantize_multiplier(r) for r in real]
            layers.append({
                "type": kind, "name": name, "w": q, "b": bias.astype(np.int32),
                "padding": s[2] if kind == "conv2d" else None, "relu": bool(s[-1]),
                "input_scale": s_in, "input_zero_point": z_in, "weight_scales": w_scales,
                "scales": real, "multipliers": np.array([a for a, _ in qm], np.int32),
                "shifts": np.array([b for _, b in qm], np.int32),
                "output_scale": s_out, "output_zero_point": z_out})
            s_in, z_in = s_out, z_out
        elif kind == "pool":
            layers.append({"type": "pool", "name": name, "window": (s[1], s[1])})
        else:
            layers.append({"type": kind, "name": name})
    return layers, (s_in, z_in)


def write_network(layers, out_dir, net_name, batch, fixed):
    """Writes the network file (one layer a line) and its .npy files; `fixed`: multipliers and
    shifts instead of the float scales and the input scale (the format before float scales)."""
    inp = {"shape": [batch, 28, 28, 1], "zero_point": INPUT_ZERO_POINT}
    if not fixed:
        inp["scale"] = INPUT_SCALE
    out = []
    for L in layers:
        kind, name = L["type"], L["name"]
        if kind in ("conv2d", "dense"):
            np.save(os.path.join(out_dir, f"{name}_w.npy"), L["w"])
            np.save(os.path.join(out_dir, f"{name}_b.npy"), L["b"])
            if fixed:
                np.save(os.path.join(out_dir, f"{name}_multipliers.npy"), L["multipliers"])
                np.save(os.path.join(out_dir, f"{name}_shifts.npy"), L["shifts"])
                requant = {"multipliers": f"{name}_multipliers.npy",
                           "shifts": f"{name}_shifts.npy"}
            else:
                np.save(os.path.join(out_dir, f"{name}_scales.npy"), L["scales"])
                requant = {"scales": f"{name}_scales.npy"}
            layer = {"type": kind, "name": name, "weights": f"{name}_w.npy",
                     "bias": f"{name}_b.npy"}
            if kind == "conv2d":
                layer["padding"] = L["padding"]
            layer.update({"requant": requant, "input_zero_point": L["input_zero_point"],
                          "output_zero_point": L["output_zero_point"],
                          "output_scale": L["output_scale"],
                          "activation": "relu" if L["relu"] else "none"})
        elif kind == "pool":
            layer = {"type": "pool", "name": name, "mode": "max", "window": list(L["window"])}
        elif kind == "relu":
            layer = {"type": "activation", "name": name, "function": "relu"}
        else:
            layer = {"type": "flatten", "name": name}
        out.append(layer)
    path = os.path.join(out_dir, "net_fixed.json" if fixed else "net.json")
    with open(path, "w") as f:
        f.write("{\n")
        f.write(f' "name": {json.dumps(net_name)},\n "input": {json.dumps(inp)},\n "layers": [\n')
        f.write(",\n".join("  " + json.dumps(layer) for layer in out))
        f.write("\n ]\n}\n")
    return path


def compare_with_golden(tpu, layers, x_int8, ref, net_name):
    """Runs x_int8 through `tpu run --backend golden` (a net_fixed.json sized for the batch, in a
    temporary directory) and counts the elements that differ from the NumPy reference."""
    with tempfile.TemporaryDirectory() as tmp:
        net = write_network(layers, tmp, net_name, len(x_int8), fixed=True)
        np.save(os.path.join(tmp, "x.npy"), x_int8)
        y_path = os.path.join(tmp, "y.npy")
        subprocess.run([tpu, "run", net, "--input", os.path.join(tmp, "x.npy"), "--output",
                        y_path, "--backend", "golden", "--report", "json"], check=True,
                       stdout=subprocess.DEVNULL)
        y = np.load(y_path)
    return int((y != ref).sum()), int(ref.size)


def check_onnx(onnx_eval, path, test_u8, test_y, ref, out_scale, out_zp):
    """The exported model under ONNX's semantics (onnx_eval.py) against the reference."""
    x = test_u8.transpose(0, 3, 1, 2).astype(np.float32) / np.float32(255.0)
    y = np.concatenate([onnx_eval.run(path, x[i:i + 200]) for i in range(0, len(x), 200)])
    q = np.clip(np.round(y / np.float32(out_scale)) + out_zp, -128, 127).astype(np.int8)
    diff = np.abs(q.astype(np.int16) - ref)
    return {"images": len(x), "accuracy": float((y.argmax(1) == test_y).mean()),
            "elements_differing": int((diff > 0).sum()), "max_difference": int(diff.max())}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", help="the directory train.py wrote, e.g. build/examples/mnist")
    p.add_argument("--model", choices=models.NAMES + ("all",), default="all")
    p.add_argument("--calibration", type=int, default=2000,
                   help="training digits used to calibrate the activation ranges")
    p.add_argument("--batch", type=int, default=1, help="the network file's input batch")
    p.add_argument("--tpu", help="the tpu binary: compare the NumPy reference with `tpu run "
                   "--backend golden` on the first --golden-images test digits")
    p.add_argument("--golden-images", type=int, default=200)
    p.add_argument("--onnx-images", type=int, default=2000,
                   help="test digits evaluated with ONNX's semantics (onnx_eval.py)")
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    data = os.path.join(a.dir, "data")
    train_u8 = np.load(os.path.join(data, "train_images.npy"))
    test_u8 = np.load(os.path.join(data, "test_images.npy"))
    test_y = np.load(os.path.join(data, "test_labels.npy"))
    x_test_int8 = (test_u8.astype(np.int16) - 128).astype(np.int8)
    for name in models.NAMES if a.model == "all" else (a.model,):
        out = os.path.join(a.dir, name)
        state = os.path.join(out, "float.pt")
        if not os.path.isfile(state):
            sys.exit(f"quantize.py: {state}: missing: run examples/mnist/train.py {a.dir} first")
        model = models.build(name)
        model.load_state_dict(torch.load(state))
        model.eval()
        steps = models.layers(model)
        start = time.time()
        ranges = calibrate(steps, models.to_float_input(train_u8[:a.calibration]))
        layers, (out_scale, out_zp) = quantize_model(steps, ranges)
        net = write_network(layers, out, f"mnist_{name}", a.batch, fixed=False)
        write_network(layers, out, f"mnist_{name}", a.batch, fixed=True)
        quantize_s = time.time() - start
        try:
            import onnx_eval
            import onnx_export
        except ImportError:
            onnx_export = None
        with torch.no_grad():
            float_logits = torch.cat([model(models.to_float_input(test_u8[i:i + 500]))
                                      for i in range(0, len(test_u8), 500)]).numpy()
        float_acc = float((float_logits.argmax(1) == test_y).mean())
        start = time.time()
        ref = quant.run_reference(layers, x_test_int8, INPUT_ZERO_POINT)
        reference_s = time.time() - start
        int8_acc = float((ref.argmax(1) == test_y).mean())
        np.save(os.path.join(out, "test_x_int8.npy"), x_test_int8)
        np.save(os.path.join(out, "test_x_float.npy"), test_u8.astype(np.float32) / 255.0)
        np.save(os.path.join(out, "test_ref_int8.npy"), ref)
        onnx_summary = "skipped (no python3-onnx)"
        if onnx_export is not None:
            onnx_path = os.path.join(out, "model.onnx")
            onnx_summary = {"written": onnx_export.export(
                layers, (INPUT_SCALE, INPUT_ZERO_POINT), onnx_path, f"mnist_{name}")}
            k = a.onnx_images
            onnx_summary.update(check_onnx(onnx_eval, onnx_path, test_u8[:k], test_y[:k],
                                           ref[:k], out_scale, out_zp))
            print(f"quantize.py: {name}: {onnx_summary['written']}; ONNX's float requantization:"
                  f" accuracy {100 * onnx_summary['accuracy']:.2f}%, "
                  f"{onnx_summary['elements_differing']} of {ref[:k].size} output elements differ "
                  f"from the fixed-point reference (at most {onnx_summary['max_difference']})")
        summary = {"model": name, "calibration": f"min/max over the first {a.calibration} "
                   "training digits", "test_images": len(test_y), "float_accuracy": float_acc,
                   "int8_accuracy": int8_acc, "quantize_s": round(quantize_s, 2),
                   "reference_s": round(reference_s, 2), "onnx": onnx_summary,
                   "output_scale": out_scale, "output_zero_point": out_zp}
        if a.tpu:
            n = min(a.golden_images, len(x_test_int8))
            diff, total = compare_with_golden(a.tpu, layers, x_test_int8[:n], ref[:n],
                                              f"mnist_{name}")
            summary["golden_compare"] = {"images": n, "elements_differing": diff,
                                         "elements": total}
        with open(os.path.join(out, "quantized.json"), "w") as f:
            json.dump(summary, f, indent=1)
        print(f"quantize.py: {name}: {net}: float {100 * float_acc:.2f}%, int8 (NumPy "
              f"reference) {100 * int8_acc:.2f}% on {len(test_y)} test digits; quantized in "
              f"{quantize_s:.1f} s, reference in {reference_s:.1f} s")
        if a.tpu:
            print(f"quantize.py: {name}: tpu run --backend golden on {n} digits: {diff} of "
                  f"{total} output elements differ from the NumPy reference")
            if diff:
                sys.exit(1)


if __name__ == "__main__":
    main()
