// The built `tpu` binary's conv2d, pool and activation commands, run as users run them:
// hand-computed layers, random layers against the golden reference, the rtl backend's output
// file byte for byte equal to golden's (with --check), the JSON reports, and bad input (exit
// status 2, a message naming the option or file and what was expected, nothing written).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/pool.h"
#include "npy/npy.h"
#include "npy/npy_fixtures.h"
#include "cli/tpu_binary.h"
#include "npy/scratch_dir.h"

namespace tpu::cli {
namespace {

using golden::Tensor;
using tpu::testing::ReadFile;
using tpu::testing::ScratchDir;
using tpu::testing::RunTpu;
using tpu::testing::TpuRun;
using tpu::testing::Python;

Tensor<int8_t> RandomInt8(std::vector<int64_t> shape, std::mt19937_64& rng) {
  Tensor<int8_t> t(std::move(shape));
  for (auto& v : t.data) v = static_cast<int8_t>(rng());
  return t;
}

class LayerCli : public ::testing::Test {
 protected:
  std::vector<int8_t> Output() const { return npy::Read<int8_t>(y_).data; }
  std::vector<int64_t> OutputShape() const { return npy::Read<int8_t>(y_).shape; }

  // `args` must fail with status 2 and a message on stderr holding every part; nothing written.
  void ExpectBadInput(const std::string& args, const std::vector<std::string>& parts) {
    const TpuRun run = RunTpu(args, dir_);
    EXPECT_EQ(run.status, 2) << "tpu " << args << "\nstdout: " << run.out << "\nstderr: " << run.err;
    for (const auto& part : parts) {
      EXPECT_NE(run.err.find(part), std::string::npos)
          << "tpu " << args << "\nstderr: " << run.err << "\nexpected to contain: " << part;
    }
    EXPECT_TRUE(ReadFile(y_).empty()) << "an output was written for bad input: tpu " << args;
  }

  // Runs `args` on golden into g.npy and on rtl (with --check) into y.npy; both must succeed
  // and the two files must be the same bytes. Returns the rtl run.
  TpuRun ExpectRtlEqualsGolden(const std::string& args) {
    const std::string golden_y = dir_ / "g.npy";
    const TpuRun golden = RunTpu(args + " --output " + golden_y, dir_);
    EXPECT_EQ(golden.status, 0) << golden.err;
    const TpuRun rtl = RunTpu(args + " --output " + y_ + " --backend rtl --check", dir_);
    EXPECT_EQ(rtl.status, 0) << "tpu " << args << "\nstdout: " << rtl.out
                             << "\nstderr: " << rtl.err;
    EXPECT_NE(rtl.out.find("on the rtl backend"), std::string::npos) << rtl.out;
    EXPECT_NE(rtl.out.find("PASS ("), std::string::npos) << rtl.out;
    const std::string want = ReadFile(golden_y), got = ReadFile(y_);
    EXPECT_FALSE(want.empty());
    EXPECT_TRUE(got == want) << "rtl output differs from golden's for: tpu " << args;
    return rtl;
  }

  // Bad input on rtl: the same message as on golden, fast, no simulation, nothing written.
  void ExpectRtlFailsLikeGolden(const std::string& args) {
    const TpuRun golden = RunTpu(args, dir_);
    const auto start = std::chrono::steady_clock::now();
    const TpuRun rtl = RunTpu(args + " --backend rtl", dir_);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(golden.status, 2) << args;
    EXPECT_FALSE(golden.err.empty()) << args;
    EXPECT_EQ(rtl.status, 2) << "tpu " << args << " --backend rtl\nstderr: " << rtl.err;
    EXPECT_EQ(rtl.err, golden.err) << "tpu " << args;
    EXPECT_TRUE(ReadFile(y_).empty()) << "an output was written for bad input";
    EXPECT_LT(seconds, 2.0) << "tpu " << args << " --backend rtl: slow to fail";
  }

  std::string Json(const TpuRun& run) const { return dir_.WriteFile("report.json", run.out); }

