// Pooling of images larger than the accumulators (compiler/layers.h LowerPool, in bands of output
// lines) run on the reference machine equals golden::MaxPool2d / AvgPool2d bit for bit: seeded
// random max and avg VALID and max SAME pools with H * W > ACC_ROWS at N = 8 with ACC_ROWS = 64
// and on the default device, windows 1..4, strides 1..3, batch above 1, channels not multiples
// of N, clamps, images taller than 255 lines, resident input and output, UB windows and small
// chunks; every program orders its hazards with tokens and leaves all counters at 0. Also: SAME
// average pooling of such images, too wide images and bands that cannot fit are rejected with
// messages that say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <variant>

#include "compiler/dense_images.h"
#include "compiler/layers.h"
#include "golden/pool.h"
#include "tests/compiler/dense_testing.h"

namespace tpu::compiler {
namespace {

constexpr HostRegion kRegion{0x7f0000001000, 1 << 24};

isa::DeviceLimits SmallN8() { return {8, 256, 64, 65536, 16}; }
isa::DeviceLimits DefaultN16() { return isa::DeviceLimits{}; }

// Lowers, runs on a fresh machine (the input in the UB first when options.input_in_ub says so)
// and compares with golden; the program must pool in bands. Returns the program.
DenseProgram CheckBandedPool(const isa::DeviceLimits& limits, const golden::Tensor<int8_t>& x,
                             const PoolLayer& layer, const LoweringOptions& options = {}) {
  const golden::Pool2dParams& p = layer.params;
  SCOPED_TRACE(LimitsText(limits) + " x " + Shape(x.shape) +
               (layer.kind == PoolKind::kMax ? " max " : " avg ") + std::to_string(p.window_h) +
               "x" + std::to_string(p.window_w) + " stride " + std::to_string(p.stride_h) + "x" +
               std::to_string(p.stride_w) +
               (p.padding == golden::Padding::kSame ? " SAME" : " VALID") + " clamp [" +
               std::to_string(p.act_min) + ", " + std::to_string(p.act_max) + "]" +
               (options.input_in_ub ? " resident input" : "") +
               (options.output_ub ? " resident output" : ""));
  const DenseProgram program = LowerPool(x, layer, limits, kRegion, options);
  const golden::Tensor<int8_t> expected =
      layer.kind == PoolKind::kMax ? golden::MaxPool2d(x, p) : golden::AvgPool2d(x, p);
  EXPECT_EQ(Shape(program.output_shape), Shape(expected.shape));
  EXPECT_NE(program.lowering.find("in bands"), std::string::npos) << program.lowering;
  EXPECT_EQ(CountWindowMatmuls(program) > 0, p.padding == golden::Padding::kSame);
  EXPECT_EQ(program.ub_output.has_value(), options.output_ub.has_value());

  const golden::Tensor<int8_t> got = RunLayerOnMachine(
      program, &x,
      options.input_in_ub ? std::optional<int64_t>(options.input_in_ub->ub) : std::nullopt);
  EXPECT_EQ(Shape(got.shape), Shape(expected.shape));
  if (got.data.size() == expected.data.size()) {
    for (std::size_t i = 0; i < got.data.size(); ++i) {
      if (got.data[i] != expected.data[i]) {
        ADD_FAILURE() << "element " << i << " of " << Shape(got.shape) << ": got "
                      << int{got.data[i]} << ", golden " << int{expected.data[i]};
        break;
      }
    }
  }
  return program;
}

// Max VALID, avg VALID or max SAME (the three banded kinds), windows 1..4 (VALID: at most the
// image), strides 1..3, sometimes a clamp (avg: a narrower one takes the clamp pass).
PoolLayer RandomBandedPool(std::mt19937_64& rng, int64_t h, int64_t w) {
  PoolLayer layer;
  const int64_t kind = Uniform(rng, 0, 2);
  layer.kind = kind == 1 ? PoolKind::kAvg : PoolKind::kMax;
  golden::Pool2dParams& p = layer.params;
  p.padding = kind == 2 ? golden::Padding::kSame : golden::Padding::kValid;
  p.window_h = std::min(Uniform(rng, 1, 4), h);
  p.window_w = std::min(Uniform(rng, 0, 2) == 0 ? Uniform(rng, 1, 4) : p.window_h, w);
  p.stride_h = Uniform(rng, 1, 3);
  p.stride_w = Uniform(rng, 0, 2) == 0 ? Uniform(rng, 1, 3) : p.stride_h;
  if (Uniform(rng, 0, 2) == 0) {
    p.act_min = static_cast<int32_t>(Uniform(rng, -128, 20));
    p.act_max = static_cast<int32_t>(Uniform(rng, p.act_min, 127));
  }
  return layer;
}

// Images of more than ACC_ROWS pixels with sides in [min_side, max_side]; one case in
// `resident_every` with a resident input, output or both, the UB window after them.
void RandomBandedPools(const isa::DeviceLimits& limits, int count, int64_t min_side,
                       int64_t max_side, int64_t max_channels, int64_t resident_every) {
  std::mt19937_64 rng(TestSeed());
  for (int i = 0; i < count; ++i) {
    int64_t h = 0, w = 0;
    do {
      h = Uniform(rng, min_side, max_side);
      w = Uniform(rng, min_side, max_side);
    } while (h * w <= limits.acc_rows);
    const int64_t batch = Uniform(rng, 1, 3), c = Uniform(rng, 1, max_channels);
    const golden::Tensor<int8_t> x = RandomTensor(rng, {batch, h, w, c});
    PoolLayer layer = RandomBandedPool(rng, h, w);
    // One output line's band (window_h lines of at most W + window_w - 1 padded pixels) must fit
    // the accumulators (RejectsWhatItCannotBand checks the message).
    golden::Pool2dParams& p = layer.params;
    while (p.window_h * (w + p.window_w - 1) > limits.acc_rows) --p.window_h;
    LoweringOptions options;
    if (Uniform(rng, 1, resident_every) == 1) {
      const int64_t in_rows = CeilDiv(c, limits.n) * batch * h * w;
      const int64_t out_rows = in_rows;  // at least the output's
      const int64_t mode = Uniform(rng, 0, 2);  // input, output, both resident
      int64_t next = 0;
      if (mode != 1) {
        options.input_in_ub = UbTensor{next, batch * h * w, c};
        next += in_rows;
      }
      if (mode != 0) {
        options.output_ub = next;
        next += out_rows;
      }
      options.ub_begin = next;
      // Room for the buffers of the side that crosses PCIe (4 lines of up to 60 pixels a band
      // and its output line; an avg pool's clamp pass takes the output through the host), else
      // skip the case.
      const bool clamp_pass =
          layer.kind == PoolKind::kAvg && (p.act_min > -128 || p.act_max < 127);
      const bool buffers = mode != 2 || clamp_pass;
      if (limits.ub_rows - next < (buffers ? 2 * 5 * max_side : 1)) continue;
    }
    CheckBandedPool(limits, x, layer, options);
    if (::testing::Test::HasFailure()) return;
  }
}

// ACC_ROWS 64 (two regions of 32 rows), UB 256 rows: bands of one or a few output lines, some
// in one region spanning the accumulators (a line's band above 32 rows).
TEST(PoolBands, RandomShapesSmallN8) { RandomBandedPools(SmallN8(), 200, 6, 15, 20, 4); }
// The default device: 1024 accumulator rows, images of 33..60 pixels a side.
TEST(PoolBands, RandomShapesDefaultN16) { RandomBandedPools(DefaultN16(), 60, 33, 60, 40, 4); }
// Every case resident (input, output or both) on an N = 8 device with 128 accumulator rows and
// a UB large enough to hold them.
TEST(PoolBands, RandomShapesResidentN8) {
  RandomBandedPools({8, 16384, 128, 1 << 20, 16}, 60, 12, 30, 20, 1);
}

TEST(PoolBands, FixedCases) {
  std::mt19937_64 rng(TestSeed());
  PoolLayer max_same;
  max_same.params = {3, 3, 2, 2, golden::Padding::kSame, -128, 127};
  // 40x40x20 on the default device: 1600 pixels, SAME 3x3 stride 2 (padding right and bottom).
  DenseProgram p = CheckBandedPool(DefaultN16(), RandomTensor(rng, {2, 40, 40, 20}), max_same);
  EXPECT_GE(p.plans.at(0).chunks, 4);  // 2 images x at least 2 bands
  // SAME with padding on all sides (4x4 window stride 1) and a ReLU clamp above the pad value.
  max_same.params = {4, 4, 1, 1, golden::Padding::kSame, -5, 127};
  CheckBandedPool(DefaultN16(), RandomTensor(rng, {1, 37, 29, 17}), max_same);
  // SAME that pads nothing, the last column in no window: 1x1 window stride 3 over W = 38.
  max_same.params = {1, 1, 3, 3, golden::Padding::kSame, -128, 127};
  CheckBandedPool(DefaultN16(), RandomTensor(rng, {2, 35, 38, 5}), max_same);
  PoolLayer max_valid;
  max_valid.params = {2, 2, 2, 2, golden::Padding::kValid, -128, 127};
  CheckBandedPool(DefaultN16(), RandomTensor(rng, {3, 40, 40, 20}), max_valid);
  // A UB window of 330 rows: two input and two output buffers of one output line's band (80 +
  // 20 rows) fit, of two lines' (160 + 40) not: 20 bands an image.
  LoweringOptions tight;
  tight.ub_begin = 100;
  tight.ub_end = 430;
  p = CheckBandedPool(DefaultN16(), RandomTensor(rng, {2, 40, 40, 20}), max_valid, tight);
  EXPECT_EQ(p.plans.at(0).chunks, 2 * 20);
  // An image taller than 255 lines (it would fit the accumulators: ACTIVATE's image_h does not).
  CheckBandedPool(DefaultN16(), RandomTensor(rng, {2, 300, 3, 4}), max_valid);
  max_same.params = {3, 2, 3, 1, golden::Padding::kSame, -128, 127};
  CheckBandedPool(DefaultN16(), RandomTensor(rng, {1, 400, 2, 3}), max_same);
  // Average VALID with a clamp narrower than int8: bands, then the clamp pass.
  PoolLayer avg;
  avg.kind = PoolKind::kAvg;
  avg.params = {3, 3, 1, 2, golden::Padding::kValid, -30, 40};
  p = CheckBandedPool(DefaultN16(), RandomTensor(rng, {2, 41, 33, 19}), avg);
  EXPECT_NE(p.lowering.find("clamp pass"), std::string::npos) << p.lowering;
  // Overlapping bands (window 4 > stride 1), many of them (max_chunk_rows), in a UB window, at
  // offsets.
  avg.params = {4, 3, 1, 1, golden::Padding::kValid, -128, 127};
  LoweringOptions options;
  options.max_chunk_rows = 70;
  options.ub_begin = 1000;
  options.ub_end = 1300;
  options.dram_tile_base = 9;
  options.param_set_base = 5;
  options.host_align = 1;
  p = CheckBandedPool(DefaultN16(), RandomTensor(rng, {2, 40, 30, 33}), avg, options);
  EXPECT_EQ(p.plans.at(0).chunks, 2 * 37);  // one output line a band
  // One output line's band above half the accumulators: a single region (SmallN8: 4 x 10 > 32).
  max_valid.params = {4, 2, 1, 2, golden::Padding::kValid, -128, 127};
  CheckBandedPool(SmallN8(), RandomTensor(rng, {2, 9, 10, 11}), max_valid);
  // Resident input and output together on the default device, 40x40x20 (two channel tiles:
  // input 3200 UB rows, output 800), no buffers in the 96 remaining rows.
  LoweringOptions resident;
  resident.input_in_ub = UbTensor{0, 40 * 40, 20};
  resident.output_ub = 2 * 40 * 40;
  resident.ub_begin = 2 * 40 * 40 + 2 * 20 * 20;
  max_same.params = {2, 2, 2, 2, golden::Padding::kSame, -128, 127};
  CheckBandedPool(DefaultN16(), RandomTensor(rng, {1, 40, 40, 20}), max_same, resident);
}

TEST(PoolBands, RejectsWhatItCannotBand) {
  std::mt19937_64 rng(1);
  PoolLayer avg_same;
  avg_same.kind = PoolKind::kAvg;
  avg_same.params = {3, 3, 2, 2, golden::Padding::kSame, -128, 127};
  ExpectThrows(
      [&] { LowerPool(RandomTensor(rng, {1, 40, 40, 3}), avg_same, DefaultN16(), kRegion); },
               "avg pool: SAME average pooling of a 40 x 40 image (1600 pixels, more than the "
               "accumulators hold (1024)) is not supported");
  ExpectThrows(
      [&] { LowerPool(RandomTensor(rng, {1, 300, 2, 3}), avg_same, DefaultN16(), kRegion); },
               "300 lines, more than the ACTIVATE image_h field holds (255)");
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {1, 9, 8, 3}), avg_same, SmallN8(), kRegion); },
               "cannot exclude the image's padding from the mean");
  PoolLayer max2;
  max2.params = {2, 2, 2, 2, golden::Padding::kValid, -128, 127};
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {1, 2, 300, 3}), max2, DefaultN16(), kRegion); },
               "wider than 255 pixels");
  PoolLayer wide_same;
  wide_same.params = {15, 15, 1, 1, golden::Padding::kSame, -128, 127};
  ExpectThrows(
      [&] { LowerPool(RandomTensor(rng, {1, 9, 250, 3}), wide_same, DefaultN16(), kRegion); },
      "padded image width 264 is larger than 255");
  // One output line needs 4 input lines of 20 pixels: 80 accumulator rows > 64.
  PoolLayer tall;
  tall.params = {4, 1, 1, 1, golden::Padding::kValid, -128, 127};
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {1, 6, 20, 3}), tall, SmallN8(), kRegion); },
               "one output line's band (4 input lines of 20 pixels) needs 80 accumulator rows");
  LoweringOptions narrow;
  narrow.ub_end = 30;
  ExpectThrows(
      [&] { LowerPool(RandomTensor(rng, {1, 9, 9, 3}), max2, SmallN8(), kRegion, narrow); },
      "do not fit the 30 UB rows");
}

}  // namespace
}  // namespace tpu::compiler
