// The built `tpu` binary, run as users run it: a hand-computed dense layer in every
// requantization form, --check, JSON reports, gemm and info, and every kind of bad input, which
// must exit with status 2 and a message naming the option or file and what was expected.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "checksum.h"
#include "devices/devices_gen.h"
#include "cli/tpu_binary.h"
#include "golden/dense.h"
#include "golden/gemm.h"
#include "npy/npy.h"
#include "npy/npy_fixtures.h"
#include "npy/scratch_dir.h"

namespace tpu::cli {
namespace {

using golden::Tensor;
using tpu::testing::ReadFile;
using tpu::testing::ScratchDir;
using tpu::testing::RunTpu;
using tpu::testing::TpuRun;
using tpu::testing::Python;

// The example of tests/golden/test_dense.cpp: x - zx with zx = 1 is [[0, 1, 2], [-2, -1, 4]],
// acc = (x - zx) W = [[8, 2], [8, 6]], + bias [1, -3] = [[9, -1], [9, 3]].
class DenseCli : public ::testing::Test {
 protected:
  void SetUp() override {
    npy::Write(x_, Tensor<int8_t>({2, 3}, {1, 2, 3, -1, 0, 5}));
    npy::Write(w_, Tensor<int8_t>({3, 2}, {1, -1, 2, 0, 3, 1}));
    npy::Write(b_, Tensor<int32_t>({2}, {1, -3}));
  }

  std::string Layer() const {
    return "dense --input " + x_ + " --weights " + w_ + " --bias " + b_ +
           " --input-zero-point 1 --output " + y_;
  }

  std::vector<int8_t> Output() const { return npy::Read<int8_t>(y_).data; }

  // `args` must fail with status 2 and a message on stderr holding every part; nothing written.
  void ExpectBadInput(const std::string& args, const std::vector<std::string>& parts) {
    const TpuRun run = RunTpu(args, dir_);
    EXPECT_EQ(run.status, 2) << "tpu " << args << "\nstderr: " << run.err;
    for (const auto& part : parts) {
      EXPECT_NE(run.err.find(part), std::string::npos)
          << "tpu " << args << "\nstderr: " << run.err << "\nexpected to contain: " << part;
    }
    EXPECT_TRUE(ReadFile(y_).empty()) << "an output was written for bad input";
  }

