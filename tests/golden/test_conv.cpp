#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "expect_error.h"
#include "golden/conv.h"
#include "golden/dense.h"

namespace tpu::golden {
namespace {

constexpr int32_t kHalf = int32_t{1} << 30;  // 0.5 in Q0.31

// 1x3x3x1 input x = [[1,2,3],[4,5,6],[7,8,9]] with zero point 2, so x - zp is
//   [[-1, 0, 1],
//    [ 2, 3, 4],
//    [ 5, 6, 7]].
Tensor<int8_t> Input3x3() { return Tensor<int8_t>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }
constexpr int32_t kInputZp = 2;

// 3x3x1x1 weights w[ky][kx] = [[1,2,3],[4,5,6],[7,8,9]] (no flip: conv2d is a correlation).
Tensor<int8_t> Weights123() { return Tensor<int8_t>({3, 3, 1, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}); }

TEST(Conv2d, Same3x3Stride1PadsWithZeroPoint) {
  // All-ones 3x3 kernel: each output is the sum of (x - zp) over the window. SAME pads one row
  // and column on each side; padded taps read zp, so they add (zp - zp) * 1 = 0. (Padding with 0
  // instead would add (0 - 2) per padded tap: -10 at a corner.)
  const Tensor<int8_t> ones({3, 3, 1, 1}, std::vector<int8_t>(9, 1));
  const Tensor<int32_t> acc = Conv2dAccumulate(Input3x3(), ones, {1, 1, Padding::kSame, kInputZp});
  EXPECT_EQ(acc.shape, (std::vector<int64_t>{1, 3, 3, 1}));
  // (0,0): -1+0+2+3 = 4            (0,1): -1+0+1+2+3+4 = 9      (0,2): 0+1+3+4 = 8
  // (1,0): -1+0+2+3+5+6 = 15       (1,1): all nine = 27         (1,2): 0+1+3+4+6+7 = 21
  // (2,0): 2+3+5+6 = 16            (2,1): 2+3+4+5+6+7 = 27      (2,2): 3+4+6+7 = 20
  EXPECT_EQ(acc.data, (std::vector<int32_t>{4, 9, 8, 15, 27, 21, 16, 27, 20}));
}

TEST(Conv2d, Same3x3Stride1KernelOrientation) {
  const Tensor<int32_t> acc =
      Conv2dAccumulate(Input3x3(), Weights123(), {1, 1, Padding::kSame, kInputZp});
  // Centre: sum of (x - zp) * w elementwise
  //   = -1*1 + 0*2 + 1*3 + 2*4 + 3*5 + 4*6 + 5*7 + 6*8 + 7*9 = 195.
  EXPECT_EQ(acc.At({0, 1, 1, 0}), 195);
  // Top-left: the window starts at (-1, -1); taps w[1..2][1..2] see x[0..1][0..1]:
  //   -1*5 + 0*6 + 2*8 + 3*9 = 38.
  EXPECT_EQ(acc.At({0, 0, 0, 0}), 38);
}

TEST(Conv2d, Same3x3Stride2) {
  // out = ceil(3/2) = 2; pad_total = (2-1)*2 + 3 - 3 = 2; pad_before = 1. Window origins -1, 1.
  const Tensor<int32_t> acc =
      Conv2dAccumulate(Input3x3(), Weights123(), {2, 2, Padding::kSame, kInputZp});
  EXPECT_EQ(acc.shape, (std::vector<int64_t>{1, 2, 2, 1}));
  // (0,0) origin (-1,-1): -1*5 + 0*6 + 2*8 + 3*9 = 38
  // (0,1) origin (-1, 1): x[0][1]*w[1][0] + x[0][2]*w[1][1] + x[1][1]*w[2][0] + x[1][2]*w[2][1]
  //                       = 0*4 + 1*5 + 3*7 + 4*8 = 58
  // (1,0) origin ( 1,-1): x[1][0]*w[0][1] + x[1][1]*w[0][2] + x[2][0]*w[1][1] + x[2][1]*w[1][2]
  //                       = 2*2 + 3*3 + 5*5 + 6*6 = 74
  // (1,1) origin ( 1, 1): x[1][1]*w[0][0] + x[1][2]*w[0][1] + x[2][1]*w[1][0] + x[2][2]*w[1][1]
  //                       = 3*1 + 4*2 + 6*4 + 7*5 = 70
  EXPECT_EQ(acc.data, (std::vector<int32_t>{38, 58, 74, 70}));
}

TEST(Conv2d, Valid2x2) {
  const Tensor<int8_t> w({2, 2, 1, 1}, {1, 2, 3, 4});
  const Tensor<int32_t> acc = Conv2dAccumulate(Input3x3(), w, {1, 1, Padding::kValid, kInputZp});
  EXPECT_EQ(acc.shape, (std::vector<int64_t>{1, 2, 2, 1}));
  // (0,0): -1*1 + 0*2 + 2*3 + 3*4 = 17     (0,1): 0*1 + 1*2 + 3*3 + 4*4 = 27
  // (1,0):  2*1 + 3*2 + 5*3 + 6*4 = 47     (1,1): 3*1 + 4*2 + 6*3 + 7*4 = 57
  EXPECT_EQ(acc.data, (std::vector<int32_t>{17, 27, 47, 57}));
}

TEST(Conv2d, ChannelsFollowHwio) {
  // One pixel with channels {3, 5}; 1x1 weights w[c][o] = [[1, 2], [10, 20]].
  const Tensor<int8_t> in({1, 1, 1, 2}, {3, 5});
  const Tensor<int8_t> w({1, 1, 2, 2}, {1, 2, 10, 20});
  // o0 = 3*1 + 5*10 = 53; o1 = 3*2 + 5*20 = 106.
  EXPECT_EQ(Conv2dAccumulate(in, w, {}).data, (std::vector<int32_t>{53, 106}));
}

TEST(Conv2d, ExtremeZeroPoints) {
  const Tensor<int8_t> ones({3, 3, 1, 1}, std::vector<int8_t>(9, 1));
  // Input all -128 with zp -128 is real 0 everywhere, SAME padding included.
  const Tensor<int8_t> low({1, 3, 3, 1}, std::vector<int8_t>(9, -128));
  for (int32_t v : Conv2dAccumulate(low, ones, {1, 1, Padding::kSame, -128}).data) EXPECT_EQ(v, 0);
  // Input all 127 with zp 127, likewise.
  const Tensor<int8_t> high({1, 3, 3, 1}, std::vector<int8_t>(9, 127));
  for (int32_t v : Conv2dAccumulate(high, ones, {1, 1, Padding::kSame, 127}).data) EXPECT_EQ(v, 0);
  // x - zp = -128 - 127 = -255 does not fit int8; times w = -128 it is 32640 per tap, 9 taps.
  const Tensor<int8_t> w({3, 3, 1, 1}, std::vector<int8_t>(9, -128));
  EXPECT_EQ(Conv2dAccumulate(low, w, {1, 1, Padding::kValid, 127}).data,
            (std::vector<int32_t>{9 * 32640}));
}

TEST(Conv2d, PerChannelRequant) {
  // Two output channels: all-ones and all-minus-ones kernels, so the accumulators are the
  // Same3x3Stride1PadsWithZeroPoint values and their negatives.
  std::vector<int8_t> w_data;
  for (int tap = 0; tap < 9; ++tap) w_data.insert(w_data.end(), {1, -1});
  const Tensor<int8_t> w({3, 3, 1, 2}, w_data);
  // Channel 0: (acc + 3) * 0.5; channel 1: (acc + 0) * 0.25; then zero point -10.
  const RequantParams requant{{{kHalf, 0}, {kHalf, -1}}, -10, -128, 127};
  const Tensor<int8_t> out =
      Conv2d(Input3x3(), w, {3, 0}, {1, 1, Padding::kSame, kInputZp}, requant);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 3, 3, 2}));
  // Channel 0, acc + 3 = 7 12 11 18 30 24 19 30 23; * 0.5 with SRDHM rounding half up:
  //   4 6 6 9 15 12 10 15 12; - 10 = -6 -4 -4 -1 5 2 0 5 2.
  // Channel 1, acc = -4 -9 -8 -15 -27 -21 -16 -27 -20. SRDHM(acc, 0.5) rounds ties toward
  //   +infinity: -2 -4 -4 -7 -13 -10 -8 -13 -10; RoundingDivideByPOT(., 1) rounds ties away from
  //   zero: -1 -2 -2 -4 -7 -5 -4 -7 -5; - 10 = -11 -12 -12 -14 -17 -15 -14 -17 -15.
  EXPECT_EQ(out.data, (std::vector<int8_t>{-6, -11, -4, -12, -4, -12,  // output row 0
                                           -1, -14, 5, -17, 2, -15,    // output row 1
                                           0, -14, 5, -17, 2, -15}));  // output row 2
}

