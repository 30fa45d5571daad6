// Fully connected layer with TFLite int8 semantics; Keras Dense kernel layout (K, N).
#ifndef TPU_GOLDEN_DENSE_H_
#define TPU_GOLDEN_DENSE_H_

#include <cstdint>
#include <vector>

#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::golden {

// acc[m, n] = sum over k of (x[m, k] - input_zero_point) * w[k, n], wrapping in int32. Computed
// directly rather than through Gemm so that it independently checks the driver's trick of folding
// the zero point into the bias. Input (M, K), weights (K, N), result (M, N).
Tensor<int32_t> DenseAccumulate(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                                int32_t input_zero_point);

// DenseAccumulate, + bias[n] (empty = no bias), then requantization and the clamp in `requant`.
Tensor<int8_t> Dense(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                     const std::vector<int32_t>& bias, int32_t input_zero_point,
                     const RequantParams& requant);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_DENSE_H_