  ScratchDir dir_;
  const std::string x_ = dir_ / "x.npy", w_ = dir_ / "w.npy", b_ = dir_ / "b.npy";
  const std::string y_ = dir_ / "y.npy";
};

// ---------------------------------------------------------------------------------------------
// Dense layers that work

TEST_F(DenseCli, HandComputedPerTensorScale) {
  // * 0.5 (multiplier 2^30, shift 0; ties toward +infinity): 4.5 -> 5, -0.5 -> 0, 5, 1.5 -> 2,
  // + output zero point 100.
  const TpuRun run = RunTpu(Layer() + " --scale 0.5 --output-zero-point 100", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{105, 100, 105, 102}));
  EXPECT_EQ(npy::Read<int8_t>(y_).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_NE(run.out.find("tpu dense: int8 dense layer on the golden backend"), std::string::npos);
  EXPECT_NE(run.out.find("multiplier 1073741824, shift 0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("2 x 3 x 2"), std::string::npos);
  EXPECT_NE(run.out.find("n/a (rtl and model backends only)"), std::string::npos);
  EXPECT_NE(run.out.find("gen3x16 (8 GT/s per lane, 128b/130b)"), std::string::npos);
  EXPECT_TRUE(run.err.empty()) << run.err;
}

TEST_F(DenseCli, MultiplierAndShiftGiveTheSame) {
  const TpuRun run =
      RunTpu(Layer() + " --multiplier 1073741824 --shift 0 --output-zero-point 100", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{105, 100, 105, 102}));
}

TEST_F(DenseCli, PerChannelWithRelu6) {
  // Column 0: M0 = 2^30, shift 1 (factor 1): 9, 9. Column 1: shift -1 (factor 0.25):
  // SRDHM(-1) = 0 then 0; SRDHM(3) = 2 then 2 / 2 = 1. + zero point -3: [[6, -3], [6, -2]].
  // relu6 with output scale 1: clamp [-3, -3 + 6] = [-3, 3] gives [[3, -3], [3, -2]].
  npy::Write(dir_ / "m.npy", Tensor<int32_t>({2}, {1 << 30, 1 << 30}));
  npy::Write(dir_ / "s.npy", Tensor<int32_t>({2}, {1, -1}));
  const std::string per_channel = " --multipliers " + (dir_ / "m.npy") + " --shifts " +
                                  (dir_ / "s.npy") + " --output-zero-point -3";
  TpuRun run = RunTpu(Layer() + per_channel, dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{6, -3, 6, -2}));
  run = RunTpu(Layer() + per_channel + " --activation relu6 --output-scale 1 --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{3, -3, 3, -2}));
  EXPECT_NE(run.out.find("per channel: 2 multipliers"), std::string::npos) << run.out;
}

TEST_F(DenseCli, ReluClampsAtTheOutputZeroPoint) {
  // Bias [-11, -3]: acc [[-3, -1], [-3, 3]] * 0.5 (ties toward +infinity) = [[-1, 0], [-1, 2]],
  // + zero point -3 = [[-4, -3], [-4, -1]]; relu clamps at the zero point: [[-3, -3], [-3, -1]].
  npy::Write(b_, Tensor<int32_t>({2}, {-11, -3}));
  const TpuRun run =
      RunTpu(Layer() + " --scale 0.5 --output-zero-point -3 --activation relu --check", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{-3, -3, -3, -1}));
}

TEST_F(DenseCli, NoBias) {
  // acc [[8, 2], [8, 6]] * 0.5 = [[4, 1], [4, 3]].
  const TpuRun run = RunTpu("dense --input " + x_ + " --weights " + w_ +
                                " --input-zero-point 1 --scale 0.5 --output " + y_,
                            dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{4, 1, 4, 3}));
}

TEST_F(DenseCli, CheckPassesForGolden) {
  const TpuRun run = RunTpu(Layer() + " --scale 0.5 --check --pcie gen5x8", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("PASS (4 int8 results bit-exact)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("gen5x8 (32 GT/s per lane, 128b/130b)"), std::string::npos) << run.out;
}

TEST_F(DenseCli, JsonReportParses) {
  const TpuRun run = RunTpu(Layer() + " --scale 0.5 --check --report json --pcie gen2x4", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string json = dir_.WriteFile("report.json", run.out);
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['backend'] == 'golden', d; assert d['check'].startswith('PASS'), d; "
      "assert d['shape'] == '2 x 3 x 2', d; assert d['macs'] == 12, d; "
      "assert d['input_zero_point'] == 1 and d['clamp_min'] == -128, d; "
      "assert d['pcie'].startswith('gen2x4'), d; assert d['pcie_link_gbytes_per_s'] == 2, d; "
      "assert d['cycles'] is None and d['mxu_utilization'] is None, d; "
      "assert d['pcie_bytes_to_device'] is None, d; "
      "assert isinstance(d['wall_s'], float), d",
      json));
}

TEST_F(DenseCli, LargerLayerMatchesGoldenThroughFiles) {
  std::mt19937_64 rng(77);
  Tensor<int8_t> x({37, 50}), w({50, 19});
  for (auto& v : x.data) v = static_cast<int8_t>(rng());
  for (auto& v : w.data) v = static_cast<int8_t>(rng());
  npy::Write(x_, x);
  npy::Write(w_, w);
  const TpuRun run = RunTpu("dense --input " + x_ + " --weights " + w_ +
                                " --scale 0.0021 --input-zero-point -7 --output-zero-point 5 "
                                "--activation relu --check --output " +
                                y_,
                            dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  golden::RequantParams rq;
  rq.multipliers = {golden::QuantizeMultiplier(0.0021)};
  rq.out_zero_point = 5;
  rq.act_min = 5;
  EXPECT_EQ(Output(), golden::Dense(x, w, {}, -7, rq).data);
}

// ---------------------------------------------------------------------------------------------
// Bad input: status 2, a message naming the option, the file and what was expected

TEST_F(DenseCli, MissingFile) {
  const std::string missing = dir_ / "missing.npy";
  ExpectBadInput("dense --input " + missing + " --weights " + w_ + " --scale 1 --output " + y_,
                 {"--input: " + missing + ": cannot open for reading (No such file"});
  ExpectBadInput("dense --input " + x_ + " --weights " + w_ + " --bias " + missing +
                     " --scale 1 --output " + y_,
                 {"--bias: " + missing + ": cannot open for reading"});
}

TEST_F(DenseCli, WrongDtypes) {
  const std::string i16 =
      dir_.WriteFile("i16.npy", npy::fixtures::Npy("<i2", "(2, 3)", std::string(12, '\0')));
  const std::string f32 =
      dir_.WriteFile("f32.npy", npy::fixtures::Npy("<f4", "(3, 2)", std::string(24, '\0')));
  ExpectBadInput("dense --input " + i16 + " --weights " + w_ + " --scale 1 --output " + y_,
                 {"--input: " + i16 + ": dtype '<i2' (int16): expected int8 ('|i1')",
                  "tpu reads int8 and int32 arrays only"});
  ExpectBadInput("dense --input " + x_ + " --weights " + f32 + " --scale 1 --output " + y_,
                 {"--weights: " + f32 + ": dtype '<f4' (float32): expected int8 ('|i1')"});
  npy::Write(b_, Tensor<int8_t>({2}, {1, 2}));
  ExpectBadInput(Layer() + " --scale 1",
                 {"--bias: " + b_ + ": dtype '|i1' (int8): expected int32 ('<i4')"});
}

TEST_F(DenseCli, WrongRank) {
  npy::Write(x_, Tensor<int8_t>({3}, {1, 2, 3}));
  ExpectBadInput(Layer() + " --scale 1",
                 {"--input: " + x_ + ": shape (3,): expected an int8 matrix (M, K), rank 2"});
  npy::Write(x_, Tensor<int8_t>({1, 2, 3}));
  ExpectBadInput(Layer() + " --scale 1", {"--input: " + x_ + ": shape (1, 2, 3): expected"});
  npy::Write(x_, Tensor<int8_t>({2, 3}));
  npy::Write(b_, Tensor<int32_t>({1, 2}));
  ExpectBadInput(Layer() + " --scale 1", {"--bias: " + b_ + ": shape (1, 2): expected (2,)"});
}

TEST_F(DenseCli, ShapeMismatchK) {
  npy::Write(w_, Tensor<int8_t>({4, 2}));
  ExpectBadInput(Layer() + " --scale 1", {"--weights: " + w_ +
                                          ": shape (4, 2): expected (K, N) with K = 3, the columns "
                                          "of the input " +
                                          x_});
}

TEST_F(DenseCli, BiasLength) {
  npy::Write(b_, Tensor<int32_t>({3}, {1, 2, 3}));
  ExpectBadInput(Layer() + " --scale 1",
                 {"--bias: " + b_ +
                  ": shape (3,): expected (2,): one per output column (N = 2, "
                  "the columns of " +
                  w_ + ")"});
}

TEST_F(DenseCli, ZeroSizeArrays) {
  npy::Write(x_, Tensor<int8_t>({0, 3}));
  ExpectBadInput(Layer() + " --scale 1", {"--input: " + x_ +
                                          ": shape (0, 3) is empty: expected (M, K) with both "
                                          "dimensions >= 1"});
  npy::Write(x_, Tensor<int8_t>({2, 3}));
  npy::Write(w_, Tensor<int8_t>({3, 0}));
  ExpectBadInput(Layer() + " --scale 1", {"--weights: " + w_ + ": shape (3, 0) is empty"});
}

TEST_F(DenseCli, BrokenFiles) {
  dir_.WriteFile(
      "x.npy", npy::fixtures::Npy(1, "{'descr': '|i1', 'fortran_order': True, 'shape': (2, 3), }\n",
                                  std::string(6, '\0')));
  ExpectBadInput(Layer() + " --scale 1", {"--input: " + x_ + ": fortran_order is True"});
  dir_.WriteFile("x.npy", npy::fixtures::Npy("|i1", "(2, 3)", std::string(5, '\0')));
  ExpectBadInput(Layer() + " --scale 1", {"--input: " + x_ + ": truncated"});
  dir_.WriteFile("x.npy", "x,y\n1,2\n");
  ExpectBadInput(Layer() + " --scale 1", {"--input: " + x_ + ": not a .npy file"});
}

TEST_F(DenseCli, ConflictingOrMissingRequantization) {
  ExpectBadInput(Layer(), {"no requantization: give one of --scale F, --multiplier M0 --shift S, "
                           "or --multipliers M.npy --shifts S.npy"});
  ExpectBadInput(Layer() + " --scale 0.5 --multiplier 1073741824 --shift 0",
                 {"requantization given twice (--scale and --multiplier/--shift)"});
  ExpectBadInput(Layer() + " --scale 0.5 --multipliers m.npy --shifts s.npy",
                 {"(--scale and --multipliers/--shifts)"});
  ExpectBadInput(Layer() + " --multiplier 1073741824", {"--multiplier M0 needs --shift S"});
  ExpectBadInput(Layer() + " --shift 3", {"--shift S needs --multiplier M0"});
  ExpectBadInput(Layer() + " --multipliers " + b_, {"--multipliers M.npy needs --shifts S.npy"});
  ExpectBadInput(Layer() + " --scale -2", {"--scale -2: ", "must be finite and >= 0"});
  ExpectBadInput(Layer() + " --scale 0.5 --activation relu6",
                 {"--activation relu6 needs --output-scale F"});
}

TEST_F(DenseCli, BadPerChannelArrays) {
  npy::Write(dir_ / "m.npy", Tensor<int32_t>({3}, {1, 2, 3}));
  npy::Write(dir_ / "s.npy", Tensor<int32_t>({2}, {0, 31}));
  const std::string m = dir_ / "m.npy", s = dir_ / "s.npy";
  ExpectBadInput(Layer() + " --multipliers " + m + " --shifts " + s,
                 {"--multipliers: " + m + ": shape (3,): expected (2,): one per output column"});
  npy::Write(m, Tensor<int32_t>({2}, {1 << 30, -5}));
  ExpectBadInput(Layer() + " --multipliers " + m + " --shifts " + s,
                 {"--multipliers: " + m + ": multiplier[1] = -5: expected 0 .. 2147483647"});
  npy::Write(m, Tensor<int32_t>({2}, {1 << 30, 1 << 30}));
  ExpectBadInput(Layer() + " --multipliers " + m + " --shifts " + s,
                 {"--shifts: " + s + ": shift[1] = 31: expected -31 .. 30"});
}

TEST_F(DenseCli, BadOptionValues) {
  ExpectBadInput(Layer() + " --scale 1 --pcie gen6x16",
                 {"--pcie",
                  "'gen6x16' is not a PCIe link: expected genGxL with generation G in "
                  "1..5 and L in 1, 2, 4, 8, 16 lanes"});
  ExpectBadInput(Layer() + " --scale 1 --pcie gen3x3", {"--pcie", "'gen3x3' is not a PCIe link"});
  ExpectBadInput(Layer() + " --scale 1 --pcie pcie3", {"--pcie", "'pcie3' is not a PCIe link"});
  ExpectBadInput(Layer() + " --scale 1 --input-zero-point 200", {"--input-zero-point", "200"});
  ExpectBadInput(Layer() + " --multiplier -1 --shift 0", {"--multiplier"});
  ExpectBadInput(Layer() + " --multiplier 1073741824 --shift 31", {"--shift", "31"});
  ExpectBadInput(Layer() + " --scale 1 --activation tanh", {"--activation", "tanh"});
  ExpectBadInput(Layer() + " --scale 1 --report xml", {"--report", "xml"});
  ExpectBadInput(Layer() + " --scale 1 --backend fpga", {"--backend", "fpga"});
  ExpectBadInput(Layer() + " --scale 1 --trace-window 5:2", {"--trace-window", "LAST must be"});
  ExpectBadInput(Layer() + " --scale 1 --trace-window 10:20",
                 {"--trace-window 10:20: needs --trace FILE.fst"});
  ExpectBadInput("dense --input " + x_ + " --weights " + w_ + " --scale 1",
                 {"--output is required"});
}

TEST_F(DenseCli, TraceNeedsTheRtlBackend) {
  ExpectBadInput(Layer() + " --scale 1 --trace " + (dir_ / "t.fst"),
                 {"the golden backend computes in plain C++ and has no waveform"});
}

TEST_F(DenseCli, UnwritableOutput) {
  const std::string y = dir_ / "no/such/dir/y.npy";
  const TpuRun run =
      RunTpu("dense --input " + x_ + " --weights " + w_ + " --scale 1 --output " + y, dir_);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--output " + y + ": the folder " + (dir_ / "no/such/dir") +
                         " does not exist; create it first"),
            std::string::npos)
      << run.err;
}

// Outputs are checked before anything runs: a folder, an input file or another output.
TEST_F(DenseCli, OutputsThatWouldDestroySomething) {
  const std::string layer = "dense --input " + x_ + " --weights " + w_ + " --scale 1 --output ";
  const std::string before = ReadFile(x_);
  ExpectBadInput(layer + x_,
                 {"--output " + x_ + ": is the --input file; writing it would destroy an input"});
  EXPECT_EQ(ReadFile(x_), before) << "the input was overwritten";
  ExpectBadInput(layer + dir_.str(),
                 {"--output " + dir_.str() + ": is a folder; give a file name inside it"});
  ExpectBadInput(layer + x_ + "/y.npy", {"--output " + x_ + "/y.npy: " + x_ + " is not a folder"});
}

// --scale takes a finite number below 2^30; one above 1 is run but warned about (int32 wrap).
TEST_F(DenseCli, ScaleValues) {
  const std::string layer = "dense --input " + x_ + " --weights " + w_ + " --output " + y_;
  ExpectBadInput(layer + " --scale ''", {"--scale", "'' is not a number"});
  ExpectBadInput(layer + " --scale 1e999", {"--scale", "'1e999' is not a number"});
  ExpectBadInput(layer + " --scale 1e30", {"--scale 1e+30: too large: a real multiplier must be "
                                           "below 2^30"});
  const TpuRun run = RunTpu(layer + " --scale 10000", dir_);
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("tpu dense: warning: --scale 10000 is above 1: the accumulator is "
                         "shifted left by 14 bits"),
            std::string::npos)
      << run.err;
  const TpuRun quiet = RunTpu(layer + " --scale 0.5", dir_);
  EXPECT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("warning"), std::string::npos) << quiet.err;
}

