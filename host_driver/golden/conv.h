// 2-D convolution with TFLite int8 semantics: NHWC activations, HWIO weights (the Keras Conv2D
// kernel layout), symmetric weights (zero point 0) and an asymmetric input.
#ifndef TPU_GOLDEN_CONV_H_
#define TPU_GOLDEN_CONV_H_

#include <cstdint>
#include <vector>

#include "golden/padding.h"
#include "golden/requant.h"
#include "golden/tensor.h"

namespace tpu::golden {

struct Conv2dParams {
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  Padding padding = Padding::kValid;
  int32_t input_zero_point = 0;  // int8; padded positions hold this value (real 0.0)
};

// Raw accumulators, shape (N, OH, OW, OC):
//   acc[n, oy, ox, o] = sum over ky, kx, c of (x[n, iy, ix, c] - input_zero_point) * w[ky, kx, c,
//   o]
// with iy = oy * stride_h - pad_top + ky (likewise ix), x = input_zero_point outside the input,
// and the sum wrapping in int32 like the hardware accumulators. No bias.
Tensor<int32_t> Conv2dAccumulate(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                                 const Conv2dParams& params);

// The full quantized layer: Conv2dAccumulate, + bias[o] (empty = no bias), then requantization
// (per tensor or per output channel) and the activation clamp in `requant`. Shape (N, OH, OW, OC).
Tensor<int8_t> Conv2d(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                      const std::vector<int32_t>& bias, const Conv2dParams& params,
                      const RequantParams& requant);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_CONV_H_
