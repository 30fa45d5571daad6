// int8 x int8 -> int32 matrix multiply, the operation the MXU performs.
#ifndef TPU_GOLDEN_GEMM_H_
#define TPU_GOLDEN_GEMM_H_

#include <cstdint>
#include <vector>

#include "golden/tensor.h"

namespace tpu::golden {

// C = A x B with A of shape (M, K) and B of shape (K, N) (the Keras Dense kernel layout), both
// row-major int8. C is (M, N) int32, accumulated with two's-complement wraparound exactly like
// the 32-bit accumulators, so long reductions that overflow still match the hardware bit for bit.
Tensor<int32_t> Gemm(const Tensor<int8_t>& a, const Tensor<int8_t>& b);

// As above, then adds bias[n] to every element of column n (with the same wraparound).
// `bias` must hold N values.
Tensor<int32_t> Gemm(const Tensor<int8_t>& a, const Tensor<int8_t>& b,
                     const std::vector<int32_t>& bias);

// Adds bias[n] to column n of the (rows, N) matrix `acc` in place, wrapping in int32. An empty
// `bias` means no bias. Shared by every kernel that ends in an accumulator matrix.
void AddColumnBias(Tensor<int32_t>& acc, const std::vector<int32_t>& bias, const char* op);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_GEMM_H_
