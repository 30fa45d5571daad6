// Running networks in-process: the golden backend against the reference, --check finding the
// first wrong layer, a backend's failure named by layer, and `tpu run` (exit status, output
// file, JSON report) with substitute backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "devices/devices_gen.h"
#include "golden/activation.h"
#include "golden/conv.h"
#include "golden/dense.h"
#include "golden/pool.h"
#include "network/network.h"
#include "network/dataset_run.h"
#include "network/network_run.h"
#include "run_report.h"
#include "network_testing.h"

namespace tpu::network {
namespace {

using golden::Tensor;
using testing::WriteSmallNetwork;
using tpu::testing::ScratchDir;

// The golden backend with figures, optionally corrupting one element of one layer type's output.
class FakeBackend : public runtime::LayerBackend {
 public:
  // Corrupts `corrupt` layers' outputs after the first `spare` of them.
  explicit FakeBackend(std::string corrupt = "", std::string fail = "", int spare = 0)
      : golden_(runtime::MakeBackend("golden", {})), corrupt_(std::move(corrupt)),
        fail_(std::move(fail)), spare_(spare) {}
  std::string name() const override { return "fake"; }
  runtime::LayerResult<int8_t> RunDense(const Tensor<int8_t>& x,
                                    const compiler::DenseLayer& l) override {
    return Touch("dense", golden_->RunDense(x, l));
  }
  runtime::LayerResult<int32_t> RunGemm(const Tensor<int8_t>& a, const Tensor<int8_t>& b) override {
    return golden_->RunGemm(a, b);
  }
  runtime::LayerResult<int8_t> RunConv2d(const Tensor<int8_t>& x,
                                     const compiler::Conv2dLayer& l) override {
    return Touch("conv2d", golden_->RunConv2d(x, l));
  }
  runtime::LayerResult<int8_t> RunPool(const Tensor<int8_t>& x, const compiler::PoolLayer& l) override {
    return Touch("pool", golden_->RunPool(x, l));
  }
  runtime::LayerResult<int8_t> RunActivation(const Tensor<int8_t>& x,
                                         const compiler::ActivationLayer& l) override {
    return Touch("activation", golden_->RunActivation(x, l));
  }

 private:
  runtime::LayerResult<int8_t> Touch(const std::string& type, runtime::LayerResult<int8_t> r) {
    if (type == fail_) throw std::runtime_error("the fake cannot run " + type);
    if (type == corrupt_ && spare_-- <= 0) r.output.data[3] = int8_t(r.output.data[3] ^ 1);
    r.stats.cycles = 100;
    r.stats.clock_mhz = 700;
    r.stats.mxu_utilization = 0.25;
    r.stats.device_seconds = 1e-6;
    r.stats.pcie_bytes_to_device = 1000;
    r.stats.pcie_bytes_from_device = 10;
    r.stats.simulated_cycles = 150;
    return r;
  }
  std::unique_ptr<runtime::LayerBackend> golden_;
  std::string corrupt_, fail_;
  int spare_ = 0;
};

TEST(NetworkRun, GoldenBackendMatchesReferenceEveryLayer) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");
  auto backend = runtime::MakeBackend("golden", {});
  RunOptions options;
  options.check = true;
  const NetworkRun run = RunNetwork(net, x, *backend, options);
  ASSERT_EQ(run.layers.size(), net.layers.size());
  for (size_t i = 0; i < run.layers.size(); ++i) {
    ASSERT_TRUE(run.layers[i].check.has_value());
    EXPECT_TRUE(run.layers[i].check->ok()) << i;
    EXPECT_EQ(run.layers[i].output.shape, net.layers[i].output_shape);
  }
  EXPECT_TRUE(run.layers[3].on_host);  // flatten
  ASSERT_TRUE(run.check.has_value());
  EXPECT_TRUE(run.check->ok());
  EXPECT_EQ(run.output.data, ReferenceNetwork(net, x).data);
}

// The reference spelled out with the golden kernels, independently of ReferenceLayer: the
// zero points that flow through the network are the ones each kernel gets.
TEST(NetworkRun, ReferenceIsTheGoldenKernelsInOrder) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir, 7));
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");
  golden::RequantParams conv_rq;
  const Tensor<int32_t> cm = npy::Read<int32_t>(dir / "cm.npy");
  const Tensor<int32_t> cs = npy::Read<int32_t>(dir / "cs.npy");
  for (size_t c = 0; c < 5; ++c) conv_rq.multipliers.push_back({cm.data[c], cs.data[c]});
  conv_rq.out_zero_point = -2;
  conv_rq.act_min = -2;  // relu
  Tensor<int8_t> y = golden::Conv2d(x, npy::Read<int8_t>(dir / "cw.npy"),
                                    npy::Read<int32_t>(dir / "cb.npy").data,
                                    {1, 1, golden::Padding::kSame, 3}, conv_rq);
  golden::Pool2dParams pool;
  pool.window_h = pool.window_w = pool.stride_h = pool.stride_w = 2;
  y = golden::MaxPool2d(y, pool);
  golden::Lut lut;
  const Tensor<int8_t> table = npy::Read<int8_t>(dir / "lut.npy");
  std::copy(table.data.begin(), table.data.end(), lut.begin());
  y = golden::ApplyLut(y, lut);
  y = Tensor<int8_t>({2, 45}, y.data);
  golden::RequantParams fc_rq;
  fc_rq.multipliers = {golden::QuantizeMultiplier(0.004)};
  fc_rq.out_zero_point = 4;
  y = golden::Dense(y, npy::Read<int8_t>(dir / "dw.npy"), npy::Read<int32_t>(dir / "db.npy").data,
                    /*input_zero_point=*/1, fc_rq);
  for (int8_t& v : y.data) v = std::max<int8_t>(v, 4);  // relu at zero point 4
  const Tensor<int8_t> got = ReferenceNetwork(net, x);
  EXPECT_EQ(got.shape, y.shape);
  EXPECT_EQ(got.data, y.data);
  // Not a degenerate output.
  EXPECT_GT(std::count_if(y.data.begin(), y.data.end(), [](int8_t v) { return v != 4; }), 3);
}

