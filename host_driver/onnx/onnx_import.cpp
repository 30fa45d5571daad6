// The walk through the graph: each ONNX value is a constant, the network's float input, the
// int8 tensor flowing through the device (the chain's head), or the real-valued view of that
// tensor (after a DequantizeLinear) with the float operations applied to it since; a
// QuantizeLinear turns those operations into layers, once the output quantization is known.
#include "onnx/onnx_import.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "golden/format.h"
#include "golden/requant.h"
#include "onnx/onnx_import_ops.h"

namespace tpu::onnx {
namespace {

// Whether Clip(0, 6) on a tensor of step `scale` is the network format's relu6 exactly: relu6
// places 6.0 with TFLite's round (half away from zero), ONNX's QuantizeLinear with round half to
// even; they agree unless 6 / scale is a half.
bool Relu6RoundsAlike(double scale) {
  const float steps = 6.0f / static_cast<float>(scale);
  return scale > 0 && std::round(steps) == std::nearbyint(steps);
}

using json = nlohmann::ordered_json;

constexpr double kInf = std::numeric_limits<double>::infinity();

// An operation that keeps the quantization (pool, clamp, flatten): a layer ready to write, or a
// clamp at real bounds that the quantization places.
struct PendingOp {
  enum Kind { kLayer, kClamp } kind = kClamp;
  const Node* node = nullptr;
  json layer;                    // kLayer
  double lo = -kInf, hi = kInf;  // kClamp: real bounds
};

// A conv2d or dense layer whose output quantization the next QuantizeLinear gives.
struct Accumulate {
  const Node* node = nullptr;
  std::string name;            // the layer's
  json layer;                  // everything but the requantization and output fields
  std::vector<double> scales;  // per output channel: the weights' real step
  std::vector<double> bias;    // per output channel, in accumulator steps
};

struct Value {
  enum Kind { kConst, kDequantConst, kFloatInput, kDevice, kReal } kind = kConst;
  TensorData tensor;                 // kConst, kDequantConst
  TensorData scale, zero_point;      // kDequantConst
  bool has_zero_point = false;       // kDequantConst
  int64_t axis = 1;                  // kDequantConst
  int serial = 0;                    // kDevice, kReal: the head it belongs to
  std::vector<int64_t> shape;        // ONNX layout, after the pending operations
  Quant quant;                       // kDevice, kReal: the device tensor's
  std::vector<int64_t> chw;          // 2-D values flattened from (C, H, W)
  std::optional<Accumulate> accumulate;  // kReal
  std::vector<PendingOp> pending;        // kReal, after `accumulate`
  bool uint8 = false;                // kDevice: ONNX element type uint8
  std::string consumer;              // kDevice, kReal: the node that consumed it
};

std::string Sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out;
}

std::string ShapeText(const std::vector<int64_t>& s) { return golden::ShapeToString(s); }

class Importer {
 public:
  Importer(const Model& model, const ImportOptions& options) : model_(model), options_(options) {}

  ImportedNetwork Run();

 private:
  void Visit(const Node& node);
  void Define(const Node& node, Value value);
  Value& Input(const Node& node, size_t i, const std::string& what);
  bool HasInput(const Node& node, size_t i) const {
    return i < node.inputs.size() && !node.inputs[i].empty();
  }
  const TensorData& Const(const Node& node, size_t i, const std::string& what);
  const TensorData* OptionalConst(const Node& node, size_t i, const std::string& what);
  Value& Head(const Node& node, size_t i, Value::Kind kind);
  void MatchQuant(const Node& node, Value& head, const Quant& q, const std::string& what);

  void Emit(json layer, const Node& node, const std::string& from);
  std::string LayerName(const Node& node);
  std::string UniqueName(const std::string& base);
  std::string AddFile(const std::string& layer, const std::string& what, bool int8,
                      golden::Tensor<int8_t> i8, golden::Tensor<int32_t> i32);
  void EmitPending(const PendingOp& op, const Quant& q);
  void Keep(const Node& node, Value v, bool now, PendingOp op);
  void FlushPending(const Node& node, Value& real);
  Value Quantize(const Node& node, Value& real, const Quant& q);
  void EmitClamp(const Node& node, double lo, double hi, const Quant& q);
  json Requant(const std::string& layer, const Accumulate& acc, double in_scale,
               const Quant& out);

  struct LinearInputs;
  void EmitCopies(const Node& node, const LinearInputs& li, bool conv, int64_t channels,
                  int pieces);
  LinearInputs ReadLinear(const Node& node, Value& head, bool qlinear, const std::string& x,
                          const std::string& w, int64_t qlinear_bias, int64_t qdq_bias);
  void DefineLinear(const Node& node, const Value& head, const LinearInputs& li,
                    const SymmetricWeights& sw, const std::vector<double>& bias,
                    nlohmann::ordered_json layer, golden::Tensor<int8_t> weights,
                    std::vector<int64_t> shape, bool qlinear);
  void ConvLike(const Node& node, bool qlinear);
  void DenseLike(const Node& node, bool qlinear);
  void Pool(const Node& node);
  void ClampNode(const Node& node);
  void FlattenNode(const Node& node);
  void Finish(const Node& node, const Accumulate& acc, const Quant& in, const Quant& out);

