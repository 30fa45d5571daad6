"""Post-training int8 quantization in TensorFlow Lite's scheme, and an independent NumPy
reference of the quantized network (NumPy only: the tests import this module).

Scheme: weights int8 symmetric per output channel (scale_c = max|w_c| / 127, zero point 0,
values in [-127, 127]); activations int8 asymmetric per tensor, calibrated as [min(lo, 0),
max(hi, 0)] of the float values seen (scale = (max - min) / 255, zero point placing the real 0.0
exactly on a code); every scale a float32 number, as TFLite and ONNX store them; biases int32
with scale input_scale * weight_scale[c]; each output channel requantized by the real
multiplier input_scale * weight_scale[c] / output_scale (in double, TFLite's order), held as a
Q0.31 multiplier and shift by quantize_multiplier() (golden::QuantizeMultiplier: TFLite's
QuantizeMultiplier) and applied with TFLite's double rounding (golden::Requantize).
"""
import math

import numpy as np

INT32_MAX = 2**31 - 1


def quantize_multiplier(real):
    """TFLite QuantizeMultiplier, exactly as golden::QuantizeMultiplier: (multiplier, shift)."""
    real = float(real)
    if not math.isfinite(real) or real < 0:
        raise ValueError(f"quantize_multiplier: {real!r} must be finite and >= 0")
    if real == 0.0:
        return 0, 0
    mantissa, shift = math.frexp(real)   # real = mantissa * 2^shift, mantissa in [0.5, 1)
    q = math.floor(mantissa * 2.0**31 + 0.5)  # std::round: exact here, ties away from zero
    if q == 2**31:
        q //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if shift > 30:
        return INT32_MAX, 30
    return int(q), shift


def wrap_int32(x):
    return ((np.asarray(x, dtype=np.int64) + 2**31) % 2**32) - 2**31


def multiply_by_quantized_multiplier(x, multiplier, shift):
    """golden::MultiplyByQuantizedMultiplier, elementwise; multiplier and shift broadcast
    against x (per channel: arrays over the last axis)."""
    x = np.asarray(x, dtype=np.int64)
    m = np.asarray(multiplier, dtype=np.int64)
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    xs = wrap_int32(x << left)
    ab = xs * m                                    # |ab| < 2^62: no int64 overflow
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    t = ab + nudge
    high = np.where(t >= 0, t >> 31, -((-t) >> 31))  # C++ division: toward zero
    mask = (np.int64(1) << right) - 1
    remainder = high & mask
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + (remainder > threshold)


def requantize(acc, multipliers, shifts, out_zero_point, act_min=-128, act_max=127):
    """int32 accumulators (..., C) -> int8: clamp(zp + MBQM(acc), act_min, act_max)."""
    y = multiply_by_quantized_multiplier(acc, multipliers, shifts) + out_zero_point
    return np.clip(y, act_min, act_max).astype(np.int8)


def f32(x):
    """x rounded to float32 and back: scales are float32 numbers in TFLite and ONNX files."""
    return np.asarray(x, dtype=np.float32).astype(np.float64)[()]


def activation_params(lo, hi):
    """(scale, zero_point) of an int8 tensor holding reals in [lo, hi] (TFLite's nudging: the
    range always holds 0.0, and 0.0 is exactly a code)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi == lo:
        return 1.0, 0
    scale = float(f32((hi - lo) / 255.0))
    zero_point = int(np.clip(round(-128 - lo / scale), -128, 127))
    return scale, zero_point


def quantize_weights(w, axis):
    """Symmetric per-channel int8 weights along `axis` (the output channels): (q, scales)."""
    other = tuple(i for i in range(w.ndim) if i != axis)
    amax = np.abs(w).max(axis=other)
    scales = f32(np.where(amax > 0, amax / 127.0, 1.0))
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scales.reshape(shape)), -127, 127).astype(np.int8)
    q = np.ascontiguousarray(q)
    return q, scales


def relu_min(zero_point):
    return max(-128, zero_point)


# --- the NumPy int8 reference of a quantized network (the golden kernels' semantics) ---------

def _same_pads(size, k, s):
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def conv2d_acc(x, zx, w, bias, strides=(1, 1), padding="valid"):
    """int32 accumulators of golden::Conv2d: x int8 NHWC, w int8 HWIO, bias int32."""
    kh, kw, cin, cout = w.shape
    sh, sw = strides
    xf = x.astype(np.float64) - zx               # padded positions hold zx: 0 after the shift
    if padding == "same":
        pt, pb = _same_pads(x.shape[1], kh, sh)
        pl, pr = _same_pads(x.shape[2], kw, sw)
        xf = np.pad(xf, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    b, h, wd, _ = xf.shape
    oh, ow = (h - kh) // sh + 1, (wd - kw) // sw + 1
    cols = np.lib.stride_tricks.sliding_window_view(xf, (kh, kw), axis=(1, 2))
    cols = cols[:, ::sh, ::sw][:, :oh, :ow]      # (B, OH, OW, Cin, KH, KW)
    cols = cols.transpose(0, 1, 2, 4, 5, 3).reshape(b * oh * ow, kh * kw * cin)
    # float64 products of int8 values summed over at most 2^21 terms are exact integers.
    acc = cols @ w.reshape(kh * kw * cin, cout).astype(np.float64)
    acc = wrap_int32(acc.astype(np.int64) + (0 if bias is None else bias.astype(np.int64)))
    return acc.reshape(b, oh, ow, cout)


def dense_acc(x, zx, w, bias):
    acc = (x.astype(np.float64) - zx) @ w.astype(np.float64)
    return wrap_int32(acc.astype(np.int64) + (0 if bias is None else bias.astype(np.int64)))


def max_pool(x, window, strides=None):
    wh, ww = window
    sh, sw = strides or window
    v = np.lib.stride_tricks.sliding_window_view(x, (wh, ww), axis=(1, 2))[:, ::sh, ::sw]
    return v.max(axis=(-2, -1))


def run_reference(layers, x, input_zero_point, batch=100):
    """Runs the quantized layer list (quantize.py's records) on int8 NHWC input x, `batch`
    images at a time; returns the final int8 tensor."""
    outs = []
    for i in range(0, len(x), batch):
        t, z = x[i:i + batch], input_zero_point
        for L in layers:
            kind = L["type"]
            if kind in ("conv2d", "dense"):
                if kind == "conv2d":
                    acc = conv2d_acc(t, z, L["w"], L["b"], padding=L["padding"])
                else:
                    acc = dense_acc(t, z, L["w"], L["b"])
                zo = L["output_zero_point"]
                lo = relu_min(zo) if L["relu"] else -128
                t, z = requantize(acc, L["multipliers"], L["shifts"], zo, lo, 127), zo
            elif kind == "pool":
                t = max_pool(t, L["window"])
            elif kind == "relu":
                t = np.maximum(t, relu_min(z)).astype(np.int8)
            elif kind == "clamp":
                t = np.clip(t, L["min"], L["max"]).astype(np.int8)
            elif kind == "flatten":
                t = t.reshape(len(t), -1)
            else:
                raise ValueError(f"unknown layer type {kind!r}")
        outs.append(t)
    return np.concatenate(outs)
