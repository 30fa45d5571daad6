#include "network/network.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "golden/activation.h"
#include "golden/format.h"
#include "golden/padding.h"
#include "golden/requant.h"
#include "npy/npy.h"

namespace tpu::network {
namespace {

using nlohmann::json;

// The largest network input, in elements: it and every tensor derived from it (whose counts
// multiply with kernel sizes in macs()) then stay far inside int64.
constexpr uint64_t kMaxInputElements = uint64_t{1} << 32;

std::string Shape(const std::vector<int64_t>& shape) { return golden::ShapeToString(shape); }

std::string Join(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

const char* JsonTypeName(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_array()) return "an array";
  return "an object";
}

// The fields of one JSON object, read by name; `where` prefixes every message. Finish() rejects
// the fields nobody read.
class Fields {
 public:
  Fields(const json& object, std::string where, std::string base_dir)
      : object_(object), where_(std::move(where)), base_dir_(std::move(base_dir)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& message) const {
    throw NetworkError(where_ + ": " + (field.empty() ? "" : "\"" + field + "\": ") + message);
  }
  const std::string& where() const { return where_; }

  bool Has(const std::string& field) const { return object_.contains(field); }

  const json& Get(const std::string& field) {
    used_.insert(field);
    if (!object_.contains(field)) Fail(field, "missing (required)");
    return object_.at(field);
  }

  std::string String(const std::string& field) {
    const json& v = Get(field);
    if (!v.is_string()) Fail(field, std::string("expected a string, got ") + JsonTypeName(v));
    return v.get<std::string>();
  }
  std::string String(const std::string& field, const std::string& fallback) {
    return Has(field) ? String(field) : fallback;
  }
  // One of `choices`.
  std::string Choice(const std::string& field, const std::vector<std::string>& choices,
                     const std::string& fallback) {
    const std::string v = String(field, fallback);
    if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
      Fail(field, "\"" + v + "\": expected one of " + Join(choices));
    }
    return v;
  }

  int64_t Int(const std::string& field, int64_t lo, int64_t hi) { return IntOf(field, Get(field), lo, hi); }
  int64_t Int(const std::string& field, int64_t lo, int64_t hi, int64_t fallback) {
    return Has(field) ? Int(field, lo, hi) : fallback;
  }
  double Real(const std::string& field) {
    const json& v = Get(field);
    if (!v.is_number()) Fail(field, std::string("expected a number, got ") + JsonTypeName(v));
    return v.get<double>();
  }

  // [a, b] of integers in [lo, hi].
  std::vector<int64_t> Pair(const std::string& field, int64_t lo, int64_t hi) {
    const json& v = Get(field);
    if (!v.is_array() || v.size() != 2) {
      Fail(field, std::string("expected [height, width] (an array of 2 integers), got ") +
                      (v.is_array() ? "an array of " + std::to_string(v.size()) : JsonTypeName(v)));
    }
    return {IntOf(field + "[0]", v[0], lo, hi), IntOf(field + "[1]", v[1], lo, hi)};
  }

  // A path relative to the network file.
  std::string Path(const std::string& field) {
    const std::string p = String(field);
    if (p.empty()) Fail(field, "expected a .npy file name, got \"\"");
    if (p[0] == '/' || base_dir_.empty()) return p;
    return base_dir_ + "/" + p;
  }

  template <typename T>
  golden::Tensor<T> Npy(const std::string& field) {
    const std::string path = Path(field);
    try {
      return npy::Read<T>(path);
    } catch (const npy::Error& e) {
      Fail(field, e.what());
    }
  }

