// The arithmetic of MATMULs as blocks: for each of `count` activation rows x_r (N int8 each),
// out_r[c] = sum over k of x_r[k] * w[k][c] in int32 that wraps (docs/isa.md), written
// (overwrite) or added with wrapping (accumulate) into `out` (count x N int32, row-major); and
// a run of such products onto the same accumulator rows (the tiles of a K reduction, one
// MATMUL each) as one block, so that the sums stay in registers across the tiles.
// Bit-exact with the obvious triple loop (the reference machine's definition): the wrapping
// int32 sum does not depend on the order. The kernel is chosen at run time from what the CPU
// (and the operating system) offers: with AMX (Intel Advanced Matrix Extensions, for 16 rows
// or more) one tdpbssd multiplies 16 rows by 16 columns over up to 64 input channels of signed
// bytes; with AVX-512 VNNI vpdpbusd multiplies four unsigned-by-signed byte pairs a lane
// (x + 128 in place of x, and 128 times the tile's column sums subtracted once: equal modulo
// 2^32); with AVX-512BW or AVX2 vpmaddwd multiplies pairs of int16 (the products fit int16,
// sums of two int32); elsewhere (N below 8, other CPUs) the plain loop.
#ifndef TPU_MODEL_MATMUL_KERNEL_H_
#define TPU_MODEL_MATMUL_KERNEL_H_

#include <cstdint>
#include <vector>

namespace tpu::model {

// The ways of computing a block, fastest last.
enum class MatmulKernel { kPlain, kAvx2, kAvx512, kVnni, kAmx };

// The kernels this CPU runs for tiles of N x N (the plain loop always), slowest first; the last
// is the one tiles are packed for unless told otherwise.
std::vector<MatmulKernel> UsableKernels(int64_t n);
const char* KernelName(MatmulKernel kernel);

// A weight tile packed for the kernel, made once per tile switch.
class PackedTile {
 public:
  // `tile`: N x N int8, weight row k (input channel) at k * N, column c at + c; packed for the
  // fastest usable kernel, or for `kernel` (one of UsableKernels(n): the tests run each).
  PackedTile(const std::vector<int8_t>& tile, int64_t n) { Pack(tile, n); }
  PackedTile(const std::vector<int8_t>& tile, int64_t n, MatmulKernel kernel) {
    Pack(tile, n, kernel);
  }
  PackedTile() = default;
  // Packs another tile into the same storage (no allocation once the size is known).
  void Pack(const std::vector<int8_t>& tile, int64_t n);
  void Pack(const std::vector<int8_t>& tile, int64_t n, MatmulKernel kernel);

  int64_t n() const { return n_; }
  // The kernel that multiplies by this tile (a block's tiles all have the same).
  MatmulKernel kernel() const { return kernel_; }
  // The layout that kernel reads (only that one is filled):
  // rows k = 2p and 2p + 1 interleaved per column, as int16 pairs: pairs_[(p * N + c) * 2 + j]
  // = w[2p + j][c] (vpmaddwd);
  const std::vector<int16_t>& pairs() const { return pairs_; }
  // rows k = 4q .. 4q + 3 interleaved per column: quads_[(q * N + c) * 4 + j] = w[4q + j][c],
  // and bias_[c] = 128 * sum over k of w[k][c] (vpdpbusd; tdpbssd reads the quads alone:
  // 16 columns of them are its second operand's rows);
  const std::vector<int8_t>& quads() const { return quads_; }
  const std::vector<int32_t>& bias() const { return bias_; }
  // the tile as given (the plain loop).
  const std::vector<int8_t>& tile() const { return tile_; }

 private:
  int64_t n_ = 0;
  MatmulKernel kernel_ = MatmulKernel::kPlain;
  std::vector<int8_t> tile_;
  std::vector<int16_t> pairs_;
  std::vector<int8_t> quads_;
  std::vector<int32_t> bias_;
};

// The activation rows of one MATMUL: row r at base + r * N (a range of UB rows), or rows[r]
// when rows is not null (a window's taps, pad rows included). The range form spares a pointer
// per row: a 1024^3 layer at N = 16 has 4 M rows a pass.
struct RowSet {
  const int8_t* base = nullptr;
  const int8_t* const* rows = nullptr;
  const int8_t* row(int64_t r, int64_t n) const { return rows != nullptr ? rows[r] : base + r * n; }
};

// One MATMUL: rows[r] is activation row r.
void MultiplyRows(const int8_t* const* rows, int64_t count, const PackedTile& tile,
                  bool accumulate, int32_t* out);

// `num_tiles` MATMULs onto the same `count` accumulator rows, the first overwriting them
// unless `accumulate`, the others accumulating: MATMUL t's rows are sets[t], its tile
// tiles[t]. The same result as MultiplyRows once per tile, in fewer passes.
void MultiplyBlocks(const RowSet* sets, const PackedTile* const* tiles, int64_t num_tiles,
                    int64_t count, bool accumulate, int32_t* out);

}  // namespace tpu::model

#endif  // TPU_MODEL_MATMUL_KERNEL_H_
