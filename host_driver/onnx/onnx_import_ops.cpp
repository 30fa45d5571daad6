#include "onnx/onnx_import_ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "golden/format.h"

namespace tpu::onnx {
namespace {

std::string Ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

const Attribute* Find(const Node& node, const std::string& name) { return node.Find(name); }

}  // namespace

std::string NodeWhere(const Node& node) {
  if (node.name.empty()) {
    return "unnamed node (" + node.op_type + ", output '" +
           (node.outputs.empty() ? std::string() : node.outputs[0]) + "')";
  }
  return "node '" + node.name + "' (" + node.op_type + ")";
}

void Refuse(const Node& node, const std::string& problem) {
  throw ImportError(NodeWhere(node) + ": " + problem);
}

int64_t IntAttribute(const Node& node, const std::string& name, int64_t fallback) {
  const Attribute* a = Find(node, name);
  return a ? a->i : fallback;
}

float FloatAttribute(const Node& node, const std::string& name, float fallback) {
  const Attribute* a = Find(node, name);
  return a ? a->f : fallback;
}

std::string StringAttribute(const Node& node, const std::string& name,
                            const std::string& fallback) {
  const Attribute* a = Find(node, name);
  return a ? a->s : fallback;
}

std::vector<int64_t> IntsAttribute(const Node& node, const std::string& name,
                                   const std::vector<int64_t>& fallback) {
  const Attribute* a = Find(node, name);
  return a ? a->ints : fallback;
}

void CheckAttributes(const Node& node, const std::vector<std::string>& known) {
  for (const Attribute& a : node.attributes) {
    if (std::find(known.begin(), known.end(), a.name) == known.end()) {
      Refuse(node, "attribute '" + a.name + "' is not supported (the importer maps only " +
                       [&] {
                         std::string s;
                         for (const auto& k : known) s += (s.empty() ? "" : ", ") + k;
                         return s.empty() ? std::string("no attributes") : s;
                       }() + " for " + node.op_type + ")");
    }
  }
}

bool SameQuant(const Quant& a, const Quant& b) {
  return a.zero_point == b.zero_point &&
         std::fabs(a.scale - b.scale) <= 1e-6 * std::max(std::fabs(a.scale), std::fabs(b.scale));
}

Quant TensorQuant(const Node& node, const TensorData& scale, const TensorData* zero_point,
                  const std::string& input) {
  if (scale.values.size() != 1) {
    Refuse(node, input + " has " + std::to_string(scale.values.size()) +
                     " values: a per-channel activation scale; the device's tensors have one "
                     "scale and zero point (per-channel scales are for weights only)");
  }
  Quant q;
  q.scale = scale.values[0];
  q.known = true;
  if (!(q.scale > 0) || !std::isfinite(q.scale)) {
    Refuse(node, input + " = " + golden::FormatReal(q.scale) + ": expected a finite scale > 0");
  }
  if (zero_point != nullptr) {
    if (zero_point->values.size() != 1) {
      Refuse(node, "its zero point has " + std::to_string(zero_point->values.size()) +
                       " values: a per-channel activation zero point; expected one");
    }
    if (zero_point->data_type != kUint8 && zero_point->data_type != kInt8) {
      Refuse(node, "zero point of type " + DataTypeName(zero_point->data_type) +
                       ": the device's tensors are int8 (uint8 maps to int8 exactly)");
    }
    q.zero_point = ToInt8(zero_point->data_type, zero_point->values[0]);
  } else {
    // ONNX: no zero point means 0 of uint8 (QuantizeLinear's default output type).
    q.zero_point = -128;
  }
  return q;
}

SymmetricWeights ConvertWeights(const Node& node, const TensorData& w, const TensorData& scale,
                                const TensorData* zero_point, int axis,
                                std::vector<double>* bias) {
  if (w.data_type != kUint8 && w.data_type != kInt8) {
    Refuse(node, "weights '" + w.name + "' are " + DataTypeName(w.data_type) +
                     ": the device's weights are int8 (uint8 maps exactly); quantize them");
  }
  if (axis < 0 || axis >= static_cast<int>(w.dims.size())) {
    Refuse(node, "weights '" + w.name + "' have no output-channel axis " + std::to_string(axis));
  }
  const int64_t channels = w.dims[static_cast<size_t>(axis)];
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < w.dims.size(); ++d) inner *= w.dims[d];
  auto per_channel = [&](const TensorData& t, const std::string& what) {
    if (t.values.size() != 1 && static_cast<int64_t>(t.values.size()) != channels) {
      Refuse(node, what + " '" + t.name + "' has " + std::to_string(t.values.size()) +
                       " values: expected 1 (per tensor) or " + std::to_string(channels) +
                       " (per output channel)");
    }
  };
  per_channel(scale, "weight scale");
  if (zero_point != nullptr) {
    per_channel(*zero_point, "weight zero point");
    if (zero_point->data_type != w.data_type) {
      Refuse(node, "weight zero point type " + DataTypeName(zero_point->data_type) +
                       " differs from the weights' " + DataTypeName(w.data_type));
    }
  }
  SymmetricWeights out;
  out.dims = w.dims;
  out.scales.resize(static_cast<size_t>(channels));
  out.factors.assign(static_cast<size_t>(channels), 1);
  // Element i belongs to channel (i / inner) % channels.
  std::vector<std::vector<int64_t>> centred(static_cast<size_t>(channels));
  for (size_t i = 0; i < w.values.size(); ++i) {
    const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
    const double zp = zero_point == nullptr
                          ? 0
                          : zero_point->values[zero_point->values.size() == 1 ? 0 : c];
    centred[c].push_back(static_cast<int64_t>(w.values[i] - zp));
  }
  for (size_t c = 0; c < static_cast<size_t>(channels); ++c) {
    const double s = scale.values[scale.values.size() == 1 ? 0 : c];
    if (!(s > 0) || !std::isfinite(s)) {
      Refuse(node, "weight scale " + golden::FormatReal(s) + " of channel " + std::to_string(c) +
                       ": expected a finite scale > 0");
    }
    const auto [lo, hi] = std::minmax_element(centred[c].begin(), centred[c].end());
    int64_t g = 1;
    if (!centred[c].empty() && (*lo < -128 || *hi > 127)) {
      g = 0;
      for (int64_t v : centred[c]) g = std::gcd(g, std::abs(v));
      if (bias != nullptr) {
        const double b = (*bias)[c];
        if (b != std::floor(b)) g = 1;
        else g = std::gcd(g, static_cast<int64_t>(std::fabs(b)));
      }
      if (g <= 1 || *lo / g < -128 || *hi / g > 127) {
        g = 1;  // no common factor: the weights are split (below)
        out.pieces = std::max({out.pieces, static_cast<int>((*hi + 126) / 127),
                               static_cast<int>((-*lo + 127) / 128)});
      }
    }
    out.factors[c] = g;
    out.scales[c] = s * static_cast<double>(g);
    if (bias != nullptr) (*bias)[c] /= static_cast<double>(g);
  }
  // Piece j of a centred value v (P pieces): floor(v / P), plus 1 for the first v mod P pieces;
  // they sum to v and lie in int8 since -128 P <= v <= 127 P.
  const size_t count = w.values.size();
  out.values.resize(count * static_cast<size_t>(out.pieces));
  std::vector<size_t> next(static_cast<size_t>(channels), 0);
  for (size_t i = 0; i < count; ++i) {
    const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
    const int64_t v = centred[c][next[c]++] / out.factors[c];
    const int64_t p = out.pieces;
    const int64_t q = v >= 0 ? v / p : -((-v + p - 1) / p);
    for (int64_t j = 0; j < p; ++j) {
      out.values[static_cast<size_t>(j) * count + i] = static_cast<int8_t>(q + (j < v - q * p));
    }
  }
  return out;
}