  // Either a .npy file name (int32, shape (n,)) or an inline array of n integers.
  std::vector<int32_t> Int32Values(const std::string& field, int64_t n, const std::string& meaning) {
    const json& v = Get(field);
    std::vector<int32_t> values;
    if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) {
        values.push_back(int32_t(IntOf(field + "[" + std::to_string(i) + "]", v[i], INT32_MIN,
                                       INT32_MAX)));
      }
      if (int64_t(values.size()) != n) {
        Fail(field, "an array of " + std::to_string(values.size()) + " values: expected " +
                        std::to_string(n) + ", " + meaning);
      }
      return values;
    }
    golden::Tensor<int32_t> t = Npy<int32_t>(field);
    if (t.rank() != 1 || t.shape[0] != n) {
      Fail(field, Path(field) + ": shape " + npy::ShapeRepr(t.shape) + ": expected " +
                      npy::ShapeRepr({n}) + ", " + meaning);
    }
    return std::move(t.data);
  }

  // Either a .npy file name (float32 or float64, shape (n,)) or an inline array of n numbers.
  std::vector<double> RealValues(const std::string& field, int64_t n, const std::string& meaning) {
    const json& v = Get(field);
    std::vector<double> values;
    if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number()) {
          Fail(field + "[" + std::to_string(i) + "]",
               std::string("expected a number, got ") + JsonTypeName(v[i]));
        }
        values.push_back(v[i].get<double>());
      }
      if (int64_t(values.size()) != n) {
        Fail(field, "an array of " + std::to_string(values.size()) + " values: expected " +
                        std::to_string(n) + ", " + meaning);
      }
      return values;
    }
    if (!v.is_string()) {
      Fail(field, std::string("expected a .npy file name or an array of numbers, got ") +
                      JsonTypeName(v));
    }
    golden::Tensor<double> t;
    try {
      t = npy::ReadReal(Path(field));
    } catch (const npy::Error& e) {
      Fail(field, e.what());
    }
    if (t.rank() != 1 || t.shape[0] != n) {
      Fail(field, Path(field) + ": shape " + npy::ShapeRepr(t.shape) + ": expected " +
                      npy::ShapeRepr({n}) + ", " + meaning);
    }
    return std::move(t.data);
  }

  // A scale: a number > 0 that float32 holds (the activation ranges compute in float, as
  // TFLite does; 1e-300 would become 0 there).
  double Scale(const std::string& field) {
    const double scale = Real(field);
    if (!(scale >= std::numeric_limits<float>::min()) ||
        !(scale <= std::numeric_limits<float>::max())) {
      Fail(field, golden::FormatReal(scale) + ": expected a finite number > 0 (the real value "
                                              "of one int8 step) within float32's range, " +
                      golden::FormatReal(std::numeric_limits<float>::min()) + " .. " +
                      golden::FormatReal(std::numeric_limits<float>::max()));
    }
    return scale;
  }

  void Finish() const {
    std::vector<std::string> unknown, known(used_.begin(), used_.end());
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (!used_.count(it.key())) unknown.push_back("\"" + it.key() + "\"");
    }
    if (!unknown.empty()) {
      Fail("", "unknown field" + std::string(unknown.size() > 1 ? "s " : " ") + Join(unknown) +
                   (known.empty() ? "" : " (this object takes: " + Join(known) + ")"));
    }
  }

  // Marks optional fields as known even when absent (for the list in Finish's message).
  void Known(std::initializer_list<const char*> fields) {
    for (const char* f : fields) used_.insert(f);
  }

 private:
  int64_t IntOf(const std::string& field, const json& v, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer()) {
      Fail(field, std::string("expected an integer, got ") + JsonTypeName(v));
    }
    const int64_t x = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)
                          ? INT64_MAX
                          : v.get<int64_t>();
    if (x < lo || x > hi) {
      Fail(field, std::to_string(x) + ": expected " + std::to_string(lo) + " .. " +
                      std::to_string(hi));
    }
    return x;
  }

  const json& object_;
  std::string where_, base_dir_;
  std::set<std::string> used_;
};

golden::Padding ParsePadding(Fields& f) {
  return f.Choice("padding", {"valid", "same"}, "valid") == "same" ? golden::Padding::kSame
                                                                   : golden::Padding::kValid;
}

// The fused activation of conv2d, dense and pool layers: clamp bounds for the output zero
// point. Returns a description.
std::string ParseFusedActivation(Fields& f, int32_t zero_point, int32_t& act_min,
                                 int32_t& act_max, std::optional<double>& output_scale) {
  f.Known({"output_scale", "activation"});
  const std::string act = f.Choice("activation", {"none", "relu", "relu6"}, "none");
  golden::Activation a = golden::Activation::kNone;
  if (act == "relu") a = golden::Activation::kRelu;
  if (act == "relu6") a = golden::Activation::kRelu6;
  double scale = 1.0;
  if (act == "relu6") {
    if (!f.Has("output_scale")) {
      f.Fail("activation", "relu6 needs \"output_scale\" (the real value of one output step) "
                           "to place 6.0 on the int8 scale");
    }
  }
  if (f.Has("output_scale")) {
    scale = f.Scale("output_scale");
    output_scale = scale;
  }
  const golden::ActivationRange r = golden::QuantizedActivationRange(a, float(scale), zero_point);
  act_min = r.min;
  act_max = r.max;
  return act;
}

