// How one dense layer is tiled on the device and where its operands live (docs/isa.md, "Example:
// a double-buffered dense layer", generalized):
// - K in k_tiles tiles of N input channels, Nout in n_tiles tiles of N output channels; weight
//   tile (j, k) is DRAM tile dram_tile_base + j * k_tiles + k, parameter set param_set_base + j;
// - M in `chunks` chunks of at most chunk_rows rows (at most ACC_ROWS / 2, one accumulator
//   region); step s = i * n_tiles + j computes chunk i of output tile j into accumulator region
//   s % 2, accumulating over the k tiles;
// - input rows in the UB as K-tile slices: kUb: slice k at in_ub + k * M (all of x); from the
//   host, chunk i's slices as one block of k_tiles * chunk_rows rows (slice k at
//   + k * chunk_rows), uploaded by one READ_HOST that its MATMULs wait for: kHostResident: block
//   i at in_ub + i * k_tiles * chunk_rows (every chunk its own); kHostStreamed: two blocks at
//   in_ub and in_ub + k_tiles * chunk_rows, chunk i in block i % 2;
// - output: kHost: two UB buffers of chunk_rows rows at out_ub and out_ub + chunk_rows, step s in
//   buffer s % 2, sent to host slices; kUb: the output stays in the UB as slices of M rows at
//   out_ub + j * M, the layout the next layer reads as its input.
#ifndef TPU_COMPILER_DENSE_PLAN_H_
#define TPU_COMPILER_DENSE_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "isa/isa_gen.h"

namespace tpu::compiler {

enum class InputSource {
  kHostResident,  // loaded from the host one chunk at a time, every chunk into its own rows
  kHostStreamed,  // loaded from the host one chunk at a time, double buffered
  kUb,            // already in the UB (the previous layer's output)
};

enum class OutputSink {
  kHost,  // through two UB buffers to host memory
  kUb,    // left in the UB for the next layer
};

struct LayerPlan {
  int64_t n = 0;
  int64_t m = 0, k = 0, nout = 0;
  int64_t k_tiles = 0, n_tiles = 0;
  int64_t chunk_rows = 0, chunks = 0;
  int64_t region_rows = 0;  // ACC_ROWS / 2
  InputSource source = InputSource::kHostResident;
  int64_t in_ub = 0;
  // kUb only, when not empty: the UB row of K-tile slice k's first row, for an input whose
  // slices do not lie M rows apart (a flattened (B, H, W, C) tensor: slice (pixel p, channel
  // tile ct) from row ub + ct * B * H * W + p).
  std::vector<int64_t> in_slice_rows;
  // kUb only: UB rows between one M row of a slice and the next. 1, except for a flattened
  // batch (B, H, W, C), B > 1: H * W (image b's pixel p of channel tile ct is at row
  // ub + ct * B * H * W + b * H * W + p), which windowed MATMULs read (dense_emit.h).
  int64_t in_row_stride = 1;
  OutputSink sink = OutputSink::kHost;
  int64_t out_ub = 0;
  int64_t dram_tile_base = 0;
  int64_t param_set_base = 0;
  // Each output tile's weights are uploaded to DRAM just ahead of their first use (one READ_HOST
  // per output tile, overlapping the MATMULs) instead of all before the first MATMUL
  // (StreamWeights). Off for programs that upload several layers' weights at the start
  // (LowerDenseChain): their uploads share token t1, so a streamed layer could take another
  // layer's token.
  bool stream_weights = false;
  // Host addresses (used by the images the plan reads or writes).
  uint64_t weights_host = 0, params_host = 0, x_host = 0, y_host = 0;

  int64_t steps() const { return chunks * n_tiles; }
  int64_t ChunkBegin(int64_t i) const { return i * chunk_rows; }
  int64_t ChunkRows(int64_t i) const;
  // First UB row of slice k of chunk i (its later rows in_row_stride apart).
  int64_t InRow(int64_t i, int64_t k) const;
  // First UB row step s writes its output to.
  int64_t OutRow(int64_t s) const;
  int64_t AccRow(int64_t s) const { return (s % 2) * region_rows; }
  // UB rows the input and output areas take.
  int64_t InputRows() const;
  int64_t OutputRows() const;
};

// Whether a layer of `n_tiles` output tiles and `weight_bytes` of weight tiles uploads them per
// output tile, overlapped with the MATMULs: worth it from 64 KiB (about 4,000 cycles of Gen3 x16
// at 700 MHz), below which the extra READ_HOSTs' round trips (~350 cycles each) cost more.
inline bool StreamWeights(int64_t n_tiles, int64_t weight_bytes) {
  return n_tiles > 1 && weight_bytes >= 64 * 1024;
}

// Rows of a chunk uploaded from the host: the first chunk's upload delays the first MATMUL, so
// at most n_tiles * M / (4N) rows (N bytes a row per K tile: at N = 16 over Gen3 x16, about 20
// bytes a cycle at 700 MHz, the upload then costs about 1% of the layer's n_tiles * k_tiles * M
// MXU cycles), but at least 4N (each chunk costs a step per output tile, an ACTIVATE and a
// WRITE_HOST each and a turn of the two accumulator regions: at N = 16 chunks of 16 rows made
// a 64 x 128 x 128 layer 16% slower than one chunk of 64) and at most `cap` (one accumulator
// region).
int64_t FirstChunkRows(int64_t n_tiles, int64_t m, int64_t n, int64_t cap);

// What a layer needs from the planner.
struct PlanRequest {
  int64_t m = 0, k = 0, nout = 0;
  bool input_in_ub = false;  // the input is already in the UB at input_ub (slices of M rows)
  int64_t input_ub = 0;
  bool output_in_ub = false;  // the output stays in the UB at output_ub (slices of M rows)
  int64_t output_ub = 0;
  int64_t work_begin = 0;  // UB rows [work_begin, work_end) for the input and output buffers
  int64_t work_end = 0;
  int64_t max_chunk_rows = 0;  // 0: ACC_ROWS / 2
  int64_t dram_tile_base = 0;
  int64_t param_set_base = 0;
};

// Chooses the chunking and the input source. An input from the host comes in chunks of at most
// FirstChunkRows rows, every chunk into its own rows if all fit next to the output buffers,
// else double buffered in the largest chunks that fit; chunks of equal size (the last may be
// smaller). Throws std::invalid_argument, prefixed with `what`, if the shape cannot be lowered
// for `limits`: not enough UB rows, DRAM tiles or parameter sets.
LayerPlan PlanLayer(const PlanRequest& request, const isa::DeviceLimits& limits,
                    const std::string& what);

// Throws std::invalid_argument, prefixed with `what`, unless the `rows` UB rows from `first` (a
// tensor resident between programs, named `name`) lie inside the UB and outside the program's
// work window [work_begin, work_end).
void CheckResidentRows(int64_t first, int64_t rows, int64_t work_begin, int64_t work_end,
                       const isa::DeviceLimits& limits, const std::string& what,
                       const std::string& name);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_DENSE_PLAN_H_