TEST(Conv2d, OneByOneKernelEqualsDense) {
  // A 1x1 VALID convolution is a dense layer applied to every pixel. Deterministic pseudo-random
  // data (a 32-bit LCG) covers the full int8 range.
  uint32_t state = 12345;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return static_cast<int8_t>(static_cast<int32_t>(state >> 24) - 128);
  };
  Tensor<int8_t> in({2, 2, 3, 4});
  for (int8_t& v : in.data) v = next();
  Tensor<int8_t> w({1, 1, 4, 5});
  for (int8_t& v : w.data) v = next();
  const std::vector<int32_t> bias = {-1000, 0, 77, 5000, -3};
  RequantParams requant{{}, -7, -100, 120};
  for (double scale : {0.002, 0.004, 0.0031, 0.0005, 0.01}) {
    requant.multipliers.push_back(QuantizeMultiplier(scale));
  }
  const int32_t zp = -19;

  const Tensor<int8_t> conv = Conv2d(in, w, bias, {1, 1, Padding::kValid, zp}, requant);
  const Tensor<int8_t> dense =
      Dense(Tensor<int8_t>({12, 4}, in.data), Tensor<int8_t>({4, 5}, w.data), bias, zp, requant);
  EXPECT_EQ(conv.shape, (std::vector<int64_t>{2, 2, 3, 5}));
  EXPECT_EQ(conv.data, dense.data);
  // Guard against a vacuous pass: the outputs are not all one value.
  EXPECT_NE(*std::min_element(conv.data.begin(), conv.data.end()),
            *std::max_element(conv.data.begin(), conv.data.end()));
}

