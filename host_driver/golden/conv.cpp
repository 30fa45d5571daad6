#include "golden/conv.h"

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "golden/int32_wrap.h"

namespace tpu::golden {

Tensor<int32_t> Conv2dAccumulate(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                                 const Conv2dParams& params) {
  input.CheckRank("conv2d: input", 4, "NHWC");
  weights.CheckRank("conv2d: weights", 4, "HWIO");
  const int64_t batch = input.shape[0];
  const int64_t in_h = input.shape[1];
  const int64_t in_w = input.shape[2];
  const int64_t in_c = input.shape[3];
  const int64_t k_h = weights.shape[0];
  const int64_t k_w = weights.shape[1];
  const int64_t out_c = weights.shape[3];
  if (weights.shape[2] != in_c) {
    throw std::invalid_argument("conv2d: weights in-channels " + std::to_string(weights.shape[2]) +
                                " != input channels " + std::to_string(in_c));
  }
  const int32_t zp = params.input_zero_point;
  if (zp < -128 || zp > 127) {
    throw std::invalid_argument("conv2d: input zero point " + std::to_string(zp) +
                                " outside int8 range [-128, 127]");
  }
  const PaddedAxis rows =
      ComputePaddedAxis(params.padding, in_h, k_h, params.stride_h, "conv2d", "height");
  const PaddedAxis cols =
      ComputePaddedAxis(params.padding, in_w, k_w, params.stride_w, "conv2d", "width");

  Tensor<int32_t> out({batch, rows.out_size, cols.out_size, out_c});
  // One wrapping accumulator per output channel; HWIO keeps the channel loop contiguous.
  std::vector<uint32_t> acc(static_cast<std::size_t>(out_c));
  int32_t* out_pixel = out.data.data();
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t oy = 0; oy < rows.out_size; ++oy) {
      for (int64_t ox = 0; ox < cols.out_size; ++ox) {
        std::fill(acc.begin(), acc.end(), 0u);
        for (int64_t ky = 0; ky < k_h; ++ky) {
          const int64_t iy = oy * params.stride_h - rows.pad_before + ky;
          for (int64_t kx = 0; kx < k_w; ++kx) {
            const int64_t ix = ox * params.stride_w - cols.pad_before + kx;
            const bool inside = iy >= 0 && iy < in_h && ix >= 0 && ix < in_w;
            // Only form the pointer for real pixels: pointing outside the buffer is undefined.
            const int8_t* in_pixel =
                inside ? input.data.data() + ((n * in_h + iy) * in_w + ix) * in_c : nullptr;
            for (int64_t c = 0; c < in_c; ++c) {
              // Padding reads the input zero point (TensorFlow pads with real 0.0), so a padded
              // tap adds (zp - zp) * w = 0; spelled out so the padding rule stays visible.
              const int32_t x = inside ? in_pixel[c] : zp;
              const int32_t x_centered = x - zp;  // in [-255, 255]: the product cannot overflow
              const int8_t* w = weights.data.data() + ((ky * k_w + kx) * in_c + c) * out_c;
              for (int64_t o = 0; o < out_c; ++o) {
                acc[static_cast<std::size_t>(o)] += static_cast<uint32_t>(x_centered * w[o]);
              }
            }
          }
        }
        for (uint32_t bits : acc) *out_pixel++ = BitsToInt32(bits);
      }
    }
  }
  return out;
}

Tensor<int8_t> Conv2d(const Tensor<int8_t>& input, const Tensor<int8_t>& weights,
                      const std::vector<int32_t>& bias, const Conv2dParams& params,
                      const RequantParams& requant) {
  Tensor<int32_t> acc = Conv2dAccumulate(input, weights, params);
  const std::vector<int64_t> out_shape = acc.shape;
  const int64_t out_c = out_shape[3];
  if (!bias.empty() && static_cast<int64_t>(bias.size()) != out_c) {
    throw std::invalid_argument("conv2d: bias length " + std::to_string(bias.size()) +
                                " != output channels " + std::to_string(out_c));
  }
  // Row-major NHWC is already an (N * OH * OW, OC) matrix; only the shape changes.
  acc.shape = {out_shape[0] * out_shape[1] * out_shape[2], out_c};
  Tensor<int8_t> out = RequantizeMatrix(acc, bias, requant);
  out.shape = out_shape;
  return out;
}

}  // namespace tpu::golden