  const Model& model_;
  const ImportOptions& options_;
  std::map<std::string, Value> values_;
  int serial_ = 0;
  Quant input_quant_;
  bool input_uint8_ = false, input_float_ = false;
  std::vector<int64_t> input_shape_;  // ONNX
  json layers_ = json::array();
  std::set<std::string> names_;
  ImportedNetwork out_;
};

void Importer::Define(const Node& node, Value value) {
  if (node.outputs.empty() || node.outputs[0].empty()) Refuse(node, "has no output");
  for (size_t i = 1; i < node.outputs.size(); ++i) {
    if (!node.outputs[i].empty()) {
      Refuse(node, "output " + std::to_string(i) + " ('" + node.outputs[i] +
                       "') is used: the importer maps single-output nodes only (MaxPool's "
                       "Indices, for example, has no device equivalent)");
    }
  }
  values_[node.outputs[0]] = std::move(value);
}

Value& Importer::Input(const Node& node, size_t i, const std::string& what) {
  if (!HasInput(node, i)) Refuse(node, "input " + std::to_string(i) + " (" + what + ") missing");
  auto it = values_.find(node.inputs[i]);
  if (it == values_.end()) {
    Refuse(node, "input '" + node.inputs[i] + "' (" + what + ") is neither an initializer, a "
                 "graph input nor the output of an earlier node (graph not topologically "
                 "sorted?)");
  }
  return it->second;
}

const TensorData& Importer::Const(const Node& node, size_t i, const std::string& what) {
  Value& v = Input(node, i, what);
  if (v.kind != Value::kConst) {
    Refuse(node, "input '" + node.inputs[i] + "' (" + what + ") must be a constant "
                 "(initializer or Constant node): the importer folds it into the network file");
  }
  return v.tensor;
}

const TensorData* Importer::OptionalConst(const Node& node, size_t i, const std::string& what) {
  return HasInput(node, i) ? &Const(node, i, what) : nullptr;
}

// The chain's head: the device tensor (or its real view) that no layer has followed yet, and
// that no other node consumed.
Value& Importer::Head(const Node& node, size_t i, Value::Kind kind) {
  Value& v = Input(node, i, "data");
  if (v.kind == Value::kFloatInput) {
    Refuse(node, "reads the float graph input '" + node.inputs[i] + "' directly: the device "
                 "computes in int8; quantize the input first (QuantizeLinear)");
  }
  if (v.kind != Value::kDevice && v.kind != Value::kReal) {
    Refuse(node, "input '" + node.inputs[i] + "' is a constant where the data flowing through "
                 "the network is expected");
  }
  if (!v.consumer.empty() || v.serial != serial_) {
    Refuse(node, "input '" + node.inputs[i] + "' also feeds " +
                     (v.consumer.empty() ? std::string("an earlier layer") : v.consumer) +
                     ": the network format is a chain of layers (no branches, no skip "
                     "connections)");
  }
  if (v.kind != kind) {
    Refuse(node, kind == Value::kDevice
                     ? "input '" + node.inputs[i] + "' is a float (dequantized) tensor; " +
                           node.op_type + " takes the quantized tensor"
                     : "input '" + node.inputs[i] + "' is a quantized tensor; " + node.op_type +
                           " computes in float: put a DequantizeLinear before it (QDQ form)");
  }
  v.consumer = NodeWhere(node);
  return v;
}

// The quantization a node gives its input must be the one flowing in; a raw int8/uint8 graph
// input takes the first one given.
void Importer::MatchQuant(const Node& node, Value& head, const Quant& q, const std::string& what) {
  if (!head.quant.known) {
    head.quant = q;
    if (input_quant_.known && input_quant_.zero_point != q.zero_point) {
      Refuse(node, what + " zero point " + std::to_string(q.zero_point) +
                       " (as int8) differs from the one earlier layers assumed (" +
                       std::to_string(input_quant_.zero_point) + ")");
    }
    input_quant_ = q;
    return;
  }
  if (head.quant.scale == 0 && head.quant.zero_point == q.zero_point) {
    head.quant.scale = q.scale;
    if (input_quant_.scale == 0) input_quant_.scale = q.scale;
    return;
  }
  if (!SameQuant(head.quant, q)) {
    Refuse(node, what + " (scale " + golden::FormatReal(q.scale) + ", zero point " +
                     std::to_string(q.zero_point) + " as int8) differs from the tensor flowing "
                     "in (scale " + golden::FormatReal(head.quant.scale) + ", zero point " +
                     std::to_string(head.quant.zero_point) + "): the device rescales only in "
                     "conv and dense layers");
  }
}

std::string Importer::LayerName(const Node& node) {
  std::string base = Sanitize(node.name);
  if (base.empty()) {
    base = node.op_type;
    std::transform(base.begin(), base.end(), base.begin(), ::tolower);
    base = Sanitize(base) + std::to_string(layers_.size());
  }
  return UniqueName(base);
}

std::string Importer::UniqueName(const std::string& base) {
  std::string name = base;
  for (int k = 2; names_.count(name) != 0; ++k) name = base + "_" + std::to_string(k);
  names_.insert(name);
  return name;
}

void Importer::Emit(json layer, const Node& node, const std::string& from) {
  const std::string name = layer.contains("name") ? layer["name"].get<std::string>()
                                                  : LayerName(node);
  json named = {{"type", layer["type"]}, {"name", name}};
  for (auto& [k, v] : layer.items()) {
    if (k != "type" && k != "name") named[k] = v;
  }
  out_.mapping.push_back(named["type"].get<std::string>() + " '" + name + "' <- " + from);
  layers_.push_back(std::move(named));
  ++serial_;
}

std::string Importer::AddFile(const std::string& layer, const std::string& what, bool int8,
                              golden::Tensor<int8_t> i8, golden::Tensor<int32_t> i32) {
  NpyFile f;
  f.name = options_.file_prefix + layer + "_" + what + ".npy";
  f.is_int8 = int8;
  f.int8 = std::move(i8);
  f.int32 = std::move(i32);
  out_.files.push_back(std::move(f));
  return out_.files.back().name;
}

// The quantized clamp [q(lo), q(hi)] (exact: quantization is monotonic), as relu, relu6 or
// clamp; nothing when it clamps nothing.
void Importer::EmitClamp(const Node& node, double lo, double hi, const Quant& q) {
  auto quantize = [&](double r) -> int32_t {
    if (std::isinf(r)) return r < 0 ? -128 : 127;
    if (q.scale == 0) {
      Refuse(node, "clamps at " + golden::FormatReal(r) + " on a tensor whose scale is not "
                   "known (a raw int8/uint8 graph input): give it a scale (DequantizeLinear)");
    }
    // ONNX QuantizeLinear: float division, round half to even, saturate.
    const float steps = std::nearbyint(static_cast<float>(r) / static_cast<float>(q.scale));
    return std::clamp<int32_t>(q.zero_point + static_cast<int32_t>(
                                                  std::clamp(steps, -1024.0f, 1024.0f)),
                               -128, 127);
  };
  const int32_t qlo = lo == 0 ? std::max(-128, q.zero_point) : quantize(lo);
  const int32_t qhi = quantize(hi);
  if (qlo <= -128 && qhi >= 127) return;
  json layer = {{"type", "activation"}};
  if (lo == 0 && std::isinf(hi)) {
    layer["function"] = "relu";
  } else if (lo == 0 && hi == 6 && Relu6RoundsAlike(q.scale)) {
    layer["function"] = "relu6";
    layer["output_scale"] = q.scale;
  } else {
    layer["function"] = "clamp";
    layer["min"] = qlo;
    layer["max"] = qhi;
  }
  Emit(layer, node, NodeWhere(node));
}

// An operation that keeps the quantization on `v`: written now (on a quantized tensor), or
// pending on the real view until a QuantizeLinear.
void Importer::Keep(const Node& node, Value v, bool now, PendingOp op) {
  op.node = &node;
  if (now) {
    EmitPending(op, v.quant);
    v.serial = serial_;
  } else {
    v.pending.push_back(std::move(op));
  }
  Define(node, v);
}

void Importer::EmitPending(const PendingOp& op, const Quant& q) {
  switch (op.kind) {
    case PendingOp::kLayer: Emit(op.layer, *op.node, NodeWhere(*op.node)); break;
    case PendingOp::kClamp: EmitClamp(*op.node, op.lo, op.hi, q); break;
  }
}

// Float operations that keep the quantization run in int8 on the tensor's own quantization
// (exact for max pooling, clamps and flatten; average pooling rounds its int8 result).
void Importer::FlushPending(const Node& node, Value& real) {
  if (real.accumulate) {
    Refuse(node, "reads the float output of " + NodeWhere(*real.accumulate->node) +
                     " directly: quantize it first (QuantizeLinear, then DequantizeLinear): the "
                     "device's conv and dense layers produce int8");
  }
  for (const PendingOp& op : real.pending) EmitPending(op, real.quant);
  real.pending.clear();
}

json Importer::Requant(const std::string& layer, const Accumulate& acc, double in_scale,
                       const Quant& out) {
  std::vector<double> m(acc.scales.size());
  for (size_t c = 0; c < m.size(); ++c) m[c] = in_scale * acc.scales[c] / out.scale;
  if (std::all_of(m.begin(), m.end(), [&](double v) { return v == m[0]; })) {
    return {{"scale", m[0]}};
  }
  const auto n = static_cast<int64_t>(m.size());
  golden::Tensor<int32_t> multipliers({n}), shifts({n});
  for (size_t c = 0; c < m.size(); ++c) {
    const golden::QuantizedMultiplier q = golden::QuantizeMultiplier(m[c]);
    multipliers.data[c] = q.multiplier;
    shifts.data[c] = q.shift;
  }
  return {{"multipliers", AddFile(layer, "multipliers", false, {}, std::move(multipliers))},
          {"shifts", AddFile(layer, "shifts", false, {}, std::move(shifts))}};
}

// Emits a conv2d/dense layer (acc) with its output quantization, or checks that `out` is the
// quantization flowing in, then the pending operations; the head becomes the quantized result.
Value Importer::Quantize(const Node& node, Value& real, const Quant& q) {
  if (real.accumulate) {
    Accumulate acc = *real.accumulate;
    real.accumulate.reset();
    double lo = -kInf, hi = kInf;
    const Node* clamp_node = nullptr;
    for (const PendingOp& op : real.pending) {  // only clamps follow an accumulation
      lo = std::max(lo, op.lo);
      hi = std::min(hi, op.hi);
      clamp_node = op.node;
    }
    real.pending.clear();
    Finish(node, acc, real.quant, q);
    if (clamp_node != nullptr) {
      // Fused when it is relu or relu6, else a clamp layer after.
      json& layer = layers_.back();
      const bool relu = lo == 0 && std::isinf(hi);
      const bool relu6 = lo == 0 && hi == 6 && Relu6RoundsAlike(q.scale);
      if (relu || relu6) {
        layer["activation"] = relu ? "relu" : "relu6";
        out_.mapping.back() += ", " + NodeWhere(*clamp_node);
      } else {
        EmitClamp(*clamp_node, lo, hi, q);
      }
    }
    Value result = real;
    result.kind = Value::kDevice;
    result.quant = q;
    result.serial = serial_;
    result.consumer.clear();
    return result;
  }
  if (!real.quant.known || (real.quant.scale == 0 && real.quant.zero_point == q.zero_point)) {
    MatchQuant(node, real, q, "QuantizeLinear's");
  } else if (!SameQuant(real.quant, q)) {
    Refuse(node, "quantizes to scale " + golden::FormatReal(q.scale) + ", zero point " +
                     std::to_string(q.zero_point) + " (as int8) a tensor of scale " +
                     golden::FormatReal(real.quant.scale) + ", zero point " +
                     std::to_string(real.quant.zero_point) + ": the device rescales only in "
                     "conv and dense layers (pooling, ReLU, Clip and Flatten keep their input's "
                     "quantization)");
  }
  for (const PendingOp& op : real.pending) EmitPending(op, real.quant);
  Value result = real;
  result.kind = Value::kDevice;
  result.pending.clear();
  result.serial = serial_;
  result.consumer.clear();
  return result;
}

// Writes the conv2d/dense layer of `acc` with input quantization `in` and output `out`.
void Importer::Finish(const Node& node, const Accumulate& acc, const Quant& in,
                      const Quant& out) {
  json layer = acc.layer;
  const std::string& name = acc.name;
  layer["name"] = name;
  std::vector<int32_t> bias(acc.bias.size());
  bool any_bias = false;
  for (size_t c = 0; c < bias.size(); ++c) {
    const double b = std::nearbyint(acc.bias[c]);
    if (b < -2147483648.0 || b > 2147483647.0) {
      Refuse(*acc.node, "bias of channel " + std::to_string(c) + " = " + golden::FormatReal(b) +
                             " accumulator steps: outside int32");
    }
    bias[c] = static_cast<int32_t>(b);
    any_bias = any_bias || bias[c] != 0;
  }
  if (any_bias) {
    layer["bias"] = AddFile(name, "bias", false, {},
                            golden::Tensor<int32_t>({static_cast<int64_t>(bias.size())}, bias));
  }
  if (in.scale == 0) {
    Refuse(node, "the input's scale is not known: give the graph input a scale");
  }
  layer["requant"] = Requant(name, acc, in.scale, out);
  layer["input_zero_point"] = in.zero_point;
  layer["output_zero_point"] = out.zero_point;
  layer["output_scale"] = out.scale;
  std::string from = NodeWhere(*acc.node);
  if (acc.node != &node) from += ", " + NodeWhere(node);
  Emit(layer, *acc.node, from);
}

// A conv/dense bias: int32 in accumulator steps (QLinearConv's B), a DequantizeLinear of an
// integer initializer, or a float initializer.
struct Bias {
  const TensorData* tensor = nullptr;
  const TensorData* scale = nullptr;       // DequantizeLinear's (1 or Cout values)
  const TensorData* zero_point = nullptr;  // DequantizeLinear's
  bool real = false;                       // float or dequantized: real values
};

Bias QdqBias(const Node& node, const Value& v) {
  Bias b;
  b.tensor = &v.tensor;
  b.real = true;
  if (v.kind == Value::kDequantConst) {
    b.scale = &v.scale;
    if (v.has_zero_point) b.zero_point = &v.zero_point;
  } else if (v.kind != Value::kConst || v.tensor.data_type != kFloat) {
    Refuse(node, "bias must be a float initializer or a DequantizeLinear of an int32 one");
  }
  return b;
}

// The bias of each output channel in accumulator steps (input scale x the channel's weight
// scale); rounded to int32 when the layer is written (exact when the bias was quantized with
// that step, as QLinear and QDQ exporters do).
std::vector<double> BiasSteps(const Node& node, const Bias& b, int64_t channels, double in_scale,
                              const TensorData& w_scale) {
  std::vector<double> steps(static_cast<size_t>(channels), 0.0);
  if (b.tensor == nullptr) return steps;
  auto at = [&](const TensorData& t, size_t c, const char* what) {
    if (t.values.size() != 1 && t.values.size() != static_cast<size_t>(channels)) {
      Refuse(node, std::string("bias ") + what + " '" + t.name + "' has " +
                       std::to_string(t.values.size()) + " values: expected 1 or " +
                       std::to_string(channels));
    }
    return t.values[t.values.size() == 1 ? 0 : c];
  };
  if (b.tensor->values.size() != static_cast<size_t>(channels)) {
    Refuse(node, "bias '" + b.tensor->name + "' has " + std::to_string(b.tensor->values.size()) +
                     " values, expected " + std::to_string(channels) + " (one per output channel)");
  }
  for (size_t c = 0; c < steps.size(); ++c) {
    double v = b.tensor->values[c];
    if (!b.real) {
      steps[c] = v;
      continue;
    }
    if (b.scale != nullptr) {
      v = (v - (b.zero_point ? at(*b.zero_point, c, "zero point") : 0)) * at(*b.scale, c, "scale");
    }
    steps[c] = v / (in_scale * at(w_scale, c, "weight scale"));
  }
  return steps;
}

// The inputs of a conv or dense node: the input's quantization (QLinear: checked against the
// tensor flowing in), the weights with their scale and zero point, the bias.
struct Importer::LinearInputs {
  Quant in;
  const TensorData *w = nullptr, *w_scale = nullptr, *w_zp = nullptr;
  int64_t scale_axis = -1;  // QDQ: the weights' DequantizeLinear axis
  Bias bias;
};

// QLinear: (x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point
// [, bias at qlinear_bias]); QDQ: (x, DequantizeLinear(w) [, bias at qdq_bias]); -1: no bias.
Importer::LinearInputs Importer::ReadLinear(const Node& node, Value& head, bool qlinear,
                                            const std::string& x, const std::string& w,
                                            int64_t qlinear_bias, int64_t qdq_bias) {
  LinearInputs li;
  if (qlinear) {
    MatchQuant(node, head, TensorQuant(node, Const(node, 1, x + "_scale"),
                                       OptionalConst(node, 2, x + "_zero_point"), x + "_scale"),
               x + "_scale / " + x + "_zero_point");
    li.w = &Const(node, 3, w);
    li.w_scale = &Const(node, 4, w + "_scale");
    li.w_zp = OptionalConst(node, 5, w + "_zero_point");
    if (qlinear_bias >= 0) li.bias.tensor = OptionalConst(node, static_cast<size_t>(qlinear_bias), "B");
  } else {
    Value& wv = Input(node, 1, w);
    if (wv.kind != Value::kDequantConst) {
      Refuse(node, "weights '" + node.inputs[1] + "' must be a DequantizeLinear of an int8 "
                   "initializer (QDQ form); float weights need quantizing first");
    }
    li.w = &wv.tensor;
    li.w_scale = &wv.scale;
    li.w_zp = wv.has_zero_point ? &wv.zero_point : nullptr;
    li.scale_axis = wv.axis < 0 ? wv.axis + static_cast<int64_t>(wv.tensor.dims.size()) : wv.axis;
    if (qdq_bias >= 0 && HasInput(node, static_cast<size_t>(qdq_bias))) {
      li.bias = QdqBias(node, Input(node, static_cast<size_t>(qdq_bias), "bias"));
    }
  }
  li.in = head.quant;
  return li;
}

// A layer that repeats its input `pieces` times along the channels (a conv2d 1x1 or a dense
// layer with identity blocks, requantization 1.0: exact), for weights split into int8 parts.
void Importer::EmitCopies(const Node& node, const LinearInputs& li, bool conv, int64_t channels,
                          int pieces) {
  const int64_t wide = channels * pieces;
  golden::Tensor<int8_t> eye(conv ? std::vector<int64_t>{1, 1, channels, wide}
                                  : std::vector<int64_t>{channels, wide});
  for (int64_t j = 0; j < pieces; ++j) {
    for (int64_t c = 0; c < channels; ++c) eye.data[static_cast<size_t>(c * wide + j * channels + c)] = 1;
  }
  const std::string name = UniqueName((node.name.empty() ? node.op_type : Sanitize(node.name)) +
                                      "_copies");
  json layer = {{"type", conv ? "conv2d" : "dense"}, {"name", name},
                {"weights", AddFile(name, "weights", true, std::move(eye), {})}};
  if (conv) {
    layer["strides"] = {1, 1};
    layer["padding"] = "valid";
  }
  layer["requant"] = {{"scale", 1.0}};
  layer["input_zero_point"] = li.in.zero_point;
  layer["output_zero_point"] = li.in.zero_point;
  if (li.in.scale > 0) layer["output_scale"] = li.in.scale;
  Emit(layer, node, NodeWhere(node) + ": its input " + std::to_string(pieces) +
                        " times, for weights split into " + std::to_string(pieces) +
                        " int8 parts (centred weights outside int8)");
}

// The conv/dense layer: written now (QLinear: the output quantization is known), or pending
// on the real view until a QuantizeLinear gives it.
void Importer::DefineLinear(const Node& node, const Value& head, const LinearInputs& li,
                            const SymmetricWeights& sw, const std::vector<double>& bias,
                            nlohmann::ordered_json layer, golden::Tensor<int8_t> weights,
                            std::vector<int64_t> shape, bool qlinear) {
  Accumulate acc;
  acc.node = &node;
  acc.scales = sw.scales;
  acc.bias = bias;
  acc.name = LayerName(node);
  layer["weights"] = AddFile(acc.name, "weights", true, std::move(weights), {});
  acc.layer = std::move(layer);
  Value v;
  if (qlinear) {
    const TensorData* y_zp = OptionalConst(node, 7, "y_zero_point");
    const Quant out = TensorQuant(node, Const(node, 6, "y_scale"), y_zp, "y_scale");
    Finish(node, acc, li.in, out);
    v.kind = Value::kDevice;
    v.quant = out;
    v.uint8 = y_zp == nullptr || y_zp->data_type == kUint8;
  } else {
    v = head;
    v.consumer.clear();
    v.chw.clear();
    v.accumulate = acc;
    v.pending.clear();
  }
  v.serial = serial_;  // after the layers written since `head`
  v.shape = std::move(shape);
  Define(node, v);
}

// QLinearConv (x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B) or Conv in QDQ form
// (DequantizeLinear(x), DequantizeLinear(w), optional DequantizeLinear(B) or float B).
void Importer::ConvLike(const Node& node, bool qlinear) {
  CheckAttributes(node, {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"});
  Value& head = Head(node, 0, qlinear ? Value::kDevice : Value::kReal);
  if (!qlinear) FlushPending(node, head);
  if (head.shape.size() != 4) {
    Refuse(node, "input of shape " + ShapeText(head.shape) + ": Conv maps 4-D NCHW tensors");
  }
  const LinearInputs li = ReadLinear(node, head, qlinear, "x", "w", 8, 2);
  const TensorData* w = li.w;
  if (li.scale_axis > 0 && li.w_scale->values.size() > 1) {
    Refuse(node, "per-channel weight scales along axis " + std::to_string(li.scale_axis) +
                     ": expected axis 0 (the output channels of OIHW)");
  }
  if (w->dims.size() != 4) Refuse(node, "weights of shape " + ShapeText(w->dims) + ": expected OIHW");
  const int64_t cout = w->dims[0], cin = w->dims[1], kh = w->dims[2], kw = w->dims[3];
  if (IntAttribute(node, "group", 1) != 1) {
    Refuse(node, "group = " + std::to_string(IntAttribute(node, "group", 1)) +
                     ": the device runs ordinary convolutions only (group = 1; no depthwise)");
  }
  if (cin != head.shape[1]) {
    Refuse(node, "weights have " + std::to_string(cin) + " input channels, the input " +
                     std::to_string(head.shape[1]));
  }
  for (int64_t d : IntsAttribute(node, "dilations", {1, 1})) {
    if (d != 1) Refuse(node, "dilations != 1: the device has no dilated convolution");
  }
  const auto ks = IntsAttribute(node, "kernel_shape", {kh, kw});
  if (ks != std::vector<int64_t>{kh, kw}) Refuse(node, "kernel_shape differs from the weights'");
  const auto strides = IntsAttribute(node, "strides", {1, 1});
  if (strides.size() != 2 || strides[0] < 1 || strides[1] < 1) {
    Refuse(node, "strides: expected two values >= 1");
  }
  const std::string padding = Padding2d(node, head.shape[2], head.shape[3], kh, kw, strides[0],
                                        strides[1], false);
  std::vector<double> bias = BiasSteps(node, li.bias, cout, li.in.scale, *li.w_scale);
  const SymmetricWeights sw = ConvertWeights(node, *w, *li.w_scale, li.w_zp, 0, &bias);
  const std::vector<int64_t> shape = {
      head.shape[0], cout, WindowOutput(head.shape[2], kh, strides[0], padding),
      WindowOutput(head.shape[3], kw, strides[1], padding)};
  if (shape[2] < 1 || shape[3] < 1) Refuse(node, "the kernel is larger than the input");
  SymmetricWeights all = sw;  // the parts side by side along Cin (the input repeated)
  if (sw.pieces > 1) {
    EmitCopies(node, li, true, cin, sw.pieces);
    all.dims[1] = cin * sw.pieces;
    all.pieces = 1;
    const size_t count = sw.values.size() / static_cast<size_t>(sw.pieces), plane = kh * kw;
    for (size_t i = 0; i < sw.values.size(); ++i) {
      const size_t j = i / count, r = i % count;  // r = ((o * cin + c) * kh + y) * kw + x
      const size_t o = r / (cin * plane), c = (r / plane) % cin, yx = r % plane;
      all.values[(o * cin * sw.pieces + j * cin + c) * plane + yx] = sw.values[i];
    }
  }
  DefineLinear(node, head, li, sw, bias,
               {{"type", "conv2d"}, {"strides", strides}, {"padding", padding}}, OihwToHwio(all),
               shape, qlinear);
}

// QLinearMatMul (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp), or Gemm / MatMul in QDQ
// form: (M, K) x (K, N) -> (M, N) with constant B.
void Importer::DenseLike(const Node& node, bool qlinear) {
  const bool gemm = node.op_type == "Gemm";
  if (gemm) {
    CheckAttributes(node, {"alpha", "beta", "transA", "transB"});
    if (FloatAttribute(node, "alpha", 1) != 1 || FloatAttribute(node, "beta", 1) != 1) {
      Refuse(node, "alpha and beta must be 1 (scale the weights or bias instead)");
    }
    if (IntAttribute(node, "transA", 0) != 0) {
      Refuse(node, "transA = 1: the device multiplies the (M, K) data tensor as it is");
    }
  } else {
    CheckAttributes(node, {});
  }
  const bool trans_b = gemm && IntAttribute(node, "transB", 0) != 0;
  Value& head = Head(node, 0, qlinear ? Value::kDevice : Value::kReal);
  if (!qlinear) FlushPending(node, head);
  if (head.shape.size() != 2) {
    Refuse(node, "input of shape " + ShapeText(head.shape) + ": " + node.op_type +
                     " maps 2-D (batch, features) tensors (Flatten or Reshape first; batched "
                     "3-D matrix products have no device equivalent)");
  }
  const LinearInputs li = ReadLinear(node, head, qlinear, "a", "b", -1, gemm ? 2 : -1);
  const TensorData* w = li.w;
  const int64_t axis = trans_b ? 0 : 1;
  if (li.scale_axis >= 0 && li.scale_axis != axis && li.w_scale->values.size() > 1) {
    Refuse(node, "per-channel weight scales along axis " + std::to_string(li.scale_axis) +
                     ": expected axis " + std::to_string(axis) + " (the output features)");
  }
  if (w->dims.size() != 2) {
    Refuse(node, "weights of shape " + ShapeText(w->dims) + ": expected a 2-D matrix (batched "
                 "matrix products have no device equivalent)");
  }
  const int64_t k = trans_b ? w->dims[1] : w->dims[0], n = trans_b ? w->dims[0] : w->dims[1];
  if (k != head.shape[1]) {
    Refuse(node, "weights have " + std::to_string(k) + " rows (K), the input " +
                     std::to_string(head.shape[1]) + " columns");
  }
  std::vector<double> bias = BiasSteps(node, li.bias, n, li.in.scale, *li.w_scale);
  const SymmetricWeights sw =
      ConvertWeights(node, *w, *li.w_scale, li.w_zp, static_cast<int>(axis), &bias);
  golden::Tensor<int8_t> weights({k * sw.pieces, n});  // the parts stacked along K
  for (int j = 0; j < sw.pieces; ++j) {
    const golden::Tensor<int8_t> part = DenseWeights(Piece(sw, j), trans_b, head.chw);
    std::copy(part.data.begin(), part.data.end(),
              weights.data.begin() + static_cast<std::ptrdiff_t>(j * k * n));
  }
  if (sw.pieces > 1) EmitCopies(node, li, false, k, sw.pieces);
  DefineLinear(node, head, li, sw, bias, {{"type", "dense"}}, std::move(weights),
               {head.shape[0], n}, qlinear);
}

void Importer::Pool(const Node& node) {
  const bool max = node.op_type == "MaxPool";
  CheckAttributes(node, max ? std::vector<std::string>{"auto_pad", "ceil_mode", "dilations",
                                                       "kernel_shape", "pads", "storage_order",
                                                       "strides"}
                            : std::vector<std::string>{"auto_pad", "ceil_mode",
                                                       "count_include_pad", "kernel_shape",
                                                       "pads", "strides"});
  Value& in = Input(node, 0, "X");
  Value& head = Head(node, 0, in.kind == Value::kReal ? Value::kReal : Value::kDevice);
  if (head.accumulate) {
    Refuse(node, "pools the float output of " + NodeWhere(*head.accumulate->node) +
                     ": quantize it first (QuantizeLinear, DequantizeLinear)");
  }
  if (head.shape.size() != 4) {
    Refuse(node, "input of shape " + ShapeText(head.shape) + ": the device pools 4-D NCHW "
                 "tensors (2-D windows)");
  }
  const auto k = IntsAttribute(node, "kernel_shape", {});
  if (k.size() != 2) Refuse(node, "kernel_shape must have 2 values (a 2-D window)");
  for (int64_t d : IntsAttribute(node, "dilations", {1, 1})) {
    if (d != 1) Refuse(node, "dilations != 1: the device's pooling windows are dense");
  }
  const auto s = IntsAttribute(node, "strides", {1, 1});
  if (s.size() != 2) Refuse(node, "strides must have 2 values");
  for (int d = 0; d < 2; ++d) {
    if (k[d] < 1 || k[d] > 15) {
      Refuse(node, "window " + std::to_string(k[d]) + ": the device pools windows of 1 to 15");
    }
    if (s[d] < 1 || s[d] > 7) {
      Refuse(node, "stride " + std::to_string(s[d]) + ": the device pools with strides 1 to 7");
    }
  }
  const std::string padding =
      Padding2d(node, head.shape[2], head.shape[3], k[0], k[1], s[0], s[1], true);
  json layer = {{"type", "pool"},
                {"mode", max ? "max" : "avg"},
                {"window", k},
                {"strides", s},
                {"padding", padding}};
  const std::vector<int64_t> shape = {head.shape[0], head.shape[1],
                                      WindowOutput(head.shape[2], k[0], s[0], padding),
                                      WindowOutput(head.shape[3], k[1], s[1], padding)};
  if (shape[2] < 1 || shape[3] < 1) Refuse(node, "the window is larger than the input");
  Value v = head;
  v.consumer.clear();
  v.shape = shape;
  PendingOp op;
  op.kind = PendingOp::kLayer;
  op.layer = layer;
  Keep(node, v, head.kind == Value::kDevice, op);
}

void Importer::ClampNode(const Node& node) {
  double lo = 0, hi = kInf;
  if (node.op_type == "Clip") {
    CheckAttributes(node, {"min", "max"});
    lo = FloatAttribute(node, "min", -std::numeric_limits<float>::infinity());
    hi = FloatAttribute(node, "max", std::numeric_limits<float>::infinity());
    auto bound = [&](size_t i, const char* what, double* out) {
      if (const TensorData* t = OptionalConst(node, i, what)) {
        if (t->values.size() != 1) Refuse(node, std::string(what) + " must be a scalar");
        *out = t->values[0];
      }
    };
    bound(1, "min", &lo);
    bound(2, "max", &hi);
    if (lo == -std::numeric_limits<float>::infinity()) lo = -kInf;
    if (hi == std::numeric_limits<float>::infinity()) hi = kInf;
  } else {
    CheckAttributes(node, {});
  }
  Value& in = Input(node, 0, "X");
  Value& head = Head(node, 0, in.kind == Value::kReal ? Value::kReal : Value::kDevice);
  Value v = head;
  v.consumer.clear();
  PendingOp op;
  op.lo = lo;
  op.hi = hi;
  if (head.kind == Value::kDevice && node.op_type == "Clip") {
    // Clip on int8/uint8 values: its bounds are integers of the tensor's type.
    const int32_t offset = head.uint8 ? -128 : 0;
    auto bound = [&](double b, int32_t inf) {
      return std::isinf(b) ? inf : std::clamp<int32_t>(static_cast<int32_t>(b) + offset, -128, 127);
    };
    op.kind = PendingOp::kLayer;
    op.layer = {{"type", "activation"}, {"function", "clamp"}, {"min", bound(lo, -128)},
                {"max", bound(hi, 127)}};
  }
  Keep(node, v, head.kind == Value::kDevice, op);
}

// Flatten (axis 1) and Reshape to (batch, features): a flatten layer (NHWC order; a dense layer
// after it takes its rows permuted), or nothing for a 2-D tensor.
void Importer::FlattenNode(const Node& node) {
  Value& in = Input(node, 0, "data");
  Value& head = Head(node, 0, in.kind == Value::kReal ? Value::kReal : Value::kDevice);
  if (head.accumulate) {
    Refuse(node, "reshapes the float output of " + NodeWhere(*head.accumulate->node) +
                     ": quantize it first (QuantizeLinear, DequantizeLinear)");
  }
  int64_t features = 1;
  for (size_t d = 1; d < head.shape.size(); ++d) features *= head.shape[d];
  const std::vector<int64_t> shape = {head.shape.at(0), features};
  if (node.op_type == "Flatten") {
    CheckAttributes(node, {"axis"});
    const int64_t axis = IntAttribute(node, "axis", 1);
    if (axis != 1 && axis != 1 - static_cast<int64_t>(head.shape.size())) {
      Refuse(node, "axis = " + std::to_string(axis) + ": the device flattens to (batch, "
                   "features) (axis = 1)");
    }
  } else {
    CheckAttributes(node, {"allowzero"});
    const TensorData& target = Const(node, 1, "shape");
    bool ok = target.values.size() == 2;
    if (ok) {
      const double b = target.values[0], f = target.values[1];
      ok = (b == 0 || b == static_cast<double>(shape[0]) || (b == -1 && f > 0 && f == features)) &&
           (f == -1 || f == static_cast<double>(features));
    }
    if (!ok) {
      std::vector<int64_t> t(target.values.begin(), target.values.end());
      Refuse(node, "reshapes " + ShapeText(head.shape) + " to " + ShapeText(t) +
                       ": the device reshapes only to 2-D batch-first (" + ShapeText(shape) +
                       ", e.g. shape [0, -1])");
    }
  }
  Value v = head;
  v.consumer.clear();
  v.shape = shape;
  if (head.shape.size() == 2) {  // already (batch, features): nothing to do
    Define(node, v);
    return;
  }
  if (head.shape.size() == 4) {
    v.chw = {head.shape[1], head.shape[2], head.shape[3]};
  } else {
    Refuse(node, "input of shape " + ShapeText(head.shape) + ": expected 4-D NCHW or 2-D");
  }
  PendingOp op;
  op.kind = PendingOp::kLayer;
  op.layer = {{"type", "flatten"}};
  Keep(node, v, head.kind == Value::kDevice, op);
}

void Importer::Visit(const Node& node) {
  const std::string& op = node.op_type;
  if (!node.domain.empty() && node.domain != "ai.onnx") {
    Refuse(node, "operator domain '" + node.domain + "': the importer maps standard ONNX "
                 "operators only");
  }
  if (op == "Constant") {
    const Attribute* a = node.Find("value");
    if (a == nullptr || !a->t) Refuse(node, "only Constant with a tensor 'value' is supported");
    Value v;
    v.tensor = *a->t;
    Define(node, v);
  } else if (op == "Identity") {
    Value& in = Input(node, 0, "input");
    Value v = in;
    if (in.kind == Value::kDevice || in.kind == Value::kReal) {
      Head(node, 0, in.kind);
      v.consumer.clear();
    }
    Define(node, v);
  } else if (op == "QuantizeLinear") {
    CheckAttributes(node, {"axis", "saturate"});
    const TensorData* zp = OptionalConst(node, 2, "y_zero_point");
    const Quant q = TensorQuant(node, Const(node, 1, "y_scale"), zp, "y_scale");
    Value& in = Input(node, 0, "x");
    Value v;
    if (in.kind == Value::kFloatInput) {
      if (!in.consumer.empty()) Refuse(node, "the graph input also feeds " + in.consumer);
      in.consumer = NodeWhere(node);
      input_quant_ = q;
      input_float_ = true;
      v.kind = Value::kDevice;
      v.shape = in.shape;
      v.quant = q;
      v.serial = serial_;
    } else if (in.kind == Value::kReal) {
      v = Quantize(node, Head(node, 0, Value::kReal), q);
    } else {
      Refuse(node, "quantizes '" + node.inputs[0] + "', which is not the float data flowing "
                   "through the network (quantize constant weights before export)");
    }
    v.uint8 = zp == nullptr || zp->data_type == kUint8;
    Define(node, v);
  } else if (op == "DequantizeLinear") {
    CheckAttributes(node, {"axis"});
    Value& in = Input(node, 0, "x");
    Value v;
    if (in.kind == Value::kConst) {
      v.kind = Value::kDequantConst;
      v.tensor = in.tensor;
      v.scale = Const(node, 1, "x_scale");
      if (const TensorData* zp = OptionalConst(node, 2, "x_zero_point")) {
        v.zero_point = *zp;
        v.has_zero_point = true;
      }
      v.axis = IntAttribute(node, "axis", 1);
    } else {
      Value& head = Head(node, 0, Value::kDevice);
      const TensorData* zp = OptionalConst(node, 2, "x_zero_point");
      Quant q = TensorQuant(node, Const(node, 1, "x_scale"), zp, "x_scale");
      if (zp == nullptr && !head.uint8) q.zero_point = 0;
      MatchQuant(node, head, q, "x_scale / x_zero_point");
      v = head;
      v.kind = Value::kReal;
      v.consumer.clear();
    }
    Define(node, v);
  } else if (op == "QLinearConv" || op == "Conv") {
    ConvLike(node, op == "QLinearConv");
  } else if (op == "QLinearMatMul" || op == "MatMul" || op == "Gemm") {
    DenseLike(node, op == "QLinearMatMul");
  } else if (op == "MaxPool" || op == "AveragePool") {
    Pool(node);
  } else if (op == "Relu" || op == "Clip") {
    ClampNode(node);
  } else if (op == "Flatten" || op == "Reshape") {
    FlattenNode(node);
  } else {
    Refuse(node, "operator " + op + " has no device mapping (the importer maps QLinearConv, "
                 "QLinearMatMul, Conv / Gemm / MatMul in QDQ form, MaxPool, AveragePool, Relu, "
                 "Clip, Flatten, Reshape, QuantizeLinear, DequantizeLinear, Constant, Identity)");
  }
}

ImportedNetwork Importer::Run() {
  const Graph& g = model_.graph;
  for (const auto& [domain, version] : model_.opset_import) {
    if ((domain.empty() || domain == "ai.onnx") && version < 10) {
      throw ImportError("opset " + std::to_string(version) + ": the importer needs opset 10 or "
                        "later (QLinear and QuantizeLinear operators)");
    }
  }
  std::set<std::string> init_names;
  for (const TensorData& t : g.initializers) {
    Value v;
    v.tensor = t;
    values_[t.name] = v;
    init_names.insert(t.name);
  }
  const ValueInfo* input = nullptr;
  for (const ValueInfo& vi : g.inputs) {
    if (init_names.count(vi.name) != 0) continue;
    if (input != nullptr) {
      throw ImportError("graph inputs '" + input->name + "' and '" + vi.name + "' are not "
                        "initializers: the network takes one data input (weights, scales and "
                        "zero points must be initializers)");
    }
    input = &vi;
  }
  if (input == nullptr) throw ImportError("the graph has no data input");
  if (!input->has_shape || (input->dims.size() != 4 && input->dims.size() != 2)) {
    throw ImportError("graph input '" + input->name + "' has " +
                      (input->has_shape ? "shape " + ShapeText(input->dims) : "no shape") +
                      ": the device takes 4-D NCHW (conv, pool) or 2-D (batch, features) inputs");
  }
  input_shape_ = input->dims;
  if (input_shape_[0] < 1) {
    input_shape_[0] = 1;
    out_.notes.push_back("the graph input's batch dimension is symbolic: written as 1 (tpu run "
                         "takes the batch from the input file)");
  }
  for (size_t d = 1; d < input_shape_.size(); ++d) {
    if (input_shape_[d] < 1) {
      throw ImportError("graph input '" + input->name + "' has a symbolic dimension " +
                        std::to_string(d) + ": export with fixed sizes");
    }
  }
  Value in;
  in.shape = input_shape_;
  switch (input->elem_type) {
    case kFloat: in.kind = Value::kFloatInput; break;
    case kUint8: case kInt8:
      in.kind = Value::kDevice;
      in.uint8 = input->elem_type == kUint8;
      in.quant.zero_point = in.uint8 ? -128 : 0;  // until a node gives the quantization
      input_uint8_ = in.uint8;
      break;
    default:
      throw ImportError("graph input '" + input->name + "' is " +
                        DataTypeName(input->elem_type) + ": expected float (with a "
                        "QuantizeLinear), int8 or uint8");
  }
  values_[input->name] = in;
  for (const Node& node : g.nodes) Visit(node);

  if (g.outputs.size() != 1) {
    throw ImportError("the graph has " + std::to_string(g.outputs.size()) + " outputs: the "
                      "network format has one");
  }
  auto it = values_.find(g.outputs[0].name);
  if (it == values_.end()) throw ImportError("graph output '" + g.outputs[0].name + "' is never computed");
  Value& last = it->second;
  if (last.kind != Value::kDevice && last.kind != Value::kReal) {
    throw ImportError("graph output '" + g.outputs[0].name + "' is not the data flowing through "
                      "the network");
  }
  if (!last.consumer.empty() || last.serial != serial_) {
    throw ImportError("graph output '" + g.outputs[0].name + "' is not the end of the chain (it "
                      "also feeds " + last.consumer + ")");
  }
  if (last.kind == Value::kReal) {
    if (last.accumulate) {
      throw ImportError("graph output '" + g.outputs[0].name + "' is the float output of " +
                        NodeWhere(*last.accumulate->node) + ": quantize it (QuantizeLinear) so "
                        "that the device can produce it");
    }
    for (const PendingOp& op : last.pending) EmitPending(op, last.quant);
    out_.notes.push_back("the graph output is dequantized (float): the network writes the int8 "
                         "tensor; real = " + golden::FormatReal(last.quant.scale) +
                         " x (value - (" + std::to_string(last.quant.zero_point) + "))");
  }
  if (layers_.empty()) throw ImportError("the graph maps to no layer");
  if (last.chw.size() == 3 && last.chw[0] > 1 && last.chw[1] * last.chw[2] > 1) {
    throw ImportError("the graph ends with a Flatten of a 4-D tensor: the device flattens in "
                      "H,W,C order, ONNX in C,H,W; end with the 4-D tensor or a dense layer");
  }
  out_.output_uint8 = last.kind == Value::kDevice && last.uint8;
  out_.input_uint8 = input_uint8_;
  out_.input_nchw = input_shape_.size() == 4;
  out_.output_nchw = last.shape.size() == 4;

  std::vector<int64_t> shape = input_shape_;
  if (shape.size() == 4) shape = {shape[0], shape[2], shape[3], shape[1]};
  json jin = {{"shape", shape}};
  if (!input_quant_.known) input_quant_.zero_point = input_uint8_ ? -128 : 0;
  jin["zero_point"] = input_quant_.zero_point;
  if (input_quant_.scale > 0) jin["scale"] = input_quant_.scale;
  out_.description = {{"name", options_.name.empty() ? (g.name.empty() ? "onnx" : g.name)
                                                      : options_.name},
                      {"input", jin},
                      {"layers", layers_}};
  if (out_.input_nchw) {
    out_.notes.push_back("input: ONNX NCHW " + ShapeText(input_shape_) + " -> network NHWC " +
                         ShapeText(shape) + " (transpose the data)");
  }
  if (input_float_) {
    out_.notes.push_back("input: float in ONNX, quantized by the graph's QuantizeLinear: int8 = "
                         "round(x / " + golden::FormatReal(input_quant_.scale) + ") + (" +
                         std::to_string(input_quant_.zero_point) + ")");
  }
  if (input_uint8_) out_.notes.push_back("input: uint8 in ONNX: int8 = uint8 - 128");
  if (out_.output_nchw) {
    out_.notes.push_back("output: NHWC (ONNX's is NCHW: transpose)");
  }
  if (out_.output_uint8) out_.notes.push_back("output: uint8 in ONNX: uint8 = int8 + 128");
  return out_;
}

}  // namespace

ImportedNetwork ImportModel(const Model& model, const std::string& source,
                            const ImportOptions& options) {
  try {
    return Importer(model, options).Run();
  } catch (const ImportError& e) {
    throw ImportError(source + ": " + e.what());
  } catch (const std::invalid_argument& e) {  // golden::QuantizeMultiplier, shapes
    throw ImportError(source + ": " + e.what());
  }
}

}  // namespace tpu::onnx
