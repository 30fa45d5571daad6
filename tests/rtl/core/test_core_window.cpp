// MATMUL window mode on the Verilated core (rtl/ctrl/tpu_ctrl_matrix.sv address generator):
// small convolutions lowered by hand to one window MATMUL per kernel tap over an image in the
// UB (docs/isa.md, MATMUL), run on the core and on the reference machine (host_driver/model).
// The machine's accumulators are checked against a direct convolution in this file, the core's
// requantized outputs against the machine's bit for bit, and the matrix unit's row count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core_configs.h"
#include "model/activate.h"
#include "model/machine.h"

namespace tpu::tb {
namespace {

constexpr uint64_t kBudget = 2'000'000;
constexpr uint64_t kImageHost = 0x10000, kWeightHost = 0x40000, kParamHost = 0x80000;
constexpr uint64_t kOutHost = 0xc0000;

struct ConvShape {
  const char* name;
  int64_t h, w, c;         // image, c <= N input channels in one channel tile
  int64_t kh, kw, stride;  // kernel, stride (both axes)
  bool same;               // SAME (pads with pad_value) or VALID
  int64_t band;            // output lines per MATMUL band (0: all in one)
};

struct ConvCase {
  int64_t oh = 0, ow = 0, pad_top = 0, pad_left = 0;
  int8_t zero_point = 0;
  std::vector<int8_t> image;    // (h * w) pixels of N bytes, channels >= c are 0
  std::vector<int8_t> weights;  // (kh * kw) tiles of N x N, k * N + col
  std::vector<isa::Instr> program;
};

// The case's data and its program: one window MATMUL per (band, tap), then one ACTIVATE and one
// WRITE_HOST of the N-byte output pixels. Tokens: t0 image, t1 weights in DRAM, t2 parameters,
// t3 matrix -> activation, t5 activation -> dma.
ConvCase MakeCase(const ConvShape& s, int64_t n, std::mt19937_64& rng) {
  ConvCase c;
  std::uniform_int_distribution<int> byte(-128, 127);
  c.zero_point = static_cast<int8_t>(std::uniform_int_distribution<int>(-20, 20)(rng) | 1);
  if (s.same) {
    c.oh = (s.h + s.stride - 1) / s.stride;
    c.ow = (s.w + s.stride - 1) / s.stride;
    const int64_t ph = std::max<int64_t>(0, (c.oh - 1) * s.stride + s.kh - s.h);
    const int64_t pw = std::max<int64_t>(0, (c.ow - 1) * s.stride + s.kw - s.w);
    c.pad_top = ph / 2;
    c.pad_left = pw / 2;
  } else {
    c.oh = (s.h - s.kh) / s.stride + 1;
    c.ow = (s.w - s.kw) / s.stride + 1;
  }
  c.image.assign(static_cast<size_t>(s.h * s.w * n), 0);
  for (int64_t p = 0; p < s.h * s.w; ++p) {
    for (int64_t k = 0; k < s.c; ++k) c.image[size_t(p * n + k)] = static_cast<int8_t>(byte(rng));
  }
  const int64_t taps = s.kh * s.kw;
  c.weights.assign(static_cast<size_t>(taps * n * n), 0);
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t k = 0; k < s.c; ++k) {
      for (int64_t col = 0; col < n; ++col) {
        c.weights[size_t((t * n + k) * n + col)] = static_cast<int8_t>(byte(rng));
      }
    }
  }

  const int64_t out_rows = c.oh * c.ow;
  const int64_t out_ub = s.h * s.w + 3;  // after the image
  auto& p = c.program;
  isa::ReadHost rh;
  rh.target = isa::Target::kUb;
  rh.dest = 0;
  rh.length = static_cast<uint32_t>(c.image.size());
  rh.host = kImageHost;
  rh.signal = 1u << 0;
  p.push_back(rh);
  rh.target = isa::Target::kDram;
  rh.length = static_cast<uint32_t>(c.weights.size());
  rh.host = kWeightHost;
  rh.signal = 1u << 1;
  p.push_back(rh);
  rh.target = isa::Target::kParam;
  rh.length = static_cast<uint32_t>(9 * n);
  rh.host = kParamHost;
  rh.signal = 1u << 2;
  p.push_back(rh);

