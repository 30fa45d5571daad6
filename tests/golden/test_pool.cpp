#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "expect_error.h"
#include "golden/pool.h"

namespace tpu::golden {
namespace {

// 1x3x3x1:
//   [[-1, -2,  3],
//    [ 4, -5,  6],
//    [-7,  8, -9]]
Tensor<int8_t> Input3x3() { return Tensor<int8_t>({1, 3, 3, 1}, {-1, -2, 3, 4, -5, 6, -7, 8, -9}); }

Pool2dParams Window(int64_t h, int64_t w, int64_t stride, Padding padding) {
  Pool2dParams p;
  p.window_h = h;
  p.window_w = w;
  p.stride_h = stride;
  p.stride_w = stride;
  p.padding = padding;
  return p;
}

// A 1 x 1 x count x 1 row, pooled by a 1 x count VALID window into one value.
int8_t AvgOfRow(const std::vector<int8_t>& values) {
  const auto n = static_cast<int64_t>(values.size());
  return AvgPool2d(Tensor<int8_t>({1, 1, n, 1}, values), Window(1, n, 1, Padding::kValid)).data[0];
}

TEST(MaxPool, Valid2x2Stride1) {
  const Tensor<int8_t> out = MaxPool2d(Input3x3(), Window(2, 2, 1, Padding::kValid));
  EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 2, 2, 1}));
  // max{-1,-2,4,-5} = 4, max{-2,3,-5,6} = 6, max{4,-5,-7,8} = 8, max{-5,6,8,-9} = 8
  EXPECT_EQ(out.data, (std::vector<int8_t>{4, 6, 8, 8}));
}

TEST(MaxPool, SameStride2BorderWindowsExcludePadding) {
  // out = ceil(3/2) = 2; pad_total = 2 + 2 - 3 = 1, pad_before = 0: the second window in each
  // direction hangs one position past the end.
  const Tensor<int8_t> out = MaxPool2d(Input3x3(), Window(2, 2, 2, Padding::kSame));
  // (0,0) {-1,-2,4,-5} = 4; (0,1) {3,6} = 6; (1,0) {-7,8} = 8; (1,1) {-9} alone = -9
  // (padding counted as 0 or as the zero point would make the last one 0).
  EXPECT_EQ(out.data, (std::vector<int8_t>{4, 6, 8, -9}));
}

TEST(MaxPool, SameAllNegativeIgnoresPadding) {
  // 3x3 SAME over 2x2: pad one each side, every window covers the whole input.
  const Tensor<int8_t> in({1, 2, 2, 1}, {-5, -6, -7, -8});
  EXPECT_EQ(MaxPool2d(in, Window(3, 3, 1, Padding::kSame)).data,
            (std::vector<int8_t>{-5, -5, -5, -5}));
}

TEST(MaxPool, ExtremesAndClamp) {
  const Tensor<int8_t> lows({1, 2, 2, 1}, {-128, -128, -128, -128});
  EXPECT_EQ(MaxPool2d(lows, Window(2, 2, 2, Padding::kValid)).data[0], -128);
  // Fused ReLU with zero point -10: max{-50, -20} = -20 -> clamped up to -10.
  Pool2dParams relu = Window(1, 2, 1, Padding::kValid);
  relu.act_min = -10;
  EXPECT_EQ(MaxPool2d(Tensor<int8_t>({1, 1, 2, 1}, {-50, -20}), relu).data[0], -10);
}

TEST(AvgPool, SameStride2DividesByValidCount) {
  const Tensor<int8_t> out = AvgPool2d(Input3x3(), Window(2, 2, 2, Padding::kSame));
  // (0,0) (-1-2+4-5)/4 = -1; (0,1) (3+6)/2 = 4.5 -> 5; (1,0) (-7+8)/2 = 0.5 -> 1; (1,1) -9/1.
  // Dividing by the full window of 4 would give 2, 0 and -2 for the last three.
  EXPECT_EQ(out.data, (std::vector<int8_t>{-1, 5, 1, -9}));
}

TEST(AvgPool, RoundsHalfAwayFromZero) {
  EXPECT_EQ(AvgOfRow({-1, -2}), -2);      // -1.5: (-3 - 1) / 2 = -2
  EXPECT_EQ(AvgOfRow({1, 2}), 2);         //  1.5: (3 + 1) / 2 = 2
  EXPECT_EQ(AvgOfRow({1, -2}), -1);       // -0.5: (-1 - 1) / 2 = -1
  EXPECT_EQ(AvgOfRow({-1, 2}), 1);        //  0.5: (1 + 1) / 2 = 1
  EXPECT_EQ(AvgOfRow({-1, -1, -2}), -1);  // -1.33: (-4 - 1) / 3 = -1
  EXPECT_EQ(AvgOfRow({-1, -2, -2}), -2);  // -1.67: (-5 - 1) / 3 = -2
  EXPECT_EQ(AvgOfRow({0, 0, 0, 0}), 0);   // zero sum takes the (sum - count/2) branch: -2/4 = 0
}

TEST(AvgPool, ExtremesAndClamp) {
  EXPECT_EQ(AvgOfRow({-128, -128, -128, -128}), -128);
  EXPECT_EQ(AvgOfRow({127, 127, 127}), 127);
  Pool2dParams clamp = Window(1, 2, 1, Padding::kValid);
  clamp.act_max = 50;
  EXPECT_EQ(AvgPool2d(Tensor<int8_t>({1, 1, 2, 1}, {100, 120}), clamp).data[0], 50);  // 110
}

TEST(Pool, BatchesAndChannelsAreIndependent) {
  // N = 2, H = 1, W = 2, C = 2; pooled over the whole width.
  const Tensor<int8_t> in({2, 1, 2, 2}, {1, 10, 3, -10,  //
                                         -4, 0, -6, 1});
  const Pool2dParams p = Window(1, 2, 1, Padding::kValid);
  const Tensor<int8_t> max = MaxPool2d(in, p);
  EXPECT_EQ(max.shape, (std::vector<int64_t>{2, 1, 1, 2}));
  EXPECT_EQ(max.data, (std::vector<int8_t>{3, 10, -4, 1}));
  // (1+3)/2 = 2; (10-10)/2 = 0; (-4-6)/2 = -5; (0+1)/2 = 0.5 -> 1
  EXPECT_EQ(AvgPool2d(in, p).data, (std::vector<int8_t>{2, 0, -5, 1}));
}

TEST(Pool, Errors) {
  ExpectInvalidArgument(
      [] {
        MaxPool2d(Tensor<int8_t>({3, 3, 1}), Pool2dParams{});
      },
      "max_pool2d: input must be rank 4 NHWC, got shape [3, 3, 1]");
  ExpectInvalidArgument([] { AvgPool2d(Input3x3(), Window(4, 1, 1, Padding::kValid)); },
                        "avg_pool2d: VALID padding needs input height 3 >= window height 4");
  ExpectInvalidArgument([] { AvgPool2d(Input3x3(), Window(2, 2, 0, Padding::kSame)); },
                        "avg_pool2d: stride height 0 must be >= 1");
  Pool2dParams bad_clamp;
  bad_clamp.act_min = 20;
  bad_clamp.act_max = 10;
  ExpectInvalidArgument([&] { MaxPool2d(Input3x3(), bad_clamp); },
                        "max_pool2d: act_min 20 > act_max 10");
}

}  // namespace
}  // namespace tpu::golden
