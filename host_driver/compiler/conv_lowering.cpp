// Im2Col, Conv2dAsDense and LowerConv2d of compiler/layers.h: host-side im2col onto LowerDense,
// or the MATMUL sliding window (compiler/conv_window_lowering.h), as LoweringOptions::conv says.
#include <cstddef>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "compiler/conv_window_lowering.h"
#include "compiler/dense_images.h"
#include "compiler/layers.h"
#include "golden/format.h"
#include "golden/padding.h"

namespace tpu::compiler {

golden::Tensor<int8_t> Im2Col(const golden::Tensor<int8_t>& input, int64_t kernel_h,
                              int64_t kernel_w, const golden::Conv2dParams& params) {
  input.CheckRank("im2col: input", 4, "NHWC");
  const int32_t zp = params.input_zero_point;
  if (zp < -128 || zp > 127) {
    throw std::invalid_argument("im2col: input zero point " + std::to_string(zp) +
                                " outside int8 range [-128, 127]");
  }
  const int64_t batch = input.shape[0], in_h = input.shape[1], in_w = input.shape[2];
  const int64_t in_c = input.shape[3];
  const golden::PaddedAxis rows = golden::ComputePaddedAxis(params.padding, in_h, kernel_h,
                                                            params.stride_h, "im2col", "height");
  const golden::PaddedAxis cols = golden::ComputePaddedAxis(params.padding, in_w, kernel_w,
                                                            params.stride_w, "im2col", "width");
  const int64_t k = kernel_h * kernel_w * in_c;
  golden::Tensor<int8_t> out({batch * rows.out_size * cols.out_size, k});
  int8_t* row = out.data.data();
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy = 0; oy < rows.out_size; ++oy) {
      for (int64_t ox = 0; ox < cols.out_size; ++ox, row += k) {
        for (int64_t ky = 0; ky < kernel_h; ++ky) {
          const int64_t iy = oy * params.stride_h - rows.pad_before + ky;
          for (int64_t kx = 0; kx < kernel_w; ++kx) {
            const int64_t ix = ox * params.stride_w - cols.pad_before + kx;
            int8_t* dst = row + (ky * kernel_w + kx) * in_c;
            if (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w) {
              const int8_t* src = input.data.data() + ((b * in_h + iy) * in_w + ix) * in_c;
              std::memcpy(dst, src, static_cast<std::size_t>(in_c));
            } else {
              std::memset(dst, static_cast<int8_t>(zp), static_cast<std::size_t>(in_c));
            }
          }
        }
      }
    }
  }
  return out;
}

DenseLayer Conv2dAsDense(const Conv2dLayer& layer) {
  const golden::Tensor<int8_t>& w = layer.weights;
  if (w.shape.size() != 4) {
    throw std::invalid_argument("conv2d: weights must be (KH, KW, Cin, Cout) (HWIO), got " +
                                golden::ShapeToString(w.shape));
  }
  DenseLayer dense;
  // HWIO row-major is already (KH * KW * Cin, Cout) with rows in (ky, kx, c) order.
  dense.weights = golden::Tensor<int8_t>({w.shape[0] * w.shape[1] * w.shape[2], w.shape[3]});
  if (w.data.size() == dense.weights.data.size()) dense.weights.data = w.data;
  dense.bias = layer.bias;
  dense.input_zero_point = layer.params.input_zero_point;
  dense.requant = layer.requant;
  return dense;
}

namespace {

DenseProgram LowerConv2dIm2col(const golden::Tensor<int8_t>& input, const Conv2dLayer& layer,
                               const isa::DeviceLimits& limits, const HostRegion& region,
                               const LoweringOptions& options) {
  const std::string what = "conv2d";
  if (options.input_in_ub) {
    throw std::invalid_argument(what +
                                ": an input already in the UB (input_in_ub) needs the sliding "
                                "window lowering; host im2col reads the input from the host");
  }
  const int64_t kh = layer.weights.shape[0], kw = layer.weights.shape[1];
  const golden::PaddedAxis rows = golden::ComputePaddedAxis(
      layer.params.padding, input.shape[1], kh, layer.params.stride_h, what, "height");
  const golden::PaddedAxis cols = golden::ComputePaddedAxis(
      layer.params.padding, input.shape[2], kw, layer.params.stride_w, what, "width");
  DenseProgram program;
  try {
    program = LowerDense(Im2Col(input, kh, kw, layer.params), Conv2dAsDense(layer), limits,
                         region, options);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(what + " (a dense layer over im2col rows): " + e.what());
  }
  if (options.output_ub && !program.ub_output) {
    throw std::invalid_argument(what + ": the dense lowering under im2col did not leave the "
                                "output in the UB (output_ub); use the sliding window lowering");
  }
  program.output_shape = {input.shape[0], rows.out_size, cols.out_size, layer.weights.shape[3]};
  program.lowering = "conv im2col";
  return program;
}

}  // namespace

DenseProgram LowerConv2d(const golden::Tensor<int8_t>& input, const Conv2dLayer& layer,
                         const isa::DeviceLimits& limits, const HostRegion& region,
                         const LoweringOptions& options) {
  const std::string what = "conv2d";
  CheckConv2dLayer(layer, what);
  input.CheckRank(what + ": input", 4, "NHWC");
  const int64_t in_c = layer.weights.shape[2];
  if (input.shape[0] < 1 || input.shape[1] < 1 || input.shape[2] < 1 ||
      input.shape[3] != in_c) {
    throw std::invalid_argument(what + ": input must be (B, H, W, Cin) with B, H, W >= 1 and Cin = " +
                                std::to_string(in_c) + ", got " +
                                golden::ShapeToString(input.shape));
  }
  switch (options.conv) {
    case ConvLowering::kWindow:
      return LowerConv2dWindow(input, layer, limits, region, options);
    case ConvLowering::kIm2col:
      return LowerConv2dIm2col(input, layer, limits, region, options);
    case ConvLowering::kAuto:
      break;
  }
  // kAuto: the window when it fits, takes no more MXU rows than im2col and moves fewer PCIe
  // bytes (a resident input needs the window). Per output pixel and tile the window passes
  // KH * KW * ceil(Cin / N) rows, im2col ceil(KH * KW * Cin / N): equal when N divides Cin, 12.5
  // times more by the window for a 5 x 5 kernel over one channel at N = 16.
  std::optional<DenseProgram> window;
  std::string window_error;
  try {
    window = LowerConv2dWindow(input, layer, limits, region, options);
  } catch (const std::invalid_argument& e) {
    window_error = e.what();
  }
  if (options.input_in_ub) {
    if (!window) throw std::invalid_argument(window_error);
    return std::move(*window);
  }
  if (!window) return LowerConv2dIm2col(input, layer, limits, region, options);
  DenseProgram im2col;
  try {
    im2col = LowerConv2dIm2col(input, layer, limits, region, options);
  } catch (const std::invalid_argument&) {
    return std::move(*window);
  }
  const auto& s = layer.weights.shape;  // (KH, KW, Cin, Cout)
  const int64_t window_taps = s[0] * s[1] * CeilDiv(s[2], limits.n);
  const int64_t im2col_taps = CeilDiv(s[0] * s[1] * s[2], limits.n);
  if (window_taps <= im2col_taps &&
      ProgramPcieBytes(*window).total() < ProgramPcieBytes(im2col).total()) {
    return std::move(*window);
  }
  return im2col;
}

}  // namespace tpu::compiler
