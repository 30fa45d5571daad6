// Check*Layer of compiler/layers.h.
#include <stdexcept>
#include <string>

#include "compiler/layers.h"
#include "golden/format.h"

namespace tpu::compiler {
namespace {

void CheckRange(const std::string& what, const char* name, int64_t value, int64_t lo,
                int64_t hi, const char* why) {
  if (value < lo || value > hi) {
    throw std::invalid_argument(what + ": " + name + " " + std::to_string(value) +
                                " outside [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "]" + why);
  }
}

void CheckClamp(const std::string& what, int32_t act_min, int32_t act_max) {
  CheckRange(what, "clamp minimum", act_min, -128, 127, " (int8)");
  CheckRange(what, "clamp maximum", act_max, -128, 127, " (int8)");
  if (act_min > act_max) {
    throw std::invalid_argument(what + ": clamp minimum " + std::to_string(act_min) +
                                " > clamp maximum " + std::to_string(act_max));
  }
}

}  // namespace

void CheckConv2dLayer(const Conv2dLayer& layer, const std::string& what) {
  const golden::Tensor<int8_t>& w = layer.weights;
  if (w.shape.size() != 4 || w.shape[0] < 1 || w.shape[1] < 1 || w.shape[2] < 1 ||
      w.shape[3] < 1) {
    throw std::invalid_argument(what +
                                ": weights must be (KH, KW, Cin, Cout) (HWIO) with every "
                                "dimension >= 1, got " +
                                golden::ShapeToString(w.shape));
  }
  w.CheckConsistent(what + ": weights");
  if (layer.params.stride_h < 1 || layer.params.stride_w < 1) {
    throw std::invalid_argument(what + ": strides must be >= 1, got " +
                                std::to_string(layer.params.stride_h) + " x " +
                                std::to_string(layer.params.stride_w));
  }
  if (layer.params.padding != golden::Padding::kValid &&
      layer.params.padding != golden::Padding::kSame) {
    throw std::invalid_argument(what + ": padding must be VALID or SAME");
  }
  // Bias, zero points, clamp and multipliers as the dense layer over the im2col rows sees them
  // (Nout = Cout).
  CheckDenseLayer(Conv2dAsDense(layer), what);
}

void CheckPoolLayer(const PoolLayer& layer, const std::string& what) {
  if (layer.kind != PoolKind::kMax && layer.kind != PoolKind::kAvg) {
    throw std::invalid_argument(what + ": pooling kind must be max or avg");
  }
  const golden::Pool2dParams& p = layer.params;
  const char* win = " (ACTIVATE pooling windows are 4-bit fields)";
  const char* stride = " (ACTIVATE pooling strides are 2-bit fields)";
  CheckRange(what, "window height", p.window_h, 1, 15, win);
  CheckRange(what, "window width", p.window_w, 1, 15, win);
  CheckRange(what, "stride height", p.stride_h, 1, 3, stride);
  CheckRange(what, "stride width", p.stride_w, 1, 3, stride);
  if (p.padding != golden::Padding::kValid && p.padding != golden::Padding::kSame) {
    throw std::invalid_argument(what + ": padding must be VALID or SAME");
  }
  CheckClamp(what, p.act_min, p.act_max);
}

void CheckActivationLayer(const ActivationLayer& layer, const std::string& what) {
  CheckClamp(what, layer.act_min, layer.act_max);
}

}  // namespace tpu::compiler
