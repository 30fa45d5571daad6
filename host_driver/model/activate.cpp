#include "model/activate.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "golden/int32_wrap.h"
#include "golden/padding.h"
#include "golden/pool.h"
#include "golden/tensor.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tpu::model {
namespace {

int32_t LoadLe32(const uint8_t* p) {
  const uint32_t bits =
      uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
  return golden::BitsToInt32(bits);
}

void StoreLe32(int32_t value, uint8_t* p) {
  const auto bits = static_cast<uint32_t>(value);
  for (int b = 0; b < 4; ++b) p[b] = static_cast<uint8_t>(bits >> (8 * b));
}

golden::Padding GoldenPadding(isa::Padding padding) {
  return padding == isa::Padding::kSame ? golden::Padding::kSame : golden::Padding::kValid;
}

}  // namespace

ParamSet DecodeParamSet(const uint8_t* bytes, int64_t n) {
  ParamSet set;
  set.bias.resize(static_cast<std::size_t>(n));
  set.multiplier.resize(static_cast<std::size_t>(n));
  set.shift.resize(static_cast<std::size_t>(n));
  for (int64_t c = 0; c < n; ++c) {
    const auto i = static_cast<std::size_t>(c);
    set.bias[i] = LoadLe32(bytes + 4 * c);
    set.multiplier[i] = LoadLe32(bytes + 4 * n + 4 * c);
    set.shift[i] = static_cast<int8_t>(bytes[8 * n + c]);
  }
  return set;
}

std::vector<uint8_t> EncodeParamSet(const ParamSet& set) {
  const std::size_t n = set.bias.size();
  if (set.multiplier.size() != n || set.shift.size() != n) {
    throw std::invalid_argument("EncodeParamSet: bias, multiplier and shift sizes differ");
  }
  std::vector<uint8_t> bytes(9 * n);
  for (std::size_t c = 0; c < n; ++c) {
    StoreLe32(set.bias[c], &bytes[4 * c]);
    StoreLe32(set.multiplier[c], &bytes[4 * n + 4 * c]);
    bytes[8 * n + c] = static_cast<uint8_t>(set.shift[c]);
  }
  return bytes;
}

int64_t ActivateOutRows(const isa::Activate& instr) {
  if (instr.pool == isa::Pool::kNone) return instr.rows;
  const int64_t pad = static_cast<int64_t>(instr.padding);
  const int64_t images = instr.rows / (int64_t{instr.image_h} * instr.image_w);
  return images * isa::detail::PoolOut(instr.image_h, instr.win_h, instr.stride_h, pad) *
         isa::detail::PoolOut(instr.image_w, instr.win_w, instr.stride_w, pad);
}

namespace {

// golden::Requantize(WrapAdd(acc, bias), ...), spelled out without its checks.
int8_t RequantizeOne(int32_t acc, int32_t bias, int32_t multiplier, int left_shift,
                     int right_shift, int32_t zero_point, int32_t clamp_min, int32_t clamp_max) {
  const uint32_t biased = static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias);
  const auto x = static_cast<int32_t>(biased << left_shift);  // wraps, as in TFLite
  // SaturatingRoundingDoublingHighMul(x, multiplier).
  int32_t high;
  if (x == INT32_MIN && multiplier == INT32_MIN) {
    high = INT32_MAX;
  } else {
    const int64_t ab = int64_t{x} * multiplier;
    const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
    high = static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
  }
  // RoundingDivideByPOT(high, right_shift): floor, then up when the remainder is over half
  // (for negatives at half too: away from zero).
  const auto mask = static_cast<uint32_t>((uint64_t{1} << right_shift) - 1);
  const auto remainder = static_cast<int32_t>(static_cast<uint32_t>(high) & mask);
  const int32_t threshold = static_cast<int32_t>(mask >> 1) + (high < 0 ? 1 : 0);
  const int32_t floor = high >= 0 ? high >> right_shift : -1 - ((-1 - high) >> right_shift);
  const int64_t y = int64_t{floor} + (remainder > threshold ? 1 : 0) + zero_point;
  return static_cast<int8_t>(std::clamp<int64_t>(y, clamp_min, clamp_max));
}

#if defined(__x86_64__)
bool HaveAvx512() {
  static const bool have =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return have;
}

// The 64-bit products p of one half of the lanes: (p + nudge) / 2^31, truncated toward zero,
// with nudge = 2^30 for p >= 0 and 1 - 2^30 below.
__attribute__((target("avx512f"))) __m512i HighMulHalf(__m512i p) {
  const __mmask8 negative = _mm512_cmplt_epi64_mask(p, _mm512_setzero_si512());
  const __m512i nudged = _mm512_add_epi64(
      p, _mm512_mask_blend_epi64(negative, _mm512_set1_epi64(int64_t{1} << 30),
                                 _mm512_set1_epi64(1 - (int64_t{1} << 30))));
  const __mmask8 below = _mm512_cmplt_epi64_mask(nudged, _mm512_setzero_si512());
  return _mm512_srai_epi64(
      _mm512_mask_add_epi64(nudged, below, nudged, _mm512_set1_epi64((int64_t{1} << 31) - 1)),
      31);
}

