// TensorFlow's SAME / VALID padding arithmetic for one spatial axis, shared by conv and pooling.
#ifndef TPU_GOLDEN_PADDING_H_
#define TPU_GOLDEN_PADDING_H_

#include <cstdint>
#include <string>

namespace tpu::golden {

enum class Padding { kValid, kSame };

struct PaddedAxis {
  int64_t out_size = 0;    // output positions along the axis
  int64_t pad_before = 0;  // virtual input positions before index 0 (the rest go after the end)
};

// VALID: out = (in - window) / stride + 1, no padding; requires in >= window.
// SAME:  out = ceil(in / stride), pad_total = max((out - 1) * stride + window - in, 0),
//        pad_before = pad_total / 2 (an odd total puts the extra position after the end).
// `op` and `axis` ("conv2d", "height") only name things in the std::invalid_argument thrown for a
// window or stride below 1 or a VALID window larger than the input.
PaddedAxis ComputePaddedAxis(Padding padding, int64_t in_size, int64_t window, int64_t stride,
                             const std::string& op, const std::string& axis);

}  // namespace tpu::golden

#endif  // TPU_GOLDEN_PADDING_H_
