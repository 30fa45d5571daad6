// The conv2d, pooling and activation lowerings (compiler/layers.h) run on the reference machine
// equal golden::Conv2d, MaxPool2d / AvgPool2d and the clamp + LUT bit for bit, for seeded random
// shapes (odd sizes, 1x1 / 3x3 / 5x5 kernels, strides 1..3, SAME and VALID, channels not
// multiples of N, batch above 1, per-tensor and per-channel requantization, input zero points)
// at N = 8 and 16 with small and default device limits; every program orders its hazards with
// tokens and leaves all counters at 0. Also: the identity requantization is exact, the
// Check*Layer messages, and the limits the lowerings reject.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "compiler/identity_lowering.h"
#include "compiler/layers.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/pool.h"
#include "golden/requant.h"
#include "tests/compiler/dense_testing.h"

namespace tpu::compiler {
namespace {

constexpr HostRegion kRegion{0x7f0000001000, 1 << 24};

isa::DeviceLimits SmallN8() { return {8, 256, 64, 65536, 16}; }
isa::DeviceLimits DefaultN8() { return {8, 4096, 1024, 1 << 26, 64}; }
isa::DeviceLimits DefaultN16() { return isa::DeviceLimits{}; }

// Places the images, runs on a fresh reference machine, extracts in the layer's output shape.
golden::Tensor<int8_t> RunLayer(const DenseProgram& program, int random_schedules = 1) {
  return RunLayerOnMachine(program, nullptr, std::nullopt, random_schedules);
}

// ---- conv2d ----

// A random conv layer: the random dense layer over K = KH * KW * Cin (requantization scaled to
// K, per tensor or per channel, bias or none, input and output zero points, clamps) in HWIO.
Conv2dLayer RandomConv(std::mt19937_64& rng, int64_t kh, int64_t kw, int64_t cin, int64_t cout,
                       int64_t stride_h, int64_t stride_w, golden::Padding padding) {
  DenseLayer dense = RandomDenseLayer(rng, kh * kw * cin, cout);
  Conv2dLayer conv;
  conv.weights = golden::Tensor<int8_t>({kh, kw, cin, cout}, dense.weights.data);
  conv.bias = dense.bias;
  conv.params = {stride_h, stride_w, padding, dense.input_zero_point};
  conv.requant = dense.requant;
  return conv;
}

void CheckConv(const isa::DeviceLimits& limits, const golden::Tensor<int8_t>& x,
               const Conv2dLayer& conv, const LoweringOptions& options = {}) {
  SCOPED_TRACE(LimitsText(limits) + " x " + Shape(x.shape) + " w " + Shape(conv.weights.shape) +
               " stride " + std::to_string(conv.params.stride_h) + "x" +
               std::to_string(conv.params.stride_w) +
               (conv.params.padding == golden::Padding::kSame ? " SAME" : " VALID") + " zp " +
               std::to_string(conv.params.input_zero_point) + " multipliers " +
               std::to_string(conv.requant.multipliers.size()));
  const DenseProgram program = LowerConv2d(x, conv, limits, kRegion, options);
  const golden::Tensor<int8_t> expected =
      golden::Conv2d(x, conv.weights, conv.bias, conv.params, conv.requant);
  EXPECT_EQ(Shape(program.output_shape), Shape(expected.shape));
  ExpectSame(RunLayer(program), expected);
}

void RandomConvs(const isa::DeviceLimits& limits, int count) {
  std::mt19937_64 rng(TestSeed());
  const int64_t kernels[] = {1, 3, 5};
  const int64_t max_cout = std::min<int64_t>(40, limits.param_sets * limits.n);
  for (int i = 0; i < count; ++i) {
    const int64_t kh = kernels[Uniform(rng, 0, 2)];
    const int64_t kw = Uniform(rng, 0, 3) == 0 ? kernels[Uniform(rng, 0, 2)] : kh;
    const auto padding = Uniform(rng, 0, 1) == 0 ? golden::Padding::kSame : golden::Padding::kValid;
    const int64_t h = Uniform(rng, padding == golden::Padding::kValid ? kh : 1, 13);
    const int64_t w = Uniform(rng, padding == golden::Padding::kValid ? kw : 1, 13);
    const int64_t stride = Uniform(rng, 1, 2);
    const int64_t stride_w = Uniform(rng, 0, 4) == 0 ? 3 - stride : stride;
    const int64_t cin = Uniform(rng, 1, 20);
    const int64_t cout = Uniform(rng, 1, max_cout);
    const golden::Tensor<int8_t> x = RandomTensor(rng, {Uniform(rng, 1, 3), h, w, cin});
    CheckConv(limits, x, RandomConv(rng, kh, kw, cin, cout, stride, stride_w, padding));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Conv2dLowering, RandomShapesDefaultN16) { RandomConvs(DefaultN16(), 30); }
TEST(Conv2dLowering, RandomShapesDefaultN8) { RandomConvs(DefaultN8(), 20); }
TEST(Conv2dLowering, RandomShapesSmallN8) { RandomConvs(SmallN8(), 20); }  // streamed im2col

TEST(Conv2dLowering, FixedCases) {
  std::mt19937_64 rng(TestSeed());
  // 1x1 kernel, stride 2, per-channel, channels not multiples of 16, batch 2.
  CheckConv(DefaultN16(), RandomTensor(rng, {2, 7, 9, 19}),
            RandomConv(rng, 1, 1, 19, 21, 2, 2, golden::Padding::kValid));
  // The Fashion-MNIST first layer shape (batch 2): 28x28x1, 3x3, 64 filters, SAME.
  CheckConv(DefaultN16(), RandomTensor(rng, {2, 28, 28, 1}),
            RandomConv(rng, 3, 3, 1, 64, 1, 1, golden::Padding::kSame));
  // 5x5 SAME stride 2 with an odd image.
  CheckConv(DefaultN8(), RandomTensor(rng, {3, 11, 5, 6}),
            RandomConv(rng, 5, 5, 6, 10, 2, 2, golden::Padding::kSame));
  // Kernel as large as the input (one output pixel, VALID).
  CheckConv(DefaultN16(), RandomTensor(rng, {1, 5, 5, 3}),
            RandomConv(rng, 5, 5, 3, 4, 1, 1, golden::Padding::kValid));
}

TEST(Conv2dLowering, Im2ColPadsWithTheZeroPoint) {
  golden::Tensor<int8_t> x({1, 2, 2, 1}, {1, 2, 3, 4});
  const golden::Tensor<int8_t> cols = Im2Col(x, 3, 3, {1, 1, golden::Padding::kSame, -7});
  ASSERT_EQ(Shape(cols.shape), Shape({4, 9}));
  // Output pixel (0, 0): window rows -1..1, cols -1..1.
  const std::vector<int8_t> first(cols.data.begin(), cols.data.begin() + 9);
  EXPECT_EQ(first, (std::vector<int8_t>{-7, -7, -7, -7, 1, 2, -7, 3, 4}));
  const golden::Tensor<int8_t> valid = Im2Col(x, 1, 2, {1, 1, golden::Padding::kValid, 0});
  EXPECT_EQ(Shape(valid.shape), Shape({2, 2}));
  EXPECT_EQ(valid.data, (std::vector<int8_t>{1, 2, 3, 4}));
}

TEST(Conv2dLowering, AsDenseKeepsTheKerasLayout) {
  std::mt19937_64 rng(1);
  const Conv2dLayer conv = RandomConv(rng, 3, 2, 4, 5, 1, 1, golden::Padding::kSame);
  const DenseLayer dense = Conv2dAsDense(conv);
  ASSERT_EQ(Shape(dense.weights.shape), Shape({24, 5}));
  // Row (ky, kx, c) = (2, 1, 3), column 4.
  EXPECT_EQ(dense.weights.At({(2 * 2 + 1) * 4 + 3, 4}), conv.weights.At({2, 1, 3, 4}));
  EXPECT_EQ(dense.input_zero_point, conv.params.input_zero_point);
  EXPECT_EQ(dense.bias, conv.bias);
}

// ---- pooling ----

void CheckPool(const isa::DeviceLimits& limits, const golden::Tensor<int8_t>& x,
               const PoolLayer& layer, const LoweringOptions& options = {}) {
  const golden::Pool2dParams& p = layer.params;
  SCOPED_TRACE(LimitsText(limits) + " x " + Shape(x.shape) +
               (layer.kind == PoolKind::kMax ? " max " : " avg ") + std::to_string(p.window_h) +
               "x" + std::to_string(p.window_w) + " stride " + std::to_string(p.stride_h) + "x" +
               std::to_string(p.stride_w) +
               (p.padding == golden::Padding::kSame ? " SAME" : " VALID") + " clamp [" +
               std::to_string(p.act_min) + ", " + std::to_string(p.act_max) + "]");
  const DenseProgram program = LowerPool(x, layer, limits, kRegion, options);
  const golden::Tensor<int8_t> expected =
      layer.kind == PoolKind::kMax ? golden::MaxPool2d(x, p) : golden::AvgPool2d(x, p);
  EXPECT_EQ(Shape(program.output_shape), Shape(expected.shape));
  ExpectSame(RunLayer(program), expected);
}

PoolLayer RandomPool(std::mt19937_64& rng, int64_t h, int64_t w) {
  PoolLayer layer;
  layer.kind = Uniform(rng, 0, 1) == 0 ? PoolKind::kMax : PoolKind::kAvg;
  golden::Pool2dParams& p = layer.params;
  p.padding = Uniform(rng, 0, 1) == 0 ? golden::Padding::kSame : golden::Padding::kValid;
  p.window_h = Uniform(rng, 1, 4);
  p.window_w = Uniform(rng, 0, 2) == 0 ? Uniform(rng, 1, 4) : p.window_h;
  if (p.padding == golden::Padding::kValid) {
    p.window_h = std::min(p.window_h, h);
    p.window_w = std::min(p.window_w, w);
  }
  p.stride_h = Uniform(rng, 1, 3);
  p.stride_w = Uniform(rng, 0, 2) == 0 ? Uniform(rng, 1, 3) : p.stride_h;
  if (Uniform(rng, 0, 2) == 0) {
    p.act_min = static_cast<int32_t>(Uniform(rng, -128, 20));
    p.act_max = static_cast<int32_t>(Uniform(rng, p.act_min, 127));
  }
  return layer;
}

void RandomPools(const isa::DeviceLimits& limits, int count, int64_t max_side) {
  std::mt19937_64 rng(TestSeed());
  for (int i = 0; i < count; ++i) {
    const int64_t h = Uniform(rng, 1, max_side);
    const int64_t w = Uniform(rng, 1, max_side);
    const golden::Tensor<int8_t> x = RandomTensor(rng, {Uniform(rng, 1, 4), h, w, Uniform(rng, 1, 40)});
    CheckPool(limits, x, RandomPool(rng, h, w));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(PoolLowering, RandomShapesDefaultN16) { RandomPools(DefaultN16(), 60, 20); }
TEST(PoolLowering, RandomShapesDefaultN8) { RandomPools(DefaultN8(), 30, 20); }
// ACC_ROWS 64: images above 32 pixels take the whole accumulators (one region), smaller ones
// come in groups over two regions; UB 256 rows.
TEST(PoolLowering, RandomShapesSmallN8) { RandomPools(SmallN8(), 50, 8); }

TEST(PoolLowering, FixedCases) {
  std::mt19937_64 rng(TestSeed());
  PoolLayer max2;
  max2.params = {2, 2, 2, 2, golden::Padding::kValid, -128, 127};
  // The Fashion-MNIST pooling: 28x28x64, 2x2 stride 2, batch 3 (784 pixels: one region).
  CheckPool(DefaultN16(), RandomTensor(rng, {3, 28, 28, 64}), max2);
  // Images of exactly ACC_ROWS pixels (one region spanning both) and just above half.
  CheckPool(DefaultN16(), RandomTensor(rng, {2, 32, 32, 5}), max2);
  CheckPool(SmallN8(), RandomTensor(rng, {3, 5, 7, 9}), max2);
  PoolLayer avg;
  avg.kind = PoolKind::kAvg;
  avg.params = {3, 3, 1, 1, golden::Padding::kSame, -20, 50};
  CheckPool(DefaultN8(), RandomTensor(rng, {4, 9, 6, 17}), avg);
  // Many groups of a few images (max_chunk_rows), in a UB window, at offsets.
  LoweringOptions options;
  options.max_chunk_rows = 40;
  options.ub_begin = 1000;
  options.ub_end = 1300;
  options.dram_tile_base = 9;
  options.param_set_base = 5;
  options.host_align = 1;
  CheckPool(DefaultN16(), RandomTensor(rng, {11, 4, 5, 33}), avg, options);
  // Window 15 and stride 3, the ISA limits (ISA version 2: 2-bit pooling strides).
  PoolLayer big;
  big.kind = PoolKind::kAvg;
  big.params = {15, 15, 3, 3, golden::Padding::kSame, -128, 127};
  CheckPool(DefaultN16(), RandomTensor(rng, {2, 20, 17, 3}), big);
}

TEST(PoolLowering, RejectsWhatItCannotLower) {
  std::mt19937_64 rng(1);
  PoolLayer max2;
  max2.params = {2, 2, 2, 2, golden::Padding::kValid, -128, 127};
  // Images larger than the accumulators are pooled in bands (test_pool_bands.cpp), except SAME
  // average pooling, and bands of one output line must fit.
  PoolLayer avg_same;
  avg_same.kind = PoolKind::kAvg;
  avg_same.params = {2, 2, 2, 2, golden::Padding::kSame, -128, 127};
  ExpectThrows(
      [&] { LowerPool(RandomTensor(rng, {1, 33, 32, 3}), avg_same, DefaultN16(), kRegion); },
               "SAME average pooling of a 33 x 32 image");
  PoolLayer tall = max2;
  tall.params.window_h = 5;
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {1, 9, 14, 3}), tall, SmallN8(), kRegion); },
               "ACC_ROWS = 64");
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {1, 1, 300, 3}), max2, DefaultN16(), kRegion); },
               "255");
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {1, 1, 5, 3}), max2, DefaultN16(), kRegion); },
               "max pool");  // VALID window taller than the image
  ExpectThrows([&] { LowerPool(RandomTensor(rng, {4, 4, 3}), max2, DefaultN16(), kRegion); },
               "NHWC");
}

