// int32 accumulator -> int8 requantization with TensorFlow Lite's integer semantics (the
// gemmlowp fixed-point primitives), so that quantized models run bit-exact on the TPU.
//
// A real multiplier r (input_scale * weight_scale / output_scale) is stored as a Q0.31 fixed-point
// value M0 in [2^30, 2^31) and a power-of-two exponent: r ~= M0 * 2^-31 * 2^shift. TFLite's sign
// convention is used throughout: shift > 0 is a left shift, shift < 0 a right shift.
#ifndef TPU_GOLDEN_REQUANT_H_
#define TPU_GOLDEN_REQUANT_H_

#include <cstdint>
#include <vector>

#include "golden/tensor.h"

namespace tpu::golden {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // M0, Q0.31; 0 or in [2^30, 2^31 - 1]
  int shift = 0;           // in [-31, 30]; > 0 shifts left
};

// TFLite QuantizeMultiplier(): frexp, round the mantissa to 31 bits (std::round, ties away from
// zero), renormalize when rounding reaches 2^31, flush multipliers below ~2^-32 to (0, 0) and
// saturate those of 2^30 or more to (2^31 - 1, 30) (TFLite's single-rounding rule; the other
// build would left-shift by 31, which is undefined). Throws std::invalid_argument for negative,
// infinite or NaN multipliers: no quantized model has them and the hardware cannot apply them.
QuantizedMultiplier QuantizeMultiplier(double real_multiplier);

// gemmlowp: round(a * b / 2^31) with ties toward +infinity (the nudge makes an exact negative half
// truncate toward zero), saturating the one overflowing case INT32_MIN * INT32_MIN to INT32_MAX.
int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b);

// gemmlowp: x / 2^exponent rounded to nearest, ties away from zero (2.5 -> 3, -2.5 -> -3).
// Throws std::invalid_argument unless 0 <= exponent <= 31.
int32_t RoundingDivideByPOT(int32_t x, int exponent);

// TFLite (double rounding): RoundingDivideByPOT(SRDHM(x * 2^left, M0), right) with
// left = max(shift, 0) and right = max(-shift, 0). The x * 2^left step wraps in int32 like the
// compiled TFLite kernels do. Throws std::invalid_argument unless -31 <= shift <= 30.
int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift);

// One output value: clamp(out_zero_point + MultiplyByQuantizedMultiplier(acc), act_min, act_max).
// The zero-point add is exact (it would only overflow int32 within 128 of INT32_MAX/MIN), so
// such values saturate at the clamp instead of wrapping. Throws std::invalid_argument if the zero point
// or clamp bounds are outside int8 or act_min > act_max.
int8_t Requantize(int32_t acc, int32_t multiplier, int shift, int32_t out_zero_point,
                  int32_t act_min = -128, int32_t act_max = 127);

// Everything needed to turn an accumulator matrix into int8: either one multiplier for the whole
// tensor or one per output channel (column), then the output zero point and activation clamp.
struct RequantParams {
  std::vector<QuantizedMultiplier> multipliers;  // size 1 (per tensor) or N (per channel)
  int32_t out_zero_point = 0;
  int32_t act_min = -128;
  int32_t act_max = 127;
};

// Requantizes an (M, N) int32 matrix, adding bias[n] to column n first (wrapping in int32; an
// empty `bias` means none). Column n uses multipliers[n], or multipliers[0] for all columns when
// only one is given.
Tensor<int8_t> RequantizeMatrix(const Tensor<int32_t>& acc, const std::vector<int32_t>& bias,
                                const RequantParams& params);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_REQUANT_H_