int64_t WindowOutput(int64_t n, int64_t k, int64_t s, const std::string& padding) {
  if (padding == "same") return (n + s - 1) / s;
  return n >= k ? (n - k) / s + 1 : 0;
}

std::string Padding2d(const Node& node, int64_t h, int64_t w, int64_t kh, int64_t kw, int64_t sh,
                      int64_t sw, bool pool) {
  const std::string auto_pad = StringAttribute(node, "auto_pad", "NOTSET");
  const std::vector<int64_t> size = {h, w}, k = {kh, kw}, s = {sh, sw};
  std::vector<int64_t> same(4, 0);  // TensorFlow's SAME: [top, left, bottom, right]
  for (int d = 0; d < 2; ++d) {
    const int64_t out = (size[d] + s[d] - 1) / s[d];
    const int64_t total = std::max<int64_t>((out - 1) * s[d] + k[d] - size[d], 0);
    same[d] = total / 2;
    same[d + 2] = total - total / 2;
  }
  std::string padding;
  if (auto_pad == "VALID") {
    padding = "valid";
  } else if (auto_pad == "SAME_UPPER") {
    padding = "same";
  } else if (auto_pad == "SAME_LOWER") {
    if (same[0] != same[2] || same[1] != same[3]) {
      Refuse(node, "auto_pad SAME_LOWER puts the odd padding row/column before the input (pads " +
                       Ints({same[2], same[3], same[0], same[1]}) +
                       "); the device pads TensorFlow's SAME (SAME_UPPER, the extra after)");
    }
    padding = "same";
  } else if (auto_pad == "NOTSET") {
    const std::vector<int64_t> pads = IntsAttribute(node, "pads", {0, 0, 0, 0});
    if (pads.size() != 4) {
      Refuse(node, "pads " + Ints(pads) + ": expected 4 values for a 2-D window");
    }
    if (pads == std::vector<int64_t>(4, 0)) {
      padding = "valid";
    } else if (pads == same) {
      padding = "same";
    } else {
      Refuse(node, "pads " + Ints(pads) + ": the device pads VALID ([0, 0, 0, 0]) or "
                   "TensorFlow's SAME (here " + Ints(same) + ", [top, left, bottom, right])");
    }
  } else {
    Refuse(node, "auto_pad '" + auto_pad + "': expected NOTSET, VALID, SAME_UPPER or SAME_LOWER");
  }
  if (pool) {
    if (IntAttribute(node, "count_include_pad", 0) != 0 && padding == "same" &&
        same != std::vector<int64_t>(4, 0)) {
      Refuse(node, "count_include_pad = 1 with padding: the device's average leaves padded "
                   "positions out of the window (count_include_pad = 0)");
    }
    if (IntAttribute(node, "ceil_mode", 0) != 0) {
      for (int d = 0; d < 2; ++d) {
        const int64_t floor_out = WindowOutput(size[d], k[d], s[d], padding);
        const int64_t pad = padding == "same" ? same[d] + same[d + 2] : 0;
        const int64_t ceil_out = (size[d] + pad - k[d] + s[d] - 1) / s[d] + 1;
        if (ceil_out != floor_out) {
          Refuse(node, "ceil_mode = 1 gives " + std::to_string(ceil_out) +
                           " outputs along dimension " + std::to_string(d + 2) + ", the device " +
                           std::to_string(floor_out) + " (floor); use ceil_mode = 0 or an input "
                           "size the window divides");
        }
      }
    }
  }
  return padding;
}