// ---- activation ----

golden::Tensor<int8_t> GoldenActivation(const golden::Tensor<int8_t>& x,
                                        const ActivationLayer& layer) {
  golden::Tensor<int8_t> y = x;
  for (int8_t& v : y.data) {
    v = static_cast<int8_t>(std::clamp<int32_t>(v, layer.act_min, layer.act_max));
    if (layer.lut) v = golden::ApplyLut(v, *layer.lut);
  }
  return y;
}

void CheckActivation(const isa::DeviceLimits& limits, const golden::Tensor<int8_t>& x,
                     const ActivationLayer& layer, const LoweringOptions& options = {}) {
  SCOPED_TRACE(LimitsText(limits) + " x " + Shape(x.shape) + " clamp [" +
               std::to_string(layer.act_min) + ", " + std::to_string(layer.act_max) + "]" +
               (layer.lut ? " lut" : ""));
  const DenseProgram program = LowerActivation(x, layer, limits, kRegion, options);
  EXPECT_EQ(Shape(program.output_shape), Shape(x.shape));
  ExpectSame(RunLayer(program), GoldenActivation(x, layer));
}

ActivationLayer RandomActivation(std::mt19937_64& rng) {
  ActivationLayer layer;
  const int32_t zp = static_cast<int32_t>(Uniform(rng, -100, 100));
  const auto kind = static_cast<golden::Activation>(Uniform(rng, 0, 2));  // none, ReLU, ReLU6
  const golden::ActivationRange range = golden::QuantizedActivationRange(kind, 0.05f, zp);
  layer.act_min = range.min;
  layer.act_max = range.max;
  if (Uniform(rng, 0, 1) == 0) {
    golden::Lut lut;
    for (int8_t& v : lut) v = static_cast<int8_t>(Uniform(rng, -128, 127));
    layer.lut = lut;
  }
  return layer;
}