// ---------------------------------------------------------------------------------------------
// The rtl backend: the Verilated device in the SystemC system model (one elaboration per tpu
// process, so every run below is a process of its own)

// The number after "key": in a one-line JSON report; NaN if absent or null.
double JsonNumber(const std::string& json, const std::string& key) {
  const std::string tag = "\"" + key + "\": ";
  const auto at = json.find(tag);
  if (at == std::string::npos) return std::nan("");
  const char* begin = json.c_str() + at + tag.size();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  return end == begin ? std::nan("") : value;
}

// Random layers written as .npy files: x (M, K), W (K, N), b (N,) and per-channel multipliers
// and shifts (N,), run on golden and on rtl with the same options.
class RtlDense : public DenseCli {
 protected:
  void WriteLayer(int64_t m, int64_t k, int64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Tensor<int8_t> x({m, k}), w({k, n});
    Tensor<int32_t> b({n}), mult({n}), shift({n});
    for (auto& v : x.data) v = static_cast<int8_t>(rng());
    for (auto& v : w.data) v = static_cast<int8_t>(rng());
    for (auto& v : b.data) v = static_cast<int32_t>(rng() % 20001) - 10000;
    // Multipliers in [2^30, 2^31), shifts -12 .. -5: outputs spread over the int8 range.
    for (auto& v : mult.data) v = static_cast<int32_t>((1u << 30) + rng() % (1u << 30));
    for (auto& v : shift.data) v = -5 - static_cast<int32_t>(rng() % 8);
    npy::Write(x_, x);
    npy::Write(w_, w);
    npy::Write(b_, b);
    npy::Write(m_, mult);
    npy::Write(s_, shift);
    macs_ = m * k * n;
    in_bytes_ = m * k + k * n;
    out_bytes_ = m * n;
  }