TEST(NetworkRun, CheckFindsTheWrongLayer) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");
  FakeBackend backend("pool");
  RunOptions options;
  options.check = true;
  const NetworkRun run = RunNetwork(net, x, backend, options);
  EXPECT_TRUE(run.layers[0].check->ok());
  EXPECT_FALSE(run.layers[1].check->ok());
  EXPECT_EQ(run.layers[1].check->mismatches, 1u);
  EXPECT_EQ(run.layers[1].check->first, 3u);
  // Later layers are checked on their own (wrong) input: they are right about it.
  EXPECT_TRUE(run.layers[2].check->ok());
  EXPECT_TRUE(run.layers[4].check->ok());
}

// A data set in batches (2, 2, 1): each layer's figures are the sums over the batches, and
// --check counts the mismatches of every batch, the first one's index in the whole output.
TEST(NetworkRun, DatasetSumsFiguresAndChecksEveryBatch) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  std::mt19937 rng(3);
  const Tensor<int8_t> x = testing::RandomInt8({5, 6, 6, 3}, rng);
  FakeBackend backend("pool", "", /*spare=*/1);  // the first batch's pool is right
  DatasetOptions options;
  options.run.check = true;
  const DatasetRun d = RunDataset(net, x, backend, options);
  EXPECT_EQ(d.batches, 3);
  const LayerRun& pool = d.run.layers[1];
  EXPECT_EQ(pool.stats.cycles, 300);
  EXPECT_EQ(pool.stats.pcie_bytes_to_device, 3000);
  EXPECT_EQ(pool.stats.simulated_cycles, 450);
  EXPECT_DOUBLE_EQ(*pool.stats.mxu_utilization, 0.25);
  EXPECT_DOUBLE_EQ(*pool.stats.device_seconds, 3e-6);
  ASSERT_TRUE(pool.check.has_value());
  EXPECT_EQ(pool.check->total, 5u * 45);
  EXPECT_EQ(pool.check->mismatches, 2u);
  EXPECT_EQ(pool.check->first, 2u * 45 + 3);  // element 3 of the second batch
  EXPECT_TRUE(d.run.layers[0].check->ok());
  EXPECT_TRUE(d.run.layers[3].on_host);
  EXPECT_FALSE(d.run.check->ok());
  const cli::RunVerdict v = cli::JudgeNetworkRun(WithBatch(net, 5), d.run, "fake", true);
  EXPECT_NE(v.mismatch.find("first wrong layer layers[1] (pool \"pool1\"): first mismatch at "
                            "output[2][0][0][3]"),
            std::string::npos)
      << v.mismatch;
  EXPECT_NE(v.mismatch.find("(2 of 225 differ)"), std::string::npos) << v.mismatch;
}

