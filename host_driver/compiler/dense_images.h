// The host-memory images a dense layer needs on the device, in the layouts of docs/isa.md:
// weight tiles for the weight DRAM, parameter sets for the parameter memory, and activations as
// UB rows (K-tile slices).
#ifndef TPU_COMPILER_DENSE_IMAGES_H_
#define TPU_COMPILER_DENSE_IMAGES_H_

#include <cstdint>
#include <vector>

#include "compiler/dense_layer.h"
#include "golden/tensor.h"

namespace tpu::compiler {

inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Weight tiles of a (K, Nout) kernel, output-tile major: tile j * k_tiles + k (k_tiles =
// ceil(K / N)) holds rows k*N.. and columns j*N..; its row r (N bytes at r * N) is
// W[k*N + r][j*N + c] for c in [0, N), zero outside the kernel. ceil(Nout/N) * k_tiles * N * N
// bytes.
std::vector<uint8_t> WeightTileImage(const golden::Tensor<int8_t>& weights, int64_t n);

// One parameter set (9N bytes, docs/isa.md READ_HOST param) per output tile j, for channels
// j*N..: bias'[c] = bias[c] - input_zero_point * sum_k W[k][c] (int32, wrapping: the input zero
// point folded into the bias, so the MXU multiplies raw int8 inputs), the channel's multiplier
// and shift (per-tensor values replicated); padded channels get bias, multiplier and shift 0.
std::vector<uint8_t> ParamSetImage(const DenseLayer& layer, int64_t n);

// An (M, K) int8 matrix as UB rows: K-tile slices, slice k holding M rows of N bytes,
// row m at (k * M + m) * N = x[m][k*N + c], zero padded. ceil(K/N) * M * N bytes. The same
// layout holds a layer's (M, Nout) output (slices = output tiles).
//
// With block_rows > 0 the rows come in blocks of block_rows (the chunks of a streamed input):
// block b holds the K-tile slices of rows [b * block_rows, (b + 1) * block_rows), slice k at
// (b * k_tiles + k) * block_rows rows, the last block zero padded to block_rows, so that one
// READ_HOST moves a whole chunk into its UB buffer.
std::vector<uint8_t> SliceImage(const golden::Tensor<int8_t>& x, int64_t n,
                                int64_t block_rows = 0);

}  // namespace tpu::compiler

#endif  // TPU_COMPILER_DENSE_IMAGES_H_