TEST(Conv2d, ShapeErrors) {
  const Tensor<int8_t> in({1, 4, 4, 4});
  ExpectInvalidArgument(
      [&] {
        Conv2dAccumulate(in, Tensor<int8_t>({3, 3, 3, 8}), {});
      },
      "conv2d: weights in-channels 3 != input channels 4");
  ExpectInvalidArgument(
      [&] {
        Conv2dAccumulate(Tensor<int8_t>({4, 4, 4}), Weights123(), {});
      },
      "conv2d: input must be rank 4 NHWC, got shape [4, 4, 4]");
  ExpectInvalidArgument(
      [&] {
        Conv2dAccumulate(in, Tensor<int8_t>({3, 3, 4}), {});
      },
      "conv2d: weights must be rank 4 HWIO, got shape [3, 3, 4]");
  ExpectInvalidArgument(
      [&] {
        Conv2dAccumulate(in, Tensor<int8_t>({5, 1, 4, 1}), {});
      },
      "conv2d: VALID padding needs input height 4 >= window height 5");
  ExpectInvalidArgument(
      [&] {
        Conv2dAccumulate(in, Tensor<int8_t>({1, 1, 4, 1}), {1, 0, Padding::kSame, 0});
      },
      "conv2d: stride width 0 must be >= 1");
  ExpectInvalidArgument(
      [&] {
        Conv2dAccumulate(in, Tensor<int8_t>({1, 1, 4, 1}), {1, 1, Padding::kSame, 200});
      },
      "conv2d: input zero point 200 outside int8 range");
  ExpectInvalidArgument(
      [&] {
        Conv2d(in, Tensor<int8_t>({1, 1, 4, 2}), {1, 2, 3}, {}, {{{kHalf, 0}}, 0});
      },
      "conv2d: bias length 3 != output channels 2");
}

}  // namespace
}  // namespace tpu::golden
