// The sliding-window conv2d lowering (compiler/conv_window_lowering.h) on the reference machine
// equals golden::Conv2d bit for bit for seeded random layers (odd sizes, 1x1 / 3x3 / 5x5 / 1x3
// kernels, strides 1..3, SAME and VALID, Cin and Cout not multiples of N and above N, batch
// above 1, per-tensor and per-channel requantization, input zero points, output bands when
// OH * OW exceeds an accumulator region) at N = 8 and 16; with the input already in the UB and
// the output left there; LowerConv2d's kAuto choice; the limits it names; and the PCIe bytes of
// both lowerings for the examples' conv layers.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <variant>

#include "compiler/conv_window_lowering.h"
#include "compiler/dense_images.h"
#include "compiler/layers.h"
#include "golden/conv.h"
#include "golden/format.h"
#include "tests/compiler/dense_testing.h"

namespace tpu::compiler {
namespace {

constexpr HostRegion kRegion{0x7f0000001000, 1 << 24};

isa::DeviceLimits SmallN8() { return {8, 2048, 64, 1 << 20, 16}; }
isa::DeviceLimits DefaultN8() { return {8, 4096, 1024, 1 << 26, 64}; }
isa::DeviceLimits DefaultN16() { return isa::DeviceLimits{}; }

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

std::string Describe(const isa::DeviceLimits& limits, const golden::Tensor<int8_t>& x,
                     const Conv2dLayer& conv) {
  return LimitsText(limits) + " x " + Shape(x.shape) + " w " + Shape(conv.weights.shape) +
         " stride " + std::to_string(conv.params.stride_h) + "x" +
         std::to_string(conv.params.stride_w) +
         (conv.params.padding == golden::Padding::kSame ? " SAME" : " VALID") + " zp " +
         std::to_string(conv.params.input_zero_point) + " multipliers " +
         std::to_string(conv.requant.multipliers.size());
}

golden::Tensor<int8_t> Golden(const golden::Tensor<int8_t>& x, const Conv2dLayer& conv) {
  return golden::Conv2d(x, conv.weights, conv.bias, conv.params, conv.requant);
}

// Runs `program` on a machine whose UB holds `x` at `input_ub` (if >= 0) beforehand; returns the
// output from the host or, when the program left it there, the UB.
golden::Tensor<int8_t> RunProgram(const DenseProgram& program, const golden::Tensor<int8_t>& x,
                                  int64_t input_ub = -1) {
  return RunLayerOnMachine(program, &x,
                           input_ub >= 0 ? std::optional<int64_t>(input_ub) : std::nullopt);
}

void CheckWindow(const isa::DeviceLimits& limits, const golden::Tensor<int8_t>& x,
                 const Conv2dLayer& conv, LoweringOptions options = {}) {
  SCOPED_TRACE(Describe(limits, x, conv));
  options.conv = ConvLowering::kWindow;
  const DenseProgram program = LowerConv2d(x, conv, limits, kRegion, options);
  EXPECT_EQ(program.lowering, "conv window");
  const golden::Tensor<int8_t> expected = Golden(x, conv);
  EXPECT_EQ(Shape(program.output_shape), Shape(expected.shape));
  const auto& w = conv.weights.shape;
  EXPECT_EQ(CountWindowMatmuls(program) % (w[0] * w[1] * CeilDiv(w[2], limits.n)), 0);
  ExpectSame(RunProgram(program, x), expected);
}

void RandomWindowConvs(const isa::DeviceLimits& limits, int count, int64_t max_side,
                       int64_t max_cin) {
  std::mt19937_64 rng(TestSeed());
  const int64_t kernels[] = {1, 3, 5};
  const int64_t max_cout = std::min<int64_t>(3 * limits.n + 5, limits.param_sets * limits.n);
  for (int i = 0; i < count; ++i) {
    int64_t kh = kernels[Uniform(rng, 0, 2)];
    int64_t kw = Uniform(rng, 0, 3) == 0 ? kernels[Uniform(rng, 0, 2)] : kh;
    if (Uniform(rng, 0, 5) == 0) kh = 1, kw = 3;  // 1x3
    const auto padding = Uniform(rng, 0, 1) == 0 ? golden::Padding::kSame : golden::Padding::kValid;
    const int64_t h = Uniform(rng, padding == golden::Padding::kValid ? kh : 1, max_side);
    const int64_t w = Uniform(rng, padding == golden::Padding::kValid ? kw : 1, max_side);
    const int64_t stride = Uniform(rng, 1, 3);
    const int64_t stride_w = Uniform(rng, 0, 3) == 0 ? Uniform(rng, 1, 3) : stride;
    const int64_t cin = Uniform(rng, 1, max_cin);
    const int64_t cout = Uniform(rng, 1, max_cout);
    const golden::Tensor<int8_t> x = RandomTensor(rng, {Uniform(rng, 1, 3), h, w, cin});
    LoweringOptions options;
    if (Uniform(rng, 0, 3) == 0) options.max_chunk_rows = Uniform(rng, w, 3 * w);  // more bands
    CheckWindow(limits, x, RandomConv(rng, kh, kw, cin, cout, stride, stride_w, padding),
                options);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ConvWindow, RandomShapesDefaultN16) { RandomWindowConvs(DefaultN16(), 25, 19, 40); }
TEST(ConvWindow, RandomShapesDefaultN8) { RandomWindowConvs(DefaultN8(), 25, 17, 21); }
// 32-row accumulator regions: most layers run in several bands of output lines.
TEST(ConvWindow, RandomShapesSmallN8) { RandomWindowConvs(SmallN8(), 25, 11, 19); }

TEST(ConvWindow, FixedCases) {
  std::mt19937_64 rng(TestSeed());
  // Bands: OH * OW = 784 > 512 rows of a region, Cin = 20 and Cout = 37 above N = 16, batch 2.
  CheckWindow(DefaultN16(), RandomTensor(rng, {2, 28, 28, 20}),
              RandomConv(rng, 3, 3, 20, 37, 1, 1, golden::Padding::kSame));
  // 5x5 SAME stride 2 (pad_top = 1 of a total 2... odd sizes), per-channel, N = 8.
  CheckWindow(DefaultN8(), RandomTensor(rng, {3, 11, 6, 9}),
              RandomConv(rng, 5, 5, 9, 10, 2, 2, golden::Padding::kSame));
  // Stride 3 with a 1x3 kernel and an odd image.
  CheckWindow(DefaultN8(), RandomTensor(rng, {2, 13, 10, 17}),
              RandomConv(rng, 1, 3, 17, 9, 3, 3, golden::Padding::kSame));
  // 1x1 VALID stride 2, channels not multiples of N.
  CheckWindow(DefaultN16(), RandomTensor(rng, {2, 7, 9, 19}),
              RandomConv(rng, 1, 1, 19, 21, 2, 2, golden::Padding::kValid));
  // Kernel as large as the input (one output pixel).
  CheckWindow(DefaultN16(), RandomTensor(rng, {1, 5, 5, 3}),
              RandomConv(rng, 5, 5, 3, 4, 1, 1, golden::Padding::kValid));
  // One output line per band (max_chunk_rows = OW).
  LoweringOptions one_line;
  one_line.max_chunk_rows = 9;
  CheckWindow(DefaultN8(), RandomTensor(rng, {2, 9, 9, 8}),
              RandomConv(rng, 3, 3, 8, 8, 1, 1, golden::Padding::kSame), one_line);
}

// The input already in the UB (below the work window) and the output left there (above it).
TEST(ConvWindow, ResidentInputAndOutput) {
  std::mt19937_64 rng(TestSeed());
  const isa::DeviceLimits limits = DefaultN8();
  const golden::Tensor<int8_t> x = RandomTensor(rng, {2, 12, 11, 13});
  const Conv2dLayer conv = RandomConv(rng, 3, 3, 13, 19, 2, 1, golden::Padding::kSame);
  const golden::Tensor<int8_t> expected = Golden(x, conv);
  const UbTensor input{100, 2 * 12 * 11, 13};  // rows [100, 628)
  const int64_t out_ub = 3000;
  for (int mode = 0; mode < 3; ++mode) {
    SCOPED_TRACE("mode " + std::to_string(mode));
    LoweringOptions options;
    // kAuto reads a resident input by the window; from the host it would take im2col here (the
    // window passes 9 x 2 rows a pixel for Cin = 13 at N = 8, im2col 15: AutoChoosesBy...).
    options.conv = mode == 2 ? ConvLowering::kAuto : ConvLowering::kWindow;
    options.ub_begin = 1000;
    options.ub_end = 2000;
    if (mode != 1) options.input_in_ub = input;
    if (mode != 0) options.output_ub = out_ub;
    const DenseProgram p = LowerConv2d(x, conv, limits, kRegion, options);
    EXPECT_EQ(p.lowering, "conv window");
    for (const HostImage& image : p.images) EXPECT_NE(image.name, mode != 1 ? "x" : "");
    ASSERT_EQ(p.ub_output.has_value(), mode != 0);
    if (p.ub_output) {
      EXPECT_EQ(p.ub_output->ub, out_ub);
      EXPECT_EQ(p.ub_output->m, 2 * 6 * 11);
      EXPECT_EQ(p.ub_output->channels, 19);
      EXPECT_EQ(ProgramPcieBytes(p).from_device, 0u);
    }
    ExpectSame(RunProgram(p, x, mode != 1 ? input.ub : -1), expected);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ConvWindow, AutoChoosesByMxuRowsThenPcieBytes) {
  std::mt19937_64 rng(TestSeed());
  const isa::DeviceLimits limits = DefaultN16();
  // Cin >= N: the input crosses once instead of 9 times.
  const golden::Tensor<int8_t> x16 = RandomTensor(rng, {1, 14, 14, 16});
  const Conv2dLayer c16 = RandomConv(rng, 3, 3, 16, 32, 1, 1, golden::Padding::kSame);
  const DenseProgram p16 = LowerConv2d(x16, c16, limits, kRegion);
  EXPECT_EQ(p16.lowering, "conv window");
  // Cin = 1, 3x3: im2col packs the 9 taps into one K tile, the window pads each to N bytes.
  const golden::Tensor<int8_t> x1 = RandomTensor(rng, {1, 28, 28, 1});
  const Conv2dLayer c1 = RandomConv(rng, 3, 3, 1, 64, 1, 1, golden::Padding::kValid);
  const DenseProgram p1 = LowerConv2d(x1, c1, limits, kRegion);
  EXPECT_EQ(p1.lowering, "conv im2col");
  LoweringOptions im2col;
  im2col.conv = ConvLowering::kIm2col;
  EXPECT_EQ(LowerConv2d(x16, c16, limits, kRegion, im2col).lowering, "conv im2col");
  ExpectSame(RunProgram(p1, x1), Golden(x1, c1));
  // Cin = 13 at N = 8, 3x3: the window would pass 9 x 2 rows a pixel, im2col 15; im2col although
  // the window moves fewer bytes.
  const golden::Tensor<int8_t> x13 = RandomTensor(rng, {1, 12, 11, 13});
  const Conv2dLayer c13 = RandomConv(rng, 3, 3, 13, 19, 1, 1, golden::Padding::kSame);
  LoweringOptions window;
  window.conv = ConvLowering::kWindow;
  EXPECT_LT(ProgramPcieBytes(LowerConv2d(x13, c13, DefaultN8(), kRegion, window)).total(),
            ProgramPcieBytes(LowerConv2d(x13, c13, DefaultN8(), kRegion, im2col)).total());
  EXPECT_EQ(LowerConv2d(x13, c13, DefaultN8(), kRegion).lowering, "conv im2col");
  // A layer the window cannot take (W > 255) falls back to im2col.
  const golden::Tensor<int8_t> wide = RandomTensor(rng, {1, 2, 300, 16});
  const Conv2dLayer c3 = RandomConv(rng, 1, 3, 16, 4, 1, 1, golden::Padding::kSame);
  EXPECT_EQ(LowerConv2d(wide, c3, limits, kRegion).lowering, "conv im2col");
}

TEST(ConvWindow, Errors) {
  std::mt19937_64 rng(1);
  const isa::DeviceLimits limits = DefaultN16();
  LoweringOptions window;
  window.conv = ConvLowering::kWindow;
  const auto lower = [&](std::vector<int64_t> x_shape, const Conv2dLayer& conv,
                         const LoweringOptions& options) {
    return [=] { LowerConv2d(golden::Tensor<int8_t>(x_shape), conv, limits, kRegion, options); };
  };
  const Conv2dLayer c3 = RandomConv(rng, 3, 3, 4, 4, 1, 1, golden::Padding::kSame);
  ExpectThrows(lower({1, 256, 4, 4}, c3, window), "input height H = 256 > 255");
  ExpectThrows(lower({1, 4, 300, 4}, c3, window), "input width W = 300 > 255");
  ExpectThrows(lower({1, 4, 4, 4}, RandomConv(rng, 3, 3, 4, 4, 8, 1, golden::Padding::kSame),
                     window),
               "exceed 7");
  ExpectThrows(lower({1, 4, 40, 4}, RandomConv(rng, 1, 20, 4, 4, 1, 1, golden::Padding::kValid),
                     window),
               "outside the MATMUL x0 field's [-16, 15]");
  // 200 x 200 x 4: 40000 UB rows of input.
  ExpectThrows(lower({1, 200, 200, 4}, c3, window), "do not fit the program's 4096 UB rows");
  LoweringOptions small_acc = window;
  small_acc.max_chunk_rows = 5;
  ExpectThrows(lower({1, 6, 9, 4}, c3, small_acc), "an output line of OW = 9 pixels");
  const Conv2dLayer wide_out = RandomConv(rng, 3, 3, 4, 1100, 1, 1, golden::Padding::kSame);
  ExpectThrows(lower({1, 6, 6, 4}, wide_out, window), "parameter sets");
  LoweringOptions dram = window;
  dram.dram_tile_base = limits.dram_bytes / 256 - 3;
  ExpectThrows(lower({1, 6, 6, 4}, c3, dram), "tiles of weight DRAM");
  // The resident input: the im2col route cannot take it, its shape and place must match.
  LoweringOptions resident;
  resident.conv = ConvLowering::kIm2col;
  resident.input_in_ub = UbTensor{0, 36, 4};
  resident.ub_begin = 100;
  ExpectThrows(lower({1, 6, 6, 4}, c3, resident), "needs the sliding window lowering");
  resident.conv = ConvLowering::kWindow;
  resident.input_in_ub = UbTensor{0, 35, 4};
  ExpectThrows(lower({1, 6, 6, 4}, c3, resident), "the input in the UB holds (m 35");
  resident.input_in_ub = UbTensor{90, 36, 4};
  ExpectThrows(lower({1, 6, 6, 4}, c3, resident), "overlaps the program's UB rows [100, 4096)");
  resident.input_in_ub = UbTensor{0, 36, 4};
  resident.output_ub = 20;
  ExpectThrows(lower({1, 6, 6, 4}, c3, resident), "overlaps the input in the UB");
  resident.conv = ConvLowering::kAuto;
  resident.output_ub = 4090;
  ExpectThrows(lower({1, 6, 6, 4}, c3, resident), "lies outside the UB's 4096 rows");
}

// PCIe payload bytes of the examples' conv layers (batch 1) at the default device, window vs
// im2col vs the tensors themselves (input + weights + output, int8), from the programs' images.
TEST(ConvWindow, ExamplePcieFigures) {
  struct Case {
    const char* name;
    int64_t h, w, cin, k, cout;
    golden::Padding padding;
  };
  const Case cases[] = {
      {"fashion conv 28x28x1 -> 64 3x3 VALID", 28, 28, 1, 3, 64, golden::Padding::kValid},
      {"deep conv1 28x28x1 -> 64 5x5 SAME", 28, 28, 1, 5, 64, golden::Padding::kSame},
      {"deep conv2 14x14x64 -> 128 5x5 SAME", 14, 14, 64, 5, 128, golden::Padding::kSame},
      {"deep conv3 7x7x128 -> 256 5x5 SAME", 7, 7, 128, 5, 256, golden::Padding::kSame},
  };
  const isa::DeviceLimits limits = DefaultN16();
  std::mt19937_64 rng(7);
  for (const Case& c : cases) {
    const golden::Tensor<int8_t> x = RandomTensor(rng, {1, c.h, c.w, c.cin});
    const Conv2dLayer conv = RandomConv(rng, c.k, c.k, c.cin, c.cout, 1, 1, c.padding);
    LoweringOptions options;
    options.conv = ConvLowering::kWindow;
    const DenseProgram win = LowerConv2d(x, conv, limits, kRegion, options);
    options.conv = ConvLowering::kIm2col;
    const DenseProgram col = LowerConv2d(x, conv, limits, kRegion, options);
    const DenseProgram chosen = LowerConv2d(x, conv, limits, kRegion);
    const auto& y = win.output_shape;
    const uint64_t tensors = static_cast<uint64_t>(
        x.NumElements() + conv.weights.NumElements() + y[0] * y[1] * y[2] * y[3]);
    // MXU utilization on an ideal schedule: useful MACs / (MATMUL rows x N x N).
    uint64_t rows = 0;
    for (const auto& instr : win.instrs) {
      if (const auto* m = std::get_if<isa::Matmul>(&instr)) rows += m->rows;
    }
    const double macs = double(y[1] * y[2] * c.k * c.k * c.cin * c.cout);
    std::cout << "[ figures  ] " << c.name << ": PCIe bytes window "
              << ProgramPcieBytes(win).total() << ", im2col " << ProgramPcieBytes(col).total()
              << ", input+weights+output " << tensors << "; auto: " << chosen.lowering
              << "; window MXU rows " << rows << ", utilization bound "
              << macs / (double(rows) * limits.n * limits.n) << "\n";
    EXPECT_EQ(ProgramPcieBytes(chosen).total(),
              std::min(ProgramPcieBytes(win).total(), ProgramPcieBytes(col).total()));
    if (c.cin >= limits.n) {
      EXPECT_LT(ProgramPcieBytes(win).total(), ProgramPcieBytes(col).total());
    }
  }
}

}  // namespace
}  // namespace tpu::compiler
