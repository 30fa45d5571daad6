// Lowering shared by the pooling and activation layers (compiler/layers.h): the input passes
// through the MXU with one N x N identity weight tile (x * I = x exactly in the accumulators) and
// ACTIVATE does the layer's work with an identity requantization (bias 0, M0 = 2^30, shift 1:
// MultiplyByQuantizedMultiplier(a, 2^30, 1) = SRDHM(2a, 2^30) = a exactly), output zero point
// 0, the layer's clamp, optionally the LUT and optionally pooling.
//
// The input is an (M, C) int8 matrix made of `units` units of `unit_rows` consecutive rows (a
// pooling layer's images of H * W pixels; 1 row each for an activation). It is sent to the host
// region as K-tile slices (dense_images.h SliceImage: channel tile j holds M rows of N bytes).
// Step s handles channel tile j and a group of whole units: a READ_HOST of the group's rows of
// slice j into one of two UB input buffers, a MATMUL into an accumulator region (the identity
// tile is loaded once: only the first MATMUL takes it from the FIFO, new_tile=1), an ACTIVATE
// into one of two UB output buffers and a WRITE_HOST to the output's slice j. Input buffers,
// accumulator regions and output buffers are double buffered (one region spanning all
// ACC_ROWS when a unit needs more than ACC_ROWS / 2 rows), ordered by tokens:
//   t0 input loaded (dma -> matrix), t1 identity tile in DRAM, t2 parameter set (and LUT)
//   loaded, t3 region full (matrix -> activation), t4 region free, t5 output full
//   (activation -> dma), t6 output buffer free, t7 input buffer free (matrix -> dma).
// The result is a DenseOutput of units * unit_out_rows rows and C channels.
//
// Bands (IdentityPass::bands, for pooling images larger than the accumulators): instead of
// groups of whole units, step s handles channel tile j and band s % bands, which names its own
// input rows (consecutive rows of slice j, read by one READ_HOST; bands may overlap), the
// accumulator rows its MATMUL writes (a plain MATMUL, or window=1 over the band's rows as an
// image, feeding pad_value outside it), the ACTIVATE image height and its output rows. The same
// buffers, regions and tokens as above, sized for the largest band.
//
// Resident tensors (LoweringOptions): with input_in_ub (a UbTensor of M rows and C channels)
// the MATMULs read slice j's group rows where they are (no READ_HOST, no input buffers, no t0 /
// t7); with output_ub each ACTIVATE writes its group's rows of output slice j in place (no
// WRITE_HOST, no output buffers, no t5 / t6) and DenseProgram::ub_output says where. Resident
// rows must lie outside [ub_begin, ub_end), where the remaining buffers go.
#ifndef TPU_COMPILER_IDENTITY_LOWERING_H_
#define TPU_COMPILER_IDENTITY_LOWERING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/dense_lowering.h"
#include "golden/activation.h"
#include "golden/tensor.h"
#include "isa/isa_gen.h"

namespace tpu::compiler {

// One band of a banded pass, the same for every channel tile (rows count from the start of the
// slice).
struct IdentityBand {
  int64_t in_row = 0;    // first input row read
  int64_t in_rows = 0;   // input rows read (a plain MATMUL multiplies exactly these)
  int64_t acc_rows = 0;  // accumulator rows the MATMUL writes and the ACTIVATE reads
  int64_t out_row = 0;   // first output row written
  int64_t out_rows = 0;  // output rows the ACTIVATE writes
  uint32_t image_h = 0;  // the ACTIVATE's image_h (its other pooling fields: IdentityPass)
  // window.window set: the MATMUL's window fields (window, strides, image_w / image_h of the
  // in_rows read, out_w, pad_value, y0, x0); its ub, acc, rows and tokens are filled in.
  isa::Matmul window;
};

struct IdentityPass {
  int64_t units = 0;          // images (pooling) or rows (activation)
  int64_t unit_rows = 1;      // input rows per unit (H * W, or 1)
  int64_t unit_out_rows = 1;  // output rows per unit (OH * OW, or 1)
  // The ACTIVATE fields besides acc, ub, rows, param_set, zero_point, lut, wait and signal:
  // clamp bounds and, for pooling, pool, windows, strides, padding, image_h and image_w.
  isa::Activate activate;
  std::optional<golden::Lut> lut;  // loaded into the LUT and applied (lut=1) when present
  // When set, the input is already in host memory at this address in the SliceImage layout
  // (e.g. a previous pass's output); x then only gives its shape and no "x" image is placed.
  std::optional<uint64_t> input_host;
  // Non-empty: the steps are these bands of each channel tile instead of groups of whole units
  // (units and unit_rows still give the input's shape, units * unit_out_rows the output's).
  std::vector<IdentityBand> bands;
};

// x is (units * unit_rows, C). Throws std::invalid_argument, prefixed with `what`, when a unit
// (or a band) does not fit the accumulators (unit_rows > ACC_ROWS or > 4095, the ACTIVATE rows
// field), two input and two output buffers of one unit (or of the largest band) do not fit the
// UB window, or the images do not fit the host region. Sets output_shape to
// (units * unit_out_rows, C); callers overwrite it.
DenseProgram LowerIdentityPass(const golden::Tensor<int8_t>& x, const IdentityPass& pass,
                               const isa::DeviceLimits& limits, const HostRegion& region,
                               const LoweringOptions& options, const std::string& what);

// The host images of the pass: one identity tile (N * N bytes, row k byte k = 1) and one
// identity parameter set (9N bytes: bias 0, M0 = 2^30, shift 1 in every channel).
std::vector<uint8_t> IdentityTileImage(int64_t n);
std::vector<uint8_t> IdentityParamSetImage(int64_t n);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_IDENTITY_LOWERING_H_
