#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "expect_error.h"
#include "golden/requant.h"

namespace tpu::golden {
namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
constexpr int32_t kHalf = int32_t{1} << 30;  // 0.5 in Q0.31

void ExpectMultiplier(double real, int32_t multiplier, int shift) {
  const QuantizedMultiplier q = QuantizeMultiplier(real);
  EXPECT_EQ(q.multiplier, multiplier) << "real " << real;
  EXPECT_EQ(q.shift, shift) << "real " << real;
}

// ---- QuantizeMultiplier --------------------------------------------------------------------

TEST(QuantizeMultiplier, ZeroIsZeroZero) { ExpectMultiplier(0.0, 0, 0); }

TEST(QuantizeMultiplier, PowersOfTwoAndSimpleFractions) {
  ExpectMultiplier(0.5, kHalf, 0);                   // frexp: 0.5 * 2^0
  ExpectMultiplier(0.25, kHalf, -1);                 // 0.5 * 2^-1
  ExpectMultiplier(1.5, 1610612736, 1);              // 0.75 * 2^1; 0.75 * 2^31 = 1610612736
  ExpectMultiplier(3.0, 1610612736, 2);              // 0.75 * 2^2
  ExpectMultiplier(0.1, 1717986918, -3);             // 0.8 * 2^-3; 0.8 * 2^31 = 1717986918.4
  ExpectMultiplier(std::ldexp(1.0, 29), kHalf, 30);  // 0.5 * 2^30: largest unsaturated shift
}

TEST(QuantizeMultiplier, MantissaRoundingUpTo2Pow31Renormalizes) {
  // frexp(1 - 2^-40) = (1 - 2^-40, 0); (1 - 2^-40) * 2^31 = 2^31 - 2^-9 rounds to 2^31, which
  // does not fit in int32, so it becomes 2^30 with the shift bumped to 1: 0.5 * 2^1 = 1.0.
  ExpectMultiplier(1.0 - std::ldexp(1.0, -40), kHalf, 1);
}

TEST(QuantizeMultiplier, MantissaTieRoundsAwayFromZero) {
  // 0.5 + 2^-32: mantissa * 2^31 = 2^30 + 0.5 exactly; std::round gives 2^30 + 1.
  ExpectMultiplier(0.5 + std::ldexp(1.0, -32), kHalf + 1, 0);
}

TEST(QuantizeMultiplier, TinyMultipliersFlushToZero) {
  ExpectMultiplier(std::ldexp(1.0, -32), kHalf, -31);  // 0.5 * 2^-31: still representable
  ExpectMultiplier(std::ldexp(1.0, -33), 0, 0);        // 0.5 * 2^-32: shift < -31
  ExpectMultiplier(std::ldexp(1.0, -40), 0, 0);        // 0.5 * 2^-39
}

TEST(QuantizeMultiplier, HugeMultipliersSaturate) {
  // 2^30 = 0.5 * 2^31: shift 31 is not supported, so (2^31 - 1, 30) like TFLite single rounding.
  ExpectMultiplier(std::ldexp(1.0, 30), kMax, 30);
  ExpectMultiplier(1e12, kMax, 30);
}

TEST(QuantizeMultiplier, RejectsNegativeAndNonFinite) {
  ExpectInvalidArgument([] { QuantizeMultiplier(-0.5); }, "real_multiplier -0.5");
  ExpectInvalidArgument([] { QuantizeMultiplier(std::nan("")); }, "must be finite and >= 0");
  ExpectInvalidArgument([] { QuantizeMultiplier(INFINITY); }, "must be finite and >= 0");
}

TEST(QuantizeMultiplier, RoundTripsWithinHalfAnUlpOfQ31) {
  // |M0 * 2^(shift - 31) - r| <= 2^(shift - 32): the representation is as close as 31 bits allow.
  for (double real : {0.0003, 0.0123, 0.7, 0.999, 1.0, 1.25, 17.0, 1000.5}) {
    const QuantizedMultiplier q = QuantizeMultiplier(real);
    const double back = std::ldexp(static_cast<double>(q.multiplier), q.shift - 31);
    EXPECT_LE(std::fabs(back - real), std::ldexp(1.0, q.shift - 32)) << "real " << real;
    EXPECT_GE(q.multiplier, kHalf);
  }
}

// ---- SaturatingRoundingDoublingHighMul -----------------------------------------------------

TEST(Srdhm, MinTimesMinSaturates) {
  // (-1) * (-1) = +1 is not representable in Q0.31.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMin), kMax);
}

TEST(Srdhm, ExtremesThatDoNotSaturate) {
  // -2^31 * (2^31 - 1) / 2^31 = -(2^31 - 1) exactly.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kMax), -kMax);
  // (2^31 - 1)^2 / 2^31 = 2^31 - 2 + 2^-31 -> 2^31 - 2.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMax, kMax), kMax - 1);
  // -2^31 * 2^30 / 2^31 = -2^30 exactly.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(kMin, kHalf), -kHalf);
}

TEST(Srdhm, PositiveTiesRoundUp) {
  // 2^15 * 2^15 = 2^30: 2^30 / 2^31 = 0.5 -> (2^30 + 2^30) / 2^31 = 1.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1 << 15, 1 << 15), 1);
  // 3 * 2^30 / 2^31 = 1.5 -> (3 * 2^30 + 2^30) / 2^31 = 2.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(3 << 15, 1 << 15), 2);
  // 1001 * 0.5 = 500.5 -> 501.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1001, kHalf), 501);
}

TEST(Srdhm, NegativeTiesRoundTowardPlusInfinity) {
  // ab = -2^30 (-0.5): nudge = 1 - 2^30; (-2^31 + 1) / 2^31 = -0.99.. truncates to 0.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-(1 << 15), 1 << 15), 0);
  // ab = -3 * 2^30 (-1.5): (-2^32 + 1) / 2^31 = -1.99.. truncates to -1.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-(3 << 15), 1 << 15), -1);
  // -1001 * 0.5 = -500.5: (-1002 * 2^30 + 1) / 2^31 = -500.99.. -> -500.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-1001, kHalf), -500);
  // Just past the tie: ab = -2^30 - 1: (-2^31) / 2^31 = -1.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-(kHalf + 1), 1), -1);
}

TEST(Srdhm, NonTiesRoundToNearest) {
  // 1000 * 0.8 (M0 = 1717986918) = 799.9999998 -> 800; and -800 for -1000.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(1000, 1717986918), 800);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-1000, 1717986918), -800);
  // 7 * 0.25 = 1.75 -> 2; -7 * 0.25 = -1.75 -> -2.
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(7, 1 << 29), 2);
  EXPECT_EQ(SaturatingRoundingDoublingHighMul(-7, 1 << 29), -2);
}

