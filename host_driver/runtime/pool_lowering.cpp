// LowerPool and LowerActivation of runtime/layers.h, both on the identity pass
// (runtime/identity_lowering.h): the MXU copies the input into the accumulators through one
// identity tile and ACTIVATE pools, clamps or looks up.
#include <stdexcept>
#include <string>
#include <utility>

#include "golden/format.h"
#include "golden/padding.h"
#include "runtime/identity_lowering.h"
#include "runtime/layers.h"

namespace tpu::runtime {

// Images must fit the accumulators whole (H * W <= ACC_ROWS and <= 4095, and H, W <= 255, the
// ACTIVATE image fields): pooling larger images in bands of rows is future work. An average pool
// with a clamp narrower than int8 takes a second pass (see below).
DenseProgram LowerPool(const golden::Tensor<int8_t>& input, const PoolLayer& layer,
                       const isa::DeviceLimits& limits, const HostRegion& region,
                       const LoweringOptions& options) {
  const std::string what = layer.kind == PoolKind::kMax ? "max pool" : "avg pool";
  CheckPoolLayer(layer, what);
  input.CheckRank(what + ": input", 4, "NHWC");
  const int64_t batch = input.shape[0], h = input.shape[1], w = input.shape[2];
  const int64_t c = input.shape[3];
  if (batch < 1 || h < 1 || w < 1 || c < 1) {
    throw std::invalid_argument(what + ": input must be (B, H, W, C) with every dimension >= 1, got " +
                                golden::ShapeToString(input.shape));
  }
  if (h > 255 || w > 255) {
    throw std::invalid_argument(what + ": image " + std::to_string(h) + " x " +
                                std::to_string(w) +
                                " is larger than 255 x 255 (the ACTIVATE image fields); pooling "
                                "in bands is not implemented yet");
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
  DenseProgram program = LowerIdentityPass(x, pass, limits, region, first_options, what);
  program.output_shape = {batch, rows.out_size, cols.out_size, c};
  program.lowering = "identity pass";
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
  program.instrs.pop_back();  // HALT
  isa::Sync barrier;          // the pooled values are in host memory before the clamp pass
  barrier.units = isa::kUnitsAll;
  program.instrs.push_back(barrier);
  program.instrs.insert(program.instrs.end(), second.instrs.begin(), second.instrs.end());
  for (HostImage& image : second.images) {
    image.name += "2";
    program.images.push_back(std::move(image));
  }
  program.output = second.output;
  program.ub_output = second.ub_output;
  program.lowering = "identity pass + clamp pass";
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

}  // namespace tpu::runtime