  ScratchDir dir_;
  const std::string x_ = dir_ / "x.npy", w_ = dir_ / "w.npy", b_ = dir_ / "b.npy";
  const std::string m_ = dir_ / "m.npy", s_ = dir_ / "s.npy", l_ = dir_ / "l.npy";
  const std::string y_ = dir_ / "y.npy";
};

TEST(LayerCommands, ListedInHelp) {
  ScratchDir dir;
  TpuRun run = RunTpu("--help", dir);
  EXPECT_EQ(run.status, 0);
  for (const char* command : {"conv2d", "pool", "activation"}) {
    EXPECT_NE(run.out.find(command), std::string::npos) << run.out;
  }
  run = RunTpu("conv2d --help", dir);
  EXPECT_EQ(run.status, 0);
  for (const char* option : {"--strides", "--padding", "--multipliers", "--backend", "--check"}) {
    EXPECT_NE(run.out.find(option), std::string::npos) << run.out;
  }
  run = RunTpu("pool --help", dir);
  EXPECT_NE(run.out.find("--clamp-min"), std::string::npos) << run.out;
  run = RunTpu("activation --help", dir);
  EXPECT_NE(run.out.find("--lut"), std::string::npos) << run.out;
}

// ---------------------------------------------------------------------------------------------
// conv2d

class Conv2dCli : public LayerCli {
 protected:
  // x (1, 3, 3, 1) = 1..9, a 2x2 kernel of ones.
  void SetUp() override {
    npy::Write(x_, Tensor<int8_t>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    npy::Write(w_, Tensor<int8_t>({2, 2, 1, 1}, {1, 1, 1, 1}));
  }
  std::string Layer() const {
    return "conv2d --input " + x_ + " --weights " + w_ + " --output " + y_;
  }

  // Random x (n, h, w, cin), W (kh, kw, cin, cout), b, per-channel multipliers and shifts.
  void WriteRandom(int64_t n, int64_t h, int64_t w, int64_t cin, int64_t kh, int64_t kw,
                   int64_t cout, uint64_t seed) {
    std::mt19937_64 rng(seed);
    x = RandomInt8({n, h, w, cin}, rng);
    weights = RandomInt8({kh, kw, cin, cout}, rng);
    Tensor<int32_t> b({cout}), mult({cout}), shift({cout});
    for (auto& v : b.data) v = static_cast<int32_t>(rng() % 20001) - 10000;
    for (auto& v : mult.data) v = static_cast<int32_t>((1u << 30) + rng() % (1u << 30));
    for (auto& v : shift.data) v = -6 - static_cast<int32_t>(rng() % 6);
    npy::Write(x_, x);
    npy::Write(w_, weights);
    npy::Write(b_, b);
    npy::Write(m_, mult);
    npy::Write(s_, shift);
    bias = b.data;
    requant = {};
    for (int64_t c = 0; c < cout; ++c) {
      requant.multipliers.push_back({mult.data[size_t(c)], shift.data[size_t(c)]});
    }
  }
  std::string RandomLayer() const {
    return "conv2d --input " + x_ + " --weights " + w_ + " --bias " + b_ + " --multipliers " +
           m_ + " --shifts " + s_;
  }

  Tensor<int8_t> x, weights;
  std::vector<int32_t> bias;
  golden::RequantParams requant;
};

TEST_F(Conv2dCli, HandComputedValid) {
  // Window sums of 1..9 (3x3) under a 2x2 kernel of ones: 12, 16, 24, 28; --scale 1 is exact.
  const TpuRun run = RunTpu(Layer() + " --scale 1 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{12, 16, 24, 28}));
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{1, 2, 2, 1}));
  EXPECT_NE(run.out.find("tpu conv2d: int8 2-D convolution on the golden backend"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("PASS (4 int8 results bit-exact)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("(1, 2, 2, 1)"), std::string::npos) << run.out;
  EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST_F(Conv2dCli, HandComputedSameStrideTwoPadsWithTheZeroPoint) {
  // zx = 1: x - zx = 0..8. SAME, stride 2: OH = OW = 2, one padded row and column after the end
  // (their x - zx is 0). Windows: [0 1 3 4] = 8, [2 5] = 7, [6 7] = 13, [8] = 8; bias 1, zy -2.
  npy::Write(b_, Tensor<int32_t>({1}, {1}));
  const TpuRun run = RunTpu(Layer() + " --bias " + b_ +
                                " --stride 2 --padding same --input-zero-point 1 --scale 1 "
                                "--output-zero-point -2 --check",
                            dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{7, 6, 12, 7}));
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{1, 2, 2, 1}));
  // --strides SH,SW: stride 2 along the height only: OH = 2, OW = 3.
  const TpuRun strides = RunTpu(Layer() + " --strides 2,1 --padding same --scale 1", dir_);
  ASSERT_EQ(strides.status, 0) << strides.err;
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{1, 2, 3, 1}));
}

TEST_F(Conv2dCli, RandomLayersMatchGolden) {
  WriteRandom(2, 7, 6, 3, 3, 2, 5, 11);
  golden::Conv2dParams params{2, 1, golden::Padding::kSame, -4};
  const TpuRun run = RunTpu(RandomLayer() + " --strides 2,1 --padding same --input-zero-point -4" +
                                " --output-zero-point 3 --activation relu6 --output-scale 0.1" +
                                " --output " + y_,
                            dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  golden::RequantParams rq = requant;
  rq.out_zero_point = 3;
  const golden::ActivationRange range =
      golden::QuantizedActivationRange(golden::Activation::kRelu6, 0.1f, 3);
  rq.act_min = range.min;
  rq.act_max = range.max;
  const Tensor<int8_t> want = golden::Conv2d(x, weights, bias, params, rq);
  EXPECT_EQ(OutputShape(), want.shape);
  EXPECT_EQ(Output(), want.data);
}

TEST_F(Conv2dCli, JsonReport) {
  WriteRandom(2, 5, 4, 3, 3, 3, 4, 12);
  const TpuRun run =
      RunTpu(RandomLayer() + " --padding same --check --report json --output " + y_, dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  // MACs: N * OH * OW * KH * KW * Cin * Cout = 2 * 5 * 4 * 3 * 3 * 3 * 4.
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['backend'] == 'golden' and d['check'].startswith('PASS'), d; "
      "assert d['input_shape'] == '(2, 5, 4, 3)', d; "
      "assert d['output_shape'] == '(2, 5, 4, 4)', d; "
      "assert d['kernel'] == '3 x 3, 3 -> 4', d; "
      "assert d['strides'] == '1, 1' and d['padding'] == 'same', d; "
      "assert d['macs'] == 2 * 5 * 4 * 3 * 3 * 3 * 4, d; "
      "assert d['requant'].startswith('per channel: 4 multipliers'), d; "
      "assert d['clamp_min'] == -128 and d['clamp_max'] == 127, d; "
      "assert d['output_checksum'].startswith('0x'), d; "
      "assert d['cycles'] is None and d['mxu_utilization'] is None, d; "
      "assert d['pcie_bytes_to_device'] is None, d",
      Json(run)))
      << run.out;
}

TEST_F(Conv2dCli, BadInput) {
  const std::string missing = dir_ / "missing.npy";
  ExpectBadInput("conv2d --input " + missing + " --weights " + w_ + " --scale 1 --output " + y_,
                 {"--input: " + missing + ": cannot open for reading"});
  const std::string f32 =
      dir_.WriteFile("f32.npy", npy::fixtures::Npy("<f4", "(2, 2, 1, 1)", std::string(16, '\0')));
  ExpectBadInput("conv2d --input " + x_ + " --weights " + f32 + " --scale 1 --output " + y_,
                 {"--weights: " + f32 + ": dtype '<f4' (float32): expected int8 ('|i1')"});
  const std::string x2 = dir_ / "x2.npy";
  npy::Write(x2, Tensor<int8_t>({3, 3}));
  ExpectBadInput("conv2d --input " + x2 + " --weights " + w_ + " --scale 1 --output " + y_,
                 {"--input: " + x2 + ": shape (3, 3): expected an int8 array (N, H, W, Cin), "
                  "rank 4"});
  const std::string x0 = dir_ / "x0.npy";
  npy::Write(x0, Tensor<int8_t>({1, 0, 3, 1}));
  ExpectBadInput("conv2d --input " + x0 + " --weights " + w_ + " --scale 1 --output " + y_,
                 {"--input: " + x0 + ": shape (1, 0, 3, 1) is empty"});
  const std::string w2 = dir_ / "w2.npy";
  npy::Write(w2, Tensor<int8_t>({2, 2, 3, 1}));
  ExpectBadInput("conv2d --input " + x_ + " --weights " + w2 + " --scale 1 --output " + y_,
                 {"--weights: " + w2 + ": shape (2, 2, 3, 1): expected (KH, KW, Cin, Cout) with "
                  "Cin = 1, the channels of the input " + x_});
  const std::string w4 = dir_ / "w4.npy";
  npy::Write(w4, Tensor<int8_t>({4, 1, 1, 1}));
  ExpectBadInput("conv2d --input " + x_ + " --weights " + w4 + " --scale 1 --output " + y_,
                 {"--weights: " + w4, "the kernel height 4 is larger than the input's 3",
                  "with --padding valid"});
  npy::Write(b_, Tensor<int32_t>({2}, {1, 2}));
  ExpectBadInput(Layer() + " --bias " + b_ + " --scale 1",
                 {"--bias: " + b_ + ": shape (2,): expected (1,): one per output channel "
                  "(Cout = 1, the last dimension of " + w_ + ")"});
  ExpectBadInput(Layer() + " --scale 1 --stride 0", {"--stride", "0"});
  ExpectBadInput(Layer() + " --scale 1 --strides 2,x",
                 {"--strides 2,x: expected the strides along height and width as N or N,M"});
  ExpectBadInput(Layer() + " --scale 1 --strides 1,2,3", {"--strides 1,2,3: expected"});
  ExpectBadInput(Layer() + " --scale 1 --stride 2 --strides 2,2", {"--stride", "--strides"});
  ExpectBadInput(Layer() + " --scale 1 --padding full", {"--padding", "full"});
  ExpectBadInput(Layer(), {"no requantization: give one of --scale F"});
  ExpectBadInput(Layer() + " --scale 1 --activation relu6",
                 {"--activation relu6 needs --output-scale F"});
  ExpectBadInput("conv2d --input " + x_ + " --weights " + w_ + " --scale 1",
                 {"--output is required"});
}

// ---------------------------------------------------------------------------------------------
// pool

class PoolCli : public LayerCli {
 protected:
  // x (1, 4, 4, 2): channel 0 = 0..15, channel 1 = -(0..15).
  void SetUp() override {
    Tensor<int8_t> x({1, 4, 4, 2});
    for (int i = 0; i < 16; ++i) {
      x.data[size_t(2 * i)] = static_cast<int8_t>(i);
      x.data[size_t(2 * i + 1)] = static_cast<int8_t>(-i);
    }
    npy::Write(x_, x);
  }
  std::string Pool(const std::string& mode) const {
    return "pool --input " + x_ + " --mode " + mode + " --output " + y_;
  }
};

TEST_F(PoolCli, HandComputedMaxAndAvg) {
  // 2x2 windows, stride 2 (the default: the window): top-left [0 1 4 5], [2 3 6 7], ...
  TpuRun run = RunTpu(Pool("max") + " --window 2 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{5, 0, 7, -2, 13, -8, 15, -10}));
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_NE(run.out.find("tpu pool: int8 max pooling on the golden backend"), std::string::npos);
  EXPECT_NE(run.out.find("PASS (8 int8 results bit-exact)"), std::string::npos) << run.out;
  // Means 2.5 -> 3 and -2.5 -> -3 (half away from zero), 4.5 -> 5, 10.5 -> 11, 12.5 -> 13.
  run = RunTpu(Pool("avg") + " --window 2,2 --stride 2 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{3, -3, 5, -5, 11, -11, 13, -13}));
  // Clamp the pooled value.
  run = RunTpu(Pool("max") + " --window 2 --clamp-min -5 --clamp-max 9 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{5, 0, 7, -2, 9, -5, 9, -5}));
}

TEST_F(PoolCli, SameAndValidShapes) {
  // 3x3 window, stride 1, 2: SAME keeps ceil(H / S); VALID (4 - 3) / S + 1.
  TpuRun run = RunTpu(Pool("avg") + " --window 3 --stride 1,2 --padding same --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{1, 4, 2, 2}));
  golden::Pool2dParams p;
  p.window_h = p.window_w = 3;
  p.stride_h = 1;
  p.stride_w = 2;
  p.padding = golden::Padding::kSame;
  EXPECT_EQ(Output(), golden::AvgPool2d(npy::Read<int8_t>(x_), p).data);
  run = RunTpu(Pool("max") + " --window 3,1 --stride 1", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{1, 2, 4, 2}));
}

TEST_F(PoolCli, JsonReport) {
  const TpuRun run = RunTpu(Pool("max") + " --window 3,2 --stride 1 --report json --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['backend'] == 'golden' and d['check'].startswith('PASS'), d; "
      "assert d['mode'] == 'max' and d['window'] == '3 x 2' and d['strides'] == '1, 1', d; "
      "assert d['padding'] == 'valid', d; "
      "assert d['input_shape'] == '(1, 4, 4, 2)' and d['output_shape'] == '(1, 2, 3, 2)', d; "
      "assert d['clamp_min'] == -128 and d['clamp_max'] == 127, d; "
      "assert d['macs'] == 0 and d['mxu_utilization'] is None and d['cycles'] is None, d",
      Json(run)))
      << run.out;
}

TEST_F(PoolCli, BadInput) {
  ExpectBadInput(Pool("max") + " --window 16",
                 {"--window 16: expected the pooling window's height and width as N or N,M "
                  "with 1 <= N, M <= 15"});
  ExpectBadInput(Pool("max") + " --window 0", {"--window 0: expected"});
  ExpectBadInput(Pool("max") + " --window 2,3,4", {"--window 2,3,4: expected"});
  ExpectBadInput(Pool("max") + " --window 2 --stride 4",
                 {"--stride 4: expected the strides along height and width as N or N,M with "
                  "1 <= N, M <= 3"});
  ExpectBadInput(Pool("max") + " --window 4 --padding same",
                 {"--window 4: the stride defaults to the window", "give --stride"});
  ExpectBadInput(Pool("max") + " --window 5,2 --stride 1",
                 {"--window 5,2: the window height 5 is larger than the input's 4",
                  "--padding valid"});
  ExpectBadInput(Pool("max") + " --window 2 --clamp-min 5 --clamp-max 4",
                 {"--clamp-min 5 --clamp-max 4: expected --clamp-min <= --clamp-max"});
  ExpectBadInput(Pool("max") + " --window 2 --clamp-max 128", {"--clamp-max", "128"});
  ExpectBadInput(Pool("min") + " --window 2", {"--mode", "min"});
  ExpectBadInput("pool --input " + x_ + " --window 2 --output " + y_, {"--mode is required"});
  const std::string x3 = dir_ / "x3.npy";
  npy::Write(x3, Tensor<int8_t>({4, 4, 2}));
  ExpectBadInput("pool --input " + x3 + " --mode max --window 2 --output " + y_,
                 {"--input: " + x3 + ": shape (4, 4, 2): expected an int8 array (N, H, W, C), "
                  "rank 4"});
  const std::string missing = dir_ / "missing.npy";
  ExpectBadInput("pool --input " + missing + " --mode max --window 2 --output " + y_,
                 {"--input: " + missing + ": cannot open for reading"});
  ExpectBadInput(Pool("max") + " --window 2 --trace " + (dir_ / "t.fst"),
                 {"the golden backend computes in plain C++ and has no waveform"});
}

// ---------------------------------------------------------------------------------------------
// activation

class ActivationCli : public LayerCli {
 protected:
  void SetUp() override { npy::Write(x_, Tensor<int8_t>({2, 3}, {-128, -4, -3, 0, 20, 127})); }
  std::string Act(const std::string& function) const {
    return "activation --input " + x_ + " --function " + function + " --output " + y_;
  }
};

TEST_F(ActivationCli, ReluAndRelu6AreClampsAtTheZeroPoint) {
  TpuRun run = RunTpu(Act("relu") + " --output-zero-point -3 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{-3, -3, -3, 0, 20, 127}));
  EXPECT_EQ(OutputShape(), (std::vector<int64_t>{2, 3}));
  EXPECT_NE(run.out.find("tpu activation: int8 relu on the golden backend"), std::string::npos);
  // relu6 with scale 0.5: [zp, zp + 12] = [-3, 9].
  run = RunTpu(Act("relu6") + " --output-zero-point -3 --output-scale 0.5 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{-3, -3, -3, 0, 9, 9}));
  EXPECT_NE(run.out.find("PASS (6 int8 results bit-exact)"), std::string::npos) << run.out;
}

TEST_F(ActivationCli, LookupTableAnyRank) {
  golden::Lut lut{};
  for (int i = 0; i < 256; ++i) lut[size_t(i)] = static_cast<int8_t>(127 - i);  // f(x) = -1 - x
  npy::Write(l_, Tensor<int8_t>({256}, std::vector<int8_t>(lut.begin(), lut.end())));
  TpuRun run = RunTpu(Act("lut") + " --lut " + l_ + " --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{127, 3, 2, -1, -21, -128}));
  std::mt19937_64 rng(5);
  const Tensor<int8_t> x = RandomInt8({2, 3, 4, 5}, rng);
  npy::Write(x_, x);
  run = RunTpu(Act("lut") + " --lut " + l_ + " --report json", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), golden::ApplyLut(x, lut).data);
  EXPECT_EQ(OutputShape(), x.shape);
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['function'] == 'lut' and d['shape'] == '(2, 3, 4, 5)', d; "
      "assert d['elements'] == 120 and d['lut'].endswith('l.npy'), d; "
      "assert d['clamp_min'] == -128 and d['clamp_max'] == 127, d; "
      "assert d['check'].startswith('not requested'), d; "
      "assert d['macs'] == 0 and d['mxu_utilization'] is None, d",
      Json(run)))
      << run.out;
  npy::Write(x_, Tensor<int8_t>({3}, {-1, 0, 1}));  // rank 1
  run = RunTpu(Act("relu"), dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{0, 0, 1}));
}

TEST_F(ActivationCli, BadInput) {
  ExpectBadInput(Act("lut"), {"--function lut needs --lut L.npy"});
  npy::Write(l_, Tensor<int8_t>({256}));
  ExpectBadInput(Act("relu") + " --lut " + l_, {"--lut " + l_ + ": only with --function lut"});
  ExpectBadInput(Act("lut") + " --lut " + l_ + " --output-scale 0.5",
                 {"--function lut: the table is the whole function"});
  ExpectBadInput(Act("relu6"), {"--function relu6 needs --output-scale F"});
  ExpectBadInput(Act("tanh"), {"--function", "tanh"});
  ExpectBadInput(Act("relu") + " --output-zero-point -129", {"--output-zero-point", "-129"});
  ExpectBadInput(Act("relu6") + " --output-scale 0", {"--output-scale", "0"});
  npy::Write(l_, Tensor<int8_t>({255}));
  ExpectBadInput(Act("lut") + " --lut " + l_,
                 {"--lut: " + l_ + ": shape (255,): expected (256,): one int8 output per int8 "
                  "input"});
  npy::Write(l_, Tensor<int32_t>({256}));
  ExpectBadInput(Act("lut") + " --lut " + l_,
                 {"--lut: " + l_ + ": dtype '<i4' (int32): expected int8 ('|i1')"});
  npy::Write(x_, Tensor<int8_t>({2, 0}));
  ExpectBadInput(Act("relu"), {"--input: " + x_ + ": shape (2, 0) is empty"});
  npy::Write(x_, Tensor<int8_t>({}, {5}));  // a 0-d array
  ExpectBadInput(Act("relu"), {"--input: " + x_ + ": shape (): expected an int8 array (..., C), "
                               "rank >= 1"});
}

// ---------------------------------------------------------------------------------------------
// The rtl backend (one SystemC elaboration per tpu process)

TEST_F(Conv2dCli, RtlHandComputed) {
  const TpuRun run = RunTpu(Layer() + " --scale 1 --backend rtl", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{12, 16, 24, 28}));
}

TEST_F(Conv2dCli, RtlOddShapesStrideTwoSameBatchTwo) {
  // Cin 3, Cout 19 (two output tiles), 3x3 kernel over 7x6 images, stride 2, SAME, batch 2.
  WriteRandom(2, 7, 6, 3, 3, 3, 19, 21);
  ExpectRtlEqualsGolden(RandomLayer() +
                        " --stride 2 --padding same --input-zero-point -5 --output-zero-point 4 "
                        "--activation relu");
}

TEST_F(Conv2dCli, RtlOneByOneKernelPerTensorValid) {
  WriteRandom(1, 5, 5, 17, 1, 1, 8, 22);
  ExpectRtlEqualsGolden("conv2d --input " + x_ + " --weights " + w_ +
                        " --scale 0.003 --input-zero-point 127 --output-zero-point -20");
}

TEST_F(Conv2dCli, RtlJsonReportHasTheDeviceFigures) {
  WriteRandom(1, 6, 5, 4, 3, 3, 6, 23);
  const TpuRun run = RunTpu(RandomLayer() + " --padding valid --backend rtl --check " +
                                "--report json --output " + y_,
                            dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  // Output 4 x 3 pixels; the input crosses PCIe at least once (im2col: more), the output once.
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['backend'] == 'rtl' and d['check'].startswith('PASS'), d; "
      "assert d['macs'] == 4 * 3 * 3 * 3 * 4 * 6, d; "
      "assert isinstance(d['cycles'], int) and d['cycles'] > 0, d; "
      "assert abs(d['mxu_utilization'] - d['macs'] / (d['cycles'] * 256)) < 1e-6, d; "
      "assert d['tops'] > 0 and d['simulated_us'] > 0, d; "
      "assert d['pcie_bytes_to_device'] >= 6 * 5 * 4 + 3 * 3 * 4 * 6, d; "
      "assert d['pcie_bytes_from_device'] >= 4 * 3 * 6, d; "
      "assert all(d['stall_' + c] >= 0 for c in ('weights', 'act_in', 'dma', 'dep')), d",
      Json(run)))
      << run.out;
}