TEST(NetworkRun, BackendFailureNamesTheLayer) {
  ScratchDir dir;
  const Network net = LoadNetwork(WriteSmallNetwork(dir));
  const Tensor<int8_t> x = npy::Read<int8_t>(dir / "x.npy");
  FakeBackend backend("", "activation");
  try {
    RunNetwork(net, x, backend);
    FAIL();
  } catch (const NetworkError& e) {
    EXPECT_NE(std::string(e.what()).find("layers[2] (activation \"activation2\"): the fake "
                                         "cannot run activation"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(RunNetwork(net, Tensor<int8_t>({1, 6, 6, 3}), backend), NetworkError);
}

TEST(NetworkRun, CheckLoweringNamesTheLayerTheDeviceCannotHold) {
  ScratchDir dir;
  EXPECT_NO_THROW(CheckLowering(LoadNetwork(WriteSmallNetwork(dir)), devices::DefaultDevice().limits));
  // A 40 x 40 image is 1600 accumulator rows: more than the device's 1024, so pooling runs in
  // bands of lines, which cannot exclude SAME padding from an average.
  const Network big = ParseNetwork(
      testing::NetworkJson({R"({"type": "activation", "function": "relu"})",
                            R"({"type": "pool", "name": "p", "mode": "avg", "window": [3, 3],
                                "padding": "same"})"},
                           R"({"shape": [1, 40, 40, 3]})"),
      dir.str(), "big.json");
  try {
    CheckLowering(big, devices::DefaultDevice().limits);
    FAIL();
  } catch (const NetworkError& e) {
    EXPECT_NE(std::string(e.what()).find("layers[1] (pool \"p\"): cannot be lowered to the "
                                         "device (input [1, 40, 40, 3])"),
              std::string::npos)
        << e.what();
  }
}

// `tpu run` in-process with the fake backend; stdout captured.
struct CommandResult {
  int status = -1;
  std::string out, err, error;  // error: what the runner threw
};

CommandResult RunCommand(const std::vector<std::string>& args, const std::string& corrupt = "") {
  CLI::App app;
  cli::CommandRunner runner = cli::AddRunCommand(
      app, [corrupt](const std::string& name, const runtime::BackendOptions& options)
               -> std::unique_ptr<runtime::LayerBackend> {
        if (name == "rtl") return std::make_unique<FakeBackend>(corrupt);
        return runtime::MakeBackend(name, options);
      });
  std::vector<std::string> argv = {"tpu", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> c_argv;
  for (auto& a : argv) c_argv.push_back(a.data());
  CommandResult r;
  app.parse(int(c_argv.size()), c_argv.data());
  std::stringstream out, err;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  auto* old_err = std::cerr.rdbuf(err.rdbuf());
  try {
    r.status = runner();
  } catch (const std::exception& e) {
    r.error = e.what();
    r.status = 2;
  }
  std::cout.rdbuf(old_out);
  std::cerr.rdbuf(old_err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

TEST(RunCommand, JsonReportPerLayerAndTotals) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir);
  const CommandResult r = RunCommand({net, "--input", dir / "x.npy", "--output", dir / "y.npy",
                                      "--backend", "rtl", "--check", "--report", "json",
                                      "--no-fold"});  // the file's six layers
  ASSERT_EQ(r.status, 0) << r.error << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["network"], "small");
  EXPECT_EQ(j["backend"], "fake");
  EXPECT_EQ(j["check"].get<std::string>().rfind("PASS (14 int8 results", 0), 0u) << j["check"];
  ASSERT_EQ(j["layers"].size(), 6u);
  EXPECT_EQ(j["layers"][0]["name"], "conv");
  EXPECT_EQ(j["layers"][0]["output_shape"], nlohmann::json({2, 6, 6, 5}));
  EXPECT_EQ(j["layers"][0]["cycles"], 100);
  EXPECT_EQ(j["layers"][0]["check"], "PASS");
  EXPECT_EQ(j["layers"][3]["on_host"], true);
  EXPECT_TRUE(j["layers"][3]["cycles"].is_null());
  EXPECT_EQ(j["device_runs"], 5);
  const auto& t = j["totals"];
  EXPECT_EQ(t["cycles"], 500);
  EXPECT_EQ(t["pcie_bytes_to_device"], 5000);
  EXPECT_EQ(t["pcie_bytes_from_device"], 50);
  EXPECT_DOUBLE_EQ(t["mxu_utilization"].get<double>(), 0.25);
  EXPECT_NEAR(t["simulated_us"].get<double>(), 5.0, 1e-9);
  EXPECT_EQ(t["macs"], 2 * 6 * 6 * 27 * 5 + 2 * 45 * 7);
  // Essential bytes: input + weights + bias (int32) + requant (int32 multiplier + int8 shift,
  // per tensor or per channel) + LUT + output; PCIe (1000 + 10 per layer) over them.
  const std::vector<std::vector<int64_t>> want = {
      {216, 135, 5 * 4 + 5 * 5, 360},  // conv: (2,6,6,3), 3x3x3x5, per-channel, (2,6,6,5)
      {360, 0, 0, 90},                 // pool
      {90, 0, 256, 90},                // lut
      {0, 0, 0, 0},                    // flatten: on the host
      {90, 45 * 7, 7 * 4 + 5, 14},     // dense: (2,45) -> (2,7), per tensor
      {14, 0, 0, 14}};                 // relu
  int64_t sum = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto& l = j["layers"][i];
    const auto& d = l["essential_bytes_detail"];
    EXPECT_EQ(d["input"], want[i][0]) << i;
    EXPECT_EQ(d["weights"], want[i][1]) << i;
    EXPECT_EQ(d["params"], want[i][2]) << i;
    EXPECT_EQ(d["output"], want[i][3]) << i;
    const int64_t total = want[i][0] + want[i][1] + want[i][2] + want[i][3];
    EXPECT_EQ(l["essential_bytes"], total) << i;
    sum += total;
    if (i == 3) {
      EXPECT_TRUE(l["pcie_over_essential"].is_null());
    } else {
      EXPECT_DOUBLE_EQ(l["pcie_over_essential"].get<double>(), 1010.0 / double(total)) << i;
    }
  }
  EXPECT_EQ(sum, 2122);
  EXPECT_EQ(t["essential_bytes"], sum);
  EXPECT_DOUBLE_EQ(t["pcie_over_essential"].get<double>(), 5050.0 / 2122.0);
  // The network's own: its input, all weights and parameters, its output.
  EXPECT_EQ(t["network_essential_bytes"], 216 + (135 + 315) + (45 + 256 + 33) + 14);
  EXPECT_EQ(t["network_essential_bytes_detail"]["weights"], 450);
  EXPECT_DOUBLE_EQ(t["pcie_over_network_essential"].get<double>(), 5050.0 / 1014.0);
  EXPECT_EQ(npy::Read<int8_t>(dir / "y.npy").shape, (std::vector<int64_t>{2, 7}));
}

TEST(RunCommand, GoldenTextReportHasTheTable) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir);
  const CommandResult r =
      RunCommand({net, "--input", dir / "x.npy", "--output", dir / "y.npy", "--check", "--no-fold"});
  ASSERT_EQ(r.status, 0) << r.error << r.err;
  for (const char* part : {"network \"small\" on the golden backend", "check vs golden",
                           "PASS", "output shape", "MXU util", "PCIe to dev", "essential", "PCIe/ess", "conv", "host",
                           "total", "n/a", "essential bytes: 2122 summed over the device layers",
                           "1014 for the network (input 216 + weights 450 + params 334 + output 14"}) {
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  }
  EXPECT_EQ(npy::Read<int8_t>(dir / "y.npy").data,
            ReferenceNetwork(LoadNetwork(net), npy::Read<int8_t>(dir / "x.npy")).data);
}