// "requant": {"scale": F} | {"multiplier": M0, "shift": S} | {"multipliers": M, "shifts": S}.
std::string ParseRequant(Fields& layer_fields, const json& value, const std::string& where,
                         const std::string& base_dir, int64_t channels,
                         golden::RequantParams& params) {
  if (!value.is_object()) {
    layer_fields.Fail("requant", std::string("expected an object ({\"scale\": F}, {\"multiplier\": "
                                             "M0, \"shift\": S} or {\"multipliers\": M.npy, "
                                             "\"shifts\": S.npy}), got ") +
                                     JsonTypeName(value));
  }
  Fields f(value, where + ": \"requant\"", base_dir);
  const bool scale = f.Has("scale");
  const bool single = f.Has("multiplier") || f.Has("shift");
  const bool channel = f.Has("multipliers") || f.Has("shifts");
  const bool scales = f.Has("scales");
  const int forms = int(scale) + int(single) + int(channel) + int(scales);
  if (forms != 1) {
    f.Fail("", std::string(forms == 0 ? "no requantization" : "two requantizations") +
                   ": give exactly one of {\"scale\": F}, {\"scales\": F.npy}, {\"multiplier\": "
                   "M0, \"shift\": S}, {\"multipliers\": M.npy, \"shifts\": S.npy}");
  }
  std::string text;
  if (scale) {
    const double s = f.Real("scale");
    try {
      params.multipliers = {golden::QuantizeMultiplier(s)};
    } catch (const std::invalid_argument& e) {
      f.Fail("scale", golden::FormatReal(s) + ": " + e.what());
    }
    text = "scale " + golden::FormatReal(s);
  } else if (scales) {
    const std::vector<double> r = f.RealValues(
        "scales", channels, "one per output channel (" + std::to_string(channels) + " channels)");
    for (size_t c = 0; c < r.size(); ++c) {
      try {
        params.multipliers.push_back(golden::QuantizeMultiplier(r[c]));
      } catch (const std::invalid_argument& e) {
        f.Fail("scales", "scale[" + std::to_string(c) + "] = " + golden::FormatReal(r[c]) + ": " +
                             e.what());
      }
    }
    text = "per-channel scales";
  } else if (single) {
    const int64_t m = f.Int("multiplier", 0, INT32_MAX);
    const int64_t s = f.Int("shift", -31, 30);
    params.multipliers = {{int32_t(m), int(s)}};
    text = "multiplier " + std::to_string(m) + " shift " + std::to_string(s);
  } else {
    const std::string meaning =
        "one per output channel (" + std::to_string(channels) + " channels)";
    const std::vector<int32_t> m = f.Int32Values("multipliers", channels, meaning);
    const std::vector<int32_t> s = f.Int32Values("shifts", channels, meaning);
    for (int64_t c = 0; c < channels; ++c) {
      if (m[size_t(c)] < 0) {
        f.Fail("multipliers", "multiplier[" + std::to_string(c) + "] = " +
                                  std::to_string(m[size_t(c)]) + ": expected 0 .. 2147483647");
      }
      if (s[size_t(c)] < -31 || s[size_t(c)] > 30) {
        f.Fail("shifts", "shift[" + std::to_string(c) + "] = " + std::to_string(s[size_t(c)]) +
                             ": expected -31 .. 30");
      }
      params.multipliers.push_back({m[size_t(c)], int(s[size_t(c)])});
    }
    text = "per-channel requant";
  }
  f.Finish();
  return text;
}

