"""A NumPy evaluator of ONNX's own semantics for the operators onnx_export.py writes
(QuantizeLinear, DequantizeLinear, QLinearConv, MaxPool, Clip, Flatten, Gemm, Relu), to check
the exported model independently of the network format: ONNX requantizes in floating point
(round half to even of acc * x_scale * w_scale / y_scale), TFLite in fixed point, so the two
may differ by one step on a few elements; a wrong weight layout or flatten order would differ
everywhere.
"""
import numpy as np
import onnx
from onnx import numpy_helper

import quant


def _per_axis(v, x, axis):
    v = np.asarray(v)
    if v.ndim == 0:
        return v
    shape = [1] * x.ndim
    shape[axis] = -1
    return v.reshape(shape)


def _quantize(x, scale, zp, axis=1):
    q = np.round(x / _per_axis(scale, x, axis)) + _per_axis(zp, x, axis).astype(np.float64)
    info = np.iinfo(np.asarray(zp).dtype)
    return np.clip(q, info.min, info.max).astype(np.asarray(zp).dtype)


def _dequantize(x, scale, zp, axis=1):
    return ((x.astype(np.float64) - _per_axis(zp, x, axis)) *
            _per_axis(scale, x, axis)).astype(np.float32)


def _qlinear_conv(n, x, xs, xz, w, ws, wz, ys, yz, b):
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    xn = np.pad(x.transpose(0, 2, 3, 1).astype(np.int16) - int(xz),
                ((0, 0), (pt, pb), (pl, pr), (0, 0))).astype(np.int16)
    w_hwio = (w.astype(np.int16) - wz.reshape(-1, 1, 1, 1)).transpose(2, 3, 1, 0)
    # quant.conv2d_acc subtracts a zero point of 0 here: the padding holds real 0 already.
    acc = quant.conv2d_acc(xn, 0, w_hwio, b)
    real = acc * (np.float64(xs) * ws.astype(np.float64) / np.float64(ys))
    return _quantize(real, 1.0, yz, axis=3).transpose(0, 3, 1, 2)


def _max_pool(n, x):
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
    k = attrs["kernel_shape"]
    return quant.max_pool(x.transpose(0, 2, 3, 1), k, attrs.get("strides", k)).transpose(0, 3, 1, 2)


def run(path, x):
    """Evaluates the model at `path` on the float input x (N, 1, 28, 28); returns its output."""
    model = onnx.load(path)
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    env[model.graph.input[0].name] = x
    for n in model.graph.node:
        a = [env[i] for i in n.input]
        axis = next((onnx.helper.get_attribute_value(t) for t in n.attribute if t.name == "axis"),
                    1)
        op = n.op_type
        if op == "QuantizeLinear":
            y = _quantize(a[0], a[1], a[2], axis)
        elif op == "DequantizeLinear":
            y = _dequantize(a[0], a[1], a[2], axis)
        elif op == "QLinearConv":
            y = _qlinear_conv(n, *a)
        elif op == "MaxPool":
            y = _max_pool(n, a[0])
        elif op == "Clip":
            y = np.maximum(a[0], a[1]) if len(a) < 3 else np.clip(a[0], a[1], a[2])
        elif op == "Flatten":
            y = a[0].reshape(len(a[0]), -1)
        elif op == "Gemm":
            y = (a[0] @ a[1] + a[2]).astype(np.float32)
        elif op == "Relu":
            y = np.maximum(a[0], 0)
        else:
            raise ValueError(f"onnx_eval: operator {op} not supported")
        env[n.output[0]] = y
    return env[model.graph.output[0].name]
