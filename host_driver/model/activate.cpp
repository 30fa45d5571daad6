#include "model/activate.h"

#include <cstddef>
#include <stdexcept>
#include <utility>

#include "golden/int32_wrap.h"
#include "golden/padding.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "golden/tensor.h"

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

std::vector<int8_t> ActivateRows(const isa::Activate& instr, const int32_t* acc, int64_t n,
                                 const ParamSet& params, const golden::Lut& lut) {
  const int64_t rows = instr.rows;
  std::vector<int8_t> values(static_cast<std::size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const auto i = static_cast<std::size_t>(r * n + c);
      const auto ch = static_cast<std::size_t>(c);
      const int32_t biased = golden::WrapAdd(acc[i], params.bias[ch]);
      int8_t y = golden::Requantize(biased, params.multiplier[ch], params.shift[ch],
                                    instr.zero_point, instr.clamp_min, instr.clamp_max);
      if (instr.lut) y = golden::ApplyLut(y, lut);
      values[i] = y;
    }
  }
  if (instr.pool == isa::Pool::kNone) return values;

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
  const golden::Tensor<int8_t> pooled = instr.pool == isa::Pool::kMax
                                            ? golden::MaxPool2d(images, pool)
                                            : golden::AvgPool2d(images, pool);
  return pooled.data;
}

}  // namespace tpu::model
