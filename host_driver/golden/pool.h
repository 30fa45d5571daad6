// Max and average pooling over NHWC int8 tensors with TFLite reference semantics.
#ifndef TPU_GOLDEN_POOL_H_
#define TPU_GOLDEN_POOL_H_

#include <cstdint>

#include "golden/padding.h"
#include "golden/tensor.h"

namespace tpu::golden {

struct Pool2dParams {
  int64_t window_h = 1;
  int64_t window_w = 1;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  Padding padding = Padding::kValid;
  int32_t act_min = -128;  // fused activation clamp, applied to the pooled value
  int32_t act_max = 127;
};

// Each channel separately: the largest element in the window, then clamped to
// [act_min, act_max]. With SAME padding the padded positions are not part of the window at all
// (they are not treated as -128 or as the zero point). Output (N, OH, OW, C).
Tensor<int8_t> MaxPool2d(const Tensor<int8_t>& input, const Pool2dParams& params);

// The mean of the elements inside the input (padded positions excluded from both the sum and the
// count), rounded half away from zero exactly as TFLite's integer reference:
//   sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count   (C++ truncating division)
// then clamped to [act_min, act_max]. Output (N, OH, OW, C).
Tensor<int8_t> AvgPool2d(const Tensor<int8_t>& input, const Pool2dParams& params);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_POOL_H_
