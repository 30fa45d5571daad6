#include "compiler/dense_images.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "golden/int32_wrap.h"

namespace tpu::compiler {
namespace {

void StoreLe32(uint32_t bits, uint8_t* p) {
  for (int b = 0; b < 4; ++b) p[b] = static_cast<uint8_t>(bits >> (8 * b));
}

}  // namespace

std::vector<uint8_t> WeightTileImage(const golden::Tensor<int8_t>& weights, int64_t n) {
  const int64_t k = weights.shape[0];
  const int64_t nout = weights.shape[1];
  const int64_t k_tiles = CeilDiv(k, n);
  const int64_t n_tiles = CeilDiv(nout, n);
  std::vector<uint8_t> image(static_cast<std::size_t>(n_tiles * k_tiles * n * n), 0);
  for (int64_t j = 0; j < n_tiles; ++j) {
    for (int64_t kt = 0; kt < k_tiles; ++kt) {
      const int64_t tile = (j * k_tiles + kt) * n * n;
      const int64_t cols = std::min(n, nout - j * n);
      for (int64_t r = 0; r < n && kt * n + r < k; ++r) {
        // Row r of the tile: `cols` consecutive weights of input channel kt * N + r.
        std::memcpy(&image[static_cast<std::size_t>(tile + r * n)],
                    &weights.data[static_cast<std::size_t>((kt * n + r) * nout + j * n)],
                    static_cast<std::size_t>(cols));
      }
    }
  }
  return image;
}

std::vector<uint8_t> ParamSetImage(const DenseLayer& layer, int64_t n) {
  const int64_t k = layer.k();
  const int64_t nout = layer.nout();
  const int64_t n_tiles = CeilDiv(nout, n);
  std::vector<uint8_t> image(static_cast<std::size_t>(n_tiles * 9 * n), 0);
  const auto& multipliers = layer.requant.multipliers;
  // sum_k W[k][c] per column, wrapping like the accumulators, summed row by row (the weights'
  // order in memory).
  std::vector<uint32_t> column_sums(static_cast<std::size_t>(nout), 0);
  for (int64_t r = 0; r < k; ++r) {
    const int8_t* row = &layer.weights.data[static_cast<std::size_t>(r * nout)];
    for (int64_t c = 0; c < nout; ++c) {
      column_sums[static_cast<std::size_t>(c)] += static_cast<uint32_t>(int32_t{row[c]});
    }
  }
  for (int64_t c = 0; c < nout; ++c) {
    const uint32_t column_sum = column_sums[static_cast<std::size_t>(c)];
    const uint32_t bias =
        layer.bias.empty() ? 0u : static_cast<uint32_t>(layer.bias[static_cast<std::size_t>(c)]);
    const uint32_t folded =
        bias - static_cast<uint32_t>(layer.input_zero_point) * column_sum;  // mod 2^32
    const golden::QuantizedMultiplier& qm =
        multipliers[multipliers.size() == 1 ? 0 : static_cast<std::size_t>(c)];
    uint8_t* set = &image[static_cast<std::size_t>((c / n) * 9 * n)];
    const int64_t lane = c % n;
    StoreLe32(folded, set + 4 * lane);
    StoreLe32(static_cast<uint32_t>(qm.multiplier), set + 4 * n + 4 * lane);
    set[8 * n + lane] = static_cast<uint8_t>(static_cast<int8_t>(qm.shift));
  }
  return image;
}

std::vector<uint8_t> SliceImage(const golden::Tensor<int8_t>& x, int64_t n, int64_t block_rows) {
  const int64_t m = x.shape[0];
  const int64_t k = x.shape[1];
  const int64_t k_tiles = CeilDiv(k, n);
  const int64_t rows = block_rows > 0 ? block_rows : m;
  const int64_t blocks = rows > 0 ? CeilDiv(m, rows) : 0;
  std::vector<uint8_t> image(static_cast<std::size_t>(blocks * k_tiles * rows * n), 0);
  // Row `row`'s K-tile t (up to N bytes) goes to ((block * k_tiles + t) * rows + in_block) * N.
  for (int64_t row = 0; row < m; ++row) {
    const int64_t block = row / rows, in_block = row % rows;
    const int8_t* from = &x.data[static_cast<std::size_t>(row * k)];
    for (int64_t t = 0; t < k_tiles; ++t) {
      const int64_t at = ((block * k_tiles + t) * rows + in_block) * n;
      std::memcpy(&image[static_cast<std::size_t>(at)], from + t * n,
                  static_cast<std::size_t>(std::min(n, k - t * n)));
    }
  }
  return image;
}

}  // namespace tpu::compiler
