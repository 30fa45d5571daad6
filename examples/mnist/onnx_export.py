"""Writes a quantized MNIST network (quantize.py's layer records) as a standard int8 ONNX
model (opset 13, NCHW as ONNX requires), with python3-onnx's helper API, checked by
onnx.checker with shape inference:

  input (N, 1, 28, 28) float -> QuantizeLinear (1/255, -128) ->
  conv2d:  QLinearConv (int8 weights OIHW, per-channel weight scales, int32 bias)
  pool:    MaxPool on int8
  relu:    Clip on int8 with min = the zero point flowing in (ReLU in the quantized domain)
  flatten: Flatten (axis 1) of NCHW: C, H, W order; the dense weights' rows are permuted to it
  dense:   QDQ: DequantizeLinear (input; int8 weights (K, N) per column, axis 1; int32 bias,
           axis 0) -> Gemm [-> Relu] -> QuantizeLinear
  -> DequantizeLinear -> logits (N, 10) float

Standard ONNX has no quantized operator for a dense layer with a bias (QLinearMatMul has none),
hence the QDQ form there; conv2d uses QLinearConv, which has one.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class _Graph:
    def __init__(self):
        self.nodes, self.inits = [], []
        self.count = 0

    def const(self, name, array):
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op, inputs, name, **attrs):
        self.count += 1
        out = f"{name}_out" if op != "DequantizeLinear" else f"{name}_dq"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out


def export(layers, input_quant, path, graph_name):
    """Writes the model to `path`; returns a one-line description."""
    g = _Graph()
    s, z = input_quant
    x = g.node("QuantizeLinear", ["input", g.const("input_scale", np.float32(s)),
                                  g.const("input_zero_point", np.int8(z))], "input_quantize")
    sx, zx = "input_scale", "input_zero_point"
    chw = None  # (C, H, W) of the tensor flowing, tracked for the flatten's row order
    h = w_ = 28
    c = 1
    for L in layers:
        name, kind = L["name"], L["type"]
        if kind == "conv2d":
            w = L["w"]                                        # HWIO
            kh, kw, _, cout = w.shape
            pads = [0, 0, 0, 0]
            if L["padding"] == "same":
                ph, pw = kh - 1, kw - 1
                pads = [ph // 2, pw // 2, ph - ph // 2, pw - pw // 2]
            sy, zy = g.const(f"{name}_y_scale", np.float32(L["output_scale"])), \
                g.const(f"{name}_y_zero_point", np.int8(L["output_zero_point"]))
            x = g.node("QLinearConv", [
                x, sx, zx, g.const(f"{name}_w", np.ascontiguousarray(w.transpose(3, 2, 0, 1))),
                g.const(f"{name}_w_scale", L["weight_scales"].astype(np.float32)),
                g.const(f"{name}_w_zero_point", np.zeros(cout, np.int8)), sy, zy,
                g.const(f"{name}_b", L["b"].astype(np.int32))], name,
                kernel_shape=[kh, kw], pads=pads, strides=[1, 1])
            sx, zx = sy, zy
            if L["padding"] == "valid":
                h, w_ = h - kh + 1, w_ - kw + 1
            c = cout
        elif kind == "pool":
            k = list(L["window"])
            x = g.node("MaxPool", [x], name, kernel_shape=k, strides=k)
            h, w_ = h // k[0], w_ // k[1]
        elif kind == "relu":
            x = g.node("Clip", [x, zx], name)     # min = the zero point flowing in
        elif kind == "flatten":
            x = g.node("Flatten", [x], name, axis=1)
            chw = (c, h, w_)
        elif kind == "dense":
            w = L["w"]                                        # (K, N), rows in H, W, C order
            if chw is not None:
                cc, hh, ww = chw
                w = w.reshape(hh, ww, cc, -1).transpose(2, 0, 1, 3).reshape(cc * hh * ww, -1)
                chw = None
            n = w.shape[1]
            xf = g.node("DequantizeLinear", [x, sx, zx], f"{name}_input")
            wf = g.node("DequantizeLinear", [
                g.const(f"{name}_w", np.ascontiguousarray(w)),
                g.const(f"{name}_w_scale", L["weight_scales"].astype(np.float32)),
                g.const(f"{name}_w_zero_point", np.zeros(n, np.int8))], f"{name}_weights",
                axis=1)
            bf = g.node("DequantizeLinear", [
                g.const(f"{name}_b", L["b"].astype(np.int32)),
                g.const(f"{name}_b_scale",
                        (L["input_scale"] * L["weight_scales"]).astype(np.float32)),
                g.const(f"{name}_b_zero_point", np.zeros(n, np.int32))], f"{name}_bias", axis=0)
            y = g.node("Gemm", [xf, wf, bf], name)
            if L["relu"]:
                y = g.node("Relu", [y], f"{name}_relu")
            sx = g.const(f"{name}_y_scale", np.float32(L["output_scale"]))
            zx = g.const(f"{name}_y_zero_point", np.int8(L["output_zero_point"]))
            x = g.node("QuantizeLinear", [y, sx, zx], f"{name}_quantize")
        else:
            raise ValueError(f"no ONNX mapping for {kind!r}")
    logits = g.node("DequantizeLinear", [x, sx, zx], "output")
    g.nodes[-1].output[0] = "logits"
    del logits
    graph = helper.make_graph(
        g.nodes, graph_name,
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 1, 28, 28])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])], g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="examples/mnist/quantize.py")
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    ops = sorted({n.op_type for n in g.nodes})
    return f"{path}: opset 13, {len(g.nodes)} nodes ({', '.join(ops)}), onnx.checker passed"