TEST_F(Conv2dCli, RtlConvLoweringWindowAndIm2colMatchGolden) {
  // Cin 20 and Cout 18 (two channel tiles each), 3x3 SAME over 9x7 images, batch 2, input zero
  // point: MATMUL's sliding window on the device, then host im2col; the report names each.
  WriteRandom(2, 9, 7, 20, 3, 3, 18, 25);
  const std::string layer = RandomLayer() + " --padding same --input-zero-point 7";
  TpuRun run = ExpectRtlEqualsGolden(layer + " --conv-lowering window");
  EXPECT_NE(run.out.find("conv window"), std::string::npos) << run.out;
  run = ExpectRtlEqualsGolden(layer + " --conv-lowering im2col --strides 2,1");
  EXPECT_NE(run.out.find("conv im2col"), std::string::npos) << run.out;
  run = RunTpu(layer + " --conv-lowering sideways --output " + y_, dir_);
  EXPECT_NE(run.status, 0);
  EXPECT_NE(run.err.find("--conv-lowering"), std::string::npos) << run.err;
}

TEST_F(Conv2dCli, RtlBadInputFailsLikeGoldenBeforeSimulating) {
  const std::string w2 = dir_ / "w2.npy";
  npy::Write(w2, Tensor<int8_t>({2, 2, 3, 1}));
  ExpectRtlFailsLikeGolden("conv2d --input " + x_ + " --weights " + w2 + " --scale 1 --output " +
                           y_);
  ExpectRtlFailsLikeGolden(Layer() + " --scale 1 --strides 0,1");
  const std::string trace = dir_ / "t.fst";
  ExpectBadInput("conv2d --input " + x_ + " --weights " + w2 +
                     " --scale 1 --backend rtl --trace " + trace + " --output " + y_,
                 {"--weights: " + w2});
  EXPECT_TRUE(ReadFile(trace).empty()) << "a waveform was written for bad input";
}