// ---- RoundingDivideByPOT -------------------------------------------------------------------

TEST(RoundingDivideByPot, TiesAwayFromZero) {
  EXPECT_EQ(RoundingDivideByPOT(5, 1), 3);    // 2.5 -> 3
  EXPECT_EQ(RoundingDivideByPOT(-5, 1), -3);  // -2.5 -> -3
  EXPECT_EQ(RoundingDivideByPOT(3, 1), 2);    // 1.5 -> 2
  EXPECT_EQ(RoundingDivideByPOT(-3, 1), -2);  // -1.5 -> -2
  EXPECT_EQ(RoundingDivideByPOT(-1, 1), -1);  // -0.5 -> -1
  EXPECT_EQ(RoundingDivideByPOT(6, 2), 2);    // 1.5 -> 2
  EXPECT_EQ(RoundingDivideByPOT(-6, 2), -2);  // -1.5 -> -2
}

TEST(RoundingDivideByPot, NonTies) {
  EXPECT_EQ(RoundingDivideByPOT(-7, 2), -2);  // -1.75 -> -2
  EXPECT_EQ(RoundingDivideByPOT(-5, 2), -1);  // -1.25 -> -1
  EXPECT_EQ(RoundingDivideByPOT(5, 2), 1);    // 1.25 -> 1
  EXPECT_EQ(RoundingDivideByPOT(-4, 1), -2);  // exact
  EXPECT_EQ(RoundingDivideByPOT(800, 3), 100);
}

TEST(RoundingDivideByPot, ExponentZeroIsIdentity) {
  for (int32_t x : {kMin, -7, -1, 0, 1, 7, kMax}) EXPECT_EQ(RoundingDivideByPOT(x, 0), x);
}

TEST(RoundingDivideByPot, Exponent31) {
  EXPECT_EQ(RoundingDivideByPOT(kMin, 31), -1);         // exactly -1
  EXPECT_EQ(RoundingDivideByPOT(kMax, 31), 1);          // 0.99.. -> 1
  EXPECT_EQ(RoundingDivideByPOT(kHalf, 31), 1);         // 0.5 -> 1
  EXPECT_EQ(RoundingDivideByPOT(-kHalf, 31), -1);       // -0.5 -> -1
  EXPECT_EQ(RoundingDivideByPOT(kHalf - 1, 31), 0);     // 0.49.. -> 0
  EXPECT_EQ(RoundingDivideByPOT(-(kHalf - 1), 31), 0);  // -0.49.. -> 0
}

TEST(RoundingDivideByPot, RejectsExponentOutOfRange) {
  ExpectInvalidArgument([] { RoundingDivideByPOT(1, -1); }, "exponent -1 outside [0, 31]");
  ExpectInvalidArgument([] { RoundingDivideByPOT(1, 32); }, "exponent 32 outside [0, 31]");
}

