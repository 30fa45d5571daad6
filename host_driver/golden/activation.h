// Activations in the quantized int8 domain: ReLU-style functions are clamps whose bounds depend
// on the output quantization, anything else goes through a programmable 256-entry lookup table.
#ifndef TPU_GOLDEN_ACTIVATION_H_
#define TPU_GOLDEN_ACTIVATION_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "golden/tensor.h"

namespace tpu::golden {

enum class Activation { kNone, kRelu, kRelu6, kReluN1To1 };

// Inclusive int8 clamp bounds that implement an activation after requantization.
struct ActivationRange {
  int32_t min = -128;
  int32_t max = 127;
};

// TFLite CalculateActivationRangeQuantized() for int8 outputs, with a bound at real value f
// quantized as out_zero_point + round(f / output_scale) in float arithmetic like TFLite:
//   kNone      -> [-128, 127]
//   kRelu      -> [max(-128, q(0)), 127]              where q(0) = out_zero_point
//   kRelu6     -> [max(-128, q(0)), min(127, q(6))]
//   kReluN1To1 -> [max(-128, q(-1)), min(127, q(1))]
// Throws std::invalid_argument unless output_scale is finite and > 0 and the zero point is int8.
ActivationRange QuantizedActivationRange(Activation activation, float output_scale,
                                         int32_t out_zero_point);

// Throws std::invalid_argument, prefixed with `op`, unless -128 <= act_min <= act_max <= 127.
void CheckClampBounds(const std::string& op, int32_t act_min, int32_t act_max);

// Lookup-table convention (the hardware table uses the same one): entry i holds the output for
// input x = i - 128, so lut[0] is f(-128), lut[128] is f(0) and lut[255] is f(127). TFLite indexes
// its tables by uint8_t(x) instead; the two differ by flipping the top bit of the index.
using Lut = std::array<int8_t, 256>;

constexpr std::size_t LutIndex(int8_t x) { return static_cast<std::size_t>(x + 128); }

inline int8_t ApplyLut(int8_t x, const Lut& lut) { return lut[LutIndex(x)]; }

// Element-wise ApplyLut over a tensor of any shape.
Tensor<int8_t> ApplyLut(const Tensor<int8_t>& input, const Lut& lut);

// Builds a table for a real function the way TFLite's int8 LUT kernels (sigmoid, tanh, ...) do,
// all in float: x_real = input_scale * (x - input_zero_point), y = fn(x_real),
// out = clamp(round(y / output_scale) + out_zero_point, -128, 127) with std::round (ties away from
// zero) and the division done as a multiply by 1.0f / output_scale. Throws std::invalid_argument
// for non-positive scales, zero points outside int8, or an fn that returns NaN.
Lut BuildLut(const std::function<float(float)>& fn, float input_scale, int32_t input_zero_point,
             float output_scale, int32_t out_zero_point);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_ACTIVATION_H_
