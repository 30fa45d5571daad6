#include "compiler/dense_lowering.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <variant>

#include "compiler/dense_emit.h"
#include "compiler/dense_images.h"
#include "compiler/field_limits.h"
#include "compiler/host_allocator.h"
#include "compiler/program_builder.h"
#include "golden/format.h"
#include "isa/validate.h"

namespace tpu::compiler {
namespace {

void CheckInput(const golden::Tensor<int8_t>& x, int64_t k, const std::string& what) {
  if (x.shape.size() != 2 || x.shape[0] < 1 || x.shape[1] != k) {
    throw std::invalid_argument(what + ": input must be (M, K) with M >= 1 and K = " +
                                std::to_string(k) + ", got " + golden::ShapeToString(x.shape));
  }
  x.CheckConsistent(what + ": input");
}

// [ub_begin, ub_end) of the options, checked against the device.
std::pair<int64_t, int64_t> UbWindow(const LoweringOptions& options,
                                     const isa::DeviceLimits& limits, const std::string& what) {
  const int64_t end = options.ub_end < 0 ? limits.ub_rows : options.ub_end;
  if (options.ub_begin < 0 || options.ub_begin >= end || end > limits.ub_rows) {
    throw std::invalid_argument(what + ": UB rows [" + std::to_string(options.ub_begin) + ", " +
                                std::to_string(end) + ") are not a range inside [0, " +
                                std::to_string(limits.ub_rows) + ")");
  }
  return {options.ub_begin, end};
}

// Places the layer's weights and parameter images; records their addresses in `plan`.
void PlaceLayerImages(const DenseLayer& layer, const std::string& suffix, LayerPlan& plan,
                      HostAllocator& host, DenseProgram& program) {
  HostImage weights{"weights" + suffix, 0, WeightTileImage(layer.weights, plan.n)};
  weights.address = plan.weights_host = host.Take(weights.bytes.size(), weights.name);
  HostImage params{"params" + suffix, 0, ParamSetImage(layer, plan.n)};
  params.address = plan.params_host = host.Take(params.bytes.size(), params.name);
  program.images.push_back(std::move(weights));
  program.images.push_back(std::move(params));
}

void PlaceInput(const golden::Tensor<int8_t>& x, LayerPlan& plan, HostAllocator& host,
                DenseProgram& program) {
  // In chunk blocks, so that each chunk is one READ_HOST.
  HostImage input{"x", 0, SliceImage(x, plan.n, plan.chunk_rows)};
  input.address = plan.x_host = host.Take(input.bytes.size(), input.name);
  program.images.push_back(std::move(input));
}

// Where the K-tile slices of a resident input that feeds an (M, K) dense layer lie. Empty rows
// when the tensor is (M, K) itself (slice k at ub + k * M, the planner's layout). A flattened
// (B, H, W, C) tensor with B = M and C a multiple of N (x = (B, H * W * C)): K tile kt is pixel
// p = kt / (C / N), channel tile ct = kt % (C / N), image b's row of it at
// ub + ct * B * H * W + b * H * W + p, so its first row at ub + ct * B * H * W + p and the next
// ones H * W apart (the stride; windowed MATMULs read them for B > 1). Other shapes (C not a
// multiple of N, H * W or B above a window's kMaxImageSide) throw std::invalid_argument: the caller
// passes such an input through the host.
struct ResidentSlices {
  std::vector<int64_t> rows;
  int64_t stride = 1;
};

ResidentSlices ResidentSliceRows(const UbTensor& in, int64_t m, int64_t k, int64_t n,
                                 const isa::DeviceLimits& limits, const std::string& what) {
  if (in.m == m && in.channels == k) return {};
  const std::string cannot = what + ": the resident input (" + std::to_string(in.m) +
                             " rows of " + std::to_string(in.channels) +
                             " channels) cannot feed an (M, K) = (" + std::to_string(m) + ", " +
                             std::to_string(k) + ") input in place: ";
  const int64_t pixels = in.m / m;  // H * W of one image
  if (in.channels % n != 0 || in.m % m != 0 || pixels * in.channels != k) {
    throw std::invalid_argument(cannot + "only the same shape, or a flattened batch of M images "
                                "whose channels are a multiple of N = " + std::to_string(n));
  }
  ResidentSlices slices;
  if (m > 1) {
    if (pixels > kMaxImageSide || m > kMaxImageSide) {
      throw std::invalid_argument(
          cannot + "a flattened batch is read as windows of M lines of H * W rows, and " +
          (m > kMaxImageSide ? "M = " + std::to_string(m) : "H * W = " + std::to_string(pixels)) +
          " is above a window's " + std::to_string(kMaxImageSide));
    }
    const int64_t end = in.ub + in.Rows(n) + ResidentInputSlack(in, m);
    if (end > limits.ub_rows) {
      throw std::invalid_argument(
          cannot + "its K tiles are read as windows of M lines of H * W rows, which the "
          "MATMUL's range rule counts up to " + std::to_string(ResidentInputSlack(in, m)) +
          " rows past the tensor's end, beyond the UB's " + std::to_string(limits.ub_rows) +
          " rows: place it at least that many rows lower");
    }
    slices.stride = pixels;
  }
  const int64_t c_tiles = in.channels / n;
  slices.rows.resize(static_cast<std::size_t>(k / n));
  for (int64_t kt = 0; kt < k / n; ++kt) {
    slices.rows[static_cast<std::size_t>(kt)] = in.ub + (kt % c_tiles) * in.m + kt / c_tiles;
  }
  return slices;
}

void PlaceOutput(LayerPlan& plan, HostAllocator& host, DenseProgram& program) {
  program.output = {0, plan.m, plan.nout, plan.n};
  program.output.address = plan.y_host = host.Take(program.output.bytes(), "y");
}

}  // namespace

int64_t ResidentInputSlack(const UbTensor& in, int64_t m) {
  if (m <= 1 || in.m == m || in.m % m != 0) return 0;
  return in.m / m - 1;
}

DenseProgram LowerDense(const golden::Tensor<int8_t>& x, const DenseLayer& layer,
                        const isa::DeviceLimits& limits, const HostRegion& region,
                        const LoweringOptions& options) {
  const std::string what = "dense";
  isa::CheckLimits(limits);
  CheckDenseLayer(layer, what);
  CheckInput(x, layer.k(), what);
  const auto [ub_begin, ub_end] = UbWindow(options, limits, what);

  PlanRequest request;
  request.m = x.shape[0];
  request.k = layer.k();
  request.nout = layer.nout();
  request.work_begin = ub_begin;
  request.work_end = ub_end;
  request.max_chunk_rows = options.max_chunk_rows;
  request.dram_tile_base = options.dram_tile_base;
  request.param_set_base = options.param_set_base;
  ResidentSlices slices;
  if (options.input_in_ub) {
    slices = ResidentSliceRows(*options.input_in_ub, request.m, request.k, limits.n, limits, what);
    CheckResidentRows(options.input_in_ub->ub, options.input_in_ub->Rows(limits.n), ub_begin,
                      ub_end, limits, what, "input");
    request.input_in_ub = true;
    request.input_ub = options.input_in_ub->ub;
  }
  if (options.output_ub) {
    const UbTensor out{*options.output_ub, request.m, request.nout};
    CheckResidentRows(out.ub, out.Rows(limits.n), ub_begin, ub_end, limits, what, "output");
    const UbTensor* in = options.input_in_ub ? &*options.input_in_ub : nullptr;
    if (in && out.ub < in->ub + in->Rows(limits.n) && in->ub < out.ub + out.Rows(limits.n)) {
      throw std::invalid_argument(what + ": the resident input and output overlap in the UB");
    }
    request.output_in_ub = true;
    request.output_ub = out.ub;
  }
  LayerPlan plan = PlanLayer(request, limits, what);
  plan.in_slice_rows = std::move(slices.rows);
  plan.in_row_stride = slices.stride;

  DenseProgram program;
  program.limits = limits;
  HostAllocator host(region, options.host_align, what);
  PlaceLayerImages(layer, "", plan, host, program);
  if (!options.input_in_ub) PlaceInput(x, plan, host, program);
  if (options.output_ub) {
    program.output = {0, plan.m, plan.nout, plan.n};
    program.ub_output = UbTensor{plan.out_ub, plan.m, plan.nout};
  } else {
    PlaceOutput(plan, host, program);
  }
  program.host_bytes = host.used();
  program.lowering = "dense";

  ProgramBuilder builder(limits);
  EmitSetup(plan, builder);
  EmitPrefetch(plan, builder);
  EmitSteps(plan, layer.requant, builder);
  builder.Add(isa::Halt{});
  program.instrs = builder.Take();
  program.plans.push_back(plan);
  program.output_shape = {plan.m, plan.nout};
  return program;
}

DenseProgram LowerDenseChain(const golden::Tensor<int8_t>& x, const DenseLayer& first,
                             const DenseLayer& second, const isa::DeviceLimits& limits,
                             const HostRegion& region, const LoweringOptions& options) {
  const std::string what = "dense chain";
  isa::CheckLimits(limits);
  if (options.input_in_ub || options.output_ub) {
    throw std::invalid_argument(what + ": a resident input or output (input_in_ub, output_ub) "
                                "is not supported; lower the layers one by one with LowerDense");
  }
  CheckDenseLayer(first, what + ": first layer");
  CheckDenseLayer(second, what + ": second layer");
  if (second.k() != first.nout()) {
    throw std::invalid_argument(
        what + ": the second layer's K = " + std::to_string(second.k()) +
        " differs from the first layer's Nout = " + std::to_string(first.nout()));
  }
  CheckInput(x, first.k(), what);
  const auto [ub_begin, ub_end] = UbWindow(options, limits, what);
  const int64_t m = x.shape[0];

  // The first layer's output, resident: slices of M rows from ub_begin; the rest of the window
  // is the work area of both layers (the second only starts after the first has finished).
  const int64_t hidden_rows = CeilDiv(first.nout(), limits.n) * m;
  const int64_t work_begin = ub_begin + hidden_rows;
  if (work_begin >= ub_end) {
    throw std::invalid_argument(
        what + ": the first layer's output (" + std::to_string(hidden_rows) +
        " UB rows for M = " + std::to_string(m) + ", Nout = " + std::to_string(first.nout()) +
        ") must stay in the UB, which has " + std::to_string(ub_end - ub_begin) +
        " rows for the program");
  }
  PlanRequest request1;
  request1.m = m;
  request1.k = first.k();
  request1.nout = first.nout();
  request1.output_in_ub = true;
  request1.output_ub = ub_begin;
  request1.work_begin = work_begin;
  request1.work_end = ub_end;
  request1.max_chunk_rows = options.max_chunk_rows;
  request1.dram_tile_base = options.dram_tile_base;
  request1.param_set_base = options.param_set_base;
  LayerPlan plan1 = PlanLayer(request1, limits, what + ": first layer");

  PlanRequest request2 = request1;
  request2.k = second.k();
  request2.nout = second.nout();
  request2.input_in_ub = true;
  request2.input_ub = ub_begin;
  request2.output_in_ub = false;
  request2.dram_tile_base = options.dram_tile_base + plan1.k_tiles * plan1.n_tiles;
  request2.param_set_base = options.param_set_base + plan1.n_tiles;
  LayerPlan plan2 = PlanLayer(request2, limits, what + ": second layer");

  DenseProgram program;
  program.limits = limits;
  HostAllocator host(region, options.host_align, what);
  PlaceLayerImages(first, "1", plan1, host, program);
  PlaceInput(x, plan1, host, program);
  PlaceLayerImages(second, "2", plan2, host, program);
  PlaceOutput(plan2, host, program);
  program.host_bytes = host.used();

  ProgramBuilder builder(limits);
  plan1.stream_weights = false;
  plan2.stream_weights = false;
  EmitSetup(plan1, builder);
  EmitSetup(plan2, builder);
  EmitPrefetch(plan1, builder);
  EmitSteps(plan1, first.requant, builder);
  EmitPrefetch(plan2, builder);
  isa::Sync sync;  // the second layer reads what the first layer's ACTIVATEs wrote
  sync.units = isa::kUnitsActivation;
  builder.Add(sync);
  EmitSteps(plan2, second.requant, builder);
  builder.Add(isa::Halt{});
  program.instrs = builder.Take();
  program.plans = {plan1, plan2};
  program.lowering = "dense chain";
  program.output_shape = {plan2.m, plan2.nout};
  return program;
}

PcieBytes ProgramPcieBytes(const DenseProgram& program) {
  PcieBytes bytes;
  // Only the transfers are decoded (a large layer's program is mostly MATMULs).
  const isa::Program& instrs = program.instrs;
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    const isa::Opcode op = instrs.OpcodeAt(i);
    if (op == isa::Opcode::kReadHost) {
      bytes.to_device += std::get<isa::ReadHost>(instrs[i]).length;
    } else if (op == isa::Opcode::kWriteHost) {
      bytes.from_device += std::get<isa::WriteHost>(instrs[i]).length;
    }
  }
  return bytes;
}

golden::Tensor<int8_t> ExtractDenseOutput(const DenseOutput& output, const HostReader& read) {
  const std::vector<uint8_t> bytes = read(output.address, output.bytes());
  if (bytes.size() != output.bytes()) {
    throw std::invalid_argument("ExtractDenseOutput: the reader returned " +
                                std::to_string(bytes.size()) + " bytes, expected " +
                                std::to_string(output.bytes()));
  }
  golden::Tensor<int8_t> y({output.m, output.channels});
  // Channels [jN, jN + N) of a row are N bytes at ((j * M) + row) * N.
  const int64_t n = output.n;
  for (int64_t row = 0; row < output.m; ++row) {
    for (int64_t j = 0; j * n < output.channels; ++j) {
      std::memcpy(&y.data[static_cast<std::size_t>(row * output.channels + j * n)],
                  &bytes[static_cast<std::size_t>((j * output.m + row) * n)],
                  static_cast<std::size_t>(std::min(n, output.channels - j * n)));
    }
  }
  return y;
}

}  // namespace tpu::compiler
