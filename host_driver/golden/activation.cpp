#include "golden/activation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "golden/format.h"

namespace tpu::golden {
namespace {

void CheckScale(const char* op, const char* name, float scale) {
  if (!std::isfinite(scale) || scale <= 0.0f) {
    throw std::invalid_argument(std::string(op) + ": " + name + " " + FormatReal(scale) +
                                " must be finite and > 0");
  }
}

void CheckZeroPoint(const char* op, const char* name, int32_t zero_point) {
  if (zero_point < -128 || zero_point > 127) {
    throw std::invalid_argument(std::string(op) + ": " + name + " " + std::to_string(zero_point) +
                                " outside int8 range [-128, 127]");
  }
}

// Converts an already-rounded float code to int8, clamping first so that huge or infinite values
// (which TFLite would convert with undefined behaviour) saturate instead; in range nothing changes.
int32_t SaturateToInt8(float value) {
  return static_cast<int32_t>(std::clamp(value, -128.0f, 127.0f));
}

}  // namespace

ActivationRange QuantizedActivationRange(Activation activation, float output_scale,
                                         int32_t out_zero_point) {
  CheckScale("activation range", "output_scale", output_scale);
  CheckZeroPoint("activation range", "output zero point", out_zero_point);
  // The bound for real value f. Any result beyond int8 ends up clamped to -128/127 below, so
  // saturating round(f / scale) to a few hundred first changes nothing and keeps the cast defined.
  auto quantize = [&](float f) {
    const float steps = std::clamp(std::round(f / output_scale), -1024.0f, 1024.0f);
    return out_zero_point + static_cast<int32_t>(steps);
  };
  ActivationRange range;  // [-128, 127]: kNone
  switch (activation) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      range.min = std::max(-128, quantize(0.0f));
      break;
    case Activation::kRelu6:
      range.min = std::max(-128, quantize(0.0f));
      range.max = std::min(127, quantize(6.0f));
      break;
    case Activation::kReluN1To1:
      range.min = std::max(-128, quantize(-1.0f));
      range.max = std::min(127, quantize(1.0f));
      break;
  }
  return range;
}

void CheckClampBounds(const std::string& op, int32_t act_min, int32_t act_max) {
  for (int32_t bound : {act_min, act_max}) {
    if (bound < -128 || bound > 127) {
      throw std::invalid_argument(op + ": clamp bound " + std::to_string(bound) +
                                  " outside int8 range [-128, 127]");
    }
  }
  if (act_min > act_max) {
    throw std::invalid_argument(op + ": act_min " + std::to_string(act_min) + " > act_max " +
                                std::to_string(act_max));
  }
}

Tensor<int8_t> ApplyLut(const Tensor<int8_t>& input, const Lut& lut) {
  input.CheckConsistent("lut: input");
  Tensor<int8_t> out(input.shape);
  std::transform(input.data.begin(), input.data.end(), out.data.begin(),
                 [&lut](int8_t x) { return ApplyLut(x, lut); });
  return out;
}

Lut BuildLut(const std::function<float(float)>& fn, float input_scale, int32_t input_zero_point,
             float output_scale, int32_t out_zero_point) {
  CheckScale("lut", "input_scale", input_scale);
  CheckScale("lut", "output_scale", output_scale);
  CheckZeroPoint("lut", "input zero point", input_zero_point);
  CheckZeroPoint("lut", "output zero point", out_zero_point);
  const float inverse_scale = 1.0f / output_scale;
  Lut lut{};
  for (int32_t x = -128; x <= 127; ++x) {
    const float real_in = input_scale * static_cast<float>(x - input_zero_point);
    const float real_out = fn(real_in);
    if (std::isnan(real_out)) {
      throw std::invalid_argument("lut: function returned NaN for input code " + std::to_string(x) +
                                  " (real " + FormatReal(real_in) + ")");
    }
    const float code = std::round(real_out * inverse_scale) + static_cast<float>(out_zero_point);
    lut[LutIndex(static_cast<int8_t>(x))] = static_cast<int8_t>(SaturateToInt8(code));
  }
  return lut;
}

}  // namespace tpu::golden
