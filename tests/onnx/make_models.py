#!/usr/bin/env python3
"""Writes the small ONNX models of the importer's tests (tests/onnx/models/), once; the files
are committed, the tests never run Python. Needs python3-onnx and NumPy (Debian packages).

  qdq_cnn.onnx      float input -> QuantizeLinear -> Conv (QDQ, int8 per-channel weights,
                    int32 bias, SAME pads) -> Relu -> MaxPool 2x2 -> Flatten -> Gemm (QDQ,
                    transB = 1, per-channel) -> DequantizeLinear: every layout change the importer
                    makes (NCHW -> NHWC, OIHW -> HWIO, the C,H,W rows of the dense weights).
  qdq_conv_asym.onnx  int8 input -> QDQ Conv (stride 2, SAME_UPPER) whose int8 weights have
                    per-channel zero points 100, -90, 0: centred weights outside int8, split.
  qlinear_mlp.onnx  uint8 input -> QLinearMatMul (uint8 weights, zero point 128) -> Clip ->
                    QLinearMatMul (int8 weights, per-column scales): uint8 -> int8, QLinear.
Each comes with <name>_input.npy (the network's int8 NHWC input) and <name>_expected.npy (the
int8 result of ONNX's float semantics, computed here with NumPy: QuantizeLinear rounds half to
even), which the importer's result must match within 1 LSB (fixed-point requantization).

Usage: /usr/bin/python3 tests/onnx/make_models.py   (rewrites the files in tests/onnx/models)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def quantize(x, scale, zp, lo=-128, hi=127):
    return np.clip(np.rint(x / scale) + zp, lo, hi).astype(np.int64)


def conv_nchw(x, w, b, pad):
    n, c, h, wd = x.shape
    co, ci, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    y = np.zeros((n, co, h, wd))
    for oy in range(h):
        for ox in range(wd):
            patch = xp[:, :, oy:oy + kh, ox:ox + kw]
            y[:, :, oy, ox] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))
    return y + b.reshape(1, co, 1, 1)


def init(name, array, dtype=None):
    return numpy_helper.from_array(np.asarray(array, dtype=dtype), name)


def save(model, name, net_input, expected):
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))
    np.save(os.path.join(OUT, name + "_input.npy"), net_input.astype(np.int8))
    np.save(os.path.join(OUT, name + "_expected.npy"), expected.astype(np.int8))


def qdq_cnn(rng):
    sx, zx = 0.02, -3
    w1 = rng.integers(-127, 128, size=(4, 1, 3, 3)).astype(np.int8)
    ws1 = np.array([0.004, 0.006, 0.005, 0.003], dtype=np.float32)
    b1 = rng.integers(-300, 300, size=4).astype(np.int32)
    s1, z1 = 0.03, -20
    w2 = rng.integers(-127, 128, size=(3, 4 * 3 * 3)).astype(np.int8)
    ws2 = np.array([0.002, 0.0025, 0.003], dtype=np.float32)
    b2 = rng.integers(-500, 500, size=3).astype(np.int32)
    s2, z2 = 0.05, 7

    nodes = [
        helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"], name="quant_in"),
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"], name="dq_in"),
        helper.make_node("DequantizeLinear", ["w1", "ws1", "wz1"], ["w1d"], name="dq_w1", axis=0),
        helper.make_node("DequantizeLinear", ["b1", "bs1", "bz1"], ["b1d"], name="dq_b1", axis=0),
        helper.make_node("Conv", ["xd", "w1d", "b1d"], ["c1"], name="conv1", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("QuantizeLinear", ["r1", "s1", "z1"], ["r1q"], name="q1"),
        helper.make_node("DequantizeLinear", ["r1q", "s1", "z1"], ["r1d"], name="dq1"),
        helper.make_node("MaxPool", ["r1d"], ["p1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("QuantizeLinear", ["p1", "s1", "z1"], ["p1q"], name="q2"),
        helper.make_node("DequantizeLinear", ["p1q", "s1", "z1"], ["p1d"], name="dq2"),
        helper.make_node("Flatten", ["p1d"], ["f"], name="flatten", axis=1),
        helper.make_node("DequantizeLinear", ["w2", "ws2", "wz2"], ["w2d"], name="dq_w2", axis=0),
        helper.make_node("DequantizeLinear", ["b2", "bs2", "bz2"], ["b2d"], name="dq_b2", axis=0),
        helper.make_node("Gemm", ["f", "w2d", "b2d"], ["g"], name="fc", transB=1),
        helper.make_node("QuantizeLinear", ["g", "s2", "z2"], ["gq"], name="q3"),
        helper.make_node("DequantizeLinear", ["gq", "s2", "z2"], ["y"], name="dq_out"),
    ]
    inits = [
        init("sx", sx, np.float32), init("zx", zx, np.int8),
        init("w1", w1), init("ws1", ws1), init("wz1", np.zeros(4, np.int8)),
        init("b1", b1), init("bs1", (np.float32(sx) * ws1).astype(np.float32)),
        init("bz1", np.zeros(4, np.int32)),
        init("s1", s1, np.float32), init("z1", z1, np.int8),
        init("w2", w2), init("ws2", ws2), init("wz2", np.zeros(3, np.int8)),
        init("b2", b2), init("bs2", (np.float32(s1) * ws2).astype(np.float32)),
        init("bz2", np.zeros(3, np.int32)),
        init("s2", s2, np.float32), init("z2", z2, np.int8),
    ]
    graph = helper.make_graph(
        nodes, "qdq_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])

    x = rng.normal(0, 1, size=(2, 1, 6, 6))
    xq = quantize(x, sx, zx)
    xd = (xq - zx) * np.float32(sx)
    c1 = conv_nchw(xd, w1 * ws1.reshape(4, 1, 1, 1), b1 * np.float32(sx) * ws1, 1)
    r1q = quantize(np.maximum(c1, 0), s1, z1)
    p1 = r1q.reshape(2, 4, 3, 2, 3, 2).max(axis=(3, 5))  # max pool of int8 = of the reals
    f = ((p1 - z1) * np.float32(s1)).reshape(2, 36)  # ONNX flattens C,H,W
    g = f @ (w2 * ws2.reshape(3, 1)).T + b2 * np.float32(s1) * ws2
    save(model, "qdq_cnn", xq.transpose(0, 2, 3, 1), quantize(g, s2, z2))


def qlinear_mlp(rng):
    # Scales with no round ratios: an exact tie (x.5) rounds half to even in ONNX and away from
    # zero in TFLite, and a 1 LSB difference in the first layer would grow in the second.
    sa, za = 0.0113, 130
    w1 = rng.integers(0, 256, size=(8, 5)).astype(np.uint8)
    ws1, wz1 = 0.0217, 128
    s1, z1 = 0.0517, 100
    w2 = rng.integers(-127, 128, size=(5, 4)).astype(np.int8)
    ws2 = np.array([0.01, 0.02, 0.015, 0.03], dtype=np.float32)
    s2, z2 = 0.04, -5
    nodes = [
        helper.make_node("QLinearMatMul", ["a", "sa", "za", "w1", "ws1", "wz1", "s1", "z1"],
                         ["h"], name="fc1"),
        # Clip on the uint8 tensor itself: an integer clamp, [110, 250] -> int8 [-18, 122].
        helper.make_node("Clip", ["h", "lo", "hi"], ["r"], name="clip"),
    ]
    nodes.append(helper.make_node(
        "QLinearMatMul", ["r", "s1", "z1", "w2", "ws2", "wz2", "s2", "z2"], ["y"], name="fc2"))
    inits = [
        init("sa", sa, np.float32), init("za", za, np.uint8),
        init("w1", w1), init("ws1", ws1, np.float32), init("wz1", wz1, np.uint8),
        init("s1", s1, np.float32), init("z1", z1, np.uint8),
        init("lo", 110, np.uint8), init("hi", 250, np.uint8),
        init("w2", w2), init("ws2", ws2), init("wz2", np.zeros(4, np.int8)),
        init("s2", s2, np.float32), init("z2", z2, np.int8),
    ]
    graph = helper.make_graph(
        nodes, "qlinear_mlp", [helper.make_tensor_value_info("a", TensorProto.UINT8, [3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [3, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)])
    a = rng.integers(0, 256, size=(3, 8))
    h = quantize((a - za) * sa @ ((w1.astype(np.int64) - wz1) * ws1), s1, z1, 0, 255)
    h = np.clip(h, 110, 250)
    y = quantize((h - z1) * s1 @ (w2 * ws2.reshape(1, 4)), s2, z2)
    save(model, "qlinear_mlp", a - 128, y)


def qdq_conv_asym(rng):
    """A QDQ Conv whose int8 weights have per-channel zero points far from 0: the centred
    weights w - zp reach beyond int8, so the importer splits them (the input read twice)."""
    sx, zx = 0.05, 10
    w = rng.integers(-128, 128, size=(3, 2, 3, 3)).astype(np.int8)
    wz = np.array([100, -90, 0], dtype=np.int8)
    ws = np.array([0.003, 0.002, 0.004], dtype=np.float32)
    sy, zy = 0.04, -6
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "sx", "zx"], ["xd"], name="dq_in"),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], name="dq_w", axis=0),
        helper.make_node("Conv", ["xd", "wd"], ["c"], name="conv", kernel_shape=[3, 3],
                         strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("QuantizeLinear", ["c", "sy", "zy"], ["y"], name="q_out"),
    ]
    inits = [init("sx", sx, np.float32), init("zx", zx, np.int8), init("w", w), init("ws", ws),
             init("wz", wz), init("sy", sy, np.float32), init("zy", zy, np.int8)]
    graph = helper.make_graph(
        nodes, "qdq_conv_asym",
        [helper.make_tensor_value_info("x", TensorProto.INT8, [1, 2, 7, 7])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [1, 3, 4, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.integers(-128, 128, size=(1, 2, 7, 7))
    xd = (x - zx) * np.float32(sx)
    wd = (w.astype(np.int64) - wz.reshape(3, 1, 1, 1)) * ws.reshape(3, 1, 1, 1)
    # SAME with stride 2 on 7: 4 outputs, total padding 2 (1 before, 1 after); padded values 0.
    full = conv_nchw(xd, wd, np.zeros(3), 1)
    save(model, "qdq_conv_asym", x.transpose(0, 2, 3, 1),
         quantize(full[:, :, ::2, ::2], sy, zy).transpose(0, 2, 3, 1))


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(15)
    qdq_cnn(rng)
    qlinear_mlp(rng)
    qdq_conv_asym(rng)


if __name__ == "__main__":
    main()