  const int64_t band = s.band > 0 ? s.band : c.oh;
  bool first = true;
  for (int64_t oy0 = 0; oy0 < c.oh; oy0 += band) {
    const int64_t lines = std::min(band, c.oh - oy0);
    for (int64_t ky = 0; ky < s.kh; ++ky) {
      for (int64_t kx = 0; kx < s.kw; ++kx) {
        isa::ReadWeights rw;
        rw.dram_tile = static_cast<uint32_t>(ky * s.kw + kx);
        rw.tiles = 1;
        if (first) rw.wait = 1u << 1;
        p.push_back(rw);
        isa::Matmul mm;
        mm.window = true;
        mm.ub = 0;
        mm.acc = static_cast<uint32_t>(oy0 * c.ow);
        mm.rows = static_cast<uint32_t>(lines * c.ow);
        mm.acc_mode = (ky == 0 && kx == 0) ? isa::AccMode::kOverwrite : isa::AccMode::kAccumulate;
        mm.new_tile = true;
        mm.stride_h = static_cast<uint32_t>(s.stride);
        mm.stride_w = static_cast<uint32_t>(s.stride);
        mm.image_h = static_cast<uint32_t>(s.h);
        mm.image_w = static_cast<uint32_t>(s.w);
        mm.out_w = static_cast<uint32_t>(c.ow);
        mm.pad_value = c.zero_point;
        mm.y0 = static_cast<int32_t>(oy0 * s.stride + ky - c.pad_top);
        mm.x0 = static_cast<int32_t>(kx - c.pad_left);
        if (first) mm.wait = 1u << 0;
        first = false;
        p.push_back(mm);
      }
    }
  }
  std::get<isa::Matmul>(p.back()).signal = 1u << 3;
  isa::Activate act;
  act.acc = 0;
  act.rows = static_cast<uint32_t>(out_rows);
  act.ub = static_cast<uint32_t>(out_ub);
  act.param_set = 0;
  act.zero_point = 3;
  act.wait = (1u << 2) | (1u << 3);
  act.signal = 1u << 5;
  p.push_back(act);
  isa::WriteHost wh;
  wh.ub = static_cast<uint32_t>(out_ub);
  wh.length = static_cast<uint32_t>(out_rows * n);
  wh.host = kOutHost;
  wh.wait = 1u << 5;
  p.push_back(wh);
  p.push_back(isa::Halt{});
  return c;
}

// The int32 convolution (input minus nothing: padding taps read zero_point, as SAME does).
int32_t DirectConv(const ConvShape& s, const ConvCase& c, int64_t n, int64_t oy, int64_t ox,
                   int64_t col) {
  int32_t sum = 0;
  for (int64_t ky = 0; ky < s.kh; ++ky) {
    for (int64_t kx = 0; kx < s.kw; ++kx) {
      const int64_t iy = oy * s.stride + ky - c.pad_top, ix = ox * s.stride + kx - c.pad_left;
      const bool in = iy >= 0 && iy < s.h && ix >= 0 && ix < s.w;
      for (int64_t k = 0; k < n; ++k) {
        const int32_t x = in ? c.image[size_t((iy * s.w + ix) * n + k)] : c.zero_point;
        sum += x * c.weights[size_t(((ky * s.kw + kx) * n + k) * n + col)];
      }
    }
  }
  return sum;
}

std::vector<uint8_t> Bytes(const std::vector<int8_t>& v) { return {v.begin(), v.end()}; }

class CoreWindow : public ::testing::TestWithParam<int> {};

