#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "expect_error.h"
#include "golden/tensor.h"

namespace tpu::golden {
namespace {

TEST(Tensor, ShapeConstructorZeroFills) {
  Tensor<int32_t> t({2, 3, 4});
  EXPECT_EQ(t.NumElements(), 24);
  EXPECT_EQ(t.rank(), 3u);
  ASSERT_EQ(t.data.size(), 24u);
  for (int32_t v : t.data) EXPECT_EQ(v, 0);
}

TEST(Tensor, ScalarAndEmptyShapes) {
  EXPECT_EQ(Tensor<int8_t>(std::vector<int64_t>{}).NumElements(), 1);  // rank 0: one element
  EXPECT_EQ(Tensor<int8_t>({3, 0, 2}).NumElements(), 0);
}

TEST(Tensor, OffsetIsRowMajor) {
  Tensor<int8_t> t({2, 3, 4});
  // (i, j, k) -> (i * 3 + j) * 4 + k
  EXPECT_EQ(t.Offset({0, 0, 0}), 0);
  EXPECT_EQ(t.Offset({0, 0, 3}), 3);
  EXPECT_EQ(t.Offset({0, 1, 0}), 4);
  EXPECT_EQ(t.Offset({1, 2, 3}), 23);  // (1 * 3 + 2) * 4 + 3
  t.At({1, 0, 2}) = 7;
  EXPECT_EQ(t.data[14], 7);  // (1 * 3 + 0) * 4 + 2
}

TEST(Tensor, OffsetChecksBoundsAndRank) {
  const Tensor<int8_t> t({2, 3});
  EXPECT_THROW(t.Offset({2, 0}), std::out_of_range);
  EXPECT_THROW(t.Offset({0, -1}), std::out_of_range);
  EXPECT_THROW(t.Offset({0}), std::out_of_range);
}

TEST(Tensor, DataConstructorChecksSize) {
  const Tensor<int8_t> ok({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(ok.At({1, 0}), 3);
  ExpectInvalidArgument(
      [] {
        Tensor<int8_t>({2, 2}, {1, 2, 3});
      },
      "shape [2, 2] needs 4 elements, buffer holds 3");
}

TEST(Tensor, RejectsNegativeDimension) {
  ExpectInvalidArgument([] { Tensor<int8_t>({2, -1}); }, "negative dimension in shape [2, -1]");
}

TEST(Tensor, CheckRankNamesTheTensor) {
  const Tensor<int8_t> t({1, 2});
  ExpectInvalidArgument([&] { t.CheckRank("conv2d: input", 4, "NHWC"); },
                        "conv2d: input must be rank 4 NHWC, got shape [1, 2]");
  Tensor<int8_t> broken({2, 2});
  broken.data.pop_back();  // the fields are public, so a caller can break the invariant
  ExpectInvalidArgument([&] { broken.CheckRank("gemm: A", 2, "(M, K)"); },
                        "gemm: A: shape [2, 2] needs 4 elements, buffer holds 3");
}

TEST(Tensor, ShapeToString) {
  EXPECT_EQ(ShapeToString({}), "[]");
  EXPECT_EQ(ShapeToString({1, 4, 4, 3}), "[1, 4, 4, 3]");
}

}  // namespace
}  // namespace tpu::golden