// Weights, bias, requant, zero points and the fused activation shared by conv2d and dense.
// `k_shape` is the expected weight shape with Cout = -1 (taken from the file).
void ParseWeightsAndRequant(Fields& f, Layer& layer, const std::string& base_dir,
                            const std::vector<int64_t>& expected, const std::string& layout,
                            const std::string& why, golden::Tensor<int8_t>& weights,
                            std::vector<int32_t>& bias, golden::RequantParams& requant,
                            std::string& summary) {
  weights = f.Npy<int8_t>("weights");
  const std::string wpath = f.Path("weights");
  bool ok = weights.rank() == expected.size();
  for (size_t i = 0; ok && i + 1 < expected.size(); ++i) {
    ok = expected[i] < 0 || weights.shape[i] == expected[i];
  }
  if (ok) ok = weights.shape.back() >= 1;
  if (!ok) {
    f.Fail("weights", wpath + ": shape " + npy::ShapeRepr(weights.shape) + ": expected " +
                          layout + " int8 with " + why);
  }
  const int64_t cout = weights.shape.back();
  const std::string meaning = "one per output channel (" + std::to_string(cout) +
                              ", the last dimension of the weights)";
  if (f.Has("bias")) bias = f.Int32Values("bias", cout, meaning);
  f.Known({"bias", "input_zero_point", "output_zero_point", "activation", "name", "type"});
  if (f.Has("input_zero_point")) {
    const int64_t z = f.Int("input_zero_point", -128, 127);
    if (z != layer.input_zero_point) {
      f.Fail("input_zero_point",
             std::to_string(z) + " differs from the zero point of the layer's input, " +
                 std::to_string(layer.input_zero_point) +
                 (layer.index == 0 ? " (the network input's \"zero_point\")"
                                   : " (the previous layer's output zero point)") +
                 ": zero points flow from layer to layer; drop the field or make them agree");
    }
  }
  layer.output_zero_point = int32_t(f.Int("output_zero_point", -128, 127, 0));
  requant.out_zero_point = layer.output_zero_point;
  const std::string rq =
      ParseRequant(f, f.Get("requant"), f.where(), base_dir, cout, requant);
  const std::string act = ParseFusedActivation(f, layer.output_zero_point, requant.act_min,
                                               requant.act_max, layer.output_scale);
  summary += ", " + rq;
  if (layer.input_zero_point != 0 || layer.output_zero_point != 0) {
    summary += ", zp " + std::to_string(layer.input_zero_point) + "->" +
               std::to_string(layer.output_zero_point);
  }
  if (act != "none") summary += ", " + act;
}

