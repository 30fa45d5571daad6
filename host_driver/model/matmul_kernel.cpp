#include "model/matmul_kernel.h"

#include <cstddef>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TPU_MODEL_HAVE_AVX2_KERNEL 1
#endif

namespace tpu::model {
namespace {

// The definition: one dot product per output, summed in uint32 (wraps like the accumulators).
void MultiplyRowsPlain(const int8_t* const* rows, int64_t count, const PackedTile& tile,
                       bool accumulate, int32_t* out) {
  const int64_t n = tile.n();
  const int8_t* w = tile.tile().data();
  std::vector<uint32_t> sum(static_cast<size_t>(n));
  for (int64_t r = 0; r < count; ++r) {
    const int8_t* x = rows[r];
    std::fill(sum.begin(), sum.end(), 0u);
    for (int64_t k = 0; k < n; ++k) {
      const int32_t xk = x[k];
      const int8_t* wk = w + k * n;
      for (int64_t c = 0; c < n; ++c) sum[size_t(c)] += static_cast<uint32_t>(xk * wk[c]);
    }
    int32_t* o = out + r * n;
    for (int64_t c = 0; c < n; ++c) {
      const uint32_t base = accumulate ? static_cast<uint32_t>(o[c]) : 0u;
      const uint32_t bits = base + sum[size_t(c)];
      std::memcpy(&o[c], &bits, sizeof(bits));  // two's complement, wrapped
    }
  }
}

#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
// Columns in blocks of 8 int32 lanes, up to four blocks (32 columns) in registers at a time;
// each pair of input channels is one vpmaddwd per block.
__attribute__((target("avx2"))) void MultiplyRowsAvx2(const int8_t* const* rows, int64_t count,
                                                      const PackedTile& tile, bool accumulate,
                                                      int32_t* out) {
  const int64_t n = tile.n();
  const int64_t pairs = n / 2;
  const int16_t* packed = tile.pairs().data();
  std::vector<int32_t> xpairs(static_cast<size_t>(pairs));
  for (int64_t r = 0; r < count; ++r) {
    const int8_t* x = rows[r];
    for (int64_t p = 0; p < pairs; ++p) {
      const uint32_t lo = static_cast<uint16_t>(int16_t{x[2 * p]});
      const uint32_t hi = static_cast<uint16_t>(int16_t{x[2 * p + 1]});
      xpairs[size_t(p)] = static_cast<int32_t>(lo | hi << 16);
    }
    int32_t* o = out + r * n;
    for (int64_t c0 = 0; c0 < n; c0 += 32) {
      const int64_t blocks = (n - c0) >= 32 ? 4 : (n - c0) / 8;
      __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                        _mm256_setzero_si256()};
      for (int64_t p = 0; p < pairs; ++p) {
        const __m256i xv = _mm256_set1_epi32(xpairs[size_t(p)]);
        const int16_t* wp = packed + (p * n + c0) * 2;
        for (int64_t b = 0; b < blocks; ++b) {
          const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + 16 * b));
          acc[b] = _mm256_add_epi32(acc[b], _mm256_madd_epi16(xv, wv));
        }
      }
      for (int64_t b = 0; b < blocks; ++b) {
        __m256i* dst = reinterpret_cast<__m256i*>(o + c0 + 8 * b);
        __m256i v = acc[b];
        if (accumulate) v = _mm256_add_epi32(v, _mm256_loadu_si256(dst));
        _mm256_storeu_si256(dst, v);
      }
    }
  }
}

bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}
#endif

}  // namespace

PackedTile::PackedTile(const std::vector<int8_t>& tile, int64_t n)
    : n_(n), tile_(tile), pairs_(static_cast<size_t>(n * n)) {
  for (int64_t p = 0; p < n / 2; ++p) {
    for (int64_t c = 0; c < n; ++c) {
      for (int64_t j = 0; j < 2; ++j) {
        pairs_[size_t((p * n + c) * 2 + j)] = tile_[size_t((2 * p + j) * n + c)];
      }
    }
  }
}

void MultiplyRows(const int8_t* const* rows, int64_t count, const PackedTile& tile,
                  bool accumulate, int32_t* out) {
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
  if (tile.n() % 8 == 0 && HaveAvx2()) {
    MultiplyRowsAvx2(rows, count, tile, accumulate, out);
    return;
  }
#endif
  MultiplyRowsPlain(rows, count, tile, accumulate, out);
}

}  // namespace tpu::model