golden::Tensor<int8_t> Transpose4d(const std::vector<int64_t>& dims,
                                   const std::vector<int8_t>& values, const int (&perm)[4]) {
  golden::Tensor<int8_t> out({dims[perm[0]], dims[perm[1]], dims[perm[2]], dims[perm[3]]});
  const int64_t strides[4] = {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};
  int64_t i = 0;
  for (int64_t a = 0; a < out.shape[0]; ++a)
    for (int64_t b = 0; b < out.shape[1]; ++b)
      for (int64_t c = 0; c < out.shape[2]; ++c)
        for (int64_t d = 0; d < out.shape[3]; ++d)
          out.data[static_cast<size_t>(i++)] = values[static_cast<size_t>(
              a * strides[perm[0]] + b * strides[perm[1]] + c * strides[perm[2]] +
              d * strides[perm[3]])];
  return out;
}

SymmetricWeights Piece(const SymmetricWeights& w, int j) {
  SymmetricWeights piece = w;
  const size_t count = w.values.size() / static_cast<size_t>(w.pieces);
  piece.values.assign(w.values.begin() + static_cast<std::ptrdiff_t>(j * count),
                      w.values.begin() + static_cast<std::ptrdiff_t>((j + 1) * count));
  piece.pieces = 1;
  return piece;
}

golden::Tensor<int8_t> OihwToHwio(const SymmetricWeights& w) {
  return Transpose4d(w.dims, w.values, {2, 3, 1, 0});
}

golden::Tensor<int8_t> DenseWeights(const SymmetricWeights& w, bool trans_b,
                                    const std::vector<int64_t>& chw) {
  const int64_t k = trans_b ? w.dims[1] : w.dims[0];
  const int64_t n = trans_b ? w.dims[0] : w.dims[1];
  golden::Tensor<int8_t> out({k, n});
  for (int64_t r = 0; r < k; ++r) {
    int64_t row = r;
    if (!chw.empty()) {  // r = c*H*W + h*W + w in ONNX's order
      const int64_t c = r / (chw[1] * chw[2]), hw = r % (chw[1] * chw[2]);
      row = hw * chw[0] + c;
    }
    for (int64_t j = 0; j < n; ++j) {
      out.data[static_cast<size_t>(row * n + j)] =
          w.values[static_cast<size_t>(trans_b ? j * k + r : r * n + j)];
    }
  }
  return out;
}

}  // namespace tpu::onnx
