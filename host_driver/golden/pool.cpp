#include "golden/pool.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "golden/activation.h"

namespace tpu::golden {
namespace {

// What both poolings need from one window of one channel.
struct WindowStats {
  int32_t max = -128;
  int64_t sum = 0;  // int64: no window is large enough to overflow it
  int64_t count = 0;
};

// Walks every output position and channel, gathers the statistics of the input elements that the
// window covers (padding excluded), and stores clamp(finish(stats)).
template <typename Finish>
Tensor<int8_t> Pool(const Tensor<int8_t>& input, const Pool2dParams& params, const std::string& op,
                    Finish finish) {
  input.CheckRank(op + ": input", 4, "NHWC");
  CheckClampBounds(op, params.act_min, params.act_max);
  const int64_t batch = input.shape[0];
  const int64_t in_h = input.shape[1];
  const int64_t in_w = input.shape[2];
  const int64_t channels = input.shape[3];
  const PaddedAxis rows =
      ComputePaddedAxis(params.padding, in_h, params.window_h, params.stride_h, op, "height");
  const PaddedAxis cols =
      ComputePaddedAxis(params.padding, in_w, params.window_w, params.stride_w, op, "width");

  Tensor<int8_t> out({batch, rows.out_size, cols.out_size, channels});
  std::size_t out_index = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oy = 0; oy < rows.out_size; ++oy) {
      // The window clipped to the input: [y_begin, y_end) x [x_begin, x_end).
      const int64_t y_origin = oy * params.stride_h - rows.pad_before;
      const int64_t y_begin = std::max<int64_t>(y_origin, 0);
      const int64_t y_end = std::min(y_origin + params.window_h, in_h);
      for (int64_t ox = 0; ox < cols.out_size; ++ox) {
        const int64_t x_origin = ox * params.stride_w - cols.pad_before;
        const int64_t x_begin = std::max<int64_t>(x_origin, 0);
        const int64_t x_end = std::min(x_origin + params.window_w, in_w);
        for (int64_t c = 0; c < channels; ++c) {
          WindowStats stats;
          for (int64_t y = y_begin; y < y_end; ++y) {
            for (int64_t x = x_begin; x < x_end; ++x) {
              const int32_t value =
                  input.data[static_cast<std::size_t>(((n * in_h + y) * in_w + x) * channels + c)];
              stats.max = std::max(stats.max, value);
              stats.sum += value;
              ++stats.count;
            }
          }
          // SAME padding never leaves fewer than one real element under a window, nor does VALID
          // with stride >= 1; an empty window here would be a bug in the padding arithmetic.
          if (stats.count == 0) {
            throw std::logic_error(op + ": empty pooling window at output (" + std::to_string(oy) +
                                   ", " + std::to_string(ox) + ")");
          }
          const int64_t pooled = finish(stats);
          out.data[out_index++] =
              static_cast<int8_t>(std::clamp<int64_t>(pooled, params.act_min, params.act_max));
        }
      }
    }
  }
  return out;
}

}  // namespace

Tensor<int8_t> MaxPool2d(const Tensor<int8_t>& input, const Pool2dParams& params) {
  return Pool(input, params, "max_pool2d", [](const WindowStats& s) -> int64_t { return s.max; });
}

Tensor<int8_t> AvgPool2d(const Tensor<int8_t>& input, const Pool2dParams& params) {
  return Pool(input, params, "avg_pool2d", [](const WindowStats& s) -> int64_t {
    // Integer division truncates toward zero; moving the sum half a count away from zero first
    // turns that into round-to-nearest with ties away from zero.
    return s.sum > 0 ? (s.sum + s.count / 2) / s.count : (s.sum - s.count / 2) / s.count;
  });
}

}  // namespace tpu::golden