// RequantizeOne on 16 channels at once.
__attribute__((target("avx512f,avx512bw"))) void Requantize16(
    const int32_t* acc, const int32_t* bias, const int32_t* multiplier, const int32_t* left,
    const int32_t* right, int32_t zero_point, int32_t clamp_min, int32_t clamp_max,
    int8_t* out) {
  const __m512i m = _mm512_loadu_si512(multiplier);
  const __m512i x = _mm512_sllv_epi32(
      _mm512_add_epi32(_mm512_loadu_si512(acc), _mm512_loadu_si512(bias)),
      _mm512_loadu_si512(left));
  // SaturatingRoundingDoublingHighMul: even lanes' products, odd lanes' products, rejoined.
  const __m512i even = HighMulHalf(_mm512_mul_epi32(x, m));
  const __m512i odd =
      HighMulHalf(_mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(m, 32)));
  __m512i high = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  const __m512i min32 = _mm512_set1_epi32(INT32_MIN);
  const __mmask16 saturate =
      _mm512_cmpeq_epi32_mask(x, min32) & _mm512_cmpeq_epi32_mask(m, min32);
  high = _mm512_mask_mov_epi32(high, saturate, _mm512_set1_epi32(INT32_MAX));
  // RoundingDivideByPOT: the arithmetic shift is the floor.
  const __m512i shift = _mm512_loadu_si512(right);
  const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), shift),
                                        _mm512_set1_epi32(1));
  const __m512i remainder = _mm512_and_si512(high, mask);
  const __m512i threshold =
      _mm512_add_epi32(_mm512_srli_epi32(mask, 1), _mm512_srli_epi32(high, 31));
  __m512i y = _mm512_srav_epi32(high, shift);
  y = _mm512_mask_add_epi32(y, _mm512_cmpgt_epi32_mask(remainder, threshold), y,
                            _mm512_set1_epi32(1));
  // The zero point, then the clamp; bounding y first keeps the sum in int32 and changes no
  // result (the bounds are int8).
  y = _mm512_min_epi32(_mm512_max_epi32(y, _mm512_set1_epi32(-65536)), _mm512_set1_epi32(65536));
  y = _mm512_add_epi32(y, _mm512_set1_epi32(zero_point));
  y = _mm512_min_epi32(_mm512_max_epi32(y, _mm512_set1_epi32(clamp_min)),
                       _mm512_set1_epi32(clamp_max));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(y));
}
#endif

}  // namespace

RowRequant::RowRequant(const ParamSet& params, int32_t zero_point, int32_t clamp_min,
                       int32_t clamp_max)
    : n_(static_cast<int64_t>(params.bias.size())),
      bias_(params.bias),
      multiplier_(params.multiplier),
      zero_point_(zero_point),
      clamp_min_(clamp_min),
      clamp_max_(clamp_max) {
  for (const int8_t shift : params.shift) {
    left_shift_.push_back(shift > 0 ? shift : 0);
    right_shift_.push_back(shift > 0 ? 0 : -shift);
  }
}

void RowRequant::Apply(const int32_t* acc, int8_t* out) const {
#if defined(__x86_64__)
  if (n_ % 16 == 0 && HaveAvx512()) {
    for (int64_t c = 0; c < n_; c += 16) {
      Requantize16(acc + c, &bias_[size_t(c)], &multiplier_[size_t(c)], &left_shift_[size_t(c)],
                   &right_shift_[size_t(c)], zero_point_, clamp_min_, clamp_max_, out + c);
    }
    return;
  }
#endif
  for (int64_t c = 0; c < n_; ++c) {
    const auto i = static_cast<std::size_t>(c);
    out[c] = RequantizeOne(acc[c], bias_[i], multiplier_[i], left_shift_[i], right_shift_[i],
                           zero_point_, clamp_min_, clamp_max_);
  }
}

void ActivateRows(const isa::Activate& instr, const int32_t* acc, int64_t n,
                  const ParamSet& params, const golden::Lut& lut, std::vector<int8_t>* out) {
  const int64_t rows = instr.rows;
  const RowRequant requant(params, instr.zero_point, instr.clamp_min, instr.clamp_max);
  std::vector<int8_t>& values = *out;
  values.resize(static_cast<std::size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r) {
    int8_t* y = &values[static_cast<std::size_t>(r * n)];
    requant.Apply(acc + r * n, y);
    if (instr.lut) {
      for (int64_t c = 0; c < n; ++c) y[c] = golden::ApplyLut(y[c], lut);
    }
  }
  if (instr.pool == isa::Pool::kNone) return;

  // Pooling follows the clamp and the LUT; the pooled value is clamped to the same bounds again
  // (rtl/act/tpu_act.sv; it matters only when the LUT maps outside them).
  const int64_t h = instr.image_h;
  const int64_t w = instr.image_w;
  golden::Tensor<int8_t> images({rows / (h * w), h, w, n}, std::move(values));
  golden::Pool2dParams pool;
  pool.window_h = instr.win_h;
  pool.window_w = instr.win_w;
  pool.stride_h = instr.stride_h;
  pool.stride_w = instr.stride_w;
  pool.padding = GoldenPadding(instr.padding);
  pool.act_min = instr.clamp_min;
  pool.act_max = instr.clamp_max;
  golden::Tensor<int8_t> pooled = instr.pool == isa::Pool::kMax ? golden::MaxPool2d(images, pool)
                                                                : golden::AvgPool2d(images, pool);
  values = std::move(pooled.data);
}

}  // namespace tpu::model