std::string BaseDirOf(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string StemOf(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const auto dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

// Runs a compiler::Check*Layer (called with what = "") and reports its message for this layer.
template <typename Check>
void RuntimeCheck(const Fields& f, const Check& check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    std::string message = e.what();
    if (message.rfind(": ", 0) == 0) message = message.substr(2);
    f.Fail("", message);
  }
}

// Pooling, relu, relu6 and clamp keep their input's scale: they do not rescale. Their
// "output_scale" places relu6's 6.0 (as it always has, even where it differs from a scale
// flowing in: such files parse as before) and gives the scale flowing out only when none flows in.
void KeepScale(Layer& layer, const std::optional<double>& given) {
  layer.output_scale = layer.input_scale ? layer.input_scale : given;
}

void ParseLayer(const json& value, Layer& layer, const std::string& source,
                const std::string& base_dir_in) {
  // Requant's per-channel files resolve against the same directory: pass it through Fields.
  const std::string base_dir = base_dir_in;
  const std::string prefix = source + ": layers[" + std::to_string(layer.index) + "]";
  if (!value.is_object()) {
    throw NetworkError(prefix + ": expected an object with a \"type\", got " +
                       JsonTypeName(value));
  }
  Fields pre(value, prefix, base_dir);
  const std::string type =
      pre.Choice("type", {"dense", "conv2d", "pool", "activation", "flatten"}, "");
  if (type == "dense") layer.type = LayerType::kDense;
  if (type == "conv2d") layer.type = LayerType::kConv2d;
  if (type == "pool") layer.type = LayerType::kPool;
  if (type == "activation") layer.type = LayerType::kActivation;
  if (type == "flatten") layer.type = LayerType::kFlatten;
  layer.name = pre.String("name", type + std::to_string(layer.index));
  Fields f(value, source + ": " + layer.Where(), base_dir);
  f.Known({"type", "name"});
  const std::vector<int64_t>& in = layer.input_shape;
  const std::string in_text = "the layer's input " + Shape(in);
  const int32_t zp = layer.input_zero_point;
  layer.output_zero_point = zp;

  const auto need_rank4 = [&](const std::string& what) {
    if (in.size() != 4) {
      f.Fail("", what + " needs an NHWC input (B, H, W, C), got " + Shape(in) +
                     (in.size() == 2 ? ": make the network input 4-D" : ""));
    }
  };

  switch (layer.type) {
    case LayerType::kDense: {
      if (in.size() != 2) {
        f.Fail("", "dense needs an (M, K) input, got " + Shape(in) +
                       (in.size() > 2 ? ": put a {\"type\": \"flatten\"} layer before it" : ""));
      }
      compiler::DenseLayer& d = layer.dense;
      layer.summary = "";
      d.input_zero_point = zp;
      ParseWeightsAndRequant(f, layer, base_dir, {in[1], -1}, "(K, N)",
                             "K = " + std::to_string(in[1]) + ", the columns of " + in_text,
                             d.weights, d.bias, d.requant, layer.summary);
      layer.summary = std::to_string(d.weights.shape[0]) + " -> " +
                      std::to_string(d.weights.shape[1]) + layer.summary;
      layer.output_shape = {in[0], d.weights.shape[1]};
      RuntimeCheck(f, [&] { compiler::CheckDenseLayer(d, ""); });
      break;
    }
    case LayerType::kConv2d: {
      need_rank4("conv2d");
      compiler::Conv2dLayer& c = layer.conv;
      f.Known({"strides", "padding"});
      const std::vector<int64_t> strides =
          f.Has("strides") ? f.Pair("strides", 1, 1 << 20) : std::vector<int64_t>{1, 1};
      c.params.stride_h = strides[0];
      c.params.stride_w = strides[1];
      c.params.padding = ParsePadding(f);
      c.params.input_zero_point = zp;
      std::string rest;
      ParseWeightsAndRequant(f, layer, base_dir, {-1, -1, in[3], -1}, "(KH, KW, Cin, Cout)",
                             "Cin = " + std::to_string(in[3]) + ", the channels of " + in_text,
                             c.weights, c.bias, c.requant, rest);
      // The first two dimensions were not constrained above: any kernel of at least 1x1.
      if (c.weights.shape[0] < 1 || c.weights.shape[1] < 1) {
        f.Fail("weights", f.Path("weights") + ": shape " + npy::ShapeRepr(c.weights.shape) +
                              ": the kernel must be at least 1x1");
      }
      const int64_t kh = c.weights.shape[0], kw = c.weights.shape[1];
      golden::PaddedAxis oh, ow;
      try {
        oh = golden::ComputePaddedAxis(c.params.padding, in[1], kh, c.params.stride_h, "conv2d",
                                       "height");
        ow = golden::ComputePaddedAxis(c.params.padding, in[2], kw, c.params.stride_w, "conv2d",
                                       "width");
      } catch (const std::invalid_argument& e) {
        f.Fail("weights", std::string(e.what()) + " (" + in_text + ")");
      }
      layer.output_shape = {in[0], oh.out_size, ow.out_size, c.weights.shape[3]};
      layer.summary = std::to_string(c.weights.shape[3]) + " " + std::to_string(kh) + "x" +
                      std::to_string(kw) + ", " +
                      (c.params.padding == golden::Padding::kSame ? "same" : "valid") +
                      ", stride " + std::to_string(strides[0]) + "x" + std::to_string(strides[1]) +
                      rest;
      // The runtime's own checks (bias, zero points, requantization) before anything runs.
      RuntimeCheck(f, [&] { compiler::CheckConv2dLayer(c, ""); });
      break;
    }
    case LayerType::kPool: {
      need_rank4("pool");
      compiler::PoolLayer& p = layer.pool;
      f.Known({"strides", "padding", "mode"});
      p.kind = f.Choice("mode", {"max", "avg"}, "max") == "max" ? compiler::PoolKind::kMax
                                                               : compiler::PoolKind::kAvg;
      const std::vector<int64_t> window = f.Pair("window", 1, 1 << 20);
      const std::vector<int64_t> strides = f.Has("strides") ? f.Pair("strides", 1, 1 << 20) : window;
      p.params.window_h = window[0];
      p.params.window_w = window[1];
      p.params.stride_h = strides[0];
      p.params.stride_w = strides[1];
      p.params.padding = ParsePadding(f);
      std::optional<double> given_scale;
      const std::string act =
          ParseFusedActivation(f, zp, p.params.act_min, p.params.act_max, given_scale);
      KeepScale(layer, given_scale);
      golden::PaddedAxis oh, ow;
      try {
        oh = golden::ComputePaddedAxis(p.params.padding, in[1], window[0], strides[0], "pool",
                                       "height");
        ow = golden::ComputePaddedAxis(p.params.padding, in[2], window[1], strides[1], "pool",
                                       "width");
      } catch (const std::invalid_argument& e) {
        f.Fail("window", std::string(e.what()) + " (" + in_text + ")");
      }
      layer.output_shape = {in[0], oh.out_size, ow.out_size, in[3]};
      // The device's limits on windows and strides (ACTIVATE's fields).
      RuntimeCheck(f, [&] { compiler::CheckPoolLayer(p, ""); });
      layer.summary = std::string(p.kind == compiler::PoolKind::kMax ? "max " : "avg ") +
                      std::to_string(window[0]) + "x" + std::to_string(window[1]) + ", stride " +
                      std::to_string(strides[0]) + "x" + std::to_string(strides[1]) + ", " +
                      (p.params.padding == golden::Padding::kSame ? "same" : "valid") +
                      (act == "none" ? "" : ", " + act);
      break;
    }
    case LayerType::kActivation: {
      compiler::ActivationLayer& a = layer.activation;
      f.Known({"output_scale", "lut", "min", "max", "output_zero_point"});
      const std::string fn = f.Choice("function", {"relu", "relu6", "clamp", "lut"}, "");
      layer.summary = fn;
      if (fn == "relu" || fn == "relu6") {
        if (fn == "relu6" && !f.Has("output_scale") && !layer.input_scale) {
          f.Fail("function", "relu6 needs \"output_scale\" (the real value of one step of the "
                             "input, which the output shares) to place 6.0 on the int8 scale: "
                             "no scale flows in from the layers before");
        }
        double scale = 1.0;
        std::optional<double> given_scale;
        if (f.Has("output_scale")) {
          scale = f.Scale("output_scale");
          given_scale = scale;
        }
        KeepScale(layer, given_scale);
        if (!given_scale && layer.output_scale) scale = *layer.output_scale;
        const golden::ActivationRange r = golden::QuantizedActivationRange(
            fn == "relu" ? golden::Activation::kRelu : golden::Activation::kRelu6, float(scale),
            zp);
        a.act_min = r.min;
        a.act_max = r.max;
      } else if (fn == "clamp") {
        a.act_min = int32_t(f.Int("min", -128, 127, -128));
        a.act_max = int32_t(f.Int("max", -128, 127, 127));
        if (a.act_min > a.act_max) {
          f.Fail("max", std::to_string(a.act_max) + " is below \"min\" " +
                            std::to_string(a.act_min));
        }
      } else {
        const golden::Tensor<int8_t> t = f.Npy<int8_t>("lut");
        if (t.rank() != 1 || t.shape[0] != 256) {
          f.Fail("lut", f.Path("lut") + ": shape " + npy::ShapeRepr(t.shape) +
                            ": expected (256,) int8, entry i holding f(i - 128)");
        }
        golden::Lut lut;
        std::copy(t.data.begin(), t.data.end(), lut.begin());
        a.lut = lut;
        // A table maps into whatever quantization it was built for.
        layer.output_zero_point = int32_t(f.Int("output_zero_point", -128, 127, zp));
        // ... and scale: unknown unless given.
        layer.output_scale.reset();
        if (f.Has("output_scale")) layer.output_scale = f.Scale("output_scale");
      }
      if (fn != "lut" && f.Has("output_zero_point")) {
        f.Fail("output_zero_point", "only a \"lut\" activation changes the zero point; " + fn +
                                        " keeps its input's");
      }
      if (fn != "lut" && f.Has("lut")) f.Fail("lut", "only with \"function\": \"lut\"");
      if (fn != "clamp" && (f.Has("min") || f.Has("max"))) {
        f.Fail(f.Has("min") ? "min" : "max", "only with \"function\": \"clamp\"");
      }
      if (fn == "clamp" && f.Has("output_scale")) {
        f.Fail("output_scale", "only with \"function\": \"relu6\", \"relu\" or \"lut\" (a clamp "
                               "keeps its input's scale)");
      }
      if (fn == "clamp") layer.output_scale = layer.input_scale;
      if (fn != "lut") {
        layer.summary += " [" + std::to_string(a.act_min) + ", " + std::to_string(a.act_max) + "]";
      }
      RuntimeCheck(f, [&] { compiler::CheckActivationLayer(a, ""); });
      layer.output_shape = in;
      break;
    }
    case LayerType::kFlatten: {
      layer.output_scale = layer.input_scale;
      if (in.size() < 2) f.Fail("", "flatten needs an input of rank >= 2, got " + Shape(in));
      int64_t rest = 1;
      for (size_t i = 1; i < in.size(); ++i) rest *= in[i];
      layer.output_shape = {in[0], rest};
      layer.summary = "host reshape, NHWC order";
      break;
    }
  }
  f.Finish();
}

}  // namespace