TEST_P(CoreWindow, ConvolutionsAsWindowMatmulsMatchTheModel) {
  auto h = MakeCore(GetParam());
  const isa::DeviceLimits limits = h->config().limits;
  const int64_t n = limits.n;
  const ConvShape shapes[] = {
      {"same3x3_s1", 7, 6, n - 3, 3, 3, 1, true, 0},
      {"valid3x3_s2", 9, 8, n, 3, 3, 2, false, 0},
      {"same3x3_s1_bands", 6, 5, n, 3, 3, 1, true, 2},      // y0 from oy0 * stride
      {"same3x3_s2_line", 1, 9, n - 1, 3, 3, 2, true, 0},   // a 1 x W image
      {"same2x2_s1_column", 7, 1, 2, 2, 2, 1, true, 0},     // an H x 1 image, even kernel
      {"same5x5_s3", 8, 7, n, 5, 5, 3, true, 0},
  };
  std::mt19937_64 rng(4242 + GetParam());
  for (const ConvShape& s : shapes) {
    SCOPED_TRACE(s.name);
    const ConvCase c = MakeCase(s, n, rng);
    model::ParamSet params;
    for (int64_t col = 0; col < n; ++col) {
      params.bias.push_back(std::uniform_int_distribution<int32_t>(-5000, 5000)(rng));
      params.multiplier.push_back(1 << 30);
      params.shift.push_back(-9);
    }
    const std::vector<uint8_t> param_bytes = model::EncodeParamSet(params);
    model::Machine machine(limits);
    for (model::HostMemory* mem : {&h->host(), &machine.host()}) {
      mem->Write(kImageHost, Bytes(c.image));
      mem->Write(kWeightHost, Bytes(c.weights));
      mem->Write(kParamHost, param_bytes);
      mem->Write(kOutHost, std::vector<uint8_t>(size_t(c.oh * c.ow * n), 0xa5));
    }
    const model::RunResult expected = machine.Run(c.program);
    ASSERT_TRUE(expected.halted()) << model::ToString(expected);
    // The reference machine's window MATMULs against the direct convolution.
    for (int64_t oy = 0; oy < c.oh; ++oy) {
      for (int64_t ox = 0; ox < c.ow; ++ox) {
        for (int64_t col = 0; col < n; ++col) {
          ASSERT_EQ(machine.acc_row(oy * c.ow + ox)[col], DirectConv(s, c, n, oy, ox, col))
              << "accumulator of output (" << oy << ", " << ox << ") column " << col;
        }
      }
    }
    h->SetTiming(GetParam() == 0 ? JitteryTiming() : IdealTiming());
    const CoreRunResult r = h->Run(EncodeProgram(c.program), kBudget);
    ASSERT_TRUE(r.finished && r.done && !r.error) << r.Describe();
    EXPECT_EQ(r.perf[CorePerf::kRowsMatrix], uint64_t(s.kh * s.kw * c.oh * c.ow))
        << r.Describe();
    const int64_t bytes = c.oh * c.ow * n;
    const auto got = h->host().Read(kOutHost, uint64_t(bytes));
    const auto want = machine.host().Read(kOutHost, uint64_t(bytes));
    int distinct = 0;
    for (int64_t b = 0; b < bytes; ++b) {
      ASSERT_EQ(int(int8_t(got[size_t(b)])), int(int8_t(want[size_t(b)])))
          << "output pixel " << b / n << " (" << b / n / c.ow << ", " << b / n % c.ow
          << ") channel " << b % n << " " << r.Describe();
      distinct += b > 0 && want[size_t(b)] != want[size_t(b - 1)];
    }
    EXPECT_GT(distinct, bytes / 4) << "the outputs are too uniform to compare";
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, CoreWindow, ::testing::Values(0, 1),
                         [](const auto& info) { return "config" + std::to_string(info.param); });

}  // namespace
}  // namespace tpu::tb
