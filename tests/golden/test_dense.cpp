#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "expect_error.h"
#include "golden/dense.h"
#include "golden/gemm.h"

namespace tpu::golden {
namespace {

constexpr int32_t kHalf = int32_t{1} << 30;  // 0.5 in Q0.31

// x = [[1, 2, 3], [-1, 0, 5]] with zero point 1, so x - zp = [[0, 1, 2], [-2, -1, 4]].
// w = [[1, -1], [2, 0], [3, 1]] (K = 3, N = 2).
Tensor<int8_t> Input() { return Tensor<int8_t>({2, 3}, {1, 2, 3, -1, 0, 5}); }
Tensor<int8_t> Weights() { return Tensor<int8_t>({3, 2}, {1, -1, 2, 0, 3, 1}); }
constexpr int32_t kZp = 1;

TEST(Dense, AccumulateHandComputed) {
  // row 0: [0*1 + 1*2 + 2*3, 0*-1 + 1*0 + 2*1] = [8, 2]
  // row 1: [-2*1 - 1*2 + 4*3, -2*-1 - 1*0 + 4*1] = [8, 6]
  const Tensor<int32_t> acc = DenseAccumulate(Input(), Weights(), kZp);
  EXPECT_EQ(acc.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(acc.data, (std::vector<int32_t>{8, 2, 8, 6}));
}

TEST(Dense, ZeroPointFoldsIntoBias) {
  // What the driver does: sum (x - zp) w = sum x w - zp * colsum(w). Column sums of w: [6, 0].
  // Raw Gemm = [[14, 2], [14, 6]]; minus 1 * [6, 0] gives the accumulators above.
  const Tensor<int32_t> folded = Gemm(Input(), Weights(), {-kZp * 6, -kZp * 0});
  EXPECT_EQ(folded.data, DenseAccumulate(Input(), Weights(), kZp).data);
}

TEST(Dense, FullLayer) {
  // (acc + bias) with bias [1, -3]: [[9, -1], [9, 3]]; * 0.5 (SRDHM ties toward +infinity):
  // 4.5 -> 5, -0.5 -> 0, 5, 1.5 -> 2; + zp_out 100 = [[105, 100], [105, 102]]; ReLU-style clamp
  // [100, 104] gives [[104, 100], [104, 102]].
  const Tensor<int8_t> out = Dense(Input(), Weights(), {1, -3}, kZp, {{{kHalf, 0}}, 100, 100, 104});
  EXPECT_EQ(out.data, (std::vector<int8_t>{104, 100, 104, 102}));
}

TEST(Dense, ShapeErrors) {
  ExpectInvalidArgument(
      [] {
        DenseAccumulate(Input(), Tensor<int8_t>({2, 2}), 0);
      },
      "dense: weights rows 2 != input features 3");
  ExpectInvalidArgument([] { DenseAccumulate(Tensor<int8_t>({6}), Weights(), 0); },
                        "dense: input must be rank 2 (M, K), got shape [6]");
  ExpectInvalidArgument([] { DenseAccumulate(Input(), Weights(), -129); },
                        "dense: input zero point -129 outside int8 range");
  ExpectInvalidArgument(
      [] {
        Dense(Input(), Weights(), {1}, 0, {{{kHalf, 0}}, 0});
      },
      "dense: bias length 1 != output features 2");
}

}  // namespace
}  // namespace tpu::golden
