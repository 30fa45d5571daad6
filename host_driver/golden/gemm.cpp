#include "golden/gemm.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "golden/int32_wrap.h"

namespace tpu::golden {

Tensor<int32_t> Gemm(const Tensor<int8_t>& a, const Tensor<int8_t>& b) {
  a.CheckRank("gemm: A", 2, "(M, K)");
  b.CheckRank("gemm: B", 2, "(K, N)");
  const int64_t m = a.shape[0];
  const int64_t k = a.shape[1];
  const int64_t n = b.shape[1];
  if (b.shape[0] != k) {
    throw std::invalid_argument("gemm: B rows " + std::to_string(b.shape[0]) +
                                " != A columns (K) " + std::to_string(k));
  }
  Tensor<int32_t> c({m, n});
  // One uint32 accumulator row per output row: unsigned arithmetic wraps by definition, and
  // walking B row by row keeps the inner loop contiguous.
  std::vector<uint32_t> row(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0u);
    for (int64_t kk = 0; kk < k; ++kk) {
      const int32_t lhs = a.data[static_cast<std::size_t>(i * k + kk)];
      const int8_t* rhs = b.data.data() + kk * n;  // not &data[]: N may be 0
      for (int64_t j = 0; j < n; ++j) {
        // |int8 * int8| <= 2^14, so the product itself is exact; only the sum can wrap.
        row[static_cast<std::size_t>(j)] += static_cast<uint32_t>(lhs * rhs[j]);
      }
    }
    for (int64_t j = 0; j < n; ++j) {
      c.data[static_cast<std::size_t>(i * n + j)] = BitsToInt32(row[static_cast<std::size_t>(j)]);
    }
  }
  return c;
}

Tensor<int32_t> Gemm(const Tensor<int8_t>& a, const Tensor<int8_t>& b,
                     const std::vector<int32_t>& bias) {
  Tensor<int32_t> c = Gemm(a, b);
  if (bias.size() != static_cast<std::size_t>(c.shape[1])) {
    throw std::invalid_argument("gemm: bias length " + std::to_string(bias.size()) + " != N " +
                                std::to_string(c.shape[1]));
  }
  AddColumnBias(c, bias, "gemm");
  return c;
}

void AddColumnBias(Tensor<int32_t>& acc, const std::vector<int32_t>& bias, const char* op) {
  acc.CheckRank(std::string(op) + ": accumulator", 2, "(rows, N)");
  if (bias.empty()) return;
  const auto n = static_cast<std::size_t>(acc.shape[1]);
  if (bias.size() != n) {
    throw std::invalid_argument(std::string(op) + ": bias length " + std::to_string(bias.size()) +
                                " != output channels " + std::to_string(n));
  }
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    acc.data[i] = WrapAdd(acc.data[i], bias[i % n]);
  }
}

}  // namespace tpu::golden
