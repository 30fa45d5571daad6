// The arithmetic of one MATMUL as one block: for each of `count` activation rows x_r (N int8
// each), out_r[c] = sum over k of x_r[k] * w[k][c] in int32 that wraps (docs/isa.md), written
// (overwrite) or added with wrapping (accumulate) into `out` (count x N int32, row-major).
// Bit-exact with the obvious triple loop (the reference machine's definition): the products fit
// int16 (|int8 x int8| <= 2^14), sums of two of them int32, and the wrapping int32 sum of the
// rest does not depend on the order. On CPUs with AVX-512BW or AVX2 (chosen at run time) it
// multiplies pairs of int16 with vpmaddwd, 32 or 16 multiply-accumulates an instruction;
// elsewhere (N below 8, other CPUs) the plain loop.
#ifndef TPU_MODEL_MATMUL_KERNEL_H_
#define TPU_MODEL_MATMUL_KERNEL_H_

#include <cstdint>
#include <vector>

namespace tpu::model {

// A weight tile packed for the kernel, made once per tile switch.
class PackedTile {
 public:
  // `tile`: N x N int8, weight row k (input channel) at k * N, column c at + c.
  PackedTile(const std::vector<int8_t>& tile, int64_t n) { Pack(tile, n); }
  PackedTile() = default;
  // Packs another tile into the same storage (no allocation once the size is known).
  void Pack(const std::vector<int8_t>& tile, int64_t n);

  int64_t n() const { return n_; }
  // Rows k = 2p and 2p + 1 interleaved per column, as int16 pairs: pairs_[(p * N + c) * 2 + j]
  // = w[2p + j][c].
  const std::vector<int16_t>& pairs() const { return pairs_; }
  const std::vector<int8_t>& tile() const { return tile_; }

 private:
  int64_t n_ = 0;
  std::vector<int8_t> tile_;
  std::vector<int16_t> pairs_;
};

void MultiplyRows(const int8_t* const* rows, int64_t count, const PackedTile& tile,
                  bool accumulate, int32_t* out);

}  // namespace tpu::model

#endif  // TPU_MODEL_MATMUL_KERNEL_H_
