#include "golden/dense.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden/int32_wrap.h"

namespace tpu::golden {

Tensor<int32_t> DenseAccumulate(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                                int32_t input_zero_point) {
  input.CheckRank("dense: input", 2, "(M, K)");
  weights.CheckRank("dense: weights", 2, "(K, N)");
  const int64_t m = input.shape[0];
  const int64_t k = input.shape[1];
  const int64_t n = weights.shape[1];
  if (weights.shape[0] != k) {
    throw std::invalid_argument("dense: weights rows " + std::to_string(weights.shape[0]) +
                                " != input features " + std::to_string(k));
  }
  if (input_zero_point < -128 || input_zero_point > 127) {
    throw std::invalid_argument("dense: input zero point " + std::to_string(input_zero_point) +
                                " outside int8 range [-128, 127]");
  }
  Tensor<int32_t> out({m, n});
  // Row by row, each input element times a whole row of weights (contiguous, so the inner
  // loop vectorizes); sums modulo 2^32 do not depend on the order of the terms.
  std::vector<uint32_t> acc(static_cast<std::size_t>(n));  // unsigned: overflow wraps
  for (int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), 0u);
    for (int64_t kk = 0; kk < k; ++kk) {
      const int32_t x_centered =
          input.data[static_cast<std::size_t>(i * k + kk)] - input_zero_point;  // in [-255, 255]
      const int8_t* w = weights.data.data() + static_cast<std::size_t>(kk * n);
      for (int64_t j = 0; j < n; ++j) {
        acc[static_cast<std::size_t>(j)] += static_cast<uint32_t>(x_centered * w[j]);
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      out.data[static_cast<std::size_t>(i * n + j)] = BitsToInt32(acc[static_cast<std::size_t>(j)]);
    }
  }
  return out;
}

Tensor<int8_t> Dense(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                     const std::vector<int32_t>& bias, int32_t input_zero_point,
                     const RequantParams& requant) {
  const Tensor<int32_t> acc = DenseAccumulate(input, weights, input_zero_point);
  if (!bias.empty() && static_cast<int64_t>(bias.size()) != acc.shape[1]) {
    throw std::invalid_argument("dense: bias length " + std::to_string(bias.size()) +
                                " != output features " + std::to_string(acc.shape[1]));
  }
  return RequantizeMatrix(acc, bias, requant);
}

}  // namespace tpu::golden