const char* LayerTypeName(LayerType type) {
  switch (type) {
    case LayerType::kDense:
      return "dense";
    case LayerType::kConv2d:
      return "conv2d";
    case LayerType::kPool:
      return "pool";
    case LayerType::kActivation:
      return "activation";
    case LayerType::kFlatten:
      return "flatten";
  }
  return "?";
}

int64_t Layer::macs() const {
  switch (type) {
    case LayerType::kDense:
      return output_shape[0] * dense.k() * dense.nout();
    case LayerType::kConv2d: {
      const auto& w = conv.weights.shape;
      return output_shape[0] * output_shape[1] * output_shape[2] * w[0] * w[1] * w[2] * w[3];
    }
    default:
      return 0;
  }
}

namespace {

int64_t Elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Bias (int32) and requantization (int32 multiplier + int8 shift each).
int64_t RequantBytes(const std::vector<int32_t>& bias, const golden::RequantParams& requant) {
  return 4 * int64_t(bias.size()) + 5 * int64_t(requant.multipliers.size());
}

}  // namespace

EssentialBytes Layer::essential_bytes() const {
  EssentialBytes b;
  if (type == LayerType::kFlatten) return b;
  b.input = Elements(input_shape);
  b.output = Elements(output_shape);
  switch (type) {
    case LayerType::kDense:
      b.weights = int64_t(dense.weights.data.size());
      b.params = RequantBytes(dense.bias, dense.requant);
      break;
    case LayerType::kConv2d:
      b.weights = int64_t(conv.weights.data.size());
      b.params = RequantBytes(conv.bias, conv.requant);
      break;
    case LayerType::kActivation:
      b.params = activation.lut ? int64_t(activation.lut->size()) : 0;
      break;
    default:
      break;
  }
  return b;
}

