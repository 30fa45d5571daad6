// Conv2d by the MATMUL sliding window (docs/isa.md MATMUL, window=1): no host-side im2col, so
// the input crosses PCIe once, as ceil(Cin / N) channel-tile slices of B * H * W rows in the UB
// (the UbTensor layout: slice ct of image b is an H x W image from row in_ub + ct * B*H*W +
// b * H*W), or not at all when it is already there (LoweringOptions::input_in_ub).
//
// The weights are a dense (KH * KW * Cpad, Cout) matrix, Cpad = ceil(Cin / N) * N with zero
// rows for the padding channels, so weight K-tile kt = (ky * KW + kx) * ctiles + ct is kernel
// tap (ky, kx) of channel tile ct; the parameter sets fold the input zero point into the bias as
// the dense lowering does (taps in the padding read pad_value = the input zero point, so they
// cancel exactly like golden's zero-point padding).
//
// The output is computed in chunks: bands of whole output lines of one image (lines * OW <=
// ACC_ROWS / 2, one accumulator region). Step s = chunk i * n_tiles + output tile j: in the
// first band, for 64 KiB of weights or more (dense_plan.h StreamWeights), the READ_HOST of
// output tile s + 1's weights into DRAM (so the weight upload overlaps the MATMULs instead of
// preceding them), the READ_WEIGHTS of step s + 1 (KH * KW *
// ctiles tiles), then KH * KW * ctiles window MATMULs
// into accumulator region s % 2 (overwrite, then accumulate) with
//   y0 = oy0 * stride_h + ky - pad_top, x0 = kx - pad_left (TensorFlow SAME: pad_top =
//   floor(total / 2)), ub = slice ct of image b,
// then ACTIVATE of step s - 1 (requantization, clamp) into UB output buffer (s - 1) % 2 and its
// WRITE_HOST to output slice j; or, with LoweringOptions::output_ub, ACTIVATE straight into the
// resident output's slice j rows (nothing is written to the host). Tokens as in dense_emit.h
// (t0 input, t1 weights, t2 params, t3/t4 region full/free, t5/t6 output buffer full/free), so
// the MXU keeps streaming while the other region drains.
#ifndef TPU_COMPILER_CONV_WINDOW_LOWERING_H_
#define TPU_COMPILER_CONV_WINDOW_LOWERING_H_

#include <cstdint>

#include "compiler/dense_lowering.h"
#include "compiler/layers.h"
#include "golden/tensor.h"
#include "isa/isa_gen.h"

namespace tpu::compiler {

// The window lowering of `layer` over `input` (B, H, W, Cin). Throws std::invalid_argument,
// prefixed with "conv2d (sliding window)", naming the limit the layer exceeds: H, W, OW <= 255
// (the MATMUL image_h / image_w / out_w fields), strides <= 7, x0 in [-16, 15] (left padding
// and kernel width), y0 in [-512, 511], an output line of OW pixels in one accumulator region,
// the input slices (+ two output buffers) in the UB window, DRAM tiles, parameter sets, the
// host region; or when input_in_ub / output_ub do not match the layer or overlap.
// Sets lowering = "conv window" and output_shape = (B, OH, OW, Cout).
DenseProgram LowerConv2dWindow(const golden::Tensor<int8_t>& input, const Conv2dLayer& layer,
                               const isa::DeviceLimits& limits, const HostRegion& region,
                               const LoweringOptions& options = {});

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_CONV_WINDOW_LOWERING_H_
