#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "expect_error.h"
#include "golden/activation.h"

namespace tpu::golden {
namespace {

void ExpectRange(const ActivationRange& range, int32_t min, int32_t max) {
  EXPECT_EQ(range.min, min);
  EXPECT_EQ(range.max, max);
}

// ---- Activation ranges ---------------------------------------------------------------------

TEST(ActivationRange, NoneIsFullInt8) {
  ExpectRange(QuantizedActivationRange(Activation::kNone, 0.1f, 10), -128, 127);
}

TEST(ActivationRange, ReluStartsAtZeroPoint) {
  ExpectRange(QuantizedActivationRange(Activation::kRelu, 0.1f, 10), 10, 127);
  ExpectRange(QuantizedActivationRange(Activation::kRelu, 0.1f, -128), -128, 127);
  ExpectRange(QuantizedActivationRange(Activation::kRelu, 0.1f, 127), 127, 127);
}

TEST(ActivationRange, Relu6) {
  // 6 / 0.1 = 60: [0, 0 + 60].
  ExpectRange(QuantizedActivationRange(Activation::kRelu6, 0.1f, 0), 0, 60);
  // 6 / (1/32) = 192: [-100, -100 + 192 = 92].
  ExpectRange(QuantizedActivationRange(Activation::kRelu6, 0.03125f, -100), -100, 92);
  // The usual ReLU6 output quantization, scale 6/255 and zero point -128: 6 maps to exactly 127.
  ExpectRange(QuantizedActivationRange(Activation::kRelu6, 6.0f / 255.0f, -128), -128, 127);
  // 6 / 0.01 = 600 is far beyond int8: the upper bound saturates at 127.
  ExpectRange(QuantizedActivationRange(Activation::kRelu6, 0.01f, -128), -128, 127);
  // Zero point at the top: the range collapses to the single code 127.
  ExpectRange(QuantizedActivationRange(Activation::kRelu6, 0.05f, 127), 127, 127);
  // 6 / 1e-30 does not fit in int32 at all; still just saturates.
  ExpectRange(QuantizedActivationRange(Activation::kRelu6, 1e-30f, 0), 0, 127);
}

TEST(ActivationRange, ReluN1To1) {
  // +-1 / 0.5 = +-2 around the zero point.
  ExpectRange(QuantizedActivationRange(Activation::kReluN1To1, 0.5f, 0), -2, 2);
  ExpectRange(QuantizedActivationRange(Activation::kReluN1To1, 0.5f, 3), 1, 5);
}

TEST(ActivationRange, RejectsBadQuantization) {
  ExpectInvalidArgument([] { QuantizedActivationRange(Activation::kRelu, 0.0f, 0); },
                        "output_scale 0 must be finite and > 0");
  ExpectInvalidArgument([] { QuantizedActivationRange(Activation::kRelu, -1.0f, 0); },
                        "output_scale -1 must be finite and > 0");
  ExpectInvalidArgument([] { QuantizedActivationRange(Activation::kRelu, 0.1f, 128); },
                        "output zero point 128 outside int8 range");
}

TEST(ActivationRange, CheckClampBounds) {
  CheckClampBounds("op", -128, 127);
  CheckClampBounds("op", 5, 5);
  ExpectInvalidArgument([] { CheckClampBounds("op", 6, 5); }, "op: act_min 6 > act_max 5");
  ExpectInvalidArgument([] { CheckClampBounds("op", 0, 128); }, "clamp bound 128 outside int8");
}

// ---- Lookup tables -------------------------------------------------------------------------

TEST(Lut, IndexIsInputPlus128) {
  EXPECT_EQ(LutIndex(-128), 0u);
  EXPECT_EQ(LutIndex(-1), 127u);
  EXPECT_EQ(LutIndex(0), 128u);
  EXPECT_EQ(LutIndex(127), 255u);
}

TEST(Lut, ApplyReadsEntryXPlus128) {
  Lut lut{};
  lut[0] = 55;     // output for x = -128
  lut[128] = -7;   // output for x = 0
  lut[255] = 100;  // output for x = 127
  lut[127] = 1;    // output for x = -1 (entry 255 under TFLite's uint8_t(x) indexing)
  EXPECT_EQ(ApplyLut(-128, lut), 55);
  EXPECT_EQ(ApplyLut(0, lut), -7);
  EXPECT_EQ(ApplyLut(127, lut), 100);
  EXPECT_EQ(ApplyLut(-1, lut), 1);
  EXPECT_EQ(ApplyLut(1, lut), 0);
}

TEST(Lut, ApplyToTensorKeepsShape) {
  Lut negate{};
  for (int x = -128; x <= 127; ++x) {
    negate[LutIndex(static_cast<int8_t>(x))] = static_cast<int8_t>(x == -128 ? 127 : -x);
  }
  const Tensor<int8_t> in({1, 2, 2}, {-128, -5, 0, 127});
  const Tensor<int8_t> out = ApplyLut(in, negate);
  EXPECT_EQ(out.shape, in.shape);
  EXPECT_EQ(out.data, (std::vector<int8_t>{127, 5, 0, -127}));
}

TEST(Lut, BuildIdentity) {
  const Lut lut = BuildLut([](float x) { return x; }, 1.0f, 0, 1.0f, 0);
  for (std::size_t i = 0; i < lut.size(); ++i) {
    EXPECT_EQ(lut[i], static_cast<int>(i) - 128) << "entry " << i;
  }
}

TEST(Lut, BuildAppliesBothQuantizations) {
  // y = x with input (scale 0.5, zp 10) and output (scale 0.25, zp -5):
  // code = round(0.5 * (x - 10) / 0.25) - 5 = 2 * (x - 10) - 5, clamped.
  const Lut lut = BuildLut([](float x) { return x; }, 0.5f, 10, 0.25f, -5);
  EXPECT_EQ(ApplyLut(10, lut), -5);      // real 0
  EXPECT_EQ(ApplyLut(11, lut), -3);      // real 0.5 -> 2 steps
  EXPECT_EQ(ApplyLut(20, lut), 15);      // real 5 -> 20 steps
  EXPECT_EQ(ApplyLut(0, lut), -25);      // real -5 -> -20 steps
  EXPECT_EQ(ApplyLut(-128, lut), -128);  // real -69 -> -276 - 5 = -281, clamped
  EXPECT_EQ(ApplyLut(127, lut), 127);    // real 58.5 -> 234 - 5 = 229, clamped
}

TEST(Lut, BuildRoundsTiesAwayFromZero) {
  // Output scale 2: x / 2 lands exactly on halves for odd x.
  const Lut lut = BuildLut([](float x) { return x; }, 1.0f, 0, 2.0f, 0);
  EXPECT_EQ(ApplyLut(1, lut), 1);    // 0.5 -> 1
  EXPECT_EQ(ApplyLut(-1, lut), -1);  // -0.5 -> -1
  EXPECT_EQ(ApplyLut(3, lut), 2);    // 1.5 -> 2
  EXPECT_EQ(ApplyLut(-3, lut), -2);
  EXPECT_EQ(ApplyLut(5, lut), 3);  // 2.5 -> 3 (not 2: no round-half-even)
  EXPECT_EQ(ApplyLut(-5, lut), -3);
}

TEST(Lut, Sigmoid) {
  // Input scale 1/16, zp 0; TFLite's fixed sigmoid output quantization: scale 1/256, zp -128.
  const Lut lut = BuildLut([](float x) { return 1.0f / (1.0f + std::exp(-x)); }, 1.0f / 16, 0,
                           1.0f / 256, -128);
  EXPECT_EQ(ApplyLut(0, lut), 0);        // 0.5 * 256 = 128 -> 0
  EXPECT_EQ(ApplyLut(16, lut), 59);      // sigmoid(1) * 256 = 187.15 -> 187 -> 59
  EXPECT_EQ(ApplyLut(-16, lut), -59);    // sigmoid(-1) * 256 = 68.85 -> 69 -> -59
  EXPECT_EQ(ApplyLut(8, lut), 31);       // sigmoid(0.5) * 256 = 159.35 -> 159 -> 31
  EXPECT_EQ(ApplyLut(127, lut), 127);    // sigmoid(7.94) * 256 = 255.91 -> 256 -> 128, clamped
  EXPECT_EQ(ApplyLut(-128, lut), -128);  // sigmoid(-8) * 256 = 0.086 -> 0 -> -128
}

TEST(Lut, Tanh) {
  // Input scale 1/32, output scale 1/128, both zp 0.
  const Lut lut = BuildLut([](float x) { return std::tanh(x); }, 1.0f / 32, 0, 1.0f / 128, 0);
  EXPECT_EQ(ApplyLut(0, lut), 0);
  EXPECT_EQ(ApplyLut(32, lut), 97);  // tanh(1) * 128 = 97.48
  EXPECT_EQ(ApplyLut(-32, lut), -97);
  EXPECT_EQ(ApplyLut(16, lut), 59);      // tanh(0.5) * 128 = 59.15
  EXPECT_EQ(ApplyLut(127, lut), 127);    // tanh(3.97) * 128 = 127.91 -> 128, clamped
  EXPECT_EQ(ApplyLut(-128, lut), -128);  // tanh(-4) * 128 = -127.91 -> -128
}

TEST(Lut, BuildSaturatesInfinity) {
  const Lut lut = BuildLut([](float x) { return x > 0 ? INFINITY : -INFINITY; }, 1.0f, 0, 1.0f, 0);
  EXPECT_EQ(ApplyLut(1, lut), 127);
  EXPECT_EQ(ApplyLut(0, lut), -128);
}

TEST(Lut, BuildRejectsBadArguments) {
  auto identity = [](float x) { return x; };
  ExpectInvalidArgument([&] { BuildLut(identity, 0.0f, 0, 1.0f, 0); }, "lut: input_scale 0");
  ExpectInvalidArgument([&] { BuildLut(identity, 1.0f, 0, 1.0f, -129); },
                        "lut: output zero point -129 outside int8 range");
  ExpectInvalidArgument(
      [] { BuildLut([](float) { return std::numeric_limits<float>::quiet_NaN(); }, 1, 0, 1, 0); },
      "lut: function returned NaN for input code -128");
}

}  // namespace
}  // namespace tpu::golden
