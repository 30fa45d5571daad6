// LowerPool and LowerActivation of compiler/layers.h, both on the identity pass
// (compiler/identity_lowering.h): the MXU copies the input into the accumulators through one
// identity tile and ACTIVATE pools, clamps or looks up.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "compiler/dense_images.h"
#include "compiler/field_limits.h"
#include "compiler/identity_lowering.h"
#include "compiler/layers.h"
#include "golden/format.h"
#include "golden/padding.h"
#include "isa/validate.h"

namespace tpu::compiler {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// The bands of output lines of an image too large for the accumulators (or taller than 255
// lines), the same for every image and channel tile: band [oy0, oy1) covers input lines
// [oy0 * SH - pad_top, (oy1 - 1) * SH - pad_top + KH) and ACTIVATE pools them as a
// lines x padded_w image with VALID padding: exactly the band's outputs.
// VALID (max and avg): padded_w = W, the lines are consecutive rows of the slice (a plain
// MATMUL). SAME (max only): padded_w = (OW - 1) * SW + KW (W + pad_left + pad_right, or less
// than W when SAME pads nothing and the last columns are in no window); a window MATMUL
// (stride 1, x0 = -pad_left, out_w = padded_w, pad_value -128) over the band's lines inside the
// image builds the padded sub-image; -128 never wins a max after the clamp (clamp_min >= -128,
// and pool layers use no LUT), every window holding at least one image pixel.
std::vector<IdentityBand> PoolBands(int64_t batch, int64_t h, int64_t w,
                                    const golden::Pool2dParams& p,
                                    const golden::PaddedAxis& rows,
                                    const golden::PaddedAxis& cols,
                                    const isa::DeviceLimits& limits,
                                    const LoweringOptions& options, const std::string& what,
                                    isa::Activate& act) {
  const bool same = p.padding == golden::Padding::kSame;
  const int64_t oh = rows.out_size, ow = cols.out_size;
  const int64_t padded_w = same ? (ow - 1) * p.stride_w + p.window_w : w;
  const int64_t pad_left = same ? cols.pad_before : 0;
  const int64_t pad_top = same ? rows.pad_before : 0;
  if (padded_w > kMaxImageSide) {
    throw std::invalid_argument(what + ": padded image width " + Str(padded_w) +
                                " is larger than " + Str(kMaxImageSide) +
                                " (the MATMUL out_w and ACTIVATE image_w fields)");
  }
  // Lines per band: the accumulator rows in a region (two when one output line fits half of
  // them), the ACTIVATE fields and two input and two output buffers in the UB window.
  auto in_lines = [&](int64_t lines) { return (lines - 1) * p.stride_h + p.window_h; };
  const int64_t acc_limit = std::min<int64_t>(limits.acc_rows, kActivateMaxRows);
  const int64_t one_line = in_lines(1) * padded_w;
  if (one_line > acc_limit) {
    throw std::invalid_argument(
        what + ": one output line's band (" + Str(in_lines(1)) + " input lines of " +
        Str(padded_w) + " pixels) needs " + Str(one_line) + " accumulator rows, more than " +
        Str(acc_limit) + " (ACC_ROWS = " + Str(limits.acc_rows) + ", ACTIVATE rows <= " +
        Str(kActivateMaxRows) + ")");
  }
  int64_t acc_cap = one_line <= limits.acc_rows / 2 ? limits.acc_rows / 2 : limits.acc_rows;
  acc_cap = std::min(acc_cap, kActivateMaxRows);
  if (options.max_chunk_rows > 0) acc_cap = std::min(acc_cap, options.max_chunk_rows);
  const int64_t ub_end = options.ub_end < 0 ? limits.ub_rows : options.ub_end;
  const int64_t window = ub_end - options.ub_begin;
  const bool in_host = !options.input_in_ub, out_host = !options.output_ub;
  auto fits = [&](int64_t lines) {
    const int64_t buffers = 2 * ((in_host ? std::min(in_lines(lines), h) * w : 0) +
                                 (out_host ? lines * ow : 0));
    return in_lines(lines) <= kMaxImageSide &&
           (lines == 1 || in_lines(lines) * padded_w <= acc_cap) && buffers <= window;
  };
  int64_t lines = 0;
  while (lines < oh && fits(lines + 1)) ++lines;
  if (lines == 0) {
    throw std::invalid_argument(what + ": two input and two output buffers of one output line's "
                                "band do not fit the " + Str(window) + " UB rows of the program");
  }
  const int64_t bands = CeilDiv(oh, lines);
  lines = CeilDiv(oh, bands);  // even bands, the last possibly shorter

  act.padding = isa::Padding::kValid;
  act.image_w = static_cast<uint32_t>(padded_w);
  std::vector<IdentityBand> result;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oy0 = 0; oy0 < oh; oy0 += lines) {
      const int64_t oy1 = std::min(oh, oy0 + lines);
      const int64_t y0 = oy0 * p.stride_h - pad_top;  // first input line (may be padding)
      const int64_t count = in_lines(oy1 - oy0);
      const int64_t first = std::max<int64_t>(0, y0);  // the lines inside the image
      const int64_t last = std::min(h, y0 + count);
      IdentityBand band;
      band.in_row = b * h * w + first * w;
      band.in_rows = (last - first) * w;
      band.acc_rows = count * padded_w;
      band.out_row = (b * oh + oy0) * ow;
      band.out_rows = (oy1 - oy0) * ow;
      band.image_h = static_cast<uint32_t>(count);
      if (same) {
        isa::Matmul& mm = band.window;
        mm.window = true;
        mm.stride_h = mm.stride_w = 1;
        mm.image_w = static_cast<uint32_t>(w);
        mm.image_h = static_cast<uint32_t>(last - first);
        mm.out_w = static_cast<uint32_t>(padded_w);
        mm.pad_value = -128;
        mm.y0 = static_cast<int32_t>(y0 - first);
        mm.x0 = static_cast<int32_t>(-pad_left);
      }
      result.push_back(band);
    }
  }
  return result;
}

}  // namespace

