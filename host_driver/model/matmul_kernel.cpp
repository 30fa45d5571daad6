#include "model/matmul_kernel.h"

#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
// GCC 12's AVX-512 intrinsics start some results from _mm512_undefined_epi32(), a variable
// initialized with itself, which -Wmaybe-uninitialized reports wherever they are inlined (GCC
// bug 105593, fixed in GCC 13): silenced for the header's lines only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#define TPU_MODEL_HAVE_AVX2_KERNEL 1
#endif
#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#define TPU_MODEL_HAVE_AMX_KERNEL 1
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

#ifdef TPU_MODEL_HAVE_AMX_KERNEL
// AMX needs the CPU's tile and int8 instructions, the operating system's saving of the tile
// registers (XCR0 bits 17 and 18), and, on Linux, the process's permission to use the tile
// data (asked once; a kernel without AMX support refuses it, and the VNNI kernel runs).
bool HaveAmx() {
  static const bool have = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & (1u << 27)) == 0) return false;  // OSXSAVE
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    if ((d & (1u << 24)) == 0 || (d & (1u << 25)) == 0) return false;  // AMX-TILE, AMX-INT8
    unsigned xcr0_lo = 0, xcr0_hi = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & (3u << 17)) != (3u << 17)) return false;  // XTILECFG, XTILEDATA
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
  }();
  return have;
}

// The tile configuration tdpbssd runs with (ldtilecfg's 64-byte operand, palette 1).
struct TileConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};
static_assert(sizeof(TileConfig) == 64, "ldtilecfg reads 64 bytes");

// AMX, for blocks of 16 rows or more: for each 16 rows and 16 columns, tmm0 holds the int32
// sums while every tile of the block adds its products, kc = min(N, 64) input channels per
// tdpbssd: tmm1 the rows' bytes (16 x kc, signed), tmm2 the tile's quads of those channels for
// the 16 columns (kc / 4 rows of 64 bytes). Rows come straight from a range, pointer rows
// through a small buffer. When the count is not a multiple of 16, the last 16 rows are
// computed first and only the rows no other group covers are written (the others are still
// unchanged when it reads them). (Fewer than 16 rows: VNNI is as fast or faster, measured.)
__attribute__((target("amx-tile,amx-int8"))) void MultiplyBlocksAmx(
    const RowSet* sets, const PackedTile* const* tiles, int64_t num_tiles, int64_t count,
    bool accumulate, int32_t* out) {
  const int64_t n = tiles[0]->n();
  const int64_t kc = n < 64 ? n : 64;
  TileConfig config;
  config.rows[0] = 16;
  config.bytes_per_row[0] = 64;
  config.rows[1] = 16;
  config.bytes_per_row[1] = static_cast<uint16_t>(kc);
  config.rows[2] = static_cast<uint8_t>(kc / 4);
  config.bytes_per_row[2] = 64;
  _tile_loadconfig(&config);
  alignas(64) int8_t rows_buffer[16 * 64];
  alignas(64) int32_t sums_buffer[16 * 16];
  const int64_t out_stride = n * static_cast<int64_t>(sizeof(int32_t));
  // Groups of 16 rows [r0, r0 + 16), written from row `keep` on; the overlapping last group
  // first.
  const int64_t whole = count / 16 * 16;
  const int64_t overlap = whole < count ? 1 : 0;
  for (int64_t g = 0; g < whole / 16 + overlap; ++g) {
    const int64_t r0 = g < overlap ? count - 16 : (g - overlap) * 16;
    const int64_t keep = g < overlap ? whole : r0;
    for (int64_t c0 = 0; c0 < n; c0 += 16) {
      int32_t* o = out + r0 * n + c0;
      if (accumulate) {
        _tile_loadd(0, o, out_stride);
      } else {
        _tile_zero(0);
      }
      for (int64_t t = 0; t < num_tiles; ++t) {
        const RowSet& set = sets[t];
        const int8_t* quads = tiles[t]->quads().data();
        for (int64_t k0 = 0; k0 < n; k0 += kc) {
          if (set.rows == nullptr) {
            _tile_loadd(1, set.base + r0 * n + k0, n);
          } else {
            for (int64_t i = 0; i < 16; ++i) {
              std::memcpy(rows_buffer + i * kc, set.rows[r0 + i] + k0, static_cast<size_t>(kc));
            }
            _tile_loadd(1, rows_buffer, kc);
          }
          _tile_loadd(2, quads + (k0 / 4 * n + c0) * 4, n * 4);
          _tile_dpbssd(0, 1, 2);
        }
      }
      if (keep == r0) {
        _tile_stored(0, o, out_stride);
      } else {
        _tile_stored(0, sums_buffer, 64);
        for (int64_t i = keep - r0; i < 16; ++i) std::memcpy(o + i * n, sums_buffer + i * 16, 64);
      }
    }
  }
  _tile_release();
}
#endif

