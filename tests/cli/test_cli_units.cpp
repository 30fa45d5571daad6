// The pieces of the `tpu` layer commands, in-process: link and trace-window parsing, the backend
// factory, the report's n/a figures, --check's comparison, and the dense command run against
// substitute backends (what the layer handed to the backend, and a wrong result caught by
// --check with exit status 1).
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "compare.h"
#include "device/pcie_link.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "huge_page_heap.h"
#include "layer_options.h"
#include "npy/npy.h"
#include "npy/scratch_dir.h"
#include "progress_line.h"
#include "report.h"
#include "runtime_names.h"

namespace tpu::cli {
namespace {

using golden::Tensor;

template <typename Fn>
void ExpectThrowContaining(Fn&& fn, const std::string& part) {
  try {
    fn();
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
        << "message: " << e.what() << "\nexpected to contain: " << part;
    return;
  }
  ADD_FAILURE() << "nothing thrown; expected: " << part;
}

// ---------------------------------------------------------------------------------------------
// --pcie and --trace-window

TEST(PcieLink, EveryGenerationAndWidth) {
  for (int gen = 1; gen <= 5; ++gen) {
    for (int lanes : {1, 2, 4, 8, 16}) {
      const std::string text = "gen" + std::to_string(gen) + "x" + std::to_string(lanes);
      const PcieLink link = ParsePcieLink(text);
      EXPECT_EQ(link.generation, gen);
      EXPECT_EQ(link.lanes, lanes);
      EXPECT_EQ(link.ToString(), text);
    }
  }
  EXPECT_EQ(ParsePcieLink("Gen4X8").ToString(), "gen4x8");
}

TEST(PcieLink, Bandwidth) {
  EXPECT_DOUBLE_EQ(ParsePcieLink("gen1x1").BytesPerSecond(), 250e6);  // 2.5 GT/s, 8b/10b
  EXPECT_DOUBLE_EQ(ParsePcieLink("gen2x16").BytesPerSecond(), 8e9);
  EXPECT_NEAR(ParsePcieLink("gen3x16").BytesPerSecond(), 15.754e9, 1e6);  // 128b/130b
  EXPECT_NEAR(ParsePcieLink("gen5x16").BytesPerSecond(), 63.015e9, 1e6);
  EXPECT_STREQ(ParsePcieLink("gen2x1").Encoding(), "8b/10b");
  EXPECT_STREQ(ParsePcieLink("gen3x1").Encoding(), "128b/130b");
  const PcieLink fallback;
  EXPECT_EQ(fallback.ToString(), "gen3x16");  // the default (docs/cli.md, --pcie)
}

TEST(PcieLink, Rejects) {
  for (const char* text :
       {"", "gen", "gen3", "gen3x", "gen0x16", "gen6x16", "gen3x3", "gen3x32", "gen3x016", "gen3x0",
        "pcie3x16", "gen3x16 ", "gen33x16", "3x16", "gen3*16", "gen-3x16"}) {
    ExpectThrowContaining([&] { ParsePcieLink(text); },
                          "'" + std::string(text) +
                              "' is not a PCIe link: expected genGxL with generation G in 1..5 "
                              "and L in 1, 2, 4, 8, 16 lanes, e.g. gen3x16");
  }
}

TEST(TraceWindow, Parses) {
  uint64_t a = 7, b = 7;
  ParseTraceWindow("100:400", a, b);
  EXPECT_EQ(a, 100u);
  EXPECT_EQ(b, 400u);
  ParseTraceWindow(":50", a, b);
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 50u);
  ParseTraceWindow("50:", a, b);
  EXPECT_EQ(a, 50u);
  EXPECT_EQ(b, UINT64_MAX);
  ExpectThrowContaining([&] { ParseTraceWindow("100", a, b); }, "expected FIRST:LAST cycles");
  ExpectThrowContaining([&] { ParseTraceWindow("a:5", a, b); }, "whole numbers");
  ExpectThrowContaining([&] { ParseTraceWindow("-1:5", a, b); }, "whole numbers");
  ExpectThrowContaining([&] { ParseTraceWindow("5:5", a, b); }, "LAST must be after FIRST");
}

// The progress line of a long simulation (issue: "~100% of an estimated 676" while far from
// done): the share is rounded down below the estimate, and past it the line says so.
TEST(ProgressLine, SaysWhenTheEstimateIsPassed) {
  EXPECT_EQ(SimulationProgressText(338, 676, 1.0),
            "tpu: simulating: 338 device cycles, ~50% of an estimated 676 (one per MXU row), "
            "0 kcycles/s");
  EXPECT_NE(SimulationProgressText(675, 676, 1.0).find("~99% of an estimated 676"),
            std::string::npos);
  for (uint64_t cycles : {676u, 5000u}) {
    const std::string text = SimulationProgressText(cycles, 676, 2.0);
    EXPECT_EQ(text.find('%'), std::string::npos) << text;
    EXPECT_NE(text.find("past the 676 of one per MXU row (stalls come on top; no estimate left)"),
              std::string::npos)
        << text;
  }
  EXPECT_NE(SimulationProgressText(4000, 0, 2.0).find("2 kcycles/s"), std::string::npos);
}

TEST(LayerOptions, Resolve) {
  LayerOptions o;
  o.pcie = "gen4x4";
  o.trace = "t.fst";
  o.trace_window = "10:20";
  const BackendOptions r = ResolveBackendOptions(o);
  EXPECT_EQ(r.link.ToString(), "gen4x4");
  EXPECT_EQ(r.trace_path, "t.fst");
  EXPECT_EQ(r.trace_begin, 10u);
  EXPECT_EQ(r.trace_end, 20u);
  o.trace.clear();
  ExpectThrowContaining([&] { ResolveBackendOptions(o); }, "needs --trace FILE.fst");
  o.trace_window.clear();
  o.pcie = "gen9x1";
  ExpectThrowContaining([&] { ResolveBackendOptions(o); }, "--pcie: 'gen9x1' is not a PCIe link");
}

// ---------------------------------------------------------------------------------------------
// Backends and the report

TEST(Backends, Factory) {
  EXPECT_EQ(MakeBackend("golden", {})->name(), "golden");
  // The runtime carries no simulator: `tpu` composes rtl in its main (tpu_main.cpp).
  ExpectThrowContaining([] { MakeBackend("rtl", {}); },
                        std::string("--backend rtl: ") + kRtlUnavailable);
  ExpectThrowContaining([] { MakeBackend("rtl", {}); }, "not built into this program");
  ExpectThrowContaining([] { MakeBackend("tpu", {}); }, "--backend tpu: expected golden, rtl or model");
  BackendOptions traced;
  traced.trace_path = "x.fst";
  ExpectThrowContaining([&] { MakeBackend("golden", traced); }, "--trace x.fst: the golden");
}

TEST(Backends, GoldenComputesTheGoldenLayer) {
  compiler::DenseLayer layer;
  layer.weights = Tensor<int8_t>({3, 2}, {1, -1, 2, 0, 3, 1});
  layer.bias = {1, -3};
  layer.input_zero_point = 1;
  layer.requant.multipliers = {{1 << 30, 0}};
  layer.requant.out_zero_point = 100;
  const Tensor<int8_t> x({2, 3}, {1, 2, 3, -1, 0, 5});
  const LayerResult<int8_t> y = MakeBackend("golden", {})->RunDense(x, layer);
  EXPECT_EQ(y.output.data, (std::vector<int8_t>{105, 100, 105, 102}));
  EXPECT_FALSE(y.stats.cycles.has_value());
  EXPECT_EQ(MakeBackend("golden", {})->RunGemm(x, layer.weights).output.data,
            (std::vector<int32_t>{14, 2, 14, 6}));
}

TEST(Report, NotAvailableFigures) {
  Report r("title");
  r.AddNotAvailable("cycles", "cycles", "RTL backend only");
  r.Add("macs", "MACs", int64_t{12});
  std::ostringstream text, json;
  r.PrintText(text);
  r.PrintJson(json);
  EXPECT_NE(text.str().find("cycles  n/a (RTL backend only)"), std::string::npos) << text.str();
  EXPECT_EQ(json.str(), "{\"report\": \"title\", \"cycles\": null, \"macs\": 12}\n");
}

TEST(Report, RunFiguresFromTheBackend) {
  RunStats stats;
  stats.cycles = 2000;
  stats.clock_mhz = 1000.0;
  stats.mxu_utilization = 0.5;
  stats.pcie_bytes_to_device = 4096;
  Report r("t");
  BackendOptions options;
  AddRunFigures(r, options, stats, 1000000, 0.25);
  std::ostringstream json;
  r.PrintJson(json);
  EXPECT_NE(json.str().find("\"cycles\": 2000"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"simulated_us\": 2,"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"tops\": 1,"), std::string::npos) << json.str();  // 2e6 ops in 2 us
  EXPECT_NE(json.str().find("\"mxu_utilization\": 0.5"), std::string::npos);
  EXPECT_NE(json.str().find("\"pcie_bytes_to_device\": 4096"), std::string::npos);
  EXPECT_NE(json.str().find("\"pcie_bytes_from_device\": null"), std::string::npos);
}

// The figures the rtl backend measures, in round numbers: every key, value and unit.
TEST(Report, RunFiguresOfAnRtlRun) {
  RunStats stats;
  stats.cycles = 1400;
  stats.clock_mhz = 700.0;          // 1400 cycles = 2 us
  stats.device_seconds = 4e-6;      // doorbell to interrupt
  stats.mxu_utilization = 0.25;
  stats.stalls = {{"weights", 10}, {"act_in", 20}, {"dma", 30}, {"dep", 40}};
  stats.pcie_bytes_to_device = 8000;    // 2 GB/s over 4 us
  stats.pcie_bytes_from_device = 2000;  // 0.5 GB/s
  stats.pcie_payload_limit_bytes_per_s = 4e9;
  stats.simulated_cycles = 5000;  // in 0.5 s of wall-clock time: 10 kcycles/s
  stats.trace_path = "t.fst";
  BackendOptions options;
  options.link = ParsePcieLink("gen2x8");
  Report r("t");
  AddRunFigures(r, options, stats, 1000000, 0.5);
  std::ostringstream json, text;
  r.PrintJson(json);
  r.PrintText(text);
  for (const char* part :
       {"\"pcie\": \"gen2x8 (5 GT/s per lane, 8b/10b)\"", "\"pcie_link_gbytes_per_s\": 4,",
        "\"pcie_payload_limit_gbytes_per_s\": 4,", "\"macs\": 1000000,", "\"cycles\": 1400,",
        "\"clock_mhz\": 700,", "\"compute_us\": 2,", "\"simulated_us\": 4,",
        "\"tops\": 0.5,", "\"mxu_utilization\": 0.25,", "\"stall_weights\": 10,",
        "\"stall_act_in\": 20,", "\"stall_dma\": 30,", "\"stall_dep\": 40,",
        "\"pcie_bytes_to_device\": 8000,", "\"pcie_bytes_to_device_gbytes_per_s\": 2,",
        "\"pcie_bytes_to_device_of_limit\": 0.5,", "\"pcie_bytes_from_device\": 2000,",
        "\"pcie_bytes_from_device_gbytes_per_s\": 0.5,",
        "\"pcie_bytes_from_device_of_limit\": 0.125,", "\"wall_s\": 0.5,",
        "\"sim_kcycles_per_s\": 10,", "\"trace\": \"t.fst\"}"}) {
    EXPECT_NE(json.str().find(part), std::string::npos) << json.str() << "\nmissing: " << part;
  }
  EXPECT_EQ(json.str().find("null"), std::string::npos) << json.str();
  EXPECT_EQ(json.str().find("stall_cycles"), std::string::npos) << json.str();
  for (const char* part :
       {"simulated time (doorbell to interrupt)", "4.000 us", "device clock", "700.0 MHz",
        "stall cycles: MXU waits for a weight tile", "PCIe payload bytes host -> device",
        "    over the simulated time", "2.000 GB/s", "10.0 kcycles/s", "waveform (FST)"}) {
    EXPECT_NE(text.str().find(part), std::string::npos) << text.str() << "\nmissing: " << part;
  }
}

// ---------------------------------------------------------------------------------------------
// --check

TEST(Check, ComparesAndNamesTheFirstMismatch) {
  const Tensor<int8_t> want({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor<int8_t> got = want;
  Report same("t");
  EXPECT_EQ(ReportCheck(same, "rtl", "output", got, want), "");
  got.data[4] = -9;
  got.data[5] = 0;
  Report r("t");
  EXPECT_EQ(ReportCheck(r, "rtl", "output", got, want),
            "--check: first mismatch at output[1][1] (row 1, column 1): rtl -9, golden 5 "
            "(2 of 6 differ)");
  std::ostringstream text;
  r.PrintText(text);
  EXPECT_NE(text.str().find("FAIL (2 of 6 results differ)"), std::string::npos);
  const Tensor<int8_t> other_shape({3, 2}, want.data);
  Report r2("t");
  EXPECT_NE(ReportCheck(r2, "rtl", "output", other_shape, want).find("has shape [3, 2]"),
            std::string::npos);
}

// A backend that records what it was given and can corrupt one output element.
class FakeBackend : public LayerBackend {
 public:
  struct Log {
    compiler::DenseLayer layer;
    int dense_calls = 0;
  };
  FakeBackend(std::shared_ptr<Log> log, bool corrupt) : log_(std::move(log)), corrupt_(corrupt) {}
  std::string name() const override { return "fake"; }
  LayerResult<int8_t> RunDense(const Tensor<int8_t>& x, const compiler::DenseLayer& layer) override {
    log_->layer = layer;
    ++log_->dense_calls;
    LayerResult<int8_t> r{
        golden::Dense(x, layer.weights, layer.bias, layer.input_zero_point, layer.requant), {}};
    if (corrupt_) r.output.data.back() = static_cast<int8_t>(r.output.data.back() + 1);
    r.stats.cycles = 1234;
    return r;
  }
  LayerResult<int32_t> RunGemm(const Tensor<int8_t>&, const Tensor<int8_t>&) override { return {}; }

 private:
  std::shared_ptr<Log> log_;
  bool corrupt_;
};

class DenseInProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    npy::Write(dir_ / "x.npy", Tensor<int8_t>({2, 3}, {1, 2, 3, -1, 0, 5}));
    npy::Write(dir_ / "w.npy", Tensor<int8_t>({3, 2}, {1, -1, 2, 0, 3, 1}));
  }

  // Parses `args` as `dense ...` and runs it with FakeBackend; stdout and stderr are captured.
  int RunDense(const std::string& args, bool corrupt) {
    CLI::App app;
    auto log = log_;
    const CommandRunner runner =
        AddDenseCommand(app, [log, corrupt](const std::string&, const BackendOptions&) {
          return std::make_unique<FakeBackend>(log, corrupt);
        });
    app.parse("dense --input " + (dir_ / "x.npy") + " --weights " + (dir_ / "w.npy") +
                  " --output " + (dir_ / "y.npy") + " " + args,
              false);
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    int status = -1;
    try {
      status = runner();
    } catch (...) {
      std::cout.rdbuf(old_out);
      std::cerr.rdbuf(old_err);
      throw;
    }
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    out_ = out.str();
    err_ = err.str();
    return status;
  }

  tpu::testing::ScratchDir dir_;
  std::shared_ptr<FakeBackend::Log> log_ = std::make_shared<FakeBackend::Log>();
  std::string out_, err_;
};

TEST_F(DenseInProcess, MismatchExitsOneAndNamesTheElement) {
  EXPECT_EQ(RunDense("--scale 0.5 --check", true), 1);
  // Golden: x W = [[14, 2], [14, 6]] * 0.5 = [[7, 1], [7, 3]]; the fake adds 1 to the last.
  EXPECT_EQ(err_,
            "tpu dense: --check: first mismatch at output[1][1] (row 1, column 1): fake 4, "
            "golden 3 (1 of 4 differ)\n");
  EXPECT_NE(out_.find("FAIL (1 of 4 results differ)"), std::string::npos) << out_;
  EXPECT_NE(out_.find("1234"), std::string::npos) << out_;  // the backend's cycles reported
  // The backend's (wrong) output is still written, for inspection.
  EXPECT_EQ(npy::Read<int8_t>(dir_ / "y.npy").data, (std::vector<int8_t>{7, 1, 7, 4}));
}

TEST_F(DenseInProcess, WithoutCheckAWrongResultGoesUnnoticed) {
  EXPECT_EQ(RunDense("--scale 0.5", true), 0);
  EXPECT_TRUE(err_.empty());
  EXPECT_NE(out_.find("not requested (--check)"), std::string::npos);
}

TEST_F(DenseInProcess, TheLayerTheBackendGets) {
  EXPECT_EQ(RunDense("--scale 0.5 --input-zero-point 1 --output-zero-point -20 --activation relu6 "
                     "--output-scale 0.25",
                     false),
            0);
  ASSERT_EQ(log_->dense_calls, 1);
  const compiler::DenseLayer& l = log_->layer;
  EXPECT_EQ(l.weights.shape, (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(l.bias.empty());
  EXPECT_EQ(l.input_zero_point, 1);
  ASSERT_EQ(l.requant.multipliers.size(), 1u);
  EXPECT_EQ(l.requant.multipliers[0].multiplier, 1 << 30);
  EXPECT_EQ(l.requant.multipliers[0].shift, 0);
  EXPECT_EQ(l.requant.out_zero_point, -20);
  EXPECT_EQ(l.requant.act_min, -20);       // relu6: q(0) = zero point
  EXPECT_EQ(l.requant.act_max, -20 + 24);  // q(6) = -20 + 6 / 0.25
}

TEST_F(DenseInProcess, ScaleQuantizedLikeTflite) {
  EXPECT_EQ(RunDense("--scale 0.0001", false), 0);
  const golden::QuantizedMultiplier want = golden::QuantizeMultiplier(0.0001);
  EXPECT_EQ(log_->layer.requant.multipliers[0].multiplier, want.multiplier);
  EXPECT_EQ(log_->layer.requant.multipliers[0].shift, want.shift);
  EXPECT_EQ(want.shift, -13);  // 0.0001 = 0.8192 * 2^-13
  EXPECT_NE(
      out_.find("--scale 0.0001 -> multiplier " + std::to_string(want.multiplier) + ", shift -13"),
      std::string::npos)
      << out_;
}

TEST_F(DenseInProcess, BackendNotCalledOnBadInput) {
  npy::Write(dir_ / "w.npy", Tensor<int8_t>({4, 2}));
  ExpectThrowContaining([&] { RunDense("--scale 1", false); }, "expected (K, N) with K = 3");
  EXPECT_EQ(log_->dense_calls, 0);
}

// ---------------------------------------------------------------------------------------------
// The other layers (conv2d, pool, activation)

TEST(SizePair, OneOrTwoNumbersInRange) {
  EXPECT_EQ(ParseSizePair("--window", "3", 1, 15, "w"), (std::pair<int64_t, int64_t>{3, 3}));
  EXPECT_EQ(ParseSizePair("--window", "2,15", 1, 15, "w"), (std::pair<int64_t, int64_t>{2, 15}));
  for (const char* bad : {"", "0", "16", "2,", ",2", "1,2,3", "a", "-1", "2 ,3", "99999999999"}) {
    ExpectThrowContaining([&] { ParseSizePair("--window", bad, 1, 15, "the window"); },
                          "--window " + std::string(bad) +
                              ": expected the window as N or N,M with 1 <= N, M <= 15");
  }
}

TEST(CompareTest, NhwcMismatchNamesTheFullIndex) {
  const Tensor<int8_t> want({1, 2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor<int8_t> got = want;
  got.data[7] = 70;  // (0, 1, 0, 1)
  got.data[11] = 0;
  Report r("t");
  EXPECT_EQ(ReportCheck(r, "rtl", "output", got, want),
            "--check: first mismatch at output[0][1][0][1]: rtl 70, golden 7 (2 of 12 differ)");
}

TEST(GoldenBackendTest, OtherLayersAreTheGoldenFunctions) {
  auto backend = MakeBackend("golden", {});
  std::vector<int8_t> values(2 * 5 * 4 * 3);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int8_t>(i * 37 + 11);
  const Tensor<int8_t> x({2, 5, 4, 3}, values);
  compiler::Conv2dLayer conv;
  conv.weights = Tensor<int8_t>({3, 2, 3, 2}, std::vector<int8_t>(values.begin(), values.begin() + 36));
  conv.bias = {100, -200};
  conv.params = {2, 1, golden::Padding::kSame, 3};
  conv.requant.multipliers = {golden::QuantizeMultiplier(0.004), golden::QuantizeMultiplier(0.01)};
  conv.requant.out_zero_point = -5;
  conv.requant.act_min = -5;
  const LayerResult<int8_t> y = backend->RunConv2d(x, conv);
  EXPECT_EQ(y.output.data,
            golden::Conv2d(x, conv.weights, conv.bias, conv.params, conv.requant).data);
  EXPECT_EQ(y.output.shape, (std::vector<int64_t>{2, 3, 4, 2}));
  EXPECT_FALSE(y.stats.cycles);

  compiler::PoolLayer pool;
  pool.params.window_h = 3;
  pool.params.window_w = 2;
  pool.params.stride_h = 2;
  pool.params.padding = golden::Padding::kSame;
  pool.params.act_min = -100;
  pool.params.act_max = 90;
  EXPECT_EQ(backend->RunPool(x, pool).output.data, golden::MaxPool2d(x, pool.params).data);
  pool.kind = compiler::PoolKind::kAvg;
  EXPECT_EQ(backend->RunPool(x, pool).output.data, golden::AvgPool2d(x, pool.params).data);
  EXPECT_NE(golden::MaxPool2d(x, pool.params).data, golden::AvgPool2d(x, pool.params).data);

  // The clamp first, then the table (f(x) = x / 2 here): -128 -> clamp -20 -> -10.
  compiler::ActivationLayer act;
  act.act_min = -20;
  act.act_max = 50;
  const Tensor<int8_t> v({5}, {-128, -21, 0, 51, 127});
  EXPECT_EQ(backend->RunActivation(v, act).output.data, (std::vector<int8_t>{-20, -20, 0, 50, 50}));
  golden::Lut lut{};
  for (int i = 0; i < 256; ++i) lut[size_t(i)] = static_cast<int8_t>((i - 128) / 2);
  act.lut = lut;
  EXPECT_EQ(backend->RunActivation(v, act).output.data, (std::vector<int8_t>{-10, -10, 0, 25, 25}));
}

TEST(GoldenBackendTest, ABackendWithoutALayerTypeSaysSo) {
  auto log = std::make_shared<FakeBackend::Log>();
  FakeBackend fake(log, false);
  const Tensor<int8_t> x({1, 2, 2, 1});
  ExpectThrowContaining([&] { fake.RunConv2d(x, {}); },
                        "--backend fake: conv2d layers do not run on this backend");
  ExpectThrowContaining([&] { fake.RunPool(x, {}); },
                        "--backend fake: pool layers do not run on this backend");
  ExpectThrowContaining([&] { fake.RunActivation(x, {}); },
                        "--backend fake: activation layers do not run on this backend");
}

// A backend that runs conv2d layers by the golden reference, records the layer and can
// corrupt one output element.
class FakeConvBackend : public FakeBackend {
 public:
  struct ConvLog {
    compiler::Conv2dLayer layer;
    int calls = 0;
  };
  FakeConvBackend(std::shared_ptr<ConvLog> log, bool corrupt)
      : FakeBackend(std::make_shared<Log>(), false), log_(std::move(log)), corrupt_(corrupt) {}
  LayerResult<int8_t> RunConv2d(const Tensor<int8_t>& x,
                                const compiler::Conv2dLayer& layer) override {
    log_->layer = layer;
    ++log_->calls;
    LayerResult<int8_t> r{
        golden::Conv2d(x, layer.weights, layer.bias, layer.params, layer.requant), {}};
    if (corrupt_) r.output.data.back() = static_cast<int8_t>(r.output.data.back() + 1);
    return r;
  }

 private:
  std::shared_ptr<ConvLog> log_;
  bool corrupt_;
};

class Conv2dInProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    npy::Write(dir_ / "x.npy", Tensor<int8_t>({1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
    npy::Write(dir_ / "w.npy", Tensor<int8_t>({2, 2, 1, 2}, {1, 0, 1, 0, 1, 0, 1, 1}));
  }

  int Run(const std::string& args, bool corrupt) {
    CLI::App app;
    auto log = log_;
    const CommandRunner runner =
        AddConv2dCommand(app, [log, corrupt](const std::string&, const BackendOptions&) {
          return std::make_unique<FakeConvBackend>(log, corrupt);
        });
    app.parse("conv2d --input " + (dir_ / "x.npy") + " --weights " + (dir_ / "w.npy") +
                  " --output " + (dir_ / "y.npy") + " " + args,
              false);
    std::ostringstream out, err;
    auto* old_out = std::cout.rdbuf(out.rdbuf());
    auto* old_err = std::cerr.rdbuf(err.rdbuf());
    int status = -1;
    try {
      status = runner();
    } catch (...) {
      std::cout.rdbuf(old_out);
      std::cerr.rdbuf(old_err);
      throw;
    }
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    out_ = out.str();
    err_ = err.str();
    return status;
  }

  tpu::testing::ScratchDir dir_;
  std::shared_ptr<FakeConvBackend::ConvLog> log_ = std::make_shared<FakeConvBackend::ConvLog>();
  std::string out_, err_;
};

TEST_F(Conv2dInProcess, MismatchExitsOneAndNamesTheNhwcElement) {
  // Channel 0 sums the 2x2 window (12, 16, 24, 28), channel 1 its bottom-right (5, 6, 8, 9);
  // the fake adds 1 to the last.
  EXPECT_EQ(Run("--scale 1 --check", true), 1);
  EXPECT_EQ(err_,
            "tpu conv2d: --check: first mismatch at output[0][1][1][1]: fake 10, golden 9 "
            "(1 of 8 differ)\n");
  EXPECT_NE(out_.find("FAIL (1 of 8 results differ)"), std::string::npos) << out_;
  EXPECT_EQ(npy::Read<int8_t>(dir_ / "y.npy").data,
            (std::vector<int8_t>{12, 5, 16, 6, 24, 8, 28, 10}));
  EXPECT_EQ(Run("--scale 1 --check", false), 0);
  EXPECT_NE(out_.find("PASS (8 int8 results bit-exact)"), std::string::npos) << out_;
}

TEST_F(Conv2dInProcess, TheLayerTheBackendGets) {
  npy::Write(dir_ / "b.npy", Tensor<int32_t>({2}, {7, -7}));
  npy::Write(dir_ / "m.npy", Tensor<int32_t>({2}, {1 << 30, 1 << 30}));
  npy::Write(dir_ / "s.npy", Tensor<int32_t>({2}, {1, -2}));
  EXPECT_EQ(Run("--bias " + (dir_ / "b.npy") + " --multipliers " + (dir_ / "m.npy") +
                    " --shifts " + (dir_ / "s.npy") +
                    " --strides 2,1 --padding same --input-zero-point 4 --output-zero-point -9 "
                    "--activation relu",
                false),
            0);
  ASSERT_EQ(log_->calls, 1);
  const compiler::Conv2dLayer& l = log_->layer;
  EXPECT_EQ(l.weights.shape, (std::vector<int64_t>{2, 2, 1, 2}));
  EXPECT_EQ(l.bias, (std::vector<int32_t>{7, -7}));
  EXPECT_EQ(l.params.stride_h, 2);
  EXPECT_EQ(l.params.stride_w, 1);
  EXPECT_EQ(l.params.padding, golden::Padding::kSame);
  EXPECT_EQ(l.params.input_zero_point, 4);
  ASSERT_EQ(l.requant.multipliers.size(), 2u);
  EXPECT_EQ(l.requant.multipliers[1].shift, -2);
  EXPECT_EQ(l.requant.out_zero_point, -9);
  EXPECT_EQ(l.requant.act_min, -9);
  EXPECT_EQ(l.requant.act_max, 127);
  EXPECT_NE(out_.find("multiply-accumulates (N x OH x OW x KH x KW x Cin x Cout)"),
            std::string::npos)
      << out_;
}

TEST_F(Conv2dInProcess, BackendNotCalledOnBadInput) {
  npy::Write(dir_ / "w.npy", Tensor<int8_t>({2, 2, 2, 1}));
  ExpectThrowContaining([&] { Run("--scale 1", false); }, "with Cin = 1, the channels");
  EXPECT_EQ(log_->calls, 0);
}

// ---------------------------------------------------------------------------------------------
// The restart with huge pages for the heap

TEST(HugePageTunables, OnlyMadviseModeAsksForTheTunable) {
  EXPECT_EQ(HugePageTunables(nullptr, "always [madvise] never\n", nullptr),
            std::optional<std::string>("glibc.malloc.hugetlb=1"));
  EXPECT_EQ(HugePageTunables(nullptr, "[always] madvise never\n", nullptr), std::nullopt);
  EXPECT_EQ(HugePageTunables(nullptr, "always madvise [never]\n", nullptr), std::nullopt);
  EXPECT_EQ(HugePageTunables(nullptr, "", nullptr), std::nullopt);  // no such file
}

TEST(HugePageTunables, KeepsTheUsersTunablesAndChoice) {
  const std::string madvise = "always [madvise] never\n";
  EXPECT_EQ(HugePageTunables("glibc.malloc.arena_max=2", madvise, nullptr),
            std::optional<std::string>("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
  // Set already, by the user (any value) or by the restart itself: no second restart.
  EXPECT_EQ(HugePageTunables("glibc.malloc.hugetlb=0", madvise, nullptr), std::nullopt);
  EXPECT_EQ(HugePageTunables("glibc.malloc.hugetlb=1", madvise, nullptr), std::nullopt);
  EXPECT_EQ(HugePageTunables(nullptr, madvise, "0"), std::nullopt);  // TPU_HUGE_PAGES=0
  EXPECT_EQ(HugePageTunables(nullptr, madvise, "1"),
            std::optional<std::string>("glibc.malloc.hugetlb=1"));
}

}  // namespace
}  // namespace tpu::cli