EssentialBytes NetworkEssentialBytes(const Network& network) {
  EssentialBytes b;
  b.input = Elements(network.input_shape);
  b.output = Elements(network.output_shape());
  for (const Layer& layer : network.layers) {
    const EssentialBytes l = layer.essential_bytes();
    b.weights += l.weights;
    b.params += l.params;
  }
  return b;
}

std::string Layer::Where() const {
  return "layers[" + std::to_string(index) + "] (" + LayerTypeName(type) + " \"" + name + "\")";
}

// A parser callback that refuses a key repeated in one object: JSON parsers keep the last one
// silently, which would hide a mistake as surely as an unknown field would. The message names
// where (e.g. layers[1]).
json::parser_callback_t RefuseDuplicateKeys(const std::string& source) {
  struct Frame {
    bool array = false;
    int64_t elements = 0;       // arrays: elements begun so far
    std::set<std::string> keys;  // objects: keys seen so far
    std::string key;             // objects: the key being read
  };
  auto stack = std::make_shared<std::vector<Frame>>();
  return [stack, source](int, json::parse_event_t event, json& parsed) {
    const auto begin_element = [&] {
      if (!stack->empty() && stack->back().array) ++stack->back().elements;
    };
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        begin_element();
        stack->emplace_back();
        stack->back().array = event == json::parse_event_t::array_start;
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        stack->pop_back();
        break;
      case json::parse_event_t::key: {
        Frame& object = stack->back();
        const std::string key = parsed.get<std::string>();
        if (!object.keys.insert(key).second) {
          std::string where;
          for (size_t i = 0; i + 1 < stack->size(); ++i) {
            const Frame& f = (*stack)[i];
            where += f.array ? "[" + std::to_string(f.elements - 1) + "]"
                             : (where.empty() ? "" : ".") + f.key;
          }
          throw NetworkError(source + ": " + (where.empty() ? "the top level" : where) +
                             ": the key \"" + key + "\" appears twice: give each field once (a " +
                             "JSON reader would silently keep the last)");
        }
        object.key = key;
        break;
      }
      case json::parse_event_t::value:
        begin_element();
        break;
    }
    return true;
  };
}