// ---- MultiplyByQuantizedMultiplier ---------------------------------------------------------

TEST(MultiplyByQuantizedMultiplier, ShiftZeroRoundsOnlyInSrdhm) {
  // 7 * 0.5 = 3.5 -> 4 but -7 * 0.5 = -3.5 -> -3: SRDHM's ties toward +infinity, no second round.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(7, kHalf, 0), 4);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-7, kHalf, 0), -3);
}

TEST(MultiplyByQuantizedMultiplier, RightShiftRoundsTiesAwayFromZero) {
  // 0.25 = (2^30, -1): SRDHM(-10, 2^30) = -5 exactly, then -5 / 2 = -2.5 -> -3.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-10, kHalf, -1), -3);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(10, kHalf, -1), 3);
  // 0.1 = (1717986918, -3): SRDHM(1000, .) = 800, 800 / 8 = 100.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1000, 1717986918, -3), 100);
}

TEST(MultiplyByQuantizedMultiplier, ShiftMinus31) {
  // 2^30 with shift -31 is 2^-32. SRDHM(INT32_MAX, 2^30) = (2^61 - 2^30 + 2^30) / 2^31 = 2^30,
  // then 2^30 / 2^31 = 0.5 -> 1.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kMax, kHalf, -31), 1);
  // SRDHM(INT32_MIN, 2^30) = -2^30, then -0.5 -> -1.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kMin, kHalf, -31), -1);
  // SRDHM(1000, 2^30) = 500, 500 / 2^31 -> 0.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1000, kHalf, -31), 0);
}

TEST(MultiplyByQuantizedMultiplier, LeftShift) {
  // 1.0 = (2^30, 1): x * 2 then * 0.5.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(12345, kHalf, 1), 12345);
  EXPECT_EQ(MultiplyByQuantizedMultiplier(-12345, kHalf, 1), -12345);
  // 3.0 = (1610612736, 2): 100 * 4 = 400, 400 * 0.75 = 300.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(100, 1610612736, 2), 300);
  // The saturated multiplier (2^31 - 1, 30): 1 << 30 = 2^30; SRDHM(2^30, 2^31 - 1)
  // = (2^61 - 2^30 + 2^30) / 2^31 = 2^30.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(1, kMax, 30), kHalf);
}

TEST(MultiplyByQuantizedMultiplier, LeftShiftWrapsLikeInt32) {
  // 2^30 * 2 = 2^31 wraps to INT32_MIN; SRDHM(INT32_MIN, 2^30) = -2^30.
  EXPECT_EQ(MultiplyByQuantizedMultiplier(kHalf, kHalf, 1), -kHalf);
}

TEST(MultiplyByQuantizedMultiplier, RejectsShiftOutOfRange) {
  ExpectInvalidArgument([] { MultiplyByQuantizedMultiplier(1, kHalf, 31); },
                        "shift 31 outside [-31, 30]");
  ExpectInvalidArgument([] { MultiplyByQuantizedMultiplier(1, kHalf, -32); },
                        "shift -32 outside [-31, 30]");
}

// ---- Requantize ----------------------------------------------------------------------------

TEST(Requantize, AddsZeroPointAndClamps) {
  const QuantizedMultiplier tenth = QuantizeMultiplier(0.1);
  // 1000 * 0.1 = 100; + 5 = 105.
  EXPECT_EQ(Requantize(1000, tenth.multiplier, tenth.shift, 5), 105);
  // 2000 * 0.1 = 200 -> clamped to 127.
  EXPECT_EQ(Requantize(2000, tenth.multiplier, tenth.shift, 0), 127);
  // -2000 * 0.1 = -200 -> clamped to -128.
  EXPECT_EQ(Requantize(-2000, tenth.multiplier, tenth.shift, 0), -128);
}

TEST(Requantize, ExtremeZeroPoints) {
  const QuantizedMultiplier tenth = QuantizeMultiplier(0.1);
  EXPECT_EQ(Requantize(0, tenth.multiplier, tenth.shift, 127), 127);
  EXPECT_EQ(Requantize(-1000, tenth.multiplier, tenth.shift, 127), 27);  // -100 + 127
  EXPECT_EQ(Requantize(1000, tenth.multiplier, tenth.shift, 127), 127);  // 227 -> 127
  EXPECT_EQ(Requantize(0, tenth.multiplier, tenth.shift, -128), -128);
  EXPECT_EQ(Requantize(1000, tenth.multiplier, tenth.shift, -128), -28);    // 100 - 128
  EXPECT_EQ(Requantize(-1000, tenth.multiplier, tenth.shift, -128), -128);  // -228 -> -128
}

