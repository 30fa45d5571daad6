// Lowering of the other layer types to device programs (issue 6): convolution, pooling and
// element-wise activation, each returning a DenseProgram (instructions, host images, where the
// result lands) that ExtractLayerOutput reads back in the layer's own output shape.
//
//   tpu::compiler::Conv2dLayer conv{weights_hwio, bias, {1, 1, golden::Padding::kSame, zx}, rq};
//   tpu::compiler::DenseProgram p = tpu::compiler::LowerConv2d(x_nhwc, conv, limits, region);
//   ... place p.images, run p.instrs ...
//   golden::Tensor<int8_t> y = tpu::compiler::ExtractLayerOutput(p, reader);  // (B, OH, OW, Cout)
//
// Conv2d is lowered as LoweringOptions::conv says: by the MATMUL sliding window over the input
// resident in the UB (compiler/conv_window_lowering.h: input, weights and output cross PCIe once),
// or by host-side im2col (each output pixel's KH x KW x Cin window, padded with the input zero
// point, becomes one row of a dense layer's input) onto LowerDense, so the input crosses PCIe
// KH*KW/(stride_h*stride_w) times over; kAuto takes the window when the layer fits it and it
// moves fewer PCIe bytes. DenseProgram::lowering says which ("conv window" / "conv im2col"). Pooling and
// activation layers pass the input through the MXU with identity weight tiles (x * I = x in the
// accumulators) and let ACTIVATE do the work: an identity requantization (M0 = 2^30, shift 1:
// exact), then the clamp, the LUT or the pooling window. Both use one identity tile for every
// channel tile (compiler/identity_lowering.h: per channel tile and group of whole images or
// rows, or band of an image's output lines, READ_HOST -> MATMUL -> ACTIVATE -> WRITE_HOST,
// double buffered), so their input and output cross PCIe once (bands re-read the input lines
// their windows share with the next band).
#ifndef TPU_COMPILER_LAYERS_H_
#define TPU_COMPILER_LAYERS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/dense_layer.h"
#include "compiler/dense_lowering.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"
#include "isa/isa_gen.h"

namespace tpu::compiler {

// A quantized Conv2D as golden::Conv2d takes it.
struct Conv2dLayer {
  golden::Tensor<int8_t> weights;  // (KH, KW, Cin, Cout), the Keras Conv2D kernel layout
  std::vector<int32_t> bias;       // Cout values, or empty
  golden::Conv2dParams params;     // strides, SAME/VALID, input zero point (the padding value)
  golden::RequantParams requant;   // 1 or Cout multipliers, output zero point, clamp bounds
};

enum class PoolKind { kMax, kAvg };

// Max or average pooling as golden::MaxPool2d / AvgPool2d take it (the clamp in params applies
// to the pooled value).
struct PoolLayer {
  PoolKind kind = PoolKind::kMax;
  golden::Pool2dParams params;
};

// An element-wise activation on int8 values: the clamp [act_min, act_max] (ReLU/ReLU6 in the
// quantized domain), then the lookup table if one is given (golden::ApplyLut convention: entry
// i holds f(i - 128)).
struct ActivationLayer {
  int32_t act_min = -128;
  int32_t act_max = 127;
  std::optional<golden::Lut> lut;
};

// Throw std::invalid_argument, prefixed with `what`, naming the first inconsistent parameter
// (shapes, strides, windows beyond the ISA's limits: windows <= 15, convolution strides <= 7,
// pooling strides <= 3, clamp bounds).
void CheckConv2dLayer(const Conv2dLayer& layer, const std::string& what);
void CheckPoolLayer(const PoolLayer& layer, const std::string& what);
void CheckActivationLayer(const ActivationLayer& layer, const std::string& what);

// (B, H, W, Cin) -> (B * OH * OW, KH * KW * Cin): row (b, oy, ox) holds the window of output
// pixel (oy, ox) in (ky, kx, c) order, positions outside the input set to the zero point.
golden::Tensor<int8_t> Im2Col(const golden::Tensor<int8_t>& input, int64_t kernel_h,
                              int64_t kernel_w, const golden::Conv2dParams& params);
// The conv layer as a dense layer over Im2Col rows: weights reshaped to (KH * KW * Cin, Cout).
DenseLayer Conv2dAsDense(const Conv2dLayer& layer);

// Every Lower* throws std::invalid_argument with a clear message when the layer is
// inconsistent, the input does not match it, or the shape cannot be lowered for `limits`.
// LowerPool and LowerActivation honour LoweringOptions::input_in_ub (a UbTensor of the input
// viewed as (rows, C)) and output_ub (compiler/identity_lowering.h); LowerDense honours both too
// (an (M, K) resident input, or a flattened batch with C a multiple of N); LowerConv2d
// takes a resident input only through the window lowering.
// The program's output (DenseOutput) has m = output pixels (or rows) and channels = the
// output's last dimension; `output_shape` records the layer's output shape.
DenseProgram LowerConv2d(const golden::Tensor<int8_t>& input, const Conv2dLayer& layer,
                         const isa::DeviceLimits& limits, const HostRegion& region,
                         const LoweringOptions& options = {});
// input (B, H, W, C) -> (B, OH, OW, C), W <= 255 (the ACTIVATE image_w field). An image that
// fits the accumulators (H * W <= ACC_ROWS and <= 4095, H <= 255) is pooled whole, a group of
// images at a time. A larger (or taller) image is pooled in bands of output lines [oy0, oy1) per
// image and channel tile, each band's input lines (read from the host by one READ_HOST of that
// band, or resident) in one accumulator region, pooled by ACTIVATE as a VALID image of those
// lines: VALID pooling multiplies the lines [oy0 * SH, (oy1 - 1) * SH + KH) as they are; SAME
// max pooling builds the band's padded sub-image (W + pad_left + pad_right wide, at most 255)
// with a window MATMUL feeding -128 outside the image, which never wins a max after the clamp.
// SAME average pooling of such an image throws (a band cannot exclude the padding from the
// mean), as does a band of one output line that does not fit the accumulators or whose buffers
// do not fit the UB window. ACTIVATE clamps every element before it pools,
// which equals golden's clamp of the pooled value for max pooling but not for the mean: an
// average pool whose clamp is narrower than [-128, 127] pools unclamped and then runs a second
// identity pass (the clamp) over the pooled values, read back from host memory after a
// `SYNC units=all` (its PCIe bytes: the pooled output twice more).
DenseProgram LowerPool(const golden::Tensor<int8_t>& input, const PoolLayer& layer,
                       const isa::DeviceLimits& limits, const HostRegion& region,
                       const LoweringOptions& options = {});
// input of any rank >= 1, the last dimension being the channels -> the same shape. The table,
// if any, is loaded with READ_HOST target=lut before the parameters.
DenseProgram LowerActivation(const golden::Tensor<int8_t>& input, const ActivationLayer& layer,
                             const isa::DeviceLimits& limits, const HostRegion& region,
                             const LoweringOptions& options = {});

// The result of a program from the functions above (or LowerDense) in its layer's output shape
// (program.output_shape; for LowerDense (M, N)).
golden::Tensor<int8_t> ExtractLayerOutput(const DenseProgram& program, const HostReader& read);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_LAYERS_H_
