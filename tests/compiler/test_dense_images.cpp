// The host images of a dense layer (compiler/dense_images.h): weight tiles, parameter sets with
// the input zero point folded into the bias, and K-tile slices, on small hand-checked cases.
#include <gtest/gtest.h>

#include "compiler/dense_images.h"
#include "model/activate.h"

namespace tpu::compiler {
namespace {

TEST(DenseImages, WeightTilesAreOutputTileMajorAndZeroPadded) {
  // K = 3, Nout = 3 at N = 2: 2 k tiles x 2 output tiles, W[k][c] = 10 k + c.
  golden::Tensor<int8_t> w({3, 3});
  for (int k = 0; k < 3; ++k) {
    for (int c = 0; c < 3; ++c) w.At({k, c}) = static_cast<int8_t>(10 * k + c);
  }
  const std::vector<uint8_t> image = WeightTileImage(w, 2);
  ASSERT_EQ(image.size(), 16u);
  // Tile 0 (j 0, k 0): rows k = 0, 1, columns 0, 1.
  EXPECT_EQ((std::vector<uint8_t>(image.begin(), image.begin() + 4)),
            (std::vector<uint8_t>{0, 1, 10, 11}));
  // Tile 1 (j 0, k 1): row k = 2, then a zero row.
  EXPECT_EQ((std::vector<uint8_t>(image.begin() + 4, image.begin() + 8)),
            (std::vector<uint8_t>{20, 21, 0, 0}));
  // Tile 2 (j 1, k 0): column 2, zero column 3.
  EXPECT_EQ((std::vector<uint8_t>(image.begin() + 8, image.begin() + 12)),
            (std::vector<uint8_t>{2, 0, 12, 0}));
  // Tile 3 (j 1, k 1).
  EXPECT_EQ((std::vector<uint8_t>(image.begin() + 12, image.end())),
            (std::vector<uint8_t>{22, 0, 0, 0}));
}

TEST(DenseImages, ParamSetsFoldTheInputZeroPoint) {
  DenseLayer layer;
  layer.weights = golden::Tensor<int8_t>({2, 3}, {1, -2, 3, 4, 5, -6});
  layer.bias = {100, 200, 300};
  layer.input_zero_point = -7;
  layer.requant.multipliers = {{1 << 30, -3}, {1 << 29, 2}, {0x7fffffff, -31}};
  const std::vector<uint8_t> image = ParamSetImage(layer, 2);
  ASSERT_EQ(image.size(), 36u);
  const model::ParamSet set0 = model::DecodeParamSet(image.data(), 2);
  const model::ParamSet set1 = model::DecodeParamSet(image.data() + 18, 2);
  // bias' = bias + 7 * column sum: 100 + 7 * 5, 200 + 7 * 3, 300 + 7 * -3.
  EXPECT_EQ(set0.bias, (std::vector<int32_t>{135, 221}));
  EXPECT_EQ(set1.bias, (std::vector<int32_t>{279, 0}));
  EXPECT_EQ(set0.multiplier, (std::vector<int32_t>{1 << 30, 1 << 29}));
  EXPECT_EQ(set1.multiplier, (std::vector<int32_t>{0x7fffffff, 0}));
  EXPECT_EQ(set0.shift, (std::vector<int8_t>{-3, 2}));
  EXPECT_EQ(set1.shift, (std::vector<int8_t>{-31, 0}));
  // Per-tensor: replicated into every real channel.
  layer.requant.multipliers = {{1 << 30, -5}};
  layer.bias.clear();
  const std::vector<uint8_t> per_tensor = ParamSetImage(layer, 2);
  const model::ParamSet p1 = model::DecodeParamSet(per_tensor.data() + 18, 2);
  EXPECT_EQ(p1.multiplier, (std::vector<int32_t>{1 << 30, 0}));
  EXPECT_EQ(p1.shift, (std::vector<int8_t>{-5, 0}));
  EXPECT_EQ(p1.bias, (std::vector<int32_t>{-21, 0}));
}

TEST(DenseImages, FoldedBiasWrapsLikeTheAccumulators) {
  DenseLayer layer;
  layer.weights = golden::Tensor<int8_t>({1, 1}, {-128});
  layer.bias = {2147483647};
  layer.input_zero_point = -128;
  layer.requant.multipliers = {{1 << 30, 0}};
  const model::ParamSet set = model::DecodeParamSet(ParamSetImage(layer, 2).data(), 2);
  // INT32_MAX + (-128 * 128) ... = INT32_MAX - 16384, and one more case through the wrap.
  EXPECT_EQ(set.bias[0], 2147483647 - 16384);
  layer.input_zero_point = 127;
  const model::ParamSet wrapped = model::DecodeParamSet(ParamSetImage(layer, 2).data(), 2);
  EXPECT_EQ(wrapped.bias[0], static_cast<int32_t>(-2147483648LL + 16256 - 1));
}

TEST(DenseImages, SlicesHoldMRowsPerKTile) {
  golden::Tensor<int8_t> x({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(SliceImage(x, 2), (std::vector<uint8_t>{1, 2, 4, 5, 3, 0, 6, 0}));
}

}  // namespace
}  // namespace tpu::compiler