TEST(RunCommand, MismatchExitsOneNamingTheLayer) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir);
  const CommandResult r = RunCommand(
      {net, "--input", dir / "x.npy", "--output", dir / "y.npy", "--backend", "rtl", "--check"},
      "conv2d");
  EXPECT_EQ(r.status, 1) << r.error;
  EXPECT_NE(r.err.find("first wrong layer layers[0] (conv2d \"conv\"): first mismatch at "
                       "output[0][0][0][3]"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("FAIL"), std::string::npos);
}

TEST(RunCommand, BadInputFailsBeforeRunning) {
  ScratchDir dir;
  const std::string net = WriteSmallNetwork(dir);
  npy::Write(dir / "x2.npy", Tensor<int8_t>({2, 6, 6, 2}));
  CommandResult r = RunCommand({net, "--input", dir / "x2.npy", "--output", dir / "y.npy"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.error.find("--input: " + dir / "x2.npy" + ": shape (2, 6, 6, 2): expected (n, 6, "
                                                        "6, 3)"),
            std::string::npos)
      << r.error;
  r = RunCommand({dir / "none.json", "--input", dir / "x.npy", "--output", dir / "y.npy"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.error.find("none.json: cannot open"), std::string::npos) << r.error;
  r = RunCommand({net, "--input", dir / "x.npy", "--output", dir / "y.npy", "--trace",
                  dir / "t.fst"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.error.find("--trace"), std::string::npos) << r.error;
  EXPECT_TRUE(tpu::testing::ReadFile(dir / "y.npy").empty());
}

}  // namespace
}  // namespace tpu::network