Network ParseNetwork(const std::string& json_text, const std::string& base_dir,
                     const std::string& source) {
  json root;
  try {
    root = json::parse(json_text, RefuseDuplicateKeys(source), /*allow_exceptions=*/true,
                       /*ignore_comments=*/true);
  } catch (const json::exception& e) {
    // parse_error for syntax, out_of_range for a number beyond double ("1e400").
    std::string what = e.what();
    const auto colon = what.find("] ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    throw NetworkError(source + ": not valid JSON: " + what);
  }
  if (!root.is_object()) {
    throw NetworkError(source + ": expected a JSON object with \"input\" and \"layers\", got " +
                       JsonTypeName(root));
  }
  Network net;
  net.source = source;
  Fields f(root, source, base_dir);
  net.name = f.String("name", StemOf(source));

  const json& input = f.Get("input");
  if (!input.is_object()) {
    f.Fail("input", std::string("expected an object {\"shape\": [B, H, W, C] or [M, K]}, got ") +
                        JsonTypeName(input));
  }
  Fields fi(input, source + ": \"input\"", base_dir);
  const json& shape = fi.Get("shape");
  if (!shape.is_array() || (shape.size() != 2 && shape.size() != 4)) {
    fi.Fail("shape", "expected [B, H, W, C] (NHWC, for conv2d and pool) or [M, K] (for dense)");
  }
  uint64_t elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    const json& d = shape[i];
    // Only numbers are printed back: dumping a deeply nested value would recurse without bound.
    if (!d.is_number_integer() || (!d.is_number_unsigned() && d.get<int64_t>() < 1) ||
        d.get<uint64_t>() < 1) {
      fi.Fail("shape", "dimension " + std::to_string(i) + ": expected an integer >= 1, got " +
                           (d.is_number() ? d.dump() : JsonTypeName(d)));
    }
    const uint64_t dim = d.get<uint64_t>();
    if (dim > kMaxInputElements / elements) {
      fi.Fail("shape", "dimension " + std::to_string(i) + " (" + std::to_string(dim) +
                           "): more than " + std::to_string(kMaxInputElements) +
                           " elements in all (4 GiB of int8), more than a host run can hold");
    }
    elements *= dim;
    net.input_shape.push_back(int64_t(dim));
  }
  net.input_zero_point = int32_t(fi.Int("zero_point", -128, 127, 0));
  if (fi.Has("scale")) net.input_scale = fi.Scale("scale");
  fi.Known({"zero_point", "scale"});
  fi.Finish();

  const json& layers = f.Get("layers");
  if (!layers.is_array() || layers.empty()) {
    f.Fail("layers", "expected a non-empty array of layers");
  }
  f.Finish();

  std::vector<int64_t> shape_in = net.input_shape;
  int32_t zp = net.input_zero_point;
  std::optional<double> scale = net.input_scale;
  std::set<std::string> names;
  for (size_t i = 0; i < layers.size(); ++i) {
    Layer layer;
    layer.index = int(i);
    layer.input_shape = shape_in;
    layer.input_zero_point = zp;
    layer.input_scale = scale;
    ParseLayer(layers[i], layer, source, base_dir);
    if (!names.insert(layer.name).second) {
      throw NetworkError(source + ": " + layer.Where() + ": \"name\": \"" + layer.name +
                         "\" is used by an earlier layer: names must be unique");
    }
    shape_in = layer.output_shape;
    zp = layer.output_zero_point;
    scale = layer.output_scale;
    net.layers.push_back(std::move(layer));
  }
  return net;
}

Network LoadNetwork(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NetworkError(path + ": cannot open the network file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw NetworkError(path + ": cannot read the network file");
  Network net = ParseNetwork(text.str(), BaseDirOf(path), path);
  return net;
}

void CheckNetworkInput(const Network& network, const golden::Tensor<int8_t>& input,
                       const std::string& what) {
  if (input.shape != network.input_shape) {
    throw NetworkError(what + ": shape " + npy::ShapeRepr(input.shape) + ": expected " +
                       npy::ShapeRepr(network.input_shape) + ", the \"input\" \"shape\" of " +
                       (network.source.empty() ? "the network" : network.source));
  }
  input.CheckConsistent(what);
}

}  // namespace tpu::network