TEST_F(PoolCli, RtlMaxAndAvgMatchGolden) {
  std::mt19937_64 rng(31);
  npy::Write(x_, RandomInt8({2, 5, 7, 18}, rng));  // odd sizes, channels over one tile
  ExpectRtlEqualsGolden("pool --input " + x_ + " --mode max --window 2");
  ExpectRtlEqualsGolden("pool --input " + x_ +
                        " --mode avg --window 3,2 --stride 2,1 --padding same --clamp-min -50 "
                        "--clamp-max 60");
}

TEST_F(PoolCli, RtlPoolsImagesLargerThanTheAccumulatorsInBands) {
  // 40 x 40 = 1600 pixels > ACC_ROWS 1024: SAME max pooling in bands of output lines (a window
  // MATMUL pads each band with -128), channels over one tile.
  std::mt19937_64 rng(37);
  npy::Write(x_, RandomInt8({1, 40, 40, 18}, rng));
  const TpuRun run = ExpectRtlEqualsGolden("pool --input " + x_ +
                                           " --mode max --window 3 --stride 2 --padding same");
  EXPECT_NE(run.out.find("identity pass in bands"), std::string::npos) << run.out;
}

TEST_F(PoolCli, RtlJsonReportAndBadInput) {
  const TpuRun run = RunTpu(Pool("avg") + " --window 2 --backend rtl --check --report json", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['backend'] == 'rtl' and d['check'].startswith('PASS'), d; "
      "assert d['macs'] == 0 and d['mxu_utilization'] is None and d['tops'] is None, d; "
      "assert isinstance(d['cycles'], int) and d['cycles'] > 0, d; "
      "assert d['pcie_bytes_to_device'] >= 32 and d['pcie_bytes_from_device'] >= 8, d",
      Json(run)))
      << run.out;
  std::remove(y_.c_str());
  ExpectRtlFailsLikeGolden(Pool("max") + " --window 16");
  ExpectRtlFailsLikeGolden(Pool("max") + " --window 5 --stride 1");
}

TEST_F(ActivationCli, RtlClampsAndTableMatchGolden) {
  std::mt19937_64 rng(41);
  npy::Write(x_, RandomInt8({3, 5, 21}, rng));
  ExpectRtlEqualsGolden("activation --input " + x_ +
                        " --function relu6 --output-zero-point -10 --output-scale 0.04");
  golden::Lut lut = golden::BuildLut([](float v) { return std::tanh(v); }, 0.05f, 3, 1.0f / 128,
                                     0);
  npy::Write(l_, Tensor<int8_t>({256}, std::vector<int8_t>(lut.begin(), lut.end())));
  const TpuRun run =
      ExpectRtlEqualsGolden("activation --input " + x_ + " --function lut --lut " + l_);
  EXPECT_NE(run.out.find("n/a (the layer does no multiply-accumulates)"), std::string::npos)
      << run.out;
  std::remove(y_.c_str());
  ExpectRtlFailsLikeGolden(Act("lut"));
}

}  // namespace
}  // namespace tpu::cli