TEST(Requantize, ActivationClamp) {
  // ReLU with zero point -10: act_min = -10. -50 * 0.5 = -25, -25 - 10 = -35 -> -10.
  EXPECT_EQ(Requantize(-50, kHalf, 0, -10, -10, 127), -10);
  // ReLU6-style upper bound 50: 200 * 0.5 - 10 = 90 -> 50.
  EXPECT_EQ(Requantize(200, kHalf, 0, -10, -10, 50), 50);
  EXPECT_EQ(Requantize(40, kHalf, 0, -10, -10, 50), 10);
}

TEST(Requantize, NegativeTieAtFinalShift) {
  // 0.25 = (2^30, -1): -10 * 0.25 = -2.5 -> -3; 10 * 0.25 = 2.5 -> 3.
  EXPECT_EQ(Requantize(-10, kHalf, -1, 0), -3);
  EXPECT_EQ(Requantize(10, kHalf, -1, 0), 3);
}

TEST(Requantize, ZeroPointAddIsExactAndSaturates) {
  // SRDHM(INT32_MAX, INT32_MAX) = 2^31 - 2; + 127 = 2^31 + 125 does not fit int32. The add is
  // exact (33 bits in the hardware), so the clamp gives 127; an int32 adder would wrap to -128.
  EXPECT_EQ(Requantize(kMax, kMax, 0, 127), 127);
  // The other end: SRDHM(INT32_MIN, INT32_MAX) = -2^31 + 1; - 128 clamps to -128.
  EXPECT_EQ(Requantize(std::numeric_limits<int32_t>::min(), kMax, 0, -128), -128);
}

TEST(Requantize, RejectsBadOutputParameters) {
  ExpectInvalidArgument([] { Requantize(0, kHalf, 0, 128); },
                        "output zero point 128 outside int8 range [-128, 127]");
  ExpectInvalidArgument([] { Requantize(0, kHalf, 0, 0, 10, 5); }, "act_min 10 > act_max 5");
  ExpectInvalidArgument([] { Requantize(0, kHalf, 0, 0, -129, 5); },
                        "clamp bound -129 outside int8 range");
}

// ---- RequantizeMatrix ----------------------------------------------------------------------

TEST(RequantizeMatrix, PerTensorWithBias) {
  const Tensor<int32_t> acc({2, 2}, {100, -100, 7, 30});
  // + bias {10, -10} = {110, -110, 17, 20}; * 0.5 = {55, -55, 8.5 -> 9, 10}; + 1.
  const Tensor<int8_t> out = RequantizeMatrix(acc, {10, -10}, {{{kHalf, 0}}, 1, -128, 127});
  EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(out.data, (std::vector<int8_t>{56, -54, 10, 11}));
}

TEST(RequantizeMatrix, PerChannel) {
  const Tensor<int32_t> acc({2, 2}, {100, -100, 7, 30});
  // Biased {110, -110, 17, 20}. Column 0 * 0.5: 55, 8.5 -> 9. Column 1 * 0.25:
  // SRDHM(-110, 2^30) = -55, -55 / 2 = -27.5 -> -28; SRDHM(20, 2^30) = 10, 10 / 2 = 5.
  const RequantParams params{{{kHalf, 0}, {kHalf, -1}}, 0, -128, 127};
  const Tensor<int8_t> out = RequantizeMatrix(acc, {10, -10}, params);
  EXPECT_EQ(out.data, (std::vector<int8_t>{55, -28, 9, 5}));
}

TEST(RequantizeMatrix, NoBias) {
  const Tensor<int32_t> acc({1, 3}, {-300, 0, 300});
  // * 0.25 = -75, 0, 75; + 3.
  const Tensor<int8_t> out = RequantizeMatrix(acc, {}, {{{kHalf, -1}}, 3, -128, 127});
  EXPECT_EQ(out.data, (std::vector<int8_t>{-72, 3, 78}));
}

TEST(RequantizeMatrix, ShapeErrors) {
  const Tensor<int32_t> acc({2, 3});
  ExpectInvalidArgument(
      [&] {
        RequantizeMatrix(acc, {}, {{{kHalf, 0}, {kHalf, 0}}, 0});
      },
      "2 multipliers, expected 1 (per tensor) or 3 (per output channel)");
  ExpectInvalidArgument(
      [&] {
        RequantizeMatrix(acc, {1, 2}, {{{kHalf, 0}}, 0});
      },
      "bias length 2 != output channels 3");
  ExpectInvalidArgument(
      [] {
        RequantizeMatrix(Tensor<int32_t>({6}), {}, {{{kHalf, 0}}, 0});
      },
      "requantize: accumulator must be rank 2 (M, N), got shape [6]");
}

}  // namespace
}  // namespace tpu::golden
