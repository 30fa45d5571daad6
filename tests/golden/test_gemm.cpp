#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "expect_error.h"
#include "golden/gemm.h"

namespace tpu::golden {
namespace {

TEST(Gemm, SmallHandComputed) {
  const Tensor<int8_t> a({2, 3}, {1, -2, 3,  //
                                  -4, 5, -6});
  const Tensor<int8_t> b({3, 2}, {7, 8,   //
                                  9, 10,  //
                                  11, 12});
  // c00 = 1*7 - 2*9 + 3*11   = 7 - 18 + 33   = 22
  // c01 = 1*8 - 2*10 + 3*12  = 8 - 20 + 36   = 24
  // c10 = -4*7 + 5*9 - 6*11  = -28 + 45 - 66 = -49
  // c11 = -4*8 + 5*10 - 6*12 = -32 + 50 - 72 = -54
  const Tensor<int32_t> c = Gemm(a, b);
  EXPECT_EQ(c.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(c.data, (std::vector<int32_t>{22, 24, -49, -54}));
}

TEST(Gemm, BiasPerColumn) {
  const Tensor<int8_t> a({2, 3}, {1, -2, 3, -4, 5, -6});
  const Tensor<int8_t> b({3, 2}, {7, 8, 9, 10, 11, 12});
  // The SmallHandComputed result plus {100, -1000} on every row.
  const Tensor<int32_t> c = Gemm(a, b, {100, -1000});
  EXPECT_EQ(c.data, (std::vector<int32_t>{122, -976, 51, -1054}));
}

TEST(Gemm, IdentityReturnsA) {
  const Tensor<int8_t> a({2, 3}, {-128, 127, 0, 5, -6, 7});
  const Tensor<int8_t> eye({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  EXPECT_EQ(Gemm(a, eye).data, (std::vector<int32_t>{-128, 127, 0, 5, -6, 7}));
}

TEST(Gemm, ExtremeProductsSummedOverK) {
  // (-128) * (-128) = 16384 = 2^14 per term; (-128) * 127 = -16256.
  constexpr int64_t kK = 4096;
  const Tensor<int8_t> a({1, kK}, std::vector<int8_t>(kK, -128));
  Tensor<int8_t> b({kK, 2});
  for (int64_t k = 0; k < kK; ++k) {
    b.At({k, 0}) = -128;
    b.At({k, 1}) = 127;
  }
  const Tensor<int32_t> c = Gemm(a, b);
  EXPECT_EQ(c.data[0], 4096 * 16384);   // 2^26 = 67108864
  EXPECT_EQ(c.data[1], 4096 * -16256);  // -66584576
}

TEST(Gemm, AccumulatorWrapsLikeInt32Hardware) {
  // 2^17 terms of 2^14 sum to 2^31, which a 32-bit accumulator holds as INT32_MIN; one more term
  // gives INT32_MIN + 16384.
  constexpr int64_t kK = (int64_t{1} << 17) + 1;
  const Tensor<int8_t> a({1, kK}, std::vector<int8_t>(kK, -128));
  Tensor<int8_t> b({kK, 2}, std::vector<int8_t>(2 * kK, -128));
  b.At({kK - 1, 1}) = 0;  // column 1 stops at exactly 2^17 terms
  const Tensor<int32_t> c = Gemm(a, b);
  EXPECT_EQ(c.data[0], std::numeric_limits<int32_t>::min() + 16384);
  EXPECT_EQ(c.data[1], std::numeric_limits<int32_t>::min());
}

TEST(Gemm, ZeroSizedDimensions) {
  // K = 0: an empty sum, every output is 0 (or the bias).
  const Tensor<int32_t> k0 = Gemm(Tensor<int8_t>({2, 0}), Tensor<int8_t>({0, 3}), {1, 2, 3});
  EXPECT_EQ(k0.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(k0.data, (std::vector<int32_t>{1, 2, 3, 1, 2, 3}));
  // M = 0 and N = 0 give empty results of the right shape.
  const Tensor<int32_t> m0 = Gemm(Tensor<int8_t>({0, 4}), Tensor<int8_t>({4, 3}));
  EXPECT_EQ(m0.shape, (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(m0.data.empty());
  const Tensor<int32_t> n0 = Gemm(Tensor<int8_t>({2, 4}), Tensor<int8_t>({4, 0}));
  EXPECT_EQ(n0.shape, (std::vector<int64_t>{2, 0}));
  EXPECT_TRUE(n0.data.empty());
}

TEST(Gemm, ColumnBiasWraps) {
  Tensor<int32_t> acc({1, 2}, {std::numeric_limits<int32_t>::max(), 0});
  AddColumnBias(acc, {1, -1}, "test");
  EXPECT_EQ(acc.data, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), -1}));
}

TEST(Gemm, ShapeErrors) {
  ExpectInvalidArgument(
      [] {
        Gemm(Tensor<int8_t>({2, 3}), Tensor<int8_t>({2, 3}));
      },
      "gemm: B rows 2 != A columns (K) 3");
  ExpectInvalidArgument(
      [] {
        Gemm(Tensor<int8_t>({2, 3, 1}), Tensor<int8_t>({3, 3}));
      },
      "gemm: A must be rank 2 (M, K), got shape [2, 3, 1]");
  ExpectInvalidArgument(
      [] {
        Gemm(Tensor<int8_t>({2, 3}), Tensor<int8_t>({3, 4}), {1, 2});
      },
      "gemm: bias length 2 != N 4");
}

}  // namespace
}  // namespace tpu::golden
