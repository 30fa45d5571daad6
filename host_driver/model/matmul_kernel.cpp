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
void MultiplyRowsPlain(const RowSet& rows, int64_t count, const PackedTile& tile,
                       bool accumulate, int32_t* out) {
  const int64_t n = tile.n();
  const int8_t* w = tile.tile().data();
  std::vector<uint32_t> sum(static_cast<size_t>(n));
  for (int64_t r = 0; r < count; ++r) {
    const int8_t* x = rows.row(r, n);
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
__attribute__((target("avx2"))) void MultiplyRowsAvx2(const RowSet& rows, int64_t count,
                                                      const PackedTile& tile, bool accumulate,
                                                      int32_t* out) {
  const int64_t n = tile.n();
  const int64_t pairs = n / 2;
  const int16_t* packed = tile.pairs().data();
  alignas(64) int32_t xpairs[128];
  for (int64_t r = 0; r < count; ++r) {
    PairUp(rows.row(r, n), n, xpairs);
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
    const RowSet& rows, int64_t count, const PackedTile& tile, bool accumulate, int32_t* out) {
  const int64_t n = tile.n();
  const int64_t pairs = n / 2;
  const int16_t* packed = tile.pairs().data();
  alignas(64) int32_t xpairs[128];
  if (n == 16) {
    __m512i w[8];
    for (int p = 0; p < 8; ++p) w[p] = _mm512_loadu_si512(packed + 32 * p);
    for (int64_t r = 0; r < count; ++r) {
      PairUp(rows.row(r, n), n, xpairs);
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
    PairUp(rows.row(r, n), n, xpairs);
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

// AVX-512 VNNI: 16 columns a register, up to four registers (64 columns) at a time, summed over
// every tile of the block before they are stored; each quad of input channels is one vpdpbusd
// per register, on x + 128 (x ^ 0x80: unsigned); the tiles' bias (128 x their column sums) is
// subtracted at the end.
__attribute__((target("avx2,avx512f,avx512bw,avx512vnni"))) void MultiplyBlocksVnni(
    const RowSet* sets, const PackedTile* const* tiles, int64_t num_tiles, int64_t count,
    bool accumulate, int32_t* out) {
  const int64_t n = tiles[0]->n();
  const int64_t quads = n / 4;
  alignas(64) int32_t bias[256];
  for (int64_t c = 0; c < n; ++c) bias[c] = 0;
  for (int64_t t = 0; t < num_tiles; ++t) {
    const int32_t* b = tiles[t]->bias().data();
    for (int64_t c = 0; c < n; ++c) {
      bias[c] = static_cast<int32_t>(static_cast<uint32_t>(bias[c]) + static_cast<uint32_t>(b[c]));
    }
  }
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  if (n == 16) {
    // Four rows at a time, two sums each (even and odd quads): eight independent vpdpbusd
    // chains, enough to hide its latency; the tile's four registers serve the four rows.
    const __m512i sub = _mm512_load_si512(bias);
    const __m512i q0 = _mm512_set1_epi32(0), q1 = _mm512_set1_epi32(1);
    const __m512i q2 = _mm512_set1_epi32(2), q3 = _mm512_set1_epi32(3);
    constexpr int64_t kRows = 4;
    for (int64_t r0 = 0; r0 < count; r0 += kRows) {
      const int64_t rows_here = count - r0 < kRows ? count - r0 : kRows;
      __m512i even[kRows], odd[kRows];
      for (int64_t i = 0; i < kRows; ++i) {
        even[i] = accumulate && i < rows_here ? _mm512_loadu_si512(out + (r0 + i) * 16)
                                              : _mm512_setzero_si512();
        odd[i] = _mm512_setzero_si512();
      }
      for (int64_t t = 0; t < num_tiles; ++t) {
        const int8_t* w = tiles[t]->quads().data();
        const __m512i w0 = _mm512_loadu_si512(w), w1 = _mm512_loadu_si512(w + 64);
        const __m512i w2 = _mm512_loadu_si512(w + 128), w3 = _mm512_loadu_si512(w + 192);
        const RowSet& x = sets[t];
        for (int64_t i = 0; i < kRows; ++i) {
          if (i >= rows_here) break;
          // The row's 16 bytes in every 128-bit lane, flipped to unsigned; then quad q in all.
          const __m512i v = _mm512_xor_si512(
              _mm512_broadcast_i32x4(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(x.row(r0 + i, 16)))),
              flip);
          even[i] = _mm512_dpbusd_epi32(even[i], _mm512_permutexvar_epi32(q0, v), w0);
          odd[i] = _mm512_dpbusd_epi32(odd[i], _mm512_permutexvar_epi32(q1, v), w1);
          even[i] = _mm512_dpbusd_epi32(even[i], _mm512_permutexvar_epi32(q2, v), w2);
          odd[i] = _mm512_dpbusd_epi32(odd[i], _mm512_permutexvar_epi32(q3, v), w3);
        }
      }
      for (int64_t i = 0; i < rows_here; ++i) {
        _mm512_storeu_si512(out + (r0 + i) * 16,
                            _mm512_sub_epi32(_mm512_add_epi32(even[i], odd[i]), sub));
      }
    }
    return;
  }
  for (int64_t r = 0; r < count; ++r) {
    int32_t* o = out + r * n;
    for (int64_t c0 = 0; c0 < n; c0 += 64) {
      const int64_t blocks = (n - c0) >= 64 ? 4 : (n - c0) / 16;
      __m512i acc[4];
      for (int64_t b = 0; b < blocks; ++b) {
        acc[b] = accumulate ? _mm512_loadu_si512(o + c0 + 16 * b) : _mm512_setzero_si512();
      }
      for (int64_t t = 0; t < num_tiles; ++t) {
        const uint8_t* x = reinterpret_cast<const uint8_t*>(sets[t].row(r, n));
        const int8_t* w = tiles[t]->quads().data();
        for (int64_t q = 0; q < quads; ++q) {
          uint32_t word;
          std::memcpy(&word, x + 4 * q, sizeof(word));
          const __m512i xq = _mm512_set1_epi32(static_cast<int>(word ^ 0x80808080u));
          const int8_t* wq = w + (q * n + c0) * 4;
          for (int64_t b = 0; b < blocks; ++b) {
            acc[b] = _mm512_dpbusd_epi32(acc[b], xq, _mm512_loadu_si512(wq + 64 * b));
          }
        }
      }
      for (int64_t b = 0; b < blocks; ++b) {
        _mm512_storeu_si512(o + c0 + 16 * b,
                            _mm512_sub_epi32(acc[b], _mm512_load_si512(bias + c0 + 16 * b)));
      }
    }
  }
}

// PackedTile's vpdpbusd layout, 16 columns at a time (n is a multiple of 16 here): four rows'
// 16 bytes interleaved into 16 quads by two rounds of unpacks, and the column sums widened to
// int32 (times 128).
__attribute__((target("avx2,avx512f,avx512bw,avx512vnni"))) void PackVnni(const int8_t* tile,
                                                                         int64_t n,
                                                                         int8_t* quads,
                                                                         int32_t* bias) {
  for (int64_t c0 = 0; c0 < n; c0 += 16) {
    __m512i sum = _mm512_setzero_si512();
    for (int64_t q = 0; q < n / 4; ++q) {
      __m128i r[4];
      for (int j = 0; j < 4; ++j) {
        r[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tile + (4 * q + j) * n + c0));
        sum = _mm512_add_epi32(sum, _mm512_cvtepi8_epi32(r[j]));
      }
      const __m128i a_lo = _mm_unpacklo_epi8(r[0], r[1]), b_lo = _mm_unpacklo_epi8(r[2], r[3]);
      const __m128i a_hi = _mm_unpackhi_epi8(r[0], r[1]), b_hi = _mm_unpackhi_epi8(r[2], r[3]);
      auto* out = reinterpret_cast<__m128i*>(quads + (q * n + c0) * 4);
      _mm_storeu_si128(out + 0, _mm_unpacklo_epi16(a_lo, b_lo));  // columns c0 .. c0 + 3
      _mm_storeu_si128(out + 1, _mm_unpackhi_epi16(a_lo, b_lo));
      _mm_storeu_si128(out + 2, _mm_unpacklo_epi16(a_hi, b_hi));
      _mm_storeu_si128(out + 3, _mm_unpackhi_epi16(a_hi, b_hi));  // c0 + 12 .. c0 + 15
    }
    _mm512_storeu_si512(bias + c0, _mm512_slli_epi32(sum, 7));
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

bool HaveVnni() {
  static const bool have = HaveAvx512() && __builtin_cpu_supports("avx512vnni");
  return have;
}
#endif

// The kernel for a tile size on this CPU (n <= 256, the ISA's limit).
enum class Kernel { kPlain, kAvx2, kAvx512, kVnni };

Kernel KernelFor(int64_t n) {
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
  if (n % 16 == 0 && n <= 256 && HaveVnni()) return Kernel::kVnni;
  if (n % 16 == 0 && n <= 256 && HaveAvx512()) return Kernel::kAvx512;
  if (n % 8 == 0 && n <= 256 && HaveAvx2()) return Kernel::kAvx2;
#endif
  return Kernel::kPlain;
}

}  // namespace

void PackedTile::Pack(const std::vector<int8_t>& tile, int64_t n) {
  n_ = n;
  switch (KernelFor(n)) {
    case Kernel::kPlain:
      tile_.assign(tile.begin(), tile.end());
      break;
    case Kernel::kAvx2:
    case Kernel::kAvx512:
      pairs_.resize(static_cast<size_t>(n * n));
      for (int64_t p = 0; p < n / 2; ++p) {
        const int8_t* even = &tile[size_t(2 * p * n)];
        const int8_t* odd = even + n;
        int16_t* out = &pairs_[size_t(2 * p * n)];
        for (int64_t c = 0; c < n; ++c) {
          out[2 * c] = even[c];
          out[2 * c + 1] = odd[c];
        }
      }
      break;
    case Kernel::kVnni:
      quads_.resize(static_cast<size_t>(n * n));
      bias_.resize(static_cast<size_t>(n));
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
      PackVnni(tile.data(), n, quads_.data(), bias_.data());
#endif
      break;
  }
}

void MultiplyRows(const int8_t* const* rows, int64_t count, const PackedTile& tile,
                  bool accumulate, int32_t* out) {
  const PackedTile* tiles[1] = {&tile};
  RowSet set;
  set.rows = rows;
  MultiplyBlocks(&set, tiles, 1, count, accumulate, out);
}

void MultiplyBlocks(const RowSet* sets, const PackedTile* const* tiles, int64_t num_tiles,
                    int64_t count, bool accumulate, int32_t* out) {
  if (num_tiles <= 0) return;
  const Kernel kernel = KernelFor(tiles[0]->n());
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
  if (kernel == Kernel::kVnni) {
    MultiplyBlocksVnni(sets, tiles, num_tiles, count, accumulate, out);
    return;
  }
#endif
  // One pass a tile, the later ones accumulating.
  for (int64_t t = 0; t < num_tiles; ++t) {
    const RowSet& tile_rows = sets[t];
    const bool acc = accumulate || t > 0;
    switch (kernel) {
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
      case Kernel::kAvx512:
        MultiplyRowsAvx512(tile_rows, count, *tiles[t], acc, out);
        break;
      case Kernel::kAvx2:
        MultiplyRowsAvx2(tile_rows, count, *tiles[t], acc, out);
        break;
#endif
      default:
        MultiplyRowsPlain(tile_rows, count, *tiles[t], acc, out);
        break;
    }
  }
}

}  // namespace tpu::model
