#include "golden/requant.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>

#include "golden/activation.h"
#include "golden/format.h"
#include "golden/gemm.h"
#include "golden/int32_wrap.h"

namespace tpu::golden {
namespace {

constexpr int32_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kInt32Max = std::numeric_limits<int32_t>::max();

// floor(x / 2^exponent). Right-shifting a negative int is implementation-defined before C++20,
// so negatives go through the identity floor(x / d) = -1 - floor((-1 - x) / d), where -1 - x is
// non-negative and cannot overflow.
int32_t FloorShiftRight(int32_t x, int exponent) {
  if (x >= 0) return x >> exponent;
  return -1 - ((-1 - x) >> exponent);
}

void CheckOutputRange(const std::string& op, int32_t out_zero_point, int32_t act_min,
                      int32_t act_max) {
  if (out_zero_point < -128 || out_zero_point > 127) {
    throw std::invalid_argument(op + ": output zero point " + std::to_string(out_zero_point) +
                                " outside int8 range [-128, 127]");
  }
  CheckClampBounds(op, act_min, act_max);
}

// Requantize() without the argument checks, for loops that checked them once up front.
int8_t RequantizeChecked(int32_t acc, int32_t multiplier, int shift, int32_t out_zero_point,
                         int32_t act_min, int32_t act_max) {
  const int32_t scaled = MultiplyByQuantizedMultiplier(acc, multiplier, shift);
  // The zero point is added exactly (one bit wider than int32) before the clamp, as the
  // activation pipeline does: a huge positive value saturates to act_max, never wraps.
  const int64_t shifted = int64_t{scaled} + out_zero_point;
  return static_cast<int8_t>(std::clamp<int64_t>(shifted, act_min, act_max));
}

}  // namespace

QuantizedMultiplier QuantizeMultiplier(double real_multiplier) {
  if (!std::isfinite(real_multiplier) || real_multiplier < 0.0) {
    throw std::invalid_argument("QuantizeMultiplier: real_multiplier " +
                                FormatReal(real_multiplier) + " must be finite and >= 0");
  }
  if (real_multiplier == 0.0) return {0, 0};
  int shift = 0;
  // real_multiplier = mantissa * 2^shift with mantissa in [0.5, 1).
  const double mantissa = std::frexp(real_multiplier, &shift);
  auto q = static_cast<int64_t>(std::round(mantissa * static_cast<double>(int64_t{1} << 31)));
  // A mantissa within 2^-32 of 1 rounds up to 2^31, which does not fit: halve it, bump the shift.
  if (q == (int64_t{1} << 31)) {
    q /= 2;
    ++shift;
  }
  // Below 2^-32 every int32 input would be shifted out entirely; TFLite flushes to zero.
  if (shift < -31) return {0, 0};
  // 2^30 or more: shift 31 would left-shift into the sign bit; saturate as TFLite does.
  if (shift > 30) return {kInt32Max, 30};
  return {static_cast<int32_t>(q), shift};
}

int32_t SaturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;  // (-1) * (-1) = +1 is not in Q0.31
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // C++ division truncates toward zero, which together with the asymmetric nudge is exactly
  // gemmlowp's rounding; the quotient always fits in int32 once the saturating case is gone.
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

int32_t RoundingDivideByPOT(int32_t x, int exponent) {
  if (exponent < 0 || exponent > 31) {
    throw std::invalid_argument("RoundingDivideByPOT: exponent " + std::to_string(exponent) +
                                " outside [0, 31]");
  }
  const auto mask = static_cast<uint32_t>((uint64_t{1} << exponent) - 1);
  // The low `exponent` bits of x's two's-complement pattern: what floor division discards.
  const auto remainder = static_cast<int32_t>(static_cast<uint32_t>(x) & mask);
  // Round up when the remainder exceeds half; for negative x an exact half does not round up,
  // which leaves it at the floor, i.e. away from zero.
  const int32_t threshold = static_cast<int32_t>(mask >> 1) + (x < 0 ? 1 : 0);
  return FloorShiftRight(x, exponent) + (remainder > threshold ? 1 : 0);
}

int32_t MultiplyByQuantizedMultiplier(int32_t x, int32_t multiplier, int shift) {
  if (shift < -31 || shift > 30) {
    throw std::invalid_argument("MultiplyByQuantizedMultiplier: shift " + std::to_string(shift) +
                                " outside [-31, 30]");
  }
  const int left_shift = shift > 0 ? shift : 0;
  const int right_shift = shift > 0 ? 0 : -shift;
  // TFLite writes x * (1 << left_shift) in int32; compiled, that wraps, so it wraps here too.
  const int32_t x_shifted = BitsToInt32(static_cast<uint32_t>(x) << left_shift);
  return RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x_shifted, multiplier), right_shift);
}

int8_t Requantize(int32_t acc, int32_t multiplier, int shift, int32_t out_zero_point,
                  int32_t act_min, int32_t act_max) {
  CheckOutputRange("requantize", out_zero_point, act_min, act_max);
  return RequantizeChecked(acc, multiplier, shift, out_zero_point, act_min, act_max);
}

Tensor<int8_t> RequantizeMatrix(const Tensor<int32_t>& acc, const std::vector<int32_t>& bias,
                                const RequantParams& params) {
  acc.CheckRank("requantize: accumulator", 2, "(M, N)");
  const auto n = static_cast<std::size_t>(acc.shape[1]);
  const std::size_t count = params.multipliers.size();
  if (count != 1 && count != n) {
    throw std::invalid_argument("requantize: " + std::to_string(count) +
                                " multipliers, expected 1 (per tensor) or " + std::to_string(n) +
                                " (per output channel)");
  }
  CheckOutputRange("requantize", params.out_zero_point, params.act_min, params.act_max);

  Tensor<int32_t> biased = acc;
  AddColumnBias(biased, bias, "requantize");
  Tensor<int8_t> out(acc.shape);
  for (std::size_t i = 0; i < biased.data.size(); ++i) {
    const QuantizedMultiplier& qm = params.multipliers[count == 1 ? 0 : i % n];
    out.data[i] = RequantizeChecked(biased.data[i], qm.multiplier, qm.shift, params.out_zero_point,
                                    params.act_min, params.act_max);
  }
  return out;
}

}  // namespace tpu::golden