// Images that fit the accumulators whole (H * W <= ACC_ROWS and <= 4095, H, W <= 255: the
// ACTIVATE image fields) are pooled a group of whole images at a time; larger images (and
// images taller than 255 lines) in bands of output lines (PoolBands), except SAME average
// pooling, whose divisor excludes the padding. An average pool with a clamp narrower than int8
// takes a second pass (see below).
DenseProgram LowerPool(const golden::Tensor<int8_t>& input, const PoolLayer& layer,
                       const isa::DeviceLimits& limits, const HostRegion& region,
                       const LoweringOptions& options) {
  const std::string what = layer.kind == PoolKind::kMax ? "max pool" : "avg pool";
  CheckPoolLayer(layer, what);
  isa::CheckLimits(limits);
  input.CheckRank(what + ": input", 4, "NHWC");
  const int64_t batch = input.shape[0], h = input.shape[1], w = input.shape[2];
  const int64_t c = input.shape[3];
  if (batch < 1 || h < 1 || w < 1 || c < 1) {
    throw std::invalid_argument(what + ": input must be (B, H, W, C) with every dimension >= 1, got " +
                                golden::ShapeToString(input.shape));
  }
  if (w > kMaxImageSide) {
    throw std::invalid_argument(what + ": image " + Str(h) + " x " + Str(w) + " is wider than " +
                                Str(kMaxImageSide) +
                                " pixels (the ACTIVATE and MATMUL image_w fields)");
  }
  const golden::Pool2dParams& p = layer.params;
  const golden::PaddedAxis rows =
      golden::ComputePaddedAxis(p.padding, h, p.window_h, p.stride_h, what, "height");
  const golden::PaddedAxis cols =
      golden::ComputePaddedAxis(p.padding, w, p.window_w, p.stride_w, what, "width");

  IdentityPass pass;
  pass.units = batch;
  pass.unit_rows = h * w;
  pass.unit_out_rows = rows.out_size * cols.out_size;
  isa::Activate& act = pass.activate;
  act.clamp_min = p.act_min;
  act.clamp_max = p.act_max;
  act.pool = layer.kind == PoolKind::kMax ? isa::Pool::kMax : isa::Pool::kAvg;
  act.win_h = static_cast<uint32_t>(p.window_h);
  act.win_w = static_cast<uint32_t>(p.window_w);
  act.stride_h = static_cast<uint32_t>(p.stride_h);
  act.stride_w = static_cast<uint32_t>(p.stride_w);
  act.padding = p.padding == golden::Padding::kSame ? isa::Padding::kSame : isa::Padding::kValid;
  act.image_h = static_cast<uint32_t>(h);
  act.image_w = static_cast<uint32_t>(w);
  // The NHWC input is already (B * H * W, C): each image's pixels are consecutive rows.
  const golden::Tensor<int8_t> x({batch * h * w, c}, input.data);
  // ACTIVATE clamps each element before it pools (docs/isa.md), golden::AvgPool2d the mean:
  // the same for max pooling (max commutes with the clamp), not for the mean. An average pool
  // with a clamp narrower than int8 therefore pools unclamped, and a second pass (an activation
  // over the pooled values, read back from the host after a full barrier) clamps.
  const bool clamp_after =
      layer.kind == PoolKind::kAvg && (p.act_min > -128 || p.act_max < 127);
  if (clamp_after) {
    act.clamp_min = -128;
    act.clamp_max = 127;
  }
  // With the clamp pass, the pooled values go through the host between the passes: the first
  // pass takes a resident input, the second leaves a resident output.
  LoweringOptions first_options = options;
  if (clamp_after) first_options.output_ub.reset();
  // Images larger than the accumulators (or taller than the ACTIVATE image_h field): bands.
  const int64_t acc_limit = std::min<int64_t>(limits.acc_rows, kActivateMaxRows);
  if (h * w > acc_limit || h > kMaxImageSide) {
    if (layer.kind == PoolKind::kAvg && p.padding == golden::Padding::kSame) {
      const std::string why =
          h * w > acc_limit
              ? Str(h * w) + " pixels, more than the accumulators hold (" + Str(acc_limit) + ")"
              : Str(h) + " lines, more than the ACTIVATE image_h field holds (" +
                    Str(kMaxImageSide) + ")";
      throw std::invalid_argument(
          what + ": SAME average pooling of a " + Str(h) + " x " + Str(w) + " image (" + why +
          ") is not supported: it would need bands of output lines, and a band cannot exclude "
          "the image's padding from the mean (the divisor); use VALID padding or smaller images");
    }
    pass.bands = PoolBands(batch, h, w, p, rows, cols, limits, first_options, what, act);
  }
  DenseProgram program = LowerIdentityPass(x, pass, limits, region, first_options, what);
  program.output_shape = {batch, rows.out_size, cols.out_size, c};
  program.lowering = pass.bands.empty() ? "identity pass" : "identity pass in bands";
  if (!clamp_after) return program;

  const uint64_t align = options.host_align;
  const uint64_t used = (program.host_bytes + align - 1) / align * align;
  if (used > region.size) {
    throw std::invalid_argument(what + ": host region of " + std::to_string(region.size) +
                                " bytes is too small for the clamp pass");
  }
  IdentityPass clamp;
  clamp.units = pass.units * pass.unit_out_rows;
  clamp.activate.clamp_min = p.act_min;
  clamp.activate.clamp_max = p.act_max;
  clamp.input_host = program.output.address;
  const golden::Tensor<int8_t> pooled({clamp.units, c});  // shape only
  LoweringOptions second_options = options;
  second_options.input_in_ub.reset();
  DenseProgram second = LowerIdentityPass(pooled, clamp, limits,
                                          {region.base + used, region.size - used},
                                          second_options, what + " (clamp pass)");
  program.instrs.PopBack();  // HALT
  isa::Sync barrier;         // the pooled values are in host memory before the clamp pass
  barrier.units = isa::kUnitsAll;
  program.instrs.Add(barrier);
  program.instrs.Append(second.instrs);
  for (HostImage& image : second.images) {
    image.name += "2";
    program.images.push_back(std::move(image));
  }
  program.output = second.output;
  program.ub_output = second.ub_output;
  program.lowering += " + clamp pass";
  program.plans.push_back(second.plans.front());
  program.host_bytes = used + second.host_bytes;
  return program;
}

DenseProgram LowerActivation(const golden::Tensor<int8_t>& input, const ActivationLayer& layer,
                             const isa::DeviceLimits& limits, const HostRegion& region,
                             const LoweringOptions& options) {
  const std::string what = "activation";
  CheckActivationLayer(layer, what);
  input.CheckConsistent(what + ": input");
  if (input.shape.empty() || input.NumElements() < 1) {
    throw std::invalid_argument(what + ": input must have rank >= 1 and at least one element, "
                                "got " + golden::ShapeToString(input.shape));
  }
  const int64_t c = input.shape.back();
  IdentityPass pass;
  pass.units = input.NumElements() / c;
  pass.activate.clamp_min = layer.act_min;
  pass.activate.clamp_max = layer.act_max;
  pass.lut = layer.lut;
  const golden::Tensor<int8_t> x({pass.units, c}, input.data);
  DenseProgram program = LowerIdentityPass(x, pass, limits, region, options, what);
  program.output_shape = input.shape;
  program.lowering = "identity pass";
  return program;
}

}  // namespace tpu::compiler
