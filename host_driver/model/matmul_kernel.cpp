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
// Row r's input channels as int16 pairs, one int32 each (channel 2p low, 2p + 1 high): the
// sign extension of its bytes, 16 at a time (n >= 16) or 8.
__attribute__((target("avx2"))) void PairUp(const int8_t* x, int64_t n, int32_t* pairs) {
  if (n < 16) {
    const __m128i v = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pairs), v);
    return;
  }
  for (int64_t k = 0; k < n; k += 16) {
    const __m256i v =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + k)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(pairs + k / 2), v);
  }
}

// AVX2: columns in blocks of 8 int32 lanes, up to four blocks (32 columns) in registers at a
// time; each pair of input channels is one vpmaddwd per block.
__attribute__((target("avx2"))) void MultiplyRowsAvx2(const int8_t* const* rows, int64_t count,
                                                      const PackedTile& tile, bool accumulate,
                                                      int32_t* out) {
  const int64_t n = tile.n();
  const int64_t pairs = n / 2;
  const int16_t* packed = tile.pairs().data();
  alignas(64) int32_t xpairs[128];
  for (int64_t r = 0; r < count; ++r) {
    PairUp(rows[r], n, xpairs);
    int32_t* o = out + r * n;
    for (int64_t c0 = 0; c0 < n; c0 += 32) {
      const int64_t blocks = (n - c0) >= 32 ? 4 : (n - c0) / 8;
      __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                        _mm256_setzero_si256()};
      for (int64_t p = 0; p < pairs; ++p) {
        const __m256i xv = _mm256_set1_epi32(xpairs[p]);
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

// AVX-512: 16 columns a register. N = 16 keeps the whole tile in eight registers; larger N
// takes 64 columns (four accumulators) at a time.
__attribute__((target("avx2,avx512f,avx512bw"))) void MultiplyRowsAvx512(
    const int8_t* const* rows, int64_t count, const PackedTile& tile, bool accumulate,
    int32_t* out) {
  const int64_t n = tile.n();
  const int64_t pairs = n / 2;
  const int16_t* packed = tile.pairs().data();
  alignas(64) int32_t xpairs[128];
  if (n == 16) {
    __m512i w[8];
    for (int p = 0; p < 8; ++p) w[p] = _mm512_loadu_si512(packed + 32 * p);
    for (int64_t r = 0; r < count; ++r) {
      PairUp(rows[r], n, xpairs);
      __m512i acc = _mm512_setzero_si512();
      for (int p = 0; p < 8; ++p) {
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_set1_epi32(xpairs[p]), w[p]));
      }
      int32_t* o = out + r * 16;
      if (accumulate) acc = _mm512_add_epi32(acc, _mm512_loadu_si512(o));
      _mm512_storeu_si512(o, acc);
    }
    return;
  }
  for (int64_t r = 0; r < count; ++r) {
    PairUp(rows[r], n, xpairs);
    int32_t* o = out + r * n;
    for (int64_t c0 = 0; c0 < n; c0 += 64) {
      const int64_t blocks = (n - c0) >= 64 ? 4 : (n - c0) / 16;
      __m512i acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
                        _mm512_setzero_si512()};
      for (int64_t p = 0; p < pairs; ++p) {
        const __m512i xv = _mm512_set1_epi32(xpairs[p]);
        const int16_t* wp = packed + (p * n + c0) * 2;
        for (int64_t b = 0; b < blocks; ++b) {
          acc[b] = _mm512_add_epi32(acc[b],
                                    _mm512_madd_epi16(xv, _mm512_loadu_si512(wp + 32 * b)));
        }
      }
      for (int64_t b = 0; b < blocks; ++b) {
        int32_t* dst = o + c0 + 16 * b;
        __m512i v = acc[b];
        if (accumulate) v = _mm512_add_epi32(v, _mm512_loadu_si512(dst));
        _mm512_storeu_si512(dst, v);
      }
    }
  }
}

bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

bool HaveAvx512() {
  static const bool have =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return have;
}
#endif

}  // namespace

void PackedTile::Pack(const std::vector<int8_t>& tile, int64_t n) {
  n_ = n;
  tile_.assign(tile.begin(), tile.end());
  pairs_.resize(static_cast<size_t>(n * n));
  for (int64_t p = 0; p < n / 2; ++p) {
    const int8_t* even = &tile_[size_t(2 * p * n)];
    const int8_t* odd = even + n;
    int16_t* out = &pairs_[size_t(2 * p * n)];
    for (int64_t c = 0; c < n; ++c) {
      out[2 * c] = even[c];
      out[2 * c + 1] = odd[c];
    }
  }
}

void MultiplyRows(const int8_t* const* rows, int64_t count, const PackedTile& tile,
                  bool accumulate, int32_t* out) {
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
  // n <= 256 (isa limits): xpairs holds 128 pairs.
  if (tile.n() % 16 == 0 && tile.n() <= 256 && HaveAvx512()) {
    MultiplyRowsAvx512(rows, count, tile, accumulate, out);
    return;
  }
  if (tile.n() % 8 == 0 && tile.n() <= 256 && HaveAvx2()) {
    MultiplyRowsAvx2(rows, count, tile, accumulate, out);
    return;
  }
#endif
  MultiplyRowsPlain(rows, count, tile, accumulate, out);
}

}  // namespace tpu::model