void RandomActivations(const isa::DeviceLimits& limits, int count) {
  std::mt19937_64 rng(TestSeed());
  for (int i = 0; i < count; ++i) {
    std::vector<int64_t> shape;
    switch (Uniform(rng, 0, 2)) {
      case 0: shape = {Uniform(rng, 1, 300), Uniform(rng, 1, 70)}; break;
      case 1: shape = {Uniform(rng, 1, 3), Uniform(rng, 1, 12), Uniform(rng, 1, 12), Uniform(rng, 1, 40)}; break;
      default: shape = {Uniform(rng, 1, 100)}; break;
    }
    CheckActivation(limits, RandomTensor(rng, shape), RandomActivation(rng));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ActivationLowering, RandomShapesDefaultN16) { RandomActivations(DefaultN16(), 40); }
TEST(ActivationLowering, RandomShapesSmallN8) { RandomActivations(SmallN8(), 40); }

TEST(ActivationLowering, FixedCases) {
  std::mt19937_64 rng(TestSeed());
  ActivationLayer relu;
  relu.act_min = 0;
  CheckActivation(DefaultN16(), RandomTensor(rng, {2, 13, 13, 64}), relu);  // 338 rows, 4 tiles
  ActivationLayer relu6;
  relu6.act_min = -10;
  relu6.act_max = 110;
  CheckActivation(DefaultN8(), RandomTensor(rng, {1500, 9}), relu6);  // rows over two regions
  ActivationLayer lut;
  lut.lut = golden::BuildLut([](float v) { return std::tanh(v); }, 0.05f, 3, 1.0f / 128, 0);
  LoweringOptions options;
  options.max_chunk_rows = 7;
  options.ub_begin = 3;
  options.ub_end = 60;
  CheckActivation(DefaultN16(), RandomTensor(rng, {50, 20}), lut, options);
  // Every int8 value through a LUT with the clamp before it.
  golden::Tensor<int8_t> all({256, 1});
  for (int i = 0; i < 256; ++i) all.data[static_cast<std::size_t>(i)] = static_cast<int8_t>(i - 128);
  lut.act_min = -100;
  lut.act_max = 90;
  CheckActivation(SmallN8(), all, lut);
}

// ACTIVATE's identity requantization: M0 = 2^30, shift 1 leaves every value exact.
TEST(IdentityPass, RequantizationIsExact) {
  for (int32_t v = -70000; v <= 70000; ++v) {
    ASSERT_EQ(golden::MultiplyByQuantizedMultiplier(v, int32_t{1} << 30, 1), v);
  }
  for (int32_t v = -128; v <= 127; ++v) {
    ASSERT_EQ(golden::Requantize(v, int32_t{1} << 30, 1, 0), v);
  }
  const std::vector<uint8_t> set = IdentityParamSetImage(4);
  ASSERT_EQ(set.size(), 36u);
  EXPECT_EQ(set[16], 0x00);  // multiplier 0x40000000 little-endian at 4N
  EXPECT_EQ(set[19], 0x40);
  EXPECT_EQ(set[32], 1);  // shift at 8N
  EXPECT_EQ(IdentityTileImage(3), (std::vector<uint8_t>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

// ---- checks and output shapes ----

TEST(LayerChecks, Messages) {
  std::mt19937_64 rng(1);
  Conv2dLayer conv = RandomConv(rng, 3, 3, 2, 4, 1, 1, golden::Padding::kSame);
  Conv2dLayer bad = conv;
  bad.weights = golden::Tensor<int8_t>({3, 3, 8});
  ExpectThrows([&] { CheckConv2dLayer(bad, "c"); }, "c: weights must be (KH, KW, Cin, Cout)");
  bad = conv;
  bad.params.stride_w = 0;
  ExpectThrows([&] { CheckConv2dLayer(bad, "c"); }, "c: strides must be >= 1");
  bad = conv;
  bad.bias = {1, 2, 3};
  ExpectThrows([&] { CheckConv2dLayer(bad, "c"); }, "c: bias has 3 values");
  bad = conv;
  bad.params.input_zero_point = 200;
  ExpectThrows([&] { CheckConv2dLayer(bad, "c"); }, "input zero point 200");
  bad = conv;
  bad.requant.multipliers.assign(3, {1 << 30, 0});
  ExpectThrows([&] { CheckConv2dLayer(bad, "c"); }, "3 multipliers");
  ExpectThrows(
      [&] { LowerConv2d(RandomTensor(rng, {1, 5, 5, 3}), conv, DefaultN16(), kRegion); },
      "Cin = 2");
  ExpectThrows(
      [&] { LowerConv2d(RandomTensor(rng, {1, 5, 5, 2}), conv, DefaultN16(), {0x1000, 100}); },
      "conv2d (a dense layer over im2col rows): dense: host region");

  PoolLayer pool;
  pool.params.window_h = 16;
  ExpectThrows([&] { CheckPoolLayer(pool, "p"); }, "p: window height 16 outside [1, 15]");
  pool.params = {};
  pool.params.stride_w = 8;
  ExpectThrows([&] { CheckPoolLayer(pool, "p"); }, "p: stride width 8 outside [1, 3]");
  pool.params = {};
  pool.params.window_w = 0;
  ExpectThrows([&] { CheckPoolLayer(pool, "p"); }, "window width 0");
  pool.params = {};
  pool.params.act_min = 5;
  pool.params.act_max = 4;
  ExpectThrows([&] { CheckPoolLayer(pool, "p"); }, "clamp minimum 5 > clamp maximum 4");

  ActivationLayer act;
  act.act_max = 128;
  ExpectThrows([&] { CheckActivationLayer(act, "a"); }, "a: clamp maximum 128 outside [-128, 127]");
  act.act_max = -1;
  act.act_min = 0;
  ExpectThrows([&] { CheckActivationLayer(act, "a"); }, "clamp minimum 0 > clamp maximum -1");
  ExpectThrows([&] { LowerActivation(golden::Tensor<int8_t>(std::vector<int64_t>{}), ActivationLayer{}, DefaultN16(), kRegion); },
               "rank >= 1");
}

TEST(LayerOutput, DenseProgramsRecordTheirShape) {
  std::mt19937_64 rng(TestSeed());
  const DenseLayer first = RandomDenseLayer(rng, 20, 30);
  const DenseLayer second = RandomDenseLayer(rng, 30, 7);
  const golden::Tensor<int8_t> x = RandomInt8(rng, 9, 20);
  const DenseProgram dense = LowerDense(x, first, DefaultN16(), kRegion);
  EXPECT_EQ(Shape(dense.output_shape), Shape({9, 30}));
  const golden::Tensor<int8_t> y = RunLayer(dense, 0);
  EXPECT_EQ(Shape(y.shape), Shape({9, 30}));
  const DenseProgram chain = LowerDenseChain(x, first, second, DefaultN16(), kRegion);
  EXPECT_EQ(Shape(chain.output_shape), Shape({9, 7}));
  DenseProgram wrong = dense;
  wrong.output_shape = {9, 31};
  ExpectThrows([&] { ExtractLayerOutput(wrong, [](uint64_t, uint64_t n) {
                   return std::vector<uint8_t>(n);
                 }); },
               "does not hold the 270 values");
}

}  // namespace
}  // namespace tpu::compiler
