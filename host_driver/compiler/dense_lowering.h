// Lowering of dense layers to a device program: the host-memory images to place, the
// instructions (checked against the device) and where the result lands in host memory.
//
//   tpu::compiler::DenseProgram p =
//       tpu::compiler::LowerDense(x, layer, limits, {0x100000000, 1 << 24});
//   for (const auto& image : p.images) host.Write(image.address, image.bytes);
//   ... run p.instrs ...
//   golden::Tensor<int8_t> y = tpu::compiler::ExtractDenseOutput(p.output, reader);
#ifndef TPU_COMPILER_DENSE_LOWERING_H_
#define TPU_COMPILER_DENSE_LOWERING_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/dense_layer.h"
#include "compiler/dense_plan.h"
#include "golden/tensor.h"
#include "isa/isa_gen.h"
#include "isa/program.h"

namespace tpu::compiler {

// Host memory the lowering may place its images and results in: [base, base + size).
struct HostRegion {
  uint64_t base = 0;
  uint64_t size = 0;
};

struct HostImage {
  std::string name;  // "weights", "params", "x" (chained layers: "weights1", "params2", ...)
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

// Where a program leaves an (M, channels) int8 result: output tile j (columns j*N..) is a slice
// of M rows of N bytes, row m at address + (j * M + m) * N; columns beyond `channels` are
// padding.
struct DenseOutput {
  uint64_t address = 0;
  int64_t m = 0;
  int64_t channels = 0;
  int64_t n = 0;

  uint64_t bytes() const { return static_cast<uint64_t>((channels + n - 1) / n * m * n); }
};

// A tensor that stays in the UB between programs (a network's intermediate): viewed as (m,
// channels), channel tile j (channels j*N..) is a slice of m rows of N bytes at UB row
// ub + j * m, the layout DenseOutput has in host memory. For an NHWC tensor m = B * H * W in
// (b, y, x) order, so slice j of image b is an H x W image from row ub + j * m + b * H * W (what
// a windowed MATMUL reads).
struct UbTensor {
  int64_t ub = 0;
  int64_t m = 0;
  int64_t channels = 0;

  int64_t Rows(int64_t n) const { return (channels + n - 1) / n * m; }
};

enum class ConvLowering {
  kAuto,    // the sliding window when the layer can use it and it moves fewer PCIe bytes
  kWindow,  // MATMUL window=1 over the input in the UB (throws if the layer cannot use it)
  kIm2col,  // host-side im2col onto the dense lowering
};

struct LoweringOptions {
  int64_t ub_begin = 0;        // UB rows the program may use: [ub_begin, ub_end)
  int64_t ub_end = -1;         // -1: UB_ROWS
  int64_t dram_tile_base = 0;  // first weight-DRAM tile to use
  int64_t param_set_base = 0;  // first parameter set to use
  uint64_t host_align = 64;    // images start at multiples of this from region.base
  int64_t max_chunk_rows = 0;  // > 0: at most this many rows per M chunk (else ACC_ROWS / 2)
  ConvLowering conv = ConvLowering::kAuto;
  // The input is already in the UB (left there by an earlier program): nothing of it crosses
  // PCIe and the input tensor passed to the lowering only gives its shape (and the values the
  // caller expects there). Its rows must lie outside [ub_begin, ub_end).
  std::optional<UbTensor> input_in_ub;
  // Leave the output in the UB from this row (UbTensor layout) instead of sending it to the
  // host; its rows must lie outside [ub_begin, ub_end). DenseProgram::ub_output says where.
  std::optional<int64_t> output_ub;
};

struct DenseProgram {
  isa::DeviceLimits limits;
  isa::Program instrs;             // encoded, validated against `limits`, ends in HALT
  std::vector<HostImage> images;   // host memory to fill before the run
  DenseOutput output;              // where the result is after the run
  std::vector<LayerPlan> plans;    // how each layer was tiled (one per layer)
  uint64_t host_bytes = 0;         // bytes of the region used, images and output
  std::vector<int64_t> output_shape;  // the layer's output: (M, N), (B, OH, OW, C), ...
  std::optional<UbTensor> ub_output;  // set when the output stayed in the UB (options.output_ub)
  std::string lowering;               // how the layer ran, for reports: "dense", "conv window", ...
};

// y = Dense(x, layer) with x (M, K) int8 (row-major) as golden::Dense computes it. Throws
// std::invalid_argument with a clear message if the layer is inconsistent (CheckDenseLayer),
// x is not (M, K), the shape cannot be lowered for `limits` (UB rows, DRAM tiles, parameter
// sets; dense_plan.h) or the images do not fit in `region`.
DenseProgram LowerDense(const golden::Tensor<int8_t>& x, const DenseLayer& layer,
                        const isa::DeviceLimits& limits, const HostRegion& region,
                        const LoweringOptions& options = {});

// y = Dense(Dense(x, first), second): the first layer's output stays in the UB (as K-tile slices
// of M rows, the second layer's input layout) and only the second layer's output goes to the
// host. second.k() must equal first.nout(). The second layer starts after a `SYNC
// units=activation` (its first READ_WEIGHTS already queued before it); both layers' weights and
// parameters are loaded at the start, one after the other in DRAM and the parameter memory.
DenseProgram LowerDenseChain(const golden::Tensor<int8_t>& x, const DenseLayer& first,
                             const DenseLayer& second, const isa::DeviceLimits& limits,
                             const HostRegion& region, const LoweringOptions& options = {});

// UB rows past the end of a resident input tensor that a dense layer with M input rows counts
// when it reads the tensor in place (LoweringOptions::input_in_ub): H * W - 1 for a flattened
// batch (B, H, W, C) with B = M > 1 (its K tiles are read as windows of M lines of H * W rows,
// and a MATMUL's range rule counts a window's whole extent from the tile's pixel), else 0. Those
// rows are not read, but must lie inside the UB: a planner places such a tensor at least that
// many rows below UB_ROWS.
int64_t ResidentInputSlack(const UbTensor& in, int64_t m);

// Reads `length` host bytes at `address` (from the device's host memory after the run).
using HostReader = std::function<std::vector<uint8_t>(uint64_t address, uint64_t length)>;

// Payload bytes a program moves over PCIe: the lengths of its READ_HOSTs (host -> device) and
// WRITE_HOSTs (device -> host).
struct PcieBytes {
  uint64_t to_device = 0;
  uint64_t from_device = 0;
  uint64_t total() const { return to_device + from_device; }
};
PcieBytes ProgramPcieBytes(const DenseProgram& program);

// The (M, channels) result of a run.
golden::Tensor<int8_t> ExtractDenseOutput(const DenseOutput& output, const HostReader& read);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_DENSE_LOWERING_H_