bool Usable(MatmulKernel kernel, int64_t n) {
  if (n <= 0 || n > 256) return kernel == MatmulKernel::kPlain;
  switch (kernel) {
    case MatmulKernel::kPlain:
      return true;
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
    case MatmulKernel::kAvx2:
      return n % 8 == 0 && HaveAvx2();
    case MatmulKernel::kAvx512:
      return n % 16 == 0 && HaveAvx512();
    case MatmulKernel::kVnni:
      return n % 16 == 0 && HaveVnni();
#endif
#ifdef TPU_MODEL_HAVE_AMX_KERNEL
    case MatmulKernel::kAmx:
      return n % 16 == 0 && HaveVnni() && HaveAmx();  // packs the tiles as VNNI does
#endif
    default:
      return false;
  }
}

// The kernel for a tile size on this CPU (n <= 256, the ISA's limit): the fastest usable.
MatmulKernel KernelFor(int64_t n) {
  static_assert(static_cast<int>(MatmulKernel::kAmx) == 4, "the fastest kernel is the last");
  for (int k = static_cast<int>(MatmulKernel::kAmx); k > 0; --k) {
    if (Usable(static_cast<MatmulKernel>(k), n)) return static_cast<MatmulKernel>(k);
  }
  return MatmulKernel::kPlain;
}

}  // namespace

std::vector<MatmulKernel> UsableKernels(int64_t n) {
  std::vector<MatmulKernel> kernels;
  for (int k = 0; k <= static_cast<int>(MatmulKernel::kAmx); ++k) {
    if (Usable(static_cast<MatmulKernel>(k), n)) kernels.push_back(static_cast<MatmulKernel>(k));
  }
  return kernels;
}

const char* KernelName(MatmulKernel kernel) {
  switch (kernel) {
    case MatmulKernel::kPlain:
      return "plain";
    case MatmulKernel::kAvx2:
      return "avx2";
    case MatmulKernel::kAvx512:
      return "avx512";
    case MatmulKernel::kVnni:
      return "avx512-vnni";
    case MatmulKernel::kAmx:
      return "amx-int8";
  }
  return "?";
}

void PackedTile::Pack(const std::vector<int8_t>& tile, int64_t n) { Pack(tile, n, KernelFor(n)); }

void PackedTile::Pack(const std::vector<int8_t>& tile, int64_t n, MatmulKernel kernel) {
  if (!Usable(kernel, n)) {
    throw std::invalid_argument(std::string("PackedTile: the ") + KernelName(kernel) +
                                " kernel cannot run tiles of N = " + std::to_string(n) +
                                " on this CPU (UsableKernels lists those that can)");
  }
  n_ = n;
  kernel_ = kernel;
  switch (kernel) {
    case MatmulKernel::kPlain:
      tile_.assign(tile.begin(), tile.end());
      break;
    case MatmulKernel::kAvx2:
    case MatmulKernel::kAvx512:
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
    case MatmulKernel::kVnni:
    case MatmulKernel::kAmx:
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
  const MatmulKernel kernel = tiles[0]->kernel();
#ifdef TPU_MODEL_HAVE_AMX_KERNEL
  if (kernel == MatmulKernel::kAmx && count >= 16) {
    MultiplyBlocksAmx(sets, tiles, num_tiles, count, accumulate, out);
    return;
  }
#endif
#ifdef TPU_MODEL_HAVE_AVX2_KERNEL
  if (kernel == MatmulKernel::kVnni || kernel == MatmulKernel::kAmx) {  // the same packing
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
      case MatmulKernel::kAvx512:
        MultiplyRowsAvx512(tile_rows, count, *tiles[t], acc, out);
        break;
      case MatmulKernel::kAvx2:
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