  std::string PerChannel() const {
    return "dense --input " + x_ + " --weights " + w_ + " --bias " + b_ + " --multipliers " + m_ +
           " --shifts " + s_;
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

  const std::string m_ = dir_ / "m.npy", s_ = dir_ / "s.npy";
  int64_t macs_ = 0, in_bytes_ = 0, out_bytes_ = 0;

 public:
  const ScratchDir& dir() const { return dir_; }
  const std::string& y() const { return y_; }
};

TEST_F(RtlDense, HandComputedLayer) {
  const TpuRun run = RunTpu(Layer() + " --scale 0.5 --output-zero-point 100 --backend rtl", dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(Output(), (std::vector<int8_t>{105, 100, 105, 102}));
}

TEST_F(RtlDense, OddShapesPerChannelRelu6AndZeroPoints) {
  WriteLayer(21, 37, 19, 1);  // no dimension a multiple of 16
  ExpectRtlEqualsGolden(PerChannel() +
                        " --input-zero-point -3 --output-zero-point 7 --activation relu6 "
                        "--output-scale 0.05");
}

TEST_F(RtlDense, OneByOneAndWideLayers) {
  WriteLayer(1, 1, 1, 2);
  ExpectRtlEqualsGolden(PerChannel() + " --input-zero-point 5 --output-zero-point -9");
  WriteLayer(3, 50, 33, 3);  // N over two tiles, K over four
  ExpectRtlEqualsGolden(PerChannel() + " --output-zero-point -128 --activation relu");
}

// More output columns than one program has parameter sets for (n16_small: 16 sets of 16
// columns = 256): the backend runs column groups as programs of their own.
TEST_F(RtlDense, MoreColumnsThanParameterSets) {
  WriteLayer(3, 20, 300, 4);
  ExpectRtlEqualsGolden(PerChannel() + " --device n16_small");
  ExpectRtlEqualsGolden("dense --input " + x_ + " --weights " + w_ +
                        " --scale 0.01 --device n16_small");
}

TEST_F(RtlDense, PerTensorScaleNoBias) {
  WriteLayer(32, 16, 16, 4);
  ExpectRtlEqualsGolden("dense --input " + x_ + " --weights " + w_ +
                        " --scale 0.004 --input-zero-point 127 --output-zero-point -20");
}

TEST_F(RtlDense, JsonReportHasTheDeviceFigures) {
  WriteLayer(20, 40, 24, 5);
  const TpuRun run = RunTpu(PerChannel() + " --output " + y_ + " --backend rtl --check " +
                                "--report json",
                            dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string json = dir_.WriteFile("report.json", run.out);
  EXPECT_TRUE(Python(
      "import json, sys; d = json.load(open(sys.argv[1])); "
      "assert d['backend'] == 'rtl' and d['check'].startswith('PASS'), d; "
      "assert d['macs'] == " + std::to_string(macs_) + ", d; "
      "assert isinstance(d['cycles'], int) and d['cycles'] > 0, d; "
      "assert d['clock_mhz'] == 700, d; "
      "assert 0 < d['mxu_utilization'] <= 1, d; "
      "assert abs(d['mxu_utilization'] - d['macs'] / (d['cycles'] * " +
          std::to_string(devices::DefaultDevice().limits.n * devices::DefaultDevice().limits.n) +
          ")) < 1e-6, d; "
      "assert d['device'].startswith('" + std::string(devices::kDefaultDevice) + " (N = '), d; "
      "assert d['simulated_us'] > 0 and d['compute_us'] > 0, d; "
      "assert abs(d['compute_us'] - d['cycles'] / 700) < 1e-3, d; "
      "assert abs(d['tops'] - 2 * d['macs'] / d['simulated_us'] / 1e6) < 1e-6, d; "
      "assert d['pcie_bytes_to_device'] >= " + std::to_string(in_bytes_) + ", d; "
      "assert d['pcie_bytes_from_device'] >= " + std::to_string(out_bytes_) + ", d; "
      "assert all(isinstance(d['stall_' + c], int) and d['stall_' + c] >= 0 "
      "           for c in ('weights', 'act_in', 'dma', 'dep')), d; "
      "assert 'stall_cycles' not in d, d; "
      "assert 0 < d['pcie_payload_limit_gbytes_per_s'] < d['pcie_link_gbytes_per_s'], d; "
      "assert d['pcie_bytes_to_device_gbytes_per_s'] > 0, d; "
      "assert 0 < d['pcie_bytes_to_device_of_limit'] <= 1, d; "
      "assert 0 < d['pcie_bytes_from_device_of_limit'] <= 1, d; "
      "assert d['sim_kcycles_per_s'] > 0 and d['wall_s'] > 0, d; "
      "assert 'trace' not in d, d",
      json))
      << run.out;
}

TEST_F(RtlDense, TraceAndTraceWindow) {
  WriteLayer(16, 32, 16, 6);
  const std::string full = dir_ / "full.fst", window = dir_ / "window.fst";
  TpuRun run = RunTpu(PerChannel() + " --output " + y_ + " --backend rtl --trace " + full, dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find(full), std::string::npos) << run.out;  // the report names it
  run = RunTpu(PerChannel() + " --output " + y_ + " --backend rtl --report json --trace " +
                   window + " --trace-window 100:200",
               dir_);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("\"trace\": \"" + window + "\""), std::string::npos) << run.out;
  const std::string full_bytes = ReadFile(full), window_bytes = ReadFile(window);
  ASSERT_FALSE(full_bytes.empty());
  ASSERT_FALSE(window_bytes.empty());
  EXPECT_EQ(full_bytes[0], 0) << "not an FST file: its first block is not a header (type 0)";
  EXPECT_EQ(window_bytes[0], 0);
  EXPECT_GT(JsonNumber(run.out, "cycles"), 200) << "the window must cut the run short";
  EXPECT_LT(window_bytes.size(), full_bytes.size());
}

// `slow` must give the same output in more simulated time than gen3x16.
void ExpectSlowerThanGen3x16(RtlDense& t, const std::string& args, const std::string& slow_link,
                             double factor) {
  const TpuRun fast = RunTpu(args + " --pcie gen3x16", t.dir());
  ASSERT_EQ(fast.status, 0) << fast.err;
  const std::string fast_y = ReadFile(t.y());
  const TpuRun slow = RunTpu(args + " --pcie " + slow_link, t.dir());
  ASSERT_EQ(slow.status, 0) << slow.err;
  EXPECT_TRUE(ReadFile(t.y()) == fast_y) << "the link changed the result";
  const double fast_us = JsonNumber(fast.out, "simulated_us");
  const double slow_us = JsonNumber(slow.out, "simulated_us");
  EXPECT_GT(slow_us, factor * fast_us) << fast.out << "\n" << slow.out;
  // No faster than the link can carry the bytes that went to the device.
  EXPECT_GE(slow_us * 1e-6 * JsonNumber(slow.out, "pcie_payload_limit_gbytes_per_s") * 1e9,
            JsonNumber(slow.out, "pcie_bytes_to_device"))
      << slow.out;
  EXPECT_NE(slow.out.find("\"pcie\": \"" + slow_link), std::string::npos) << slow.out;
  EXPECT_LT(JsonNumber(slow.out, "pcie_payload_limit_gbytes_per_s"),
            JsonNumber(fast.out, "pcie_payload_limit_gbytes_per_s"));
}

TEST_F(RtlDense, SlowerLinkTakesLonger) {
  WriteLayer(16, 64, 32, 7);
  // gen1x2 carries 1/31 of gen3x16's bytes per second: 3.7 KB take 8 us instead of 0.25 us
  // (measured: 12.3 us against 3.3 us end to end).
  ExpectSlowerThanGen3x16(*this, PerChannel() + " --output " + y_ + " --backend rtl --report json",
                          "gen1x2", 3);
}

// gen1x1: a TLP takes longer on the wire than the device's quiet threshold (64 cycles), so
// the device's clock stops between TLPs (once found missing a TLP that arrived then).
TEST_F(RtlDense, SlowestLinkGen1x1) {
  WriteLayer(16, 64, 32, 7);
  ExpectSlowerThanGen3x16(*this, PerChannel() + " --output " + y_ + " --backend rtl --report json",
                          "gen1x1", 5);
}

// Bad input on rtl: the same message as on golden, and no simulation (fast, nothing written).
TEST_F(RtlDense, BadInputFailsLikeGoldenBeforeSimulating) {
  const std::string missing = dir_ / "missing.npy";
  const std::string i16 =
      dir_.WriteFile("i16.npy", npy::fixtures::Npy("<i2", "(2, 3)", std::string(12, '\0')));
  const std::string scalar = dir_ / "scalar.npy";
  npy::Write(scalar, Tensor<int8_t>({3}, {1, 2, 3}));
  const std::string w42 = dir_ / "w42.npy";
  npy::Write(w42, Tensor<int8_t>({4, 2}));
  const std::string b3 = dir_ / "b3.npy";
  npy::Write(b3, Tensor<int32_t>({3}, {1, 2, 3}));
  const std::string w = " --weights " + w_, out = " --output " + y_;
  for (const std::string& args : {
           "dense --input " + missing + w + " --scale 1" + out,
           "dense --input " + i16 + w + " --scale 1" + out,
           "dense --input " + scalar + w + " --scale 1" + out,
           "dense --input " + x_ + " --weights " + w42 + " --scale 1" + out,
           "dense --input " + x_ + w + " --bias " + b3 + " --scale 1" + out,
           "dense --input " + x_ + w + " --bias " + missing + " --scale 1" + out,
           Layer() + " --multiplier 1073741824",
           Layer() + " --scale 1 --pcie gen3x3",
       }) {
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
    EXPECT_EQ(rtl.err.find("simulating"), std::string::npos) << rtl.err;
    EXPECT_LT(seconds, 2.0) << "tpu " << args << " --backend rtl: slow to fail";
  }
}

// A waveform that cannot be written is found before the simulation starts (it used to run to
// the end and name a file that did not exist), and --trace never overwrites an input.
TEST_F(RtlDense, UnwritableTraceFailsBeforeSimulating) {
  const std::string missing_folder = dir_ / "no/such/t.fst";
  ExpectBadInput(Layer() + " --scale 1 --backend rtl --trace " + missing_folder,
                 {"--trace " + missing_folder + ": the folder " + (dir_ / "no/such") +
                  " does not exist"});
  ExpectBadInput(Layer() + " --scale 1 --backend rtl --trace " + dir_.str(),
                 {"--trace " + dir_.str() + ": is a folder"});
  const std::string before = ReadFile(w_);
  ExpectBadInput(Layer() + " --scale 1 --backend rtl --trace " + w_,
                 {"--trace " + w_ + ": is the --weights file"});
  EXPECT_EQ(ReadFile(w_), before) << "the weights were overwritten by a waveform";
}

// The backend is made after the inputs are checked: a bad input leaves no waveform.
TEST_F(RtlDense, TraceNotWrittenForBadInput) {
  const std::string trace = dir_ / "t.fst";
  npy::Write(w_, Tensor<int8_t>({4, 2}));
  ExpectBadInput(Layer() + " --scale 1 --backend rtl --trace " + trace,
                 {"--weights: " + w_ + ": shape (4, 2): expected (K, N) with K = 3"});
  EXPECT_TRUE(ReadFile(trace).empty()) << "a waveform was written for bad input";
}

TEST(GemmCli, RtlBackendSaysWhyNot) {
  ScratchDir dir;
  const TpuRun run = RunTpu("gemm --m 4 --k 4 --n 4 --backend rtl --output " + (dir / "c.npy"),
                            dir);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("tpu: error: --backend rtl: the device returns int8 results only"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("tpu dense --backend rtl"), std::string::npos) << run.err;
  EXPECT_TRUE(ReadFile(dir / "c.npy").empty());
  EXPECT_EQ(RunTpu("info", dir).status, 0);
}

// ---------------------------------------------------------------------------------------------
// gemm, info, help; the MXU demo is not a tpu command

TEST(GemmCli, SeededGemmMatchesGoldenAndPrintsItsChecksum) {
  ScratchDir dir;
  const TpuRun run =
      RunTpu("gemm --m 5 --k 7 --n 3 --seed 9 --check --output " + (dir / "c.npy"), dir);
  ASSERT_EQ(run.status, 0) << run.err;
  // Operands drawn as bench/mxu_demo draws them: A then W from one mt19937_64.
  std::mt19937_64 rng(9);
  std::uniform_int_distribution<int> dist(-128, 127);
  Tensor<int8_t> a({5, 7}), w({7, 3});
  for (auto& v : a.data) v = static_cast<int8_t>(dist(rng));
  for (auto& v : w.data) v = static_cast<int8_t>(dist(rng));
  const Tensor<int32_t> c = golden::Gemm(a, w);
  EXPECT_EQ(npy::Read<int32_t>(dir / "c.npy").data, c.data);
  EXPECT_NE(run.out.find(HexChecksum(Fnv1a64(c))), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("PASS (15 int32 results bit-exact)"), std::string::npos) << run.out;
}

TEST(GemmCli, JsonReportAndErrors) {
  ScratchDir dir;
  TpuRun run = RunTpu("gemm --m 4 --k 4 --n 4 --report json", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_TRUE(
      Python("import json, sys; d = json.load(open(sys.argv[1])); "
             "assert d['seed'] == 1 and d['macs'] == 64, d; "
             "assert d['checksum'].startswith('0x') and len(d['checksum']) == 18, d; "
             "assert d['check'].startswith('not requested'), d; "
             "assert d['cycles'] is None, d",
             dir.WriteFile("gemm.json", run.out)));
  run = RunTpu("gemm --m 0", dir);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--m"), std::string::npos) << run.err;
  run = RunTpu("gemm --pcie gen3x12", dir);
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("'gen3x12' is not a PCIe link"), std::string::npos) << run.err;
}

TEST(InfoCli, TextAndJson) {
  ScratchDir dir;
  TpuRun run = RunTpu("info", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find(std::string("tpu info: device ") + devices::kDefaultDevice +
                         " (what the rtl backend simulates"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("backend rtl"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("available (this device, Verilated, in the SystemC system model"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("UB_ROWS"), std::string::npos);
  EXPECT_NE(run.out.find("700.0 MHz"), std::string::npos);
  EXPECT_TRUE(run.err.empty()) << run.err;  // no SystemC banner: nothing was elaborated
  run = RunTpu("info --report json", dir);
  ASSERT_EQ(run.status, 0) << run.err;
  // The default device of isa/devices.json (devices/devices_gen.h), figure by figure.
  const devices::DeviceConfig& dev = devices::DefaultDevice();
  const auto num = [](auto v) { return std::to_string(v); };
  EXPECT_TRUE(
      Python("import json, sys; d = json.load(open(sys.argv[1])); "
             "assert d['device'] == '" + std::string(dev.name) + "', d; "
             "assert d['n'] == " + num(dev.limits.n) + " and d['ub_rows'] == " +
                 num(dev.limits.ub_rows) + ", d; "
             "assert d['acc_rows'] == " + num(dev.limits.acc_rows) + " and d['param_sets'] == " +
                 num(dev.limits.param_sets) + ", d; "
             "assert d['dram_bytes'] == " + num(dev.limits.dram_bytes) +
                 " and d['dram_width_bits'] == " + num(dev.dram_width_bits) + ", d; "
             "assert d['tile_bytes'] == " + num(dev.limits.n * dev.limits.n) +
                 " and d['clock_mhz'] == " + num(dev.clock_mhz) + ", d; "
             "assert d['max_payload_bytes'] == " + num(dev.max_payload) +
                 " and d['max_read_request_bytes'] == " + num(dev.max_read_request) + ", d; "
             "assert d['dma_tags'] == " + num(dev.dma_tags) + ", d; "
             "assert abs(d['peak_tops'] - 2 * d['n'] ** 2 * d['clock_mhz'] / 1e6) < 1e-9, d; "
             "assert d['pcie_default'].startswith('gen3x16'), d; "
             "assert d['backend_golden'].startswith('available'), d; "
             "assert d['backend_rtl'].startswith('available'), d",
             dir.WriteFile("info.json", run.out)));
}

TEST(MxuDemo, LivesOutsideTheTool) {
  // The bare-MXU demo is bench/mxu_demo, not a `tpu` command (the tool drives the device).
  ScratchDir dir;
  const TpuRun run = RunTpu("mxu --size 8 --m 9 --k 8 --n 8", dir);
  EXPECT_EQ(run.status, 2);
}

TEST(TpuCli, HelpAndUsage) {
  ScratchDir dir;
  TpuRun run = RunTpu("--help", dir);
  EXPECT_EQ(run.status, 0);
  for (const char* command : {"dense", "conv2d", "pool", "activation", "gemm", "info", "run",
                              "import"}) {
    EXPECT_NE(run.out.find(command), std::string::npos) << run.out;
  }
  run = RunTpu("", dir);
  EXPECT_EQ(run.status, 2);
  run = RunTpu("frobnicate", dir);
  EXPECT_EQ(run.status, 2);
}

// A report that cannot be written (stdout on a full disk) is not a success.
TEST(TpuCli, ReportThatCannotBeWrittenFails) {
  ScratchDir dir;
  const std::string err = dir / "stderr.txt";
  for (const std::string args : {"info", "gemm --m 2 --k 2 --n 2"}) {
    const int status = std::system(
        (std::string("'") + TPU_BINARY + "' " + args + " >/dev/full 2>'" + err + "'").c_str());
    ASSERT_TRUE(WIFEXITED(status)) << args;
    EXPECT_EQ(WEXITSTATUS(status), 2) << "tpu " << args << " >/dev/full";
    EXPECT_NE(ReadFile(err).find("tpu: error: the report could not be written to stdout"),
              std::string::npos)
        << ReadFile(err);
  }
}

}  // namespace
}  // namespace tpu::cli
