#include "compiler/dense_layer.h"

#include <stdexcept>

#include "golden/format.h"

namespace tpu::compiler {
namespace {

void CheckInt8(const std::string& what, const char* name, int32_t value) {
  if (value < -128 || value > 127) {
    throw std::invalid_argument(what + ": " + name + " " + std::to_string(value) +
                                " outside int8 range [-128, 127]");
  }
}

}  // namespace

void CheckDenseLayer(const DenseLayer& layer, const std::string& what) {
  const golden::Tensor<int8_t>& w = layer.weights;
  if (w.shape.size() != 2 || w.shape[0] < 1 || w.shape[1] < 1) {
    throw std::invalid_argument(what + ": weights must be (K, Nout) with K, Nout >= 1, got " +
                                golden::ShapeToString(w.shape));
  }
  w.CheckConsistent(what + ": weights");
  const int64_t nout = w.shape[1];
  if (!layer.bias.empty() && static_cast<int64_t>(layer.bias.size()) != nout) {
    throw std::invalid_argument(what + ": bias has " + std::to_string(layer.bias.size()) +
                                " values, expected 0 or Nout = " + std::to_string(nout));
  }
  CheckInt8(what, "input zero point", layer.input_zero_point);
  const golden::RequantParams& rq = layer.requant;
  CheckInt8(what, "output zero point", rq.out_zero_point);
  CheckInt8(what, "clamp minimum", rq.act_min);
  CheckInt8(what, "clamp maximum", rq.act_max);
  if (rq.act_min > rq.act_max) {
    throw std::invalid_argument(what + ": clamp minimum " + std::to_string(rq.act_min) +
                                " > clamp maximum " + std::to_string(rq.act_max));
  }
  const auto count = static_cast<int64_t>(rq.multipliers.size());
  if (count != 1 && count != nout) {
    throw std::invalid_argument(what + ": " + std::to_string(count) +
                                " multipliers, expected 1 (per tensor) or Nout = " +
                                std::to_string(nout) + " (per channel)");
  }
  for (int64_t c = 0; c < count; ++c) {
    const int shift = rq.multipliers[static_cast<std::size_t>(c)].shift;
    if (shift < -31 || shift > 30) {
      throw std::invalid_argument(what + ": multiplier " + std::to_string(c) + " has shift " +
                                  std::to_string(shift) + " outside [-31, 30]");
    }
  }
}

}  // namespace tpu::compiler
