#include "golden/padding.h"

#include <algorithm>
#include <stdexcept>

namespace tpu::golden {

PaddedAxis ComputePaddedAxis(Padding padding, int64_t in_size, int64_t window, int64_t stride,
                             const std::string& op, const std::string& axis) {
  if (window < 1) {
    throw std::invalid_argument(op + ": window " + axis + " " + std::to_string(window) +
                                " must be >= 1");
  }
  if (stride < 1) {
    throw std::invalid_argument(op + ": stride " + axis + " " + std::to_string(stride) +
                                " must be >= 1");
  }
  PaddedAxis result;
  if (padding == Padding::kValid) {
    if (in_size < window) {
      throw std::invalid_argument(op + ": VALID padding needs input " + axis + " " +
                                  std::to_string(in_size) + " >= window " + axis + " " +
                                  std::to_string(window));
    }
    result.out_size = (in_size - window) / stride + 1;
    return result;
  }
  result.out_size = (in_size + stride - 1) / stride;
  const int64_t pad_total = std::max<int64_t>((result.out_size - 1) * stride + window - in_size, 0);
  result.pad_before = pad_total / 2;
  return result;
}

}  // namespace tpu::golden
